package sim_test

import (
	"context"
	"net/http"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// A worker that dies at a crash point is dead: a handler that recovers in
// a defer cannot catch the crash, learn where it died, or go on. Its
// deferred calls run (as tx.Rollback does when a process's connection
// drops), but recover() returns nil there, so the run is the same, event
// for event, as the one of the same handler without the defer.

// credit is naive with both marks: the business effect between them.
func credit(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.BeforeEffect)
	if _, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	d.Point(handlers.AfterEffect)
	return nil
}

// recovering wraps a handler in a defer that recovers whatever unwinds
// it, says so in the trace and returns nil (an ack, were the worker
// alive); deferred and caught count its defers run and the values it
// caught.
func recovering(h handlers.Func, deferred, caught *atomic.Int32) handlers.Func {
	return func(ctx context.Context, d handlers.Deps, m handlers.Message) (err error) {
		defer func() {
			deferred.Add(1)
			if r := recover(); r != nil {
				caught.Add(1)
				d.Log("recovered %v: carrying on", r)
				err = nil
			}
		}()
		return h(ctx, d, m)
	}
}

func TestACrashCannotBeRecovered(t *testing.T) {
	cases := []struct {
		name, script string
		verdict      sim.Verdict
		defers       int32 // the recovering handler's deferred calls that ran
	}{
		// Died before the effect: the redelivery credits once.
		{"before the effect", "publish a amount=100\ndeliver crash=before-effect\n", sim.OK, 2},
		// Died after the commit: naive credits again on redelivery.
		{"after the effect", "publish a amount=100\ndeliver crash=after-effect\n", sim.Duplicate, 2},
		// Two racing workers on one message, each handing over at its
		// first call: a handler's call on its own goroutine still pauses
		// and resumes at the switch. Both credit it.
		{"racing", "publish a amount=100\ndeliver-concurrent same switch=1,1\n", sim.Duplicate, 2},
		// No crash: the defer runs on a normal return, and there is
		// nothing to recover either way.
		{"no crash", "publish a amount=100\ndeliver\n", sim.OK, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var deferred, caught atomic.Int32
			plain := runCustom(t, c.script, handlers.Info{Name: "credit", Handle: credit})
			rec := runCustom(t, c.script, handlers.Info{Name: "credit", Handle: recovering(credit, &deferred, &caught)})
			if rec.Verdict != c.verdict || plain.Verdict != c.verdict {
				t.Errorf("verdicts %s (recovering) and %s (plain), want %s", rec.Verdict, plain.Verdict, c.verdict)
			}
			if got := caught.Load(); got != 0 {
				t.Errorf("the handler's recover() caught %d values; a dead worker's must catch nothing", got)
			}
			if got := deferred.Load(); got < c.defers {
				t.Errorf("the handler's defer ran %d times, want at least %d: a crash still runs deferred calls", got, c.defers)
			}
			if !reflect.DeepEqual(callEvents(rec), callEvents(plain)) {
				t.Errorf("the recovering handler's run differs from the plain one's:\n%q\n%q", callEvents(rec), callEvents(plain))
			}
			if c.name != "no crash" && c.name != "racing" && !hasEvent(rec, "worker dies at ") {
				t.Errorf("no crash in the trace: %q", callEvents(rec))
			}
		})
	}
}

// The API side: a server that dies after the charge sends no answer,
// whatever its handler recovers.
func TestAnAPICrashCannotBeRecovered(t *testing.T) {
	charge := func(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse {
		if err := d.Gateway.Charge(ctx, r.Account, r.Amount, r.Key); err != nil {
			return handlers.APIResponse{Status: http.StatusBadGateway, Body: `{"title":"gateway"}`}
		}
		d.Point(handlers.AfterEffect)
		return handlers.APIResponse{Status: http.StatusCreated, Body: `{"status":"paid"}`}
	}
	var caught atomic.Int32
	recovering := func(ctx context.Context, d handlers.Deps, r handlers.APIRequest) (resp handlers.APIResponse) {
		defer func() {
			if r := recover(); r != nil {
				caught.Add(1)
				resp = handlers.APIResponse{Status: http.StatusOK, Body: `{"status":"recovered"}`}
			}
		}()
		return charge(ctx, d, r)
	}
	const src = "request pay-1 amount=100 crash=after-effect\n"
	s, err := script.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var runs []sim.Result
	for _, api := range []handlers.APIFunc{charge, recovering} {
		run, err := sim.Execute(context.Background(), s, sim.Options{Custom: []handlers.Info{{Name: "charge", API: api}}})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run.Results[0])
	}
	if caught.Load() != 0 {
		t.Errorf("the handler's recover() caught %d values", caught.Load())
	}
	if !hasEvent(runs[1], "no answer, the server died") {
		t.Errorf("the server answered after its crash: %q", callEvents(runs[1]))
	}
	if runs[0].Verdict != runs[1].Verdict || !reflect.DeepEqual(callEvents(runs[0]), callEvents(runs[1])) {
		t.Errorf("the recovering server's run (%s) differs from the plain one's (%s):\n%q\n%q",
			runs[1].Verdict, runs[0].Verdict, callEvents(runs[1]), callEvents(runs[0]))
	}
}
