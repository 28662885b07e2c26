package sim

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"
)

// Engine is where the worlds of a run keep their data. nil (the default)
// is the embedded engine: an in-memory SQLite database and a miniredis per
// world. A real Engine runs the same handlers, the same SQL text, against
// a PostgreSQL server (through pgx's database/sql driver) and a Redis
// server: each world in a schema of its own, created for it and dropped
// after, and a Redis database of its own, emptied before and after. The
// simulated broker, clock and gateway stay as they are.
type Engine struct {
	pgURL, redisURL string
	admin           *sql.DB // creates and drops the worlds' schemas
	pgConfig        *pgx.ConnConfig
	redisOpt        *redis.Options

	// slots are Redis's numbered databases the worlds take turns with:
	// one world, one database, so each sees only its own keys.
	slots chan int
	seq   uint64
	mu    sync.Mutex
	// retired counts the databases taken out of line because they hold
	// keys that are not a world's (guarded by mu).
	retired int
}

// connectTimeout bounds every connection to a real server: a wrong
// address says so in seconds instead of hanging.
const connectTimeout = 5 * time.Second

// NewEngine connects to a PostgreSQL and a Redis server and checks that
// both answer. ctx bounds the checks.
func NewEngine(ctx context.Context, postgresURL, redisURL string) (*Engine, error) {
	cfg, err := pgx.ParseConfig(postgresURL)
	if err != nil {
		return nil, fmt.Errorf("--postgres: %w", err)
	}
	cfg.ConnectTimeout = connectTimeout
	ropt, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("--redis: %w", err)
	}
	ropt.DialTimeout = connectTimeout
	e := &Engine{pgURL: postgresURL, redisURL: redisURL, pgConfig: cfg, redisOpt: ropt, slots: make(chan int, 15)}
	e.admin = sql.OpenDB(stdlib.GetConnector(*cfg))
	ctx, cancel := context.WithTimeout(ctx, 2*connectTimeout)
	defer cancel()
	if err := e.admin.PingContext(ctx); err != nil {
		e.admin.Close()
		return nil, fmt.Errorf("--postgres %s: %w", redact(postgresURL), err)
	}
	probe := redis.NewClient(ropt)
	defer probe.Close()
	if err := probe.Ping(ctx).Err(); err != nil {
		e.admin.Close()
		return nil, fmt.Errorf("--redis %s: %w", redact(redisURL), err)
	}
	for i := 1; i <= 15; i++ {
		e.slots <- i
	}
	return e, nil
}

// Close closes the engine's own connection.
func (e *Engine) Close() error { return e.admin.Close() }

// String names the engine for people.
func (e *Engine) String() string {
	if e == nil {
		return "embedded (SQLite + miniredis)"
	}
	return "real (PostgreSQL + Redis)"
}

// redact hides a URL's password.
func redact(u string) string {
	return regexp.MustCompile(`://([^:/@]*):[^@]*@`).ReplaceAllString(u, "://$1:***@")
}

// schemaName is a fresh schema for one world.
func (e *Engine) schemaName() string {
	e.mu.Lock()
	e.seq++
	n := e.seq
	e.mu.Unlock()
	return fmt.Sprintf("lab_%d_%d", n, rand.Uint32()) // the name only, never the data: runs stay deterministic
}

