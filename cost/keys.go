package cost

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite" // the embedded engine's driver, for the scratch database

	"github.com/idempotency-lab/lab/sim"
)

// Keys and the B-tree. An idempotency table is indexed by its key, and
// where a new key lands in that index depends on how keys are made: a
// random UUIDv4 or a hash lands anywhere, so inserts touch pages all over
// the index and split them half full; a UUIDv7 or a sequence grows at the
// right edge, where the index appends to its last page and leaves the
// others full. Keys inserts the same number of rows keyed each way and
// reports the rate and what the index takes.

// Key kinds, in the order reports list them.
const (
	KeyUUIDv4     = "uuid-v4"
	KeyUUIDv7     = "uuid-v7"
	KeySHA256     = "sha256"
	KeySequential = "sequential"
)

// KeyKinds lists the key kinds.
func KeyKinds() []string { return []string{KeyUUIDv4, KeyUUIDv7, KeySHA256, KeySequential} }

// Limits on the keys experiment.
const (
	DefaultKeyRows = 100_000
	MaxKeyRows     = 1_000_000
	keyBatch       = 1000 // rows per transaction
)

// KeyResult is one kind of key.
type KeyResult struct {
	Kind       string  `json:"kind"`
	Rows       int     `json:"rows"`
	KeyBytes   int     `json:"key_bytes"` // the length of one key as stored
	PerSecond  float64 `json:"inserts_per_second"`
	IndexBytes int64   `json:"index_bytes"`
	// LeafFill is the share of the index's leaf pages holding entries
	// (SQLite's dbstat; PostgreSQL's pgstatindex avg_leaf_density, when
	// the pgstattuple extension is there; -1 when unknown).
	LeafFill float64 `json:"leaf_fill"`
}

// KeysReport is the experiment's outcome and its conditions.
type KeysReport struct {
	Machine Machine     `json:"machine"`
	Engine  string      `json:"engine"`
	Rows    int         `json:"rows"`
	CacheKB int         `json:"cache_kb,omitempty"` // SQLite's page cache: the index is larger than it, or the effect on speed hides
	Kinds   []KeyResult `json:"kinds"`
}

// KeysOptions choose the experiment's size and engine.
type KeysOptions struct {
	Rows   int         // 0: DefaultKeyRows
	Engine *sim.Engine // nil: SQLite, in a file in a temporary folder
	Clock  func() time.Duration
}

// keyOf makes the i-th key of a kind. The randomness is seeded and the
// UUIDv7 clock is simulated: the same keys every run.
func keyOf(kind string, i int, rng *rand.Rand) string {
	switch kind {
	case KeyUUIDv4, KeyUUIDv7:
		var u uuid.UUID
		for j := range u {
			u[j] = byte(rng.Uint32())
		}
		u[6] = u[6]&0x0f | 0x40
		if kind == KeyUUIDv7 {
			ms := uint64(1767258000000 + i) // one key a millisecond from 2026-01-01
			for j := 0; j < 6; j++ {
				u[j] = byte(ms >> (40 - 8*j))
			}
			u[6] = u[6]&0x0f | 0x70
		}
		u[8] = u[8]&0x3f | 0x80
		return u.String()
	case KeySHA256:
		sum := sha256.Sum256([]byte(fmt.Sprintf("acme/order-%d", i)))
		return hex.EncodeToString(sum[:])
	}
	return fmt.Sprintf("order-%012d", i)
}

// newRng is the seeded source of a kind's keys.
func newRng(kind string) *rand.Rand { return rand.New(rand.NewPCG(20260101, uint64(len(kind)))) }

