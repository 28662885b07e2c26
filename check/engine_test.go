package check

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/sim"
)

func TestMain(m *testing.M) {
	code := m.Run()
	servers.Stop() // the throwaway PostgreSQL and Redis, if a test started them
	os.Exit(code)
}

// TestCheckOnRealEngine: Options.Engine runs every world of the search on
// PostgreSQL + Redis, the probe and the stories' replays included (a
// replay on SQLite would not give the story's verdict: an internal
// error). unique-same-tx goes on in a transaction after its duplicate-key
// error: SQLite lets it, PostgreSQL aborts the transaction, and the
// repeat ends in the dead-letter queue: poison, on the real engine only.
func TestCheckOnRealEngine(t *testing.T) {
	pg, rd := servers.Postgres(t), servers.Redis(t)
	ctx := context.Background()
	e, err := sim.NewEngine(ctx, pg, rd)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	verdicts := func(opt Options) []sim.Verdict {
		t.Helper()
		rep, err := Check(ctx, "unique-same-tx", opt)
		if err != nil {
			t.Fatal(err)
		}
		var out []sim.Verdict
		for _, f := range rep.Failures {
			out = append(out, f.Verdict)
		}
		return out
	}
	if v := verdicts(Options{Depth: 2, Runs: -1}); slices.Contains(v, sim.Poison) {
		t.Errorf("embedded: %v, want no poison", v)
	}
	if v := verdicts(Options{Depth: 2, Runs: -1, Engine: e}); !slices.Contains(v, sim.Poison) {
		t.Errorf("real: %v, want poison", v)
	}
}
