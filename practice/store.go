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

	"modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Errors of the progress store, besides ErrUnknownQuestion.
var (
	ErrBadProfile = errors.New("invalid profile id")
	ErrBadScore   = errors.New("score must be from 0 to 1")
	ErrBadTime    = errors.New("an answer needs the time it was given")
	// ErrNotSaved wraps a write the database refused at run time: the
	// file became read-only, the disk is full or failing, the lock was
	// held for too long. It is the lab's problem, not the reader's: the
	// web says that the progress could not be saved.
	ErrNotSaved = errors.New("progress not saved")
	// ErrDamaged is what a *DamagedError wraps: Open found the file
	// corrupt.
	ErrDamaged = errors.New("progress file is damaged")
)

// MaxAttempts bounds the attempts one profile keeps. A person who answers
// a question a minute for eight hours a day needs ten days to reach it;
// past it, pages that fold the whole history (every practice page) would
// slow down with every answer. Record makes room by dropping the oldest
// attempts that a later answer to the same question supersedes; Import
// refuses a file that would take a profile past it.
const MaxAttempts = 5000

// DamagedError is Open's error for a file that SQLite's quick_check (or
// SQLite itself, on opening it) finds corrupt. Its message names the file
// and says what to do.
type DamagedError struct {
	Path   string
	Detail string // what quick_check or SQLite said, on one line
	WAL    bool   // the file has a write-ahead log beside it, to move too
}

func (e *DamagedError) Error() string {
	msg := fmt.Sprintf("the progress file %s is damaged (quick_check: %s); move it aside (for example to %s.broken) "+
		"and start again: a new, empty progress file will be created", e.Path, e.Detail, e.Path)
	if e.WAL {
		msg += fmt.Sprintf(". Move %s-wal and %s-shm along with it", e.Path, e.Path)
	}
	return msg
}

func (e *DamagedError) Unwrap() error { return ErrDamaged }

// Store keeps progress in a SQLite file: the attempts of every anonymous
// profile (at most MaxAttempts each). It is safe for concurrent use, also by
// several processes on the same file.
//
// Durability: the file is in WAL mode with synchronous=FULL, and every write
// is one transaction, so an answer Record returned for is on disk; a crash
// or kill -9 mid-write loses at most the transaction that was not yet
// committed and never leaves the file half-written. FULL (an fsync of the
// WAL per commit) rather than NORMAL because answers come at human speed,
// so the fsync costs nothing noticeable, and it makes a saved answer
// survive a power cut too, not only a dead process.
type Store struct {
	db       *sql.DB
	bank     *Bank
	postgres bool // the store is in PostgreSQL (OpenPostgres), not a SQLite file
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
		var damaged *DamagedError
		if errors.As(err, &damaged) || isCorrupt(err) {
			if damaged == nil {
				damaged = &DamagedError{Detail: oneLine(err.Error())}
			}
			damaged.Path = path
			if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
				damaged.WAL = true
			}
			return nil, damaged
		}
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
	if err := s.quickCheck(ctx); err != nil {
		return err
	}
	return s.migrate(ctx)
}

// quickCheck runs SQLite's quick_check before anything is written: a
// corrupt file is refused at start, with what to do, rather than failing
// answer after answer in the middle of a class. It reads every page once
// (integrity_check also cross-checks indexes, which costs more and finds
// little more), a few milliseconds for a classroom's progress.
func (s *Store) quickCheck(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "PRAGMA quick_check(5)")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, oneLine(line))
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return &DamagedError{Detail: strings.Join(problems, "; ")}
	}
	return nil
}

// isCorrupt reports whether SQLite refused the file as corrupt or as not
// a database at all.
func isCorrupt(err error) bool {
	const sqliteCorrupt, sqliteNotADB = 11, 26
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff // the primary code of an extended one
	return code == sqliteCorrupt || code == sqliteNotADB
}