// realWorld gives a world its PostgreSQL schema and Redis database.
func (w *world) openReal(e *Engine, schema string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*connectTimeout)
	defer cancel()
	name := e.schemaName()
	if _, err := e.admin.ExecContext(ctx, `CREATE SCHEMA `+name); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	w.dropSchema = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*connectTimeout)
		defer cancel()
		e.admin.ExecContext(ctx, `DROP SCHEMA `+name+` CASCADE`)
	}
	cfg := e.pgConfig.Copy()
	cfg.RuntimeParams["search_path"] = name
	w.pg, w.admin = stdlib.GetConnector(*cfg), e.admin
	w.conn = &recConnector{inner: w.pg, t: w.t, postgres: true, admin: e.admin}
	w.db = sql.OpenDB(w.conn)
	w.db.SetMaxIdleConns(4)
	w.t.io = w
	if _, err := w.db.ExecContext(ctx, pgSchema(schema)); err != nil {
		return fmt.Errorf("schema for %s on postgres: %w", w.handler.Name, err)
	}
	rows, err := w.db.QueryContext(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)
	if err != nil {
		return err
	}
	w.tables = map[string]bool{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		w.tables[t] = true
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if !w.handler.Redis {
		return nil
	}
	// Other lab servers may use the same Redis: a database is this
	// world's only while it holds the database's claim in database 0.
	// A database another server holds goes back in line. One that holds
	// keys is someone's data, which the world would mix with its own and
	// empty at its end: it is left alone, out of line for the engine's
	// life (retire).
	var unclaim func()
	for unclaim == nil {
		if err := e.allRetired(); err != nil {
			return err
		}
		select {
		case w.slot = <-e.slots:
		case <-ctx.Done():
			if err := e.allRetired(); err != nil {
				return err
			}
			return errors.New("redis: every database is in use")
		}
		var err error
		if unclaim, err = e.claim(ctx, w.slot); err != nil {
			e.slots <- w.slot
			return err
		}
		if unclaim != nil {
			empty, err := e.empty(ctx, w.slot)
			if err != nil {
				unclaim()
				e.slots <- w.slot
				return err
			}
			if empty {
				break
			}
			unclaim()
			unclaim = nil
			e.retire()
			continue
		}
		e.slots <- w.slot
		select {
		case <-ctx.Done():
			return errors.New("redis: every database is in use, by this lab server or others sharing the Redis")
		case <-time.After(5 * time.Millisecond):
		}
	}
	slot := w.slot
	w.release = func() {
		// The world's own client is closed by now: the database is
		// emptied through one of its own, then given back.
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		defer cancel()
		opt := *e.redisOpt
		opt.DB, opt.PoolSize = slot, 1
		rdb := redis.NewClient(&opt)
		rdb.FlushDB(ctx)
		rdb.Close()
		unclaim()
		e.slots <- slot
	}
	opt := *e.redisOpt
	opt.DB, opt.PoolSize, opt.Protocol, opt.DisableIdentity = w.slot, 1, 2, true
	w.rdb = redis.NewClient(&opt)
	// Dial the world's one connection now, before the recorder is hooked
	// in: otherwise the first command of the first worker dials it, and
	// the connection's own HELLO and SELECT count as that worker's calls
	// (the embedded engine's connection never does), so a crash or a
	// switch at call N would land elsewhere than on miniredis, and a
	// switch inside the dial would hold the pool's only connection.
	if err := w.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	w.rdb.AddHook(redisRecorder{t: w.t, scripts: &w.scripts})
	w.real = true
	return nil
}

// retire takes a database that holds someone's keys out of line.
func (e *Engine) retire() {
	e.mu.Lock()
	e.retired++
	e.mu.Unlock()
}

// allRetired is the error when every database holds someone's keys.
func (e *Engine) allRetired() error {
	e.mu.Lock()
	n := e.retired
	e.mu.Unlock()
	if n < cap(e.slots) {
		return nil
	}
	return fmt.Errorf("redis: databases 1 to %d all hold keys, and the lab runs each world in an empty database of its own and leaves it empty: "+
		"empty one (FLUSHDB, if its keys are nobody's) or give --redis another server", cap(e.slots))
}

// empty reports whether a Redis database holds no key. SCAN, not DBSIZE
// or INFO keyspace: those count keys whose lifetime ran out until
// something touches them, and SCAN skips such keys.
func (e *Engine) empty(ctx context.Context, slot int) (bool, error) {
	opt := *e.redisOpt
	opt.DB, opt.PoolSize = slot, 1
	rdb := redis.NewClient(&opt)
	defer rdb.Close()
	var cursor uint64
	for {
		keys, next, err := rdb.Scan(ctx, cursor, "*", 100).Result()
		if err != nil {
			return false, fmt.Errorf("redis: reading database %d: %w", slot, err)
		}
		if len(keys) > 0 {
			return false, nil
		}
		if cursor = next; cursor == 0 {
			return true, nil
		}
	}
}

// claimTTL bounds how long a database stays claimed by a lab server that
// died before it gave it back; runs are far shorter.
const claimTTL = 10 * time.Minute

