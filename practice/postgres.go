package practice

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/idempotency-lab/lab/sim"
)

// OpenPostgres opens a progress store in a PostgreSQL database, in the
// given schema (created if missing), and brings its tables up to date:
// the same store as Open's SQLite file, so several lab servers can share
// one. The queries are the SQLite store's own; the connection rewrites
// their ? placeholders as $1, $2… (rebinding).
func OpenPostgres(ctx context.Context, url, schema string, bank *Bank) (*Store, error) {
	if !validSchema().MatchString(schema) {
		return nil, fmt.Errorf("progress store: schema %q: use lower-case letters, digits and _", schema)
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("progress store: %w", err)
	}
	cfg.ConnectTimeout = 5 * time.Second
	admin := sql.OpenDB(stdlib.GetConnector(*cfg))
	defer admin.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := createSchema(ctx, admin, schema); err != nil {
		return nil, fmt.Errorf("progress store on PostgreSQL: %w", err)
	}
	cfg.RuntimeParams["search_path"] = schema
	db := sql.OpenDB(rebinding{stdlib.GetConnector(*cfg)})
	s := &Store{db: db, bank: bank, postgres: true}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("progress store on PostgreSQL: %w", err)
	}
	return s, nil
}

// migrationLock is the advisory lock that lab servers starting at once
// take in turn to create the schema and migrate it: CREATE … IF NOT
// EXISTS is no guard against a CREATE running at the same moment, which
// fails with 23505 on PostgreSQL's own catalog.
const migrationLock = 0x1ab_9a55

// createSchema creates the schema, if missing, under the migration lock.
func createSchema(ctx context.Context, db *sql.DB, schema string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS `+schema); err != nil {
		return err
	}
	return tx.Commit()
}

var validSchema = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`) })

// pgMigrations are migrations() for PostgreSQL: the same tables, with
// PostgreSQL's types (BIGINT for Unix milliseconds, which overflow its
// 32-bit INTEGER) and no STRICT (its tables are strict anyway).
func pgMigrations() []string {
	return []string{
		`CREATE TABLE profiles (
			id         TEXT   PRIMARY KEY,
			created_at BIGINT NOT NULL
		);
		CREATE TABLE attempts (
			profile     TEXT             NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
			id          TEXT             NOT NULL,
			question    TEXT             NOT NULL,
			score       DOUBLE PRECISION NOT NULL CHECK (score >= 0 AND score <= 1),
			answered_at BIGINT           NOT NULL,
			PRIMARY KEY (profile, id)
		);`,
		`CREATE INDEX attempts_by_question ON attempts (profile, question, answered_at, id);`,
		`CREATE TABLE solved (
			profile   TEXT   NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
			challenge TEXT   NOT NULL,
			steps     BIGINT NOT NULL CHECK (steps > 0),
			script    TEXT   NOT NULL,
			solved_at BIGINT NOT NULL,
			PRIMARY KEY (profile, challenge)
		);`,
		`CREATE TABLE code_grades (
			profile   TEXT   NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
			question  TEXT   NOT NULL,
			hash      TEXT   NOT NULL,
			outcome   TEXT   NOT NULL,
			graded_at BIGINT NOT NULL,
			PRIMARY KEY (profile, question, hash)
		);
		CREATE INDEX code_grades_by_time ON code_grades (profile, graded_at);`,
		`CREATE TABLE solutions_seen (
			profile   TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
			challenge TEXT    NOT NULL,
			seen_at   BIGINT NOT NULL, -- Unix milliseconds
			PRIMARY KEY (profile, challenge)
		);`,
	}
}

// rebinding is a connector whose connections rebind every query.
type rebinding struct{ inner driver.Connector }

func (c rebinding) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return rebindConn{conn}, nil
}

func (c rebinding) Driver() driver.Driver { return c.inner.Driver() }

// rebindConn is pgx's connection with every query rebound.
type rebindConn struct{ driver.Conn }

var errNoContext = errors.New("the PostgreSQL driver lacks a context method")

func (c rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(sim.Rebind(query))
}

func (c rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	p, ok := c.Conn.(driver.ConnPrepareContext)
	if !ok {
		return nil, errNoContext
	}
	return p.PrepareContext(ctx, sim.Rebind(query))
}

func (c rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	return e.ExecContext(ctx, sim.Rebind(query), args)
}

func (c rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	return q.QueryContext(ctx, sim.Rebind(query), args)
}

func (c rebindConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	b, ok := c.Conn.(driver.ConnBeginTx)
	if !ok {
		return nil, errNoContext
	}
	return b.BeginTx(ctx, opts)
}

func (c rebindConn) CheckNamedValue(v *driver.NamedValue) error {
	if nc, ok := c.Conn.(driver.NamedValueChecker); ok {
		return nc.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

func (c rebindConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c rebindConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}