// oneLine puts what SQLite said on one line of at most 300 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "") + "…"
	}
	return s
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
		// 2: a profile's attempts at one question in time order, so that
		// Record finds the superseded ones to drop at MaxAttempts.
		`CREATE INDEX attempts_by_question ON attempts (profile, question, answered_at, id);`,
		// 3: the challenges a profile solved, each with its shortest
		// solution (see solved.go).
		`CREATE TABLE solved (
			profile   TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
			challenge TEXT    NOT NULL,
			steps     INTEGER NOT NULL CHECK (steps > 0),
			script    TEXT    NOT NULL,
			solved_at INTEGER NOT NULL, -- Unix milliseconds
			PRIMARY KEY (profile, challenge)
		) STRICT;`,
		// 4: the graded files of coding exercises, so that a result is
		// shown, not graded again, and the same file posted again counts
		// no new try (see codegrade.go).
		`CREATE TABLE code_grades (
			profile   TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
			question  TEXT    NOT NULL,
			hash      TEXT    NOT NULL, -- SHA-256 of the file's text, hex
			outcome   TEXT    NOT NULL, -- what the checks found, JSON
			graded_at INTEGER NOT NULL, -- Unix milliseconds
			PRIMARY KEY (profile, question, hash)
		) STRICT;
		CREATE INDEX code_grades_by_time ON code_grades (profile, graded_at);`,
		// 5: the challenges whose solution a profile asked to see
		// (seen.go), so the list can say so beside the solve.
		`CREATE TABLE solutions_seen (
			profile   TEXT    NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
			challenge TEXT    NOT NULL,
			seen_at   INTEGER NOT NULL, -- Unix milliseconds
			PRIMARY KEY (profile, challenge)
		) STRICT;`,
	}
}

func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.postgres {
		// Another lab server may be migrating the same schema now: one
		// at a time (the lock is released at commit).
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, migrationLock); err != nil {
			return err
		}
	}
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
	if s.postgres {
		ms = pgMigrations()
	}
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
// time is an error and nothing is written. A write the database refuses
// is ErrNotSaved.
//
// A profile keeps at most MaxAttempts attempts. An answer past the cap is
// still saved: a learner expects the answer just given to count, and
// refusing it in the middle of a drill would punish practising. Room is
// made by dropping the profile's oldest attempts that a later attempt at
// the same question supersedes, so every question keeps its latest
// answer: the bars (answered, latest score) and the review schedule (the
// due time comes from the latest answer) stay as they were, and only
// the oldest history goes.
func (s *Store) Record(ctx context.Context, profile, question string, score float64, at time.Time) (Attempt, error) {
	a := Attempt{ID: rand.Text(), Question: question, Score: score, At: millis(at)}
	if err := s.check(profile, a); err != nil {
		return Attempt{}, err
	}
	if err := s.record(ctx, profile, a); err != nil {
		if ctx.Err() == nil {
			err = fmt.Errorf("%w: record answer: %w", ErrNotSaved, err)
		}
		return Attempt{}, err
	}
	return a, nil
}

func (s *Store) record(ctx context.Context, profile string, a Attempt) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := ensureProfile(ctx, tx, profile, a.At); err != nil {
		return err
	}
	if _, err := insertAttempt(ctx, tx, profile, a); err != nil {
		return err
	}
	if err := trimAttempts(ctx, tx, profile, a.ID); err != nil {
		return err
	}
	return tx.Commit()
}

// trimAttempts brings a profile back to MaxAttempts after keep was added:
// it drops the oldest attempts that a later attempt at the same question
// supersedes, never keep itself. A profile whose every attempt is the
// only one at its question stays over the cap; that would take more
// questions than the bank has.
func trimAttempts(ctx context.Context, tx *sql.Tx, profile, keep string) error {
	n, err := countAttempts(ctx, tx, profile)
	if err != nil || n <= MaxAttempts {
		return err
	}
	_, err = tx.ExecContext(ctx, `
		DELETE FROM attempts WHERE profile = ? AND id IN (
			SELECT a.id FROM attempts a
			WHERE a.profile = ? AND a.id <> ? AND EXISTS (
				SELECT 1 FROM attempts b
				WHERE b.profile = a.profile AND b.question = a.question
				  AND (b.answered_at, b.id) > (a.answered_at, a.id))
			ORDER BY a.answered_at, a.id
			LIMIT ?)`, profile, profile, keep, n-MaxAttempts) // plain ? (Rebind numbers them for PostgreSQL)
	if err != nil {
		return fmt.Errorf("drop old attempts: %w", err)
	}
	return nil
}

// countAttempts is how many attempts a profile has stored.
func countAttempts(ctx context.Context, tx *sql.Tx, profile string) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM attempts WHERE profile = ?`, profile).Scan(&n)
	return n, err
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