// claim takes Redis database slot for one world across every lab server
// sharing the Redis: a key in database 0 (lab:engine:db:N), set only if
// absent. It returns nil when another server holds it; unclaim gives it
// back, if it is still this world's.
func (e *Engine) claim(ctx context.Context, slot int) (unclaim func(), err error) {
	opt := *e.redisOpt
	opt.DB, opt.PoolSize = 0, 1
	rdb := redis.NewClient(&opt)
	token := fmt.Sprintf("%s-%d", e.schemaName(), slot)
	key := fmt.Sprintf("lab:engine:db:%d", slot)
	ok, err := rdb.SetNX(ctx, key, token, claimTTL).Result()
	if err != nil || !ok {
		rdb.Close()
		if err != nil {
			return nil, fmt.Errorf("redis: claiming database %d: %w", slot, err)
		}
		return nil, nil
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		defer cancel()
		// Delete the claim only if it is still ours.
		rdb.Eval(ctx, `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`, []string{key}, token)
		rdb.Close()
	}, nil
}

// closeReal drops the world's schema, and empties its Redis database
// and gives it back (release: the world's client is closed before).
func (w *world) closeReal() {
	if w.release != nil {
		w.release()
	}
	if w.dropSchema != nil {
		w.dropSchema()
	}
}

// Rebind writes ? placeholders as PostgreSQL's $1, $2…, outside quotes:
// one SQL text serves both engines (the handlers', and the progress
// store's).
func Rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	n := 0
	var quote rune
	for _, r := range query {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '?':
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// realRedisKeys lists a real Redis database's keys, sorted.
func (w *world) realRedisKeys() []string {
	defer w.t.quiet()()
	keys, _ := w.rdb.Keys(context.Background(), "*").Result()
	slices.Sort(keys)
	return keys
}

// advanceRealRedis is the clock moving on a real Redis, whose own clock
// does not move with the lab's: every key's remaining lifetime shortens by
// d, and a key whose lifetime runs out is deleted, as it would expire.
func (w *world) advanceRealRedis(d time.Duration) {
	defer w.t.quiet()()
	ctx := context.Background()
	for _, k := range w.realRedisKeys() {
		ttl, err := w.rdb.PTTL(ctx, k).Result()
		if err != nil || ttl <= 0 {
			continue // no lifetime: it never expires
		}
		if left := ttl - d; left > 0 {
			w.rdb.PExpire(ctx, k, left)
		} else {
			w.rdb.Del(ctx, k)
		}
	}
}

// reconnect replaces the connection after a worker's crash: closing it is
// what makes PostgreSQL roll back the dead worker's transaction.
func (c *recConnector) reconnect() error {
	if c.shared == nil {
		return nil
	}
	for _, cs := range c.shared.stmts {
		cs.s.Close()
	}
	c.shared.inner.Close()
	if c.admin != nil {
		if err := c.gone(c.shared.pid); err != nil {
			return err
		}
	}
	conn, err := c.inner.Connect(context.Background())
	if err != nil {
		return err
	}
	c.shared.inner, c.shared.stmts, c.shared.pid = conn, map[string]*cachedStmt{}, backendPID(conn)
	return nil
}

// backendPID is PostgreSQL's process for a pgx connection; 0 for others.
func backendPID(c driver.Conn) uint32 {
	if pc, ok := c.(*stdlib.Conn); ok {
		return pc.Conn().PgConn().PID()
	}
	return 0
}

var _ driver.Connector = (*recConnector)(nil)

// rowidKey is SQLite's idiom for a key the database numbers itself.
var rowidKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bINTEGER PRIMARY KEY\b`) })

// pgSchema writes a handler's schema for PostgreSQL. The one idiom of the
// lab's schemas that differs: SQLite numbers an INTEGER PRIMARY KEY
// itself, PostgreSQL needs an identity column for that.
func pgSchema(schema string) string {
	return rowidKey().ReplaceAllString(schema, "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
}

// Scratch gives the caller a PostgreSQL schema of its own on the engine's
// server, for a measurement outside any world (the cost lab's B-tree
// experiment): a *sql.DB whose connections use the schema, and a function
// that closes it and drops the schema.
func (e *Engine) Scratch(ctx context.Context) (*sql.DB, func(), error) {
	name := e.schemaName()
	if _, err := e.admin.ExecContext(ctx, `CREATE SCHEMA `+name); err != nil {
		return nil, nil, fmt.Errorf("postgres: %w", err)
	}
	cfg := e.pgConfig.Copy()
	cfg.RuntimeParams["search_path"] = name
	db := sql.OpenDB(stdlib.GetConnector(*cfg))
	db.SetMaxOpenConns(1)
	return db, func() {
		db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*connectTimeout)
		defer cancel()
		e.admin.ExecContext(ctx, `DROP SCHEMA `+name+` CASCADE`)
	}, nil
}
