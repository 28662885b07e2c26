package check

import (
	"context"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// TestFenceCatchesTheStaleWrite: with a visibility timeout longer than the
// claim (lesson 13's paused worker), the search finds setnx-token's worker
// paused before its charge (switch=2) charging after its successor. The
// fence of setnx-fence refuses that write: its only paused-worker story
// pauses at call 3, inside its transaction, which SQLite runs to the commit
// before the switch, so the worker pauses after its credit and before it
// marks the key done. The successor's newer token then passes the fence: a
// repeat of the operation, which a fence does not recognise by design.
func TestFenceCatchesTheStaleWrite(t *testing.T) {
	opt := withHeader(quick, "processing-ttl: 1m\nvisibility-timeout: 2m")
	paused := func(h string) string {
		t.Helper()
		for _, f := range mustCheck(t, h, opt).Failures {
			if f.Cause == "deliver-concurrent same" {
				if f.Verdict != sim.Duplicate {
					t.Errorf("%s: paused-worker story is %s, want duplicate:\n%s", h, f.Verdict, f.Script)
				}
				return f.Script
			}
		}
		return ""
	}
	if s := paused("setnx-token"); !strings.Contains(s, "deliver-concurrent same switch=2\n") {
		t.Errorf("setnx-token: no worker paused before its charge; story:\n%s", s)
	}
	if s := paused("setnx-fence"); !strings.Contains(s, "deliver-concurrent same switch=3\n") {
		t.Errorf("setnx-fence: want the pause after the commit (switch=3); story:\n%s", s)
	}
	// The stale write itself, replayed on both.
	sc := script.MustParse("processing-ttl: 1m\nvisibility-timeout: 2m\npublish a amount=10000\ndeliver-concurrent same switch=2\n")
	run, err := sim.Execute(context.Background(), sc, sim.Options{Handlers: []string{"setnx-token", "setnx-fence"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []sim.Verdict{sim.Duplicate, sim.OK} {
		if r := run.Results[i]; r.Verdict != want {
			t.Errorf("%s on the stale write: %s, want %s (%s)", r.Handler, r.Verdict, want, r.Reason)
		}
	}
}
