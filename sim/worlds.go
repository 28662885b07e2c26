package sim

import (
	"context"
	"database/sql/driver"
	"sort"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
)

// Worlds keeps the embedded engine's worlds between runs, so that a search
// running thousands of short scripts (the checker) does not open a SQLite
// connection, restore its database, prepare every statement and start a
// miniredis for each: most of a short run's CPU went there, SQLite's
// parser first. A world given back after its run is emptied (every table
// deleted, Redis flushed) and handed to the next run of the same schema,
// with its connection and the statements prepared on it.
//
// A reused world starts a run as a fresh one would, byte for byte: its
// tables are empty as the template's are (a template with rows, or with
// triggers, which deleting the rows would fire, is never reused), the rows
// a run inserts get the same rowids, and everything the engine keeps in Go
// starts again from world.init. What a run can leave on the connection
// besides rows (a table or an index made, a pragma set, a savepoint, an
// open transaction or statement) makes the world go: it is closed, not
// reused (see guardedConn.marks). The one thing a reused connection cannot
// give back is its history: a statement that reads changes(),
// last_insert_rowid() or total_changes() may read the run before. A run
// on a reused world that read it is counted (Redone), and from then on
// that schema's runs get fresh worlds; the caller runs it again.
//
// A Worlds is safe for concurrent use. The zero value is not usable: make
// one with NewWorlds and Close it after its last run. A nil *Worlds makes
// a fresh world for every run, as the engine always did.
type Worlds struct {
	mu     sync.Mutex
	free   map[worldKey][]*world
	kinds  map[worldKey]*worldKind
	closed bool
	redone int
	// made and reused count the worlds made and the runs on a reused one.
	made, reused int
}

// worldKey is what worlds must share to be reused for each other: the
// database's schema (the outbox's table included) and whether it has a
// Redis.
type worldKey struct {
	schema string
	outbox bool
	redis  bool
}

// worldKind is what the Worlds learned of the worlds of one key.
type worldKind struct {
	// poolable: the template has no rows and no triggers, so deleting
	// every row gives it back.
	poolable bool
	// fresh: a run read the connection's history; every run of the key
	// now gets a fresh world.
	fresh bool
}

// maxFree is how many emptied worlds of one key wait for a run: as many
// as run at once, more or less (a search runs one at a time).
const maxFree = 4

// reusable is what a world made for a Worlds keeps for its next run.
type reusable struct {
	pool  *Worlds
	key   worldKey
	guard *guardedConn
	// clear deletes every row of one table: prepared once, on the
	// world's connection.
	clear []driver.Stmt
	// reused: the world's run follows another's on the same connection.
	reused bool
}

// NewWorlds makes an empty set of worlds to reuse.
func NewWorlds() *Worlds {
	return &Worlds{free: map[worldKey][]*world{}, kinds: map[worldKey]*worldKind{}}
}

// Close closes the worlds waiting for a run; worlds given back later are
// closed then.
func (p *Worlds) Close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	free := p.free
	p.free, p.closed = map[worldKey][]*world{}, true
	p.mu.Unlock()
	for _, ws := range free {
		for _, w := range ws {
			w.close()
		}
	}
}

// Redone counts the runs on a reused world that read what the connection
// did before (changes(), last_insert_rowid(), total_changes()): their
// results may differ from a fresh world's, and the caller must run them
// again. A nil *Worlds has none.
func (p *Worlds) Redone() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.redone
}

