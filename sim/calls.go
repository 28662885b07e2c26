package sim

import (
	"errors"

	"github.com/idempotency-lab/lab/script"

	"github.com/idempotency-lab/lab/narration"
)

// Crash anywhere. Besides the points a handler marks, a worker can die at
// any of its I/O calls: every SQL statement (BEGIN, COMMIT and ROLLBACK
// included), every Redis command (a pipeline is one) and every gateway
// call. The recorder tells the world of each call (tracer.startCall), and
// the world numbers them per delivery, from 1, so a script can name one:
// deliver crash=call:3 dies just before the 3rd, crash=after-call:3 right
// after it. deliver-concurrent switch=A,B hands over between two workers
// at such calls.
//
// A dead worker does nothing more that anyone can see: the database rolls
// its open transaction back (its connection dropped), and every later
// call of the handler fails without running, so whatever the handler does
// next is lost, like the rest of a process that died. Its message stays
// in flight until the broker redelivers it.

// beforeCall is the ioHook's: see there.
func (w *world) beforeCall(what string) (int, error) {
	wk := w.active
	if wk == nil || w.t.actor == "" {
		return 0, nil // the lab's own reads
	}
	if wk.dead {
		return 0, w.crashedErr()
	}
	if w.t.actor != wk.name {
		return 0, nil // the reaper, run while a worker waits for the gateway
	}
	wk.calls++
	n := wk.calls
	if wk.switchAt > 0 && n >= wk.switchAt {
		// A worker inside a transaction holds SQLite's write lock: the
		// other one would wait for it, so this one goes on to the end of
		// the transaction and hands over at its first call after it.
		if w.connFor(wk).inTx() && w.pg == nil {
			if !wk.held {
				wk.held = true
				w.t.say(KindNote, narration.T("event.worker.tx-holds-at", wk.name, num(wk.switchAt)))
			}
		} else {
			wk.switchAt = 0
			wk.yield(narration.T("event.worker.switch", wk.name, num(n), what))
		}
	}
	if c, after, ok := script.CallCrash(wk.crash); ok && !after && c == n {
		w.crashNow(wk, "event.crash.before-call", num(n), what)
		return 0, w.crashedErr()
	}
	return n, nil
}

// afterCall is the ioHook's: see there.
func (w *world) afterCall() {
	wk := w.active
	if wk == nil || wk.dead || w.t.actor != wk.name {
		return
	}
	if c, after, ok := script.CallCrash(wk.crash); ok && after && c == wk.calls {
		w.crashNow(wk, "event.crash.after-call", num(c))
	}
}

// errServerCrashed is errCrashed on the API side, where the process that
// died is a server.
var errServerCrashed = errors.New("the server crashed: its connection is gone")

// crashedErr is what a dead worker's (or server's) calls return.
func (w *world) crashedErr() error {
	if w.api != nil {
		return errServerCrashed
	}
	return errCrashed
}

// crashNow kills the running worker at an I/O boundary, saying so by the
// crash's message key (event.crash.…) and its arguments after who dies.
func (w *world) crashNow(wk *worker, key string, args ...string) {
	w.crashes++
	dropped := "the worker's connection dropped: rolled back"
	who := "" // the worker
	if w.api != nil {
		// On the API side the process that dies is a server (server-1,
		// server-2), and the trace says which.
		who = wk.name
		dropped = wk.name + "'s connection dropped: rolled back"
	}
	w.t.say(KindCrash, narration.T(key, append([]string{who}, args...)...))
	wk.dead = true
	// What runs from here on is the database cleaning up after the lost
	// connection, not the worker.
	w.t.actor = w.conn.actor()
	w.connFor(wk).abandon(dropped)
}

// The oracle counts a worker's effects from the data, not from what the
// handler says: the durable balance (the accounts plus what the gateway
// charged) when the worker's turn starts and when it ends. Only one worker
// runs at a time and none pauses inside a transaction (a transaction
// still open when its turn ends is rolled back first), so the difference
// is its own, whether or not the handler marks its effect, and wherever
// it crashed.

// turnBegin begins a worker's turn: at the start of its delivery and each
// time it resumes.
func (w *world) turnBegin(wk *worker) {
	w.active = wk
	w.turnStart = w.durable()
	w.t.actor = wk.name
	if wk.dead {
		w.t.actor = w.conn.actor()
	}
}

// turnEnd ends a worker's turn, when it pauses or its handler returns, and
// counts what it made durable meanwhile to its message. Only on a real
// engine does a worker pause inside a transaction: what it has not
// committed yet is not durable, and counts in the turn that commits it.
func (w *world) turnEnd(wk *worker, paused bool) {
	if w.active != wk {
		return // ended already: a worker slow to ack pauses after its handler returned
	}
	if w.connFor(wk).inTx() && !(paused && w.pg != nil) {
		// Only a handler that returned without COMMIT or ROLLBACK gets
		// here (none pauses inside a transaction): nothing will ever
		// commit it, and the database rolls it back.
		w.t.actor = wk.name
		w.t.say(KindNote, narration.T("event.worker.tx-open"))
		w.connFor(wk).abandon("rolled back: the transaction was left open")
	}
	if d := w.durable() - w.turnStart; d != 0 {
		w.apply(wk.msg, d)
	}
	w.active = nil
}

// durable is the balance read by the lab, not by the worker.
func (w *world) durable() int64 {
	defer w.t.quiet()()
	b, err := w.balance()
	if err != nil && w.engineErr == nil {
		w.engineErr = err
	}
	return b
}