// Keys runs the experiment.
func Keys(ctx context.Context, opt KeysOptions) (*KeysReport, error) {
	if opt.Rows == 0 {
		opt.Rows = DefaultKeyRows
	}
	if opt.Rows < 1 || opt.Rows > MaxKeyRows {
		return nil, badInput{fmt.Errorf("rows: %d is out of range: from 1 to %d", opt.Rows, MaxKeyRows)}
	}
	clock := opt.Clock
	if clock == nil {
		start := time.Now()
		clock = func() time.Duration { return time.Since(start) }
	}
	rep := &KeysReport{Machine: ThisMachine(), Engine: "embedded", Rows: opt.Rows}
	if opt.Engine != nil {
		rep.Engine = "real"
	} else {
		rep.CacheKB = sqliteCacheKB
	}
	for _, kind := range KeyKinds() {
		var r KeyResult
		var err error
		if opt.Engine != nil {
			r, err = keysPostgres(ctx, opt.Engine, kind, opt.Rows, clock)
		} else {
			r, err = keysSQLite(ctx, kind, opt.Rows, clock)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
		rep.Kinds = append(rep.Kinds, r)
	}
	return rep, nil
}

// sqliteCacheKB is the page cache the experiment gives SQLite: small, as
// a busy server's cache is small next to its tables.
const sqliteCacheKB = 2048

const keysTable = `CREATE TABLE processed (id INTEGER PRIMARY KEY, message_key TEXT NOT NULL UNIQUE)`

// insertKeys inserts rows keys of a kind in transactions of keyBatch.
func insertKeys(ctx context.Context, db *sql.DB, kind string, rows int, postgres bool) error {
	rng := newRng(kind)
	q := `INSERT INTO processed (message_key) VALUES (?)`
	if postgres {
		q = `INSERT INTO processed (message_key) VALUES ($1)`
	}
	for done := 0; done < rows; {
		if err := ctx.Err(); err != nil {
			return err
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			tx.Rollback()
			return err
		}
		for n := 0; n < keyBatch && done < rows; n++ {
			if _, err := st.ExecContext(ctx, keyOf(kind, done, rng)); err != nil {
				tx.Rollback()
				return err
			}
			done++
		}
		st.Close()
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func keysSQLite(ctx context.Context, kind string, rows int, clock func() time.Duration) (KeyResult, error) {
	r := KeyResult{Kind: kind, Rows: rows, KeyBytes: len(keyOf(kind, 0, rand.New(rand.NewPCG(1, 1)))), LeafFill: -1}
	dir, err := os.MkdirTemp("", "lab-keys-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "keys.db")+
		fmt.Sprintf("?_pragma=cache_size(-%d)&_pragma=journal_mode(off)&_pragma=synchronous(off)", sqliteCacheKB))
	if err != nil {
		return r, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, keysTable); err != nil {
		return r, err
	}
	start := clock()
	if err := insertKeys(ctx, db, kind, rows, false); err != nil {
		return r, err
	}
	if took := clock() - start; took > 0 {
		r.PerSecond = float64(rows) / took.Seconds()
	}
	var size, unused, leafSize sql.NullInt64
	err = db.QueryRowContext(ctx, `SELECT SUM(pgsize), SUM(CASE WHEN pagetype = 'leaf' THEN unused END),
		SUM(CASE WHEN pagetype = 'leaf' THEN pgsize END) FROM dbstat WHERE name = 'sqlite_autoindex_processed_1'`).Scan(&size, &unused, &leafSize)
	if err != nil {
		return r, err
	}
	r.IndexBytes = size.Int64
	if leafSize.Int64 > 0 {
		r.LeafFill = 1 - float64(unused.Int64)/float64(leafSize.Int64)
	}
	return r, nil
}

func keysPostgres(ctx context.Context, e *sim.Engine, kind string, rows int, clock func() time.Duration) (KeyResult, error) {
	r := KeyResult{Kind: kind, Rows: rows, KeyBytes: len(keyOf(kind, 0, rand.New(rand.NewPCG(1, 1)))), LeafFill: -1}
	db, drop, err := e.Scratch(ctx)
	if err != nil {
		return r, err
	}
	defer drop()
	if _, err := db.ExecContext(ctx, `CREATE TABLE processed (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, message_key TEXT NOT NULL UNIQUE)`); err != nil {
		return r, err
	}
	start := clock()
	if err := insertKeys(ctx, db, kind, rows, true); err != nil {
		return r, err
	}
	if took := clock() - start; took > 0 {
		r.PerSecond = float64(rows) / took.Seconds()
	}
	if err := db.QueryRowContext(ctx, `SELECT pg_relation_size('processed_message_key_key')`).Scan(&r.IndexBytes); err != nil {
		return r, err
	}
	// pgstattuple is a contrib extension: used where it can be created.
	if _, err := db.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pgstattuple`); err == nil {
		var density float64
		if err := db.QueryRowContext(ctx, `SELECT avg_leaf_density FROM pgstatindex('processed_message_key_key')`).Scan(&density); err == nil {
			r.LeafFill = density / 100
		}
	}
	return r, nil
}
