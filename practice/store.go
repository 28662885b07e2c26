package practice

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Errors of the progress store, besides ErrUnknownQuestion.
var (
	ErrBadProfile = errors.New("invalid profile id")
	ErrBadScore   = errors.New("score must be from 0 to 1")
	ErrBadTime    = errors.New("an answer needs the time it was given")
)

// Store keeps progress in a SQLite file: every attempt of every anonymous
// profile. It is safe for concurrent use, also by several processes on the
// same file.
//
// Durability: the file is in WAL mode with synchronous=FULL, and every write
// is one transaction, so an answer Record returned for is on disk; a crash
// or kill -9 mid-write loses at most the transaction that was not yet
// committed and never leaves the file half-written. FULL (an fsync of the
// WAL per commit) rather than NORMAL because answers come at human speed,
// so the fsync costs nothing noticeable, and it makes a saved answer
// survive a power cut too, not only a dead process.
type Store struct {
	db   *sql.DB
	bank *Bank
}

// DefaultPath is where progress lives unless the CLI's --data says
// otherwise: $XDG_DATA_HOME/idempotency-lab/progress.db when XDG_DATA_HOME
// is set, ~/.local/share/idempotency-lab/progress.db on other Unix systems,
// and the user's configuration folder (os.UserConfigDir: Application
// Support on macOS, %AppData% on Windows) elsewhere.
func DefaultPath() (string, error) {
	const app, file = "idempotency-lab", "progress.db"
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, app, file), nil
	}
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("progress store: no data folder: %w", err)
		}
		return filepath.Join(dir, app, file), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("progress store: no data folder: %w", err)
	}
	return filepath.Join(home, ".local", "share", app, file), nil
}

// Open opens the progress file at path, creating it and its folder if
// needed, and brings its schema up to date. bank is the content the store
// checks question ids against and computes progress from.
func Open(path string, bank *Bank) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("progress store: bad path %q (empty, or has ? or #)", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("progress store: %w", err)
	}
	// busy_timeout: writers from other connections or processes wait up to
	// 5 s for the lock instead of failing. _txlock=immediate: a transaction
	// takes the write lock when it begins, so two writers queue on the busy
	// timeout instead of one failing when it upgrades a read lock.
	dsn := path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("progress store: %w", err)
	}
	s := &Store{db: db, bank: bank}
	if err := s.init(); err != nil {
		db.Close()
		return nil, fmt.Errorf("progress store %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) init() error {
	ctx := context.Background()
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("journal mode is %q, not wal: the file system may not support WAL", mode)
	}
	return s.migrate(ctx)
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// migrations are the schema changes in order; schema_version holds how many
// have been applied. Append only: never edit a migration that has shipped.
func migrations() []string {
	return []string{
		// 1: profiles and every attempt they made.
		`CREATE TABLE profiles (
			id         TEXT    PRIMARY KEY,
			created_at INTEGER NOT NULL -- Unix milliseconds
		) STRICT;
		CREATE TABLE attempts (
			profile     TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
			id          TEXT    NOT NULL,
			question    TEXT    NOT NULL,
			score       REAL    NOT NULL CHECK (score >= 0 AND score <= 1),
			answered_at INTEGER NOT NULL, -- Unix milliseconds
			PRIMARY KEY (profile, id)
		) STRICT;`,
	}
}

func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var v int
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`)
	}
	if err != nil {
		return err
	}
	ms := migrations()
	if v > len(ms) {
		return fmt.Errorf("schema version %d is newer than this lab knows (%d): use a newer lab", v, len(ms))
	}
	for i := v; i < len(ms); i++ {
		if _, err := tx.ExecContext(ctx, ms[i]); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, len(ms)); err != nil {
		return err
	}
	return tx.Commit()
}

// SchemaVersion is the number of migrations applied to the file.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	return v, err
}

// Record saves one answer of a profile in its own transaction and returns
// the stored attempt. score is a Grade's Score; at is the caller's clock
// (stored to the millisecond). The profile is created on its first answer.
// A bad profile id, an unknown question, a score outside 0..1 or a zero
// time is an error and nothing is written.
func (s *Store) Record(ctx context.Context, profile, question string, score float64, at time.Time) (Attempt, error) {
	a := Attempt{ID: rand.Text(), Question: question, Score: score, At: millis(at)}
	if err := s.check(profile, a); err != nil {
		return Attempt{}, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Attempt{}, err
	}
	defer tx.Rollback()
	if err := ensureProfile(ctx, tx, profile, a.At); err != nil {
		return Attempt{}, err
	}
	if _, err := insertAttempt(ctx, tx, profile, a); err != nil {
		return Attempt{}, err
	}
	if err := tx.Commit(); err != nil {
		return Attempt{}, fmt.Errorf("record answer: %w", err)
	}
	return a, nil
}

// check validates an attempt before anything is written.
func (s *Store) check(profile string, a Attempt) error {
	if !ValidProfileID(profile) {
		return fmt.Errorf("%w %q", ErrBadProfile, profile)
	}
	if _, ok := s.bank.Question(a.Question); !ok {
		return fmt.Errorf("%w %q", ErrUnknownQuestion, a.Question)
	}
	if math.IsNaN(a.Score) || a.Score < 0 || a.Score > 1 {
		return fmt.Errorf("%w, got %v", ErrBadScore, a.Score)
	}
	if a.At.Year() < minYear || a.At.Year() >= maxYear {
		return fmt.Errorf("%w (from year %d to %d), got %v", ErrBadTime, minYear, maxYear-1, a.At)
	}
	return nil
}

// The range of times an attempt may carry: zero times and absurd dates are
// mistakes, not history.
const minYear, maxYear = 2000, 2200

func ensureProfile(ctx context.Context, tx *sql.Tx, profile string, at time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO profiles (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`,
		profile, at.UnixMilli())
	if err != nil {
		return fmt.Errorf("create profile: %w", err)
	}
	return nil
}

// insertAttempt writes an attempt unless one with its id exists, and
// reports whether it wrote it.
func insertAttempt(ctx context.Context, tx *sql.Tx, profile string, a Attempt) (bool, error) {
	res, err := tx.ExecContext(ctx,
		`INSERT INTO attempts (profile, id, question, score, answered_at) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT (profile, id) DO NOTHING`,
		profile, a.ID, a.Question, a.Score, a.At.UnixMilli())
	if err != nil {
		return false, fmt.Errorf("insert attempt: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Attempts returns every stored attempt of a profile, oldest first,
// including attempts at questions the bank no longer has. An unknown
// profile has none.
func (s *Store) Attempts(ctx context.Context, profile string) ([]Attempt, error) {
	if !ValidProfileID(profile) {
		return nil, fmt.Errorf("%w %q", ErrBadProfile, profile)
	}
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, question, score, answered_at FROM attempts WHERE profile = ? ORDER BY answered_at, id`, profile)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Attempt
	for rows.Next() {
		var a Attempt
		var ms int64
		if err := rows.Scan(&a.ID, &a.Question, &a.Score, &ms); err != nil {
			return nil, err
		}
		a.At = time.UnixMilli(ms).UTC()
		out = append(out, a)
	}
	return out, rows.Err()
}

// Progress computes a profile's progress bars and Leitner state from its
// attempts (see Bank.Progress). An unknown profile has empty bars.
func (s *Store) Progress(ctx context.Context, profile string) (Progress, error) {
	as, err := s.Attempts(ctx, profile)
	if err != nil {
		return Progress{}, err
	}
	return s.bank.Progress(as), nil
}

// millis drops what the store does not keep: sub-millisecond precision, the
// monotonic reading and the location.
func millis(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }
