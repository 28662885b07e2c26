package sim_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Crash anywhere: a worker dies at any I/O call of a handler, numbered per
// delivery, and two racing workers hand over at any call (calls.go).

// runCustom runs a script on one handler, the lab's or a custom one.
func runCustom(t *testing.T, src string, h handlers.Info) sim.Result {
	t.Helper()
	s, err := script.Parse(src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	opt := sim.Options{Handlers: []string{h.Name}}
	if h.Handle != nil {
		opt = sim.Options{Custom: []handlers.Info{h}}
	}
	run, err := sim.Execute(context.Background(), s, opt)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return run.Results[0]
}

// callEvents lists a result's events as "actor kind #call text", the
// settlement's included.
func callEvents(r sim.Result) []string {
	var out []string
	for _, tr := range append(r.Trace, r.Settlement) {
		for _, e := range tr.Events {
			line := e.Actor + " " + e.Kind
			if e.Call > 0 {
				line += " #" + strconv.Itoa(e.Call)
			}
			out = append(out, line+" "+e.Text)
		}
	}
	return out
}

func hasEvent(r sim.Result, part string) bool {
	for _, e := range callEvents(r) {
		if strings.Contains(e, part) {
			return true
		}
	}
	return false
}

func TestCrashAtCalls(t *testing.T) {
	const one = "publish a amount=100\n"
	const dup = "publish a amount=100\nretry a\n"
	cases := []struct {
		name, handler, script string
		verdict               sim.Verdict
		settled               int64
		trace                 []string // parts of events that must appear
	}{
		// naive makes one call, the UPDATE: dying after it is dying before
		// the ack, so the redelivery credits again.
		{"naive after its only call", "naive", one + "deliver crash=after-call:1", sim.Duplicate, 200,
			[]string{"worker-1 sql #1 UPDATE accounts", "worker-1 crash worker dies right after its call 1"}},
		// Dying before the first call is dying on receipt: nothing happened.
		{"naive before its first call", "naive", one + "deliver crash=call:1", sim.OK, 100,
			[]string{"worker-1 crash worker dies just before its call 1: UPDATE accounts"}},
		{"a call the handler never makes", "naive", one + "deliver crash=call:5", sim.OK, 100,
			[]string{"the handler made 1 call, never reaching call:5: the worker did not crash"}},
		// Just before COMMIT: the database rolls the dead worker's
		// transaction back, and the redelivery credits once.
		{"unique before COMMIT", "unique", one + "deliver crash=call:4", sim.OK, 100,
			[]string{"worker dies just before its call 4: COMMIT", "sqlite sql ROLLBACK"}},
		// Right after COMMIT, before the handler's after-effect mark: the
		// credit is durable and counted from the data, and the key absorbs
		// the redelivery. (Counting at the mark would call this lost.)
		{"unique after COMMIT", "unique", one + "deliver crash=after-call:4", sim.OK, 100,
			[]string{"worker-1 sql #4 COMMIT", "worker dies right after its call 4"}},
		// The anti-patterns fail at a call boundary without their marks.
		{"marker-first after the marker", "marker-first", one + "deliver crash=after-call:1", sim.Lost, 0, nil},
		{"effect-first after the credit", "effect-first", one + "deliver crash=after-call:2", sim.Duplicate, 200, nil},
		// The gateway call is a call too: dying after it leaves the claim
		// in Redis, which makes the redelivery skip the charge: right here,
		// since it did charge.
		{"setnx after the charge", "setnx", one + "deliver crash=after-call:2", sim.OK, 100,
			[]string{"worker-1 gateway #2 charge 100", "worker dies right after its call 2"}},
		// Dying before the gateway call: the request never leaves, but the
		// claim stays "processing" and the redelivery skips the charge:
		// setnx's own weakness, as with crash=before-effect.
		{"setnx before the charge", "setnx", one + "deliver crash=call:2", sim.Lost, 0,
			[]string{"worker dies just before its call 2: charge 100"}},

		// Switch points: worker A stops just before its call N, B runs.
		// check-then-insert's SELECT is call 1; both SELECTs see nothing.
		{"check-then-insert switched after the check", "check-then-insert", dup + "deliver-concurrent switch=2", sim.Duplicate, 200,
			[]string{"switch: worker-1 pauses just before its call 2 (BEGIN)", "worker-2 sql #1 SELECT COUNT(*)"}},
		// A switch point inside a transaction waits for its end: SQLite's
		// write lock would make the other worker wait anyway. So the race
		// is gone.
		{"check-then-insert switched inside its transaction", "check-then-insert", dup + "deliver-concurrent switch=3", sim.OK, 100,
			[]string{"worker-1 is inside a transaction at its call 3"}},
		{"the same message, switched", "check-then-insert", one + "deliver-concurrent same switch=2", sim.Duplicate, 200,
			[]string{"the visibility timeout runs out while worker-1 is still at work", "late ack"}},
		// inbox: both read nothing, then the second INSERT hits the key and
		// nacks; the redelivery replays the saved response.
		{"inbox switched at both checks", "inbox", dup + "deliver-concurrent switch=2,2", sim.OK, 100,
			[]string{"worker-2 yield switch: worker-2 pauses just before its call 2", "nack: inbox acme/a written concurrently"}},
		{"worker A finishes before its switch", "naive", one + "deliver-concurrent same switch=3", sim.OK, 100,
			[]string{"worker-1 finished before its call 3: its visibility timeout never ran out"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCustom(t, c.script, handlers.Info{Name: c.handler})
			if r.Verdict != c.verdict || r.Settled != c.settled {
				t.Errorf("got %s with %d, want %s with %d (%s)\n%s", r.Verdict, r.Settled, c.verdict, c.settled, r.Reason, strings.Join(callEvents(r), "\n"))
			}
			for _, part := range c.trace {
				if !hasEvent(r, part) {
					t.Errorf("no event %q in\n%s", part, strings.Join(callEvents(r), "\n"))
				}
			}
		})
	}
}

// unmarked credits in a transaction and marks nothing: no crash point, no
// effect point. The oracle still counts its credit, and every call can
// still be crashed.
func unmarked(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	return tx.Commit()
}

// leaky forgets to commit: its transaction is still open when it returns.
func leaky(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account)
	return err
}

