package sim

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/idempotency-lab/lab/narration"
)

// Two workers on PostgreSQL. On the embedded engine both workers share the
// world's one SQLite connection, and a worker never pauses inside a
// transaction: SQLite's write lock would only make the other wait. On a
// real engine each worker has a PostgreSQL connection of its own, as two
// consumer processes would, and may pause anywhere, inside a transaction
// too. The other worker then meets the first one's locks for real: a
// second INSERT of the same unique key, or an UPDATE of the same row,
// waits inside PostgreSQL until the first transaction ends.
//
// The lab still runs one worker at a time, so a worker waiting inside the
// database would deadlock it: the worker that holds the lock never gets
// its turn. So while a racing worker's statement runs, the lab watches its
// backend in pg_blocking_pids; once PostgreSQL makes it wait for a lock,
// the worker is "blocked": its turn ends there, and the other worker runs
// on. When its statement returns (the other's transaction ended) it waits
// for its next turn before it goes on, so the trace stays in the order the
// lab chose, whatever the timing.
//
// Each decision reads PostgreSQL's state, not a clock: a blocked statement
// stays blocked until the worker holding the lock runs again, which only
// the lab can make happen, and PostgreSQL grants the lock before the
// holder's COMMIT returns. The one case the lab cannot order is both
// workers blocked on each other: PostgreSQL's deadlock detector (after
// deadlock_timeout) fails one of them with 40P01, and which one is its
// choice. None of the lab's handlers takes locks in two orders.

// workerConn is one worker's own connection to PostgreSQL: worker-1's and
// worker-2's, kept for the world's life (a crash replaces the connection).
type workerConn struct {
	conn  *recConnector
	db    *sql.DB
	owner *worker // the worker of the delivery now under way
}

// blockedFor bounds the wait for a statement PostgreSQL holds while no
// worker can run: only a deadlock gets there, and PostgreSQL resolves it
// within deadlock_timeout (1 s by default).
const blockedFor = 30 * time.Second

// pollEvery is how often the lab looks at pg_blocking_pids while a racing
// worker's statement runs. It decides how soon a wait is seen, never what
// happens.
const pollEvery = time.Millisecond

// dbFor is the database a worker's handler gets: on a real engine the
// worker's own connection, otherwise the world's.
func (w *world) dbFor(wk *worker) *sql.DB {
	if wc := w.workerConn(wk); wc != nil {
		return wc.db
	}
	return w.db
}

// connFor is the connector a worker's transactions run on.
func (w *world) connFor(wk *worker) *recConnector {
	if wc := w.workerConn(wk); wc != nil {
		return wc.conn
	}
	return w.conn
}

// workerConn returns the worker's own PostgreSQL connection, made on its
// first delivery; nil on the embedded engine.
func (w *world) workerConn(wk *worker) *workerConn {
	if wk == nil || w.pg == nil {
		return nil
	}
	if wc := w.workers[wk.name]; wc != nil {
		return wc
	}
	wc := &workerConn{}
	wc.conn = &recConnector{inner: w.pg, t: w.t, postgres: true, admin: w.admin,
		around: func(call func()) { w.watched(wc, call) }}
	wc.db = sql.OpenDB(wc.conn)
	wc.db.SetMaxIdleConns(4)
	if w.workers == nil {
		w.workers = map[string]*workerConn{}
	}
	w.workers[wk.name] = wc
	return wc
}

// closeWorkers closes the workers' connections.
func (w *world) closeWorkers() {
	for _, wc := range w.workers {
		wc.db.Close()
		wc.conn.close()
	}
}

// watched runs one call of a worker's handler on its connection. A racing
// worker's call is watched: if PostgreSQL makes it wait for a lock, the
// worker's turn ends (blockedNow) and, once the call returns, it waits for
// the next one.
func (w *world) watched(wc *workerConn, call func()) {
	wk := wc.owner
	if wk == nil || wk.handover == nil {
		call() // a worker alone: nobody can hold a lock it waits for
		return
	}
	var mu sync.Mutex
	finished, blocked := false, false
	stop := make(chan struct{})
	pid := wc.conn.pid()
	go func() {
		tick := time.NewTicker(pollEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if !w.waitsForLock(pid) {
				continue
			}
			mu.Lock()
			if finished {
				mu.Unlock()
				return
			}
			blocked = true
			wk.unblocked = make(chan struct{})
			mu.Unlock()
			w.blockedNow(wk)
			return
		}
	}()
	call()
	mu.Lock()
	finished = true
	close(stop)
	if !blocked {
		mu.Unlock()
		return
	}
	close(wk.unblocked)
	mu.Unlock()
	<-wk.resume // the other worker is running: wait for this one's turn
	w.turnBegin(wk)
	w.t.say(KindNote, narration.T("event.worker.pg-unblocked", wk.name))
}

// blockedNow ends the turn of a worker whose statement PostgreSQL holds,
// and hands over to the other worker.
func (w *world) blockedNow(wk *worker) {
	w.t.say(KindYield, narration.T("event.worker.pg-blocked", wk.name))
	wk.yielded, wk.blocked = true, true
	w.turnEnd(wk, true)
	wk.handover <- false
}

// waitsForLock reports whether PostgreSQL makes the backend wait for a
// lock another session holds.
func (w *world) waitsForLock(pid uint32) bool {
	var n int
	err := w.admin.QueryRow(`SELECT cardinality(pg_blocking_pids($1))`, int64(pid)).Scan(&n)
	return err == nil && n > 0
}

// runnable reports whether a blocked worker can take its turn: true once
// its statement has returned, false while PostgreSQL still holds it.
func (w *world) runnable(wk *worker) bool {
	for {
		select {
		case <-wk.unblocked:
			return true
		case <-time.After(pollEvery):
		}
		// Not back yet: either PostgreSQL still holds the statement (the
		// lock's holder has not run since), or it is finishing now.
		if w.waitsForLock(w.workers[wk.name].conn.pid()) {
			return false
		}
	}
}

// awaitAny waits, when every racing worker is blocked, for PostgreSQL to
// let one of them go (only a deadlock does that: see the top of the file).
// Should nothing move for blockedFor, the lab ends their sessions, so the
// step ends with an error instead of hanging.
func (w *world) awaitAny(ws []*worker) {
	timeout := time.NewTimer(blockedFor)
	defer timeout.Stop()
	for {
		for _, wk := range ws {
			select {
			case <-wk.unblocked:
				return
			default:
			}
		}
		select {
		case <-timeout.C:
			if w.engineErr == nil {
				w.engineErr = errors.New("postgres: both workers wait for each other's locks and neither was released")
			}
			for _, wk := range ws {
				w.admin.Exec(`SELECT pg_terminate_backend($1)`, int64(w.workers[wk.name].conn.pid()))
			}
			timeout.Reset(blockedFor)
		case <-time.After(pollEvery):
		}
	}
}

// pid is the PostgreSQL backend of the connection, 0 before it connects.
func (c *recConnector) pid() uint32 {
	if c.shared == nil {
		return 0
	}
	return c.shared.pid
}

// gone waits until PostgreSQL has ended the backend of a closed
// connection: only then are its transaction rolled back and its locks
// released, and the next statement must not meet them.
func (c *recConnector) gone(pid uint32) error {
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	for {
		var n int
		if err := c.admin.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1`, int64(pid)).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("postgres: backend %d still running after its connection closed", pid)
		case <-time.After(pollEvery):
		}
	}
}
