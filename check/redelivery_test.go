package check

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/internal/fixtures"
	"github.com/idempotency-lab/lab/sim"
)

func checkHandler(t *testing.T, h handlers.Info, opt Options) Report {
	t.Helper()
	rep, err := CheckHandler(context.Background(), h, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestLeaseHandler: a handler whose in-progress record expires after its
// lease is judged as on its real platform once the queue's visibility
// timeout is at least the lease: a crash before the charge is retried
// (no loss), a crash after it charges again (a duplicate, not poison).
// Redelivery at once, the default, gives today's stories.
func TestLeaseHandler(t *testing.T) {
	for _, c := range []struct {
		name      string
		opt       Options
		must, not []sim.Verdict
		note      string // a part of the report's Redelivery
	}{
		// At once, the dead worker's record is still in progress: lost
		// and poison. A duplicate is found too, through advance past the
		// lease, as on the real platform.
		{"redelivery at once", quick, []sim.Verdict{sim.Lost, sim.Poison, sim.Duplicate}, nil, "redelivery at once"},
		{"a visibility timeout longer than the lease", withHeader(quick, "processing-ttl: 1m\nvisibility-timeout: 2m"),
			[]sim.Verdict{sim.Duplicate}, []sim.Verdict{sim.Lost, sim.Poison}, "after a visibility timeout of 2m"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := checkHandler(t, fixtures.Lease(), c.opt)
			for _, v := range c.must {
				if _, ok := failure(rep, v); !ok {
					t.Errorf("no %s story: %+v", v, rep.Failures)
				}
			}
			for _, v := range c.not {
				if f, ok := failure(rep, v); ok {
					t.Errorf("a false %s:\n%s", v, f.Script)
				}
			}
			if got := rep.Redelivery("en"); !strings.Contains(got, c.note) {
				t.Errorf("Redelivery = %q, want %q in it", got, c.note)
			}
			if rep.Redelivery("ru") == rep.Redelivery("en") {
				t.Errorf("no Russian note: %q", rep.Redelivery("ru"))
			}
		})
	}
	t.Run("the header's timeout is in every story", func(t *testing.T) {
		rep := checkHandler(t, fixtures.Lease(), withHeader(quick, "processing-ttl: 1m\nvisibility-timeout: 2m"))
		for _, f := range rep.Failures {
			if !strings.Contains(f.Script, "visibility-timeout: 2m\n") {
				t.Errorf("%s without the header's timeout:\n%s", f.Verdict, f.Script)
			}
		}
	})
}

func withHeader(o Options, header string) Options {
	o.Header = header
	return o
}

// TestVisibilitySweep: the sweep runs the scripts that redeliver after a
// crash under timeouts below and above each lifetime; the duplicate of a
// crash after the charge is then found in two steps, under a timeout past
// the lease, and says so in its header. A story that fails the same way
// at once is told without a timeout.
func TestVisibilitySweep(t *testing.T) {
	opt := withHeader(quick, "processing-ttl: 5m")
	opt.VisibilitySweep = true
	rep := checkHandler(t, fixtures.Lease(), opt)
	want := []time.Duration{0, 4 * time.Minute, 6 * time.Minute, 23*time.Hour + 59*time.Minute, 24*time.Hour + time.Minute}
	if !slicesEqual(rep.Visibility, want) {
		t.Errorf("Visibility = %v, want %v", rep.Visibility, want)
	}
	dup, ok := failure(rep, sim.Duplicate)
	if !ok || dup.Steps != 2 || !strings.Contains(dup.Script, "visibility-timeout: 6m\n") {
		t.Errorf("duplicate: %+v, want two steps under visibility-timeout: 6m", dup)
	}
	lost, ok := failure(rep, sim.Lost)
	if !ok || strings.Contains(lost.Script, "visibility-timeout") {
		t.Errorf("lost: %+v, want it told at once", lost)
	}
	if got := rep.Redelivery("en"); !strings.Contains(got, "redelivery at once, and after a visibility timeout of 4m, 6m, 23h59m or 24h1m") {
		t.Errorf("Redelivery = %q", got)
	}
	// The API side has no broker: no sweep, no note.
	api := checkHandler(t, sim.APIHandlers()[0], Options{Depth: 1, Runs: -1, VisibilitySweep: true})
	if len(api.Visibility) != 0 || api.Redelivery("en") != "" {
		t.Errorf("API side: %v, %q", api.Visibility, api.Redelivery("en"))
	}
}

func slicesEqual(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReplayDiffers: a story whose replay by lab run's path does not give
// the search's verdict is an internal error with both traces, never a
// report. The handler here credits twice until the replay, then once.
func TestReplayDiffers(t *testing.T) {
	twice := true
	h := handlers.Info{Name: "fickle", Handle: func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		n := 1
		if twice {
			n = 2
		}
		for range n {
			if _, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
				return err
			}
		}
		return nil
	}}
	opt := Options{Depth: 2, Runs: -1, beforeReplay: func() { twice = false }}
	_, err := CheckHandler(context.Background(), h, opt)
	var re *ReplayError
	if !errors.As(err, &re) {
		t.Fatalf("CheckHandler: %v, want a *ReplayError", err)
	}
	if re.Verdict != sim.Duplicate || re.Replayed != sim.OK || !strings.Contains(re.Script, "publish a") {
		t.Errorf("ReplayError %s -> %s for\n%s", re.Verdict, re.Replayed, re.Script)
	}
	msg := err.Error()
	for _, want := range []string{"internal error", "the search's run:", "the replay:", "verdict: duplicate", "verdict: ok", "UPDATE accounts"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
}

// TestEveryStoryReplays: every story the checker reports on the lab's
// handlers, both sides, replays to its verdict (CheckHandler refuses to
// report one that does not; this runs it on each).
func TestEveryStoryReplays(t *testing.T) {
	all, err := sim.Handlers([]string{"all"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range append(all, sim.APIHandlers()...) {
		rep, err := CheckHandler(context.Background(), h, Options{Depth: 2, Runs: 30, Len: 5})
		if err != nil {
			t.Errorf("%s: %v", h.Name, err)
			continue
		}
		for _, f := range rep.Failures {
			if got := replay(t, f.Script, h.Name); got.Verdict != f.Verdict {
				t.Errorf("%s: %s replays as %s:\n%s", h.Name, f.Verdict, got.Verdict, f.Script)
			}
		}
	}
}