// stubborn ignores errors and credits three times in three statements.
func stubborn(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	for range 3 {
		d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account)
	}
	return nil
}

// yieldInTx offers a race window inside its transaction, where the other
// worker could only wait for the lock.
func yieldInTx(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	d.Point(handlers.Yield)
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	return tx.Commit()
}

func TestCrashAnywhereOnUnmarkedHandlers(t *testing.T) {
	const one = "publish a amount=100\n"
	cases := []struct {
		name    string
		handle  handlers.Func
		script  string
		verdict sim.Verdict
		settled int64
		trace   []string
	}{
		// Counted from the data, not from marks it does not make.
		{"unmarked, delivered once", unmarked, one + "deliver", sim.OK, 100, []string{"worker-1 sql #3 COMMIT"}},
		{"unmarked, dead before COMMIT", unmarked, one + "deliver crash=call:3", sim.OK, 100,
			[]string{"worker dies just before its call 3: COMMIT", "sqlite sql ROLLBACK"}},
		{"unmarked, dead after COMMIT", unmarked, one + "deliver crash=after-call:3", sim.Duplicate, 200, nil},
		// The engine rolls back a transaction left open instead of waiting
		// for it forever; the credit it held is gone, and the ack says done.
		{"a transaction left open", leaky, one + "deliver", sim.Lost, 0,
			[]string{"the handler returned with its transaction still open", "sqlite sql ROLLBACK"}},
		// After the crash its calls do not run, whatever it does with the
		// errors: one credit of three, then the redelivery's three.
		{"a handler that ignores the crash", stubborn, one + "deliver crash=call:2", sim.Duplicate, 400, nil},
		{"a race window inside a transaction", yieldInTx, "publish a amount=100\npublish b amount=50\ndeliver-concurrent", sim.OK, 150,
			[]string{"worker-1 is inside a transaction: the other worker would wait for its lock"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCustom(t, c.script, handlers.Info{Name: "mine", Handle: c.handle})
			if r.Verdict != c.verdict || r.Settled != c.settled {
				t.Errorf("got %s with %d, want %s with %d (%s)\n%s", r.Verdict, r.Settled, c.verdict, c.settled, r.Reason, strings.Join(callEvents(r), "\n"))
			}
			for _, part := range c.trace {
				if !hasEvent(r, part) {
					t.Errorf("no event %q in\n%s", part, strings.Join(callEvents(r), "\n"))
				}
			}
			// A dead worker's calls never reach the trace as its own.
			dead := false
			for _, tr := range r.Trace {
				for _, e := range tr.Events {
					switch {
					case e.Kind == sim.KindCrash:
						dead = true
					case e.Kind == sim.KindDeliver:
						dead = false
					case dead && e.Actor == "worker-1" && e.Call > 0:
						t.Errorf("a dead worker's call ran: %+v", e)
					}
				}
			}
		})
	}
}
