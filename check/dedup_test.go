package check

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sim"
)

// shortestStories writes, for each verdict a report found, in the
// report's order, its shortest story whole: the script, its steps and
// what the oracle said of it.
func shortestStories(rep Report) []string {
	var out []string
	seen := map[sim.Verdict]bool{}
	for _, f := range rep.Failures {
		if seen[f.Verdict] {
			continue
		}
		seen[f.Verdict] = true
		out = append(out, fmt.Sprintf("%s in %d steps (settled %d, expected %d: %s)\n%s", f.Verdict, f.Steps, f.Settled, f.Expected, f.Reason, f.Script))
	}
	return out
}

// TestDedupStatesSameVerdicts: a search that expands each state once
// (Options.DedupStates) finds every verdict the full search finds, each
// with the same shortest story, and no other: no failure missed, no false
// alarm, on every message handler and on the headers the lab's searches
// use (the inbox's retention, a processing TTL, a broker profile); with
// LAB_CHECK_DEEP set, to depth 4 on lab check core's handlers and the
// inbox family.
func TestDedupStatesSameVerdicts(t *testing.T) {
	type tc struct {
		handler string
		opt     Options
	}
	var cases []tc
	all, err := sim.Handlers([]string{"all"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range all {
		// Every handler to depth 3, with random scripts after: those
		// skip the settlement of a state known to settle OK.
		cases = append(cases, tc{h.Name, Options{Depth: 3, Runs: 200, Len: 6}})
	}
	for _, h := range []string{"setnx", "setnx-token", "setnx-fence", "setnx-no-release"} {
		cases = append(cases, tc{h, Options{Depth: 3, Runs: -1, Header: "processing-ttl: 20s"}},
			tc{h, Options{Depth: 3, Runs: -1, Header: "processing-ttl: 20s\nbroker: sqs"}})
	}
	if os.Getenv("LAB_CHECK_DEEP") != "" {
		// lab check core and the inbox family, as deep as lab check goes
		// by default: about 80 CPU-seconds, too long for every test run.
		//   LAB_CHECK_DEEP=1 go test ./check -run TestDedupStatesSameVerdicts -timeout 30m
		core, err := sim.Handlers([]string{"core"})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range core {
			cases = append(cases, tc{h.Name, Options{Depth: 4, Runs: -1}})
		}
		for _, h := range []string{"inbox", "inbox-no-hash"} {
			if h != "inbox" {
				cases = append(cases, tc{h, Options{Depth: 4, Runs: -1}})
			}
			cases = append(cases, tc{h, Options{Depth: 4, Runs: -1, Header: "inbox-retention: 1h"}})
		}
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s/depth=%d/%s", c.handler, c.opt.Depth, strings.ReplaceAll(c.opt.Header, "\n", ";"))
		t.Run(name, func(t *testing.T) {
			full, err := Check(context.Background(), c.handler, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			opt := c.opt
			opt.DedupStates = true
			dedup, err := Check(context.Background(), c.handler, opt)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := shortestStories(dedup), shortestStories(full); !reflect.DeepEqual(got, want) {
				t.Errorf("with --dedup-states:\n%s\nwithout:\n%s", strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
			}
			if dedup.Explored > full.Explored || dedup.DistinctStates == 0 || full.DistinctStates != 0 {
				t.Errorf("scripts %d with, %d without; distinct states %d with, %d without", dedup.Explored, full.Explored,
					dedup.DistinctStates, full.DistinctStates)
			}
			t.Logf("scripts %d -> %d, %d distinct states; stories %d -> %d", full.Explored, dedup.Explored, dedup.DistinctStates,
				len(full.Failures), len(dedup.Failures))
		})
	}
}

// TestDedupStatesAPIUnchanged: the API side's worlds are not keyed, so a
// search with DedupStates runs every script the full search runs and
// reports the same, the count of states aside.
func TestDedupStatesAPIUnchanged(t *testing.T) {
	opt := Options{Depth: 2, Runs: 30}
	full, err := Check(context.Background(), "api-idempotency-key", opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.DedupStates = true
	dedup, err := Check(context.Background(), "api-idempotency-key", opt)
	if err != nil {
		t.Fatal(err)
	}
	dedup.DistinctStates = 0
	if !reflect.DeepEqual(dedup, full) {
		t.Errorf("with DedupStates:\n%+v\nwithout:\n%+v", dedup, full)
	}
}

// TestDedupStatesRefusesSweep: the visibility sweep runs a script under
// other timeouts, where a state alike under the header's may differ.
func TestDedupStatesRefusesSweep(t *testing.T) {
	_, err := Check(context.Background(), "inbox", Options{Depth: 1, DedupStates: true, VisibilitySweep: true})
	if err == nil || !strings.Contains(err.Error(), "visibility sweep") {
		t.Errorf("got %v, want the sweep refused", err)
	}
}
