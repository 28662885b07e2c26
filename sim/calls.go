package sim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/idempotency-lab/lab/script"
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
				w.t.say(KindNote, fmt.Sprintf("%s is inside a transaction at its call %d: the other worker would wait for its lock, so it hands over once the transaction ends", wk.name, wk.switchAt),
					fmt.Sprintf("%s внутри транзакции на обращении %d: другой воркер ждал бы её блокировку, поэтому передача хода — после конца транзакции", wk.name, wk.switchAt))
			}
		} else {
			wk.switchAt = 0
			wk.yield(fmt.Sprintf("switch: %s pauses just before its call %d (%s); the other worker runs now", wk.name, n, what),
				fmt.Sprintf("переключение: %s останавливается перед обращением %d (%s); сейчас работает другой воркер", wk.name, n, what))
		}
	}
	if c, after, ok := script.CallCrash(wk.crash); ok && !after && c == n {
		w.crashNow(wk, fmt.Sprintf("worker dies just before its call %d: %s", n, what),
			fmt.Sprintf("воркер падает перед обращением %d: %s", n, what))
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
		w.crashNow(wk, fmt.Sprintf("worker dies right after its call %d", c),
			fmt.Sprintf("воркер падает сразу после обращения %d", c))
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

// crashNow kills the running worker at an I/O boundary.
func (w *world) crashNow(wk *worker, en, ru string) {
	w.crashes++
	dropped := "the worker's connection dropped: rolled back"
	if w.api != nil {
		// On the API side the process that dies is a server (server-1,
		// server-2), and the trace says which.
		en = strings.Replace(en, "worker dies", wk.name+" dies", 1)
		ru = strings.Replace(ru, "воркер падает", wk.name+" падает", 1)
		dropped = wk.name + "'s connection dropped: rolled back"
	}
	w.t.say(KindCrash, en, ru)
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
		w.t.say(KindNote, "the handler returned with its transaction still open: nothing commits it, so it is rolled back",
			"обработчик вернул управление с открытой транзакцией: её никто не закоммитит, поэтому она откатывается")
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