// Counts reports how many worlds were made and how many runs had a reused
// one.
func (p *Worlds) Counts() (made, reused int) {
	if p == nil {
		return 0, 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.made, p.reused
}

// get returns a world for a run of s on h: a reused one when one waits,
// else a new one. A nil Worlds, or a real engine, makes a new world.
func (p *Worlds) get(s *script.Script, h handlers.Info, eng *Engine) (*world, error) {
	if p == nil || eng != nil {
		return newWorld(s, h, eng)
	}
	key := worldKey{schema: handlers.BaseSchema + h.Schema, outbox: s.UsesOutbox(), redis: h.Redis}
	p.mu.Lock()
	kind := p.kinds[key]
	var w *world
	if kind != nil && kind.poolable && !kind.fresh {
		if n := len(p.free[key]); n > 0 {
			w = p.free[key][n-1]
			p.free[key] = p.free[key][:n-1]
			p.reused++
		}
	}
	if w == nil {
		p.made++
	}
	p.mu.Unlock()
	if w != nil {
		if err := w.reuse(s, h); err != nil {
			w.close()
			return nil, err
		}
		return w, nil
	}
	w, err := newWorld(s, h, nil)
	if err != nil {
		return nil, err
	}
	if kind == nil {
		if kind, err = p.learn(key, w); err != nil {
			w.close()
			return nil, err
		}
	}
	if !kind.poolable || kind.fresh {
		return w, nil
	}
	g, ok := w.conn.shared.inner.(*guardedConn)
	if !ok {
		return w, nil
	}
	w.pool = &reusable{pool: p, key: key, guard: g}
	// The lab's own statements made the world: the outbox's CREATE TABLE
	// marks no handler's run.
	g.clearMarks()
	return w, nil
}

// learn looks at the first world of a key: whether its template can be
// given back by deleting rows.
func (p *Worlds) learn(key worldKey, w *world) (*worldKind, error) {
	kind := &worldKind{}
	g, ok := w.conn.shared.inner.(*guardedConn)
	if ok {
		var n int64
		err := w.db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'`).Scan(&n)
		if err != nil {
			return nil, err
		}
		kind.poolable = n == 0
		for name := range w.tables {
			if err := w.db.QueryRow(`SELECT COUNT(*) FROM "` + name + `"`).Scan(&n); err != nil {
				return nil, err
			}
			kind.poolable = kind.poolable && n == 0
		}
		g.clearMarks()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := p.kinds[key]; k != nil {
		return k, nil // learned meanwhile, by a run in parallel
	}
	p.kinds[key] = kind
	return kind, nil
}

// put takes a world back after its run: emptied for the next run when
// nothing but rows and keys of it changed, else closed.
func (p *Worlds) put(w *world) {
	r := w.pool
	if p == nil || r == nil {
		w.close()
		return
	}
	marks := r.guard.marks.Load()
	if marks&markHistory != 0 {
		p.mu.Lock()
		p.kinds[r.key].fresh = true
		if r.reused {
			p.redone++
		}
		p.mu.Unlock()
	}
	if marks != 0 || !w.empty() {
		w.close()
		return
	}
	p.mu.Lock()
	keep := !p.closed && !p.kinds[r.key].fresh && len(p.free[r.key]) < maxFree
	if keep {
		p.free[r.key] = append(p.free[r.key], w)
	}
	p.mu.Unlock()
	if !keep {
		w.close()
	}
}

// empty deletes every row of the world's tables and every key of its
// Redis, and reports whether it could: false when the run left something
// open on the connection (a transaction, a statement, rows), changed the
// handler's pool of connections, or a statement failed.
func (w *world) empty() bool {
	r := w.pool
	st := w.db.Stats()
	if w.conn.shared == nil || w.conn.inTx() || st.InUse > 0 || st.MaxOpenConnections != 0 || w.workers != nil {
		return false
	}
	for _, cs := range w.conn.shared.stmts {
		if cs.busy {
			return false
		}
	}
	ctx := context.Background()
	if r.clear == nil {
		names := make([]string, 0, len(w.tables))
		for name := range w.tables {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			s, err := r.guard.PrepareContext(ctx, `DELETE FROM "`+name+`"`)
			if err != nil {
				return false
			}
			r.clear = append(r.clear, s)
		}
	}
	for _, s := range r.clear {
		// A transaction a savepoint left open would take the deletes in:
		// the savepoint marked the connection, which is not reused.
		if _, err := s.(driver.StmtExecContext).ExecContext(ctx, nil); err != nil {
			return false
		}
	}
	if r.guard.marks.Load() != 0 {
		return false
	}
	if w.rdb != nil {
		// The client goes with its connection's state (a SELECT, a
		// WATCH); the next run dials a new one.
		w.rdb.Close()
		w.rdb = nil
		w.mr.FlushAll()
	}
	return true
}

// reuse readies a world given back for a run of s on h: everything the
// engine keeps starts again from init, the connections stay.
func (w *world) reuse(s *script.Script, h handlers.Info) error {
	kept := *w
	w.init(s, h, kept.t)
	w.db, w.conn, w.mr, w.tables, w.pool = kept.db, kept.conn, kept.mr, kept.tables, kept.pool
	w.t.io = w
	w.pool.reused = true
	w.pool.guard.clearMarks()
	if w.mr != nil {
		// Scripts loaded by the run before go, as FLUSHALL leaves them.
		return w.dialRedis(func(ctx context.Context, c *redis.Client) error {
			return c.ScriptFlush(ctx).Err()
		})
	}
	return nil
}

// closeClear finalizes the statements that empty a reused world's tables,
// before its connection closes.
func (w *world) closeClear() {
	if w.pool == nil {
		return
	}
	for _, s := range w.pool.clear {
		s.Close()
	}
	w.pool.clear = nil
}
