package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckDedupStates: lab check --dedup-states --json reports the
// scripts run and the distinct states reached, fewer scripts than the
// full search for the same verdicts and shortest story; without the flag
// no distinct_states; with --visibility-sweep or --code, a usage error.
func TestCheckDedupStates(t *testing.T) {
	type report struct {
		Handler, Verdict, Script string
		Failed                   bool
		Scripts, Explored        int
		DistinctStates           *int `json:"distinct_states"`
	}
	search := func(args ...string) report {
		t.Helper()
		code, out, errOut := lab(t, "", append([]string{"check", "naive", "--depth", "3", "--runs", "0", "--json"}, args...)...)
		if code != exitError {
			t.Fatalf("%v: exit %d, want 1 (naive fails): %s", args, code, errOut)
		}
		var reps []report
		if err := json.Unmarshal([]byte(out), &reps); err != nil || len(reps) != 1 {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return reps[0]
	}
	full, dedup := search(), search("--dedup-states")
	if full.DistinctStates != nil || full.Scripts != full.Explored || full.Scripts == 0 {
		t.Errorf("without the flag: %+v", full)
	}
	if dedup.DistinctStates == nil || *dedup.DistinctStates == 0 || dedup.Scripts >= full.Scripts || dedup.Scripts != dedup.Explored {
		t.Errorf("with the flag: %+v, without: %+v", dedup, full)
	}
	if dedup.Verdict != full.Verdict || dedup.Script != full.Script || !dedup.Failed {
		t.Errorf("the shortest story: %q %q with the flag, %q %q without", dedup.Verdict, dedup.Script, full.Verdict, full.Script)
	}
	for _, other := range [][]string{{"--visibility-sweep"}, {"--code", "x.go"}} {
		code, _, errOut := lab(t, "", append([]string{"check", "inbox", "--dedup-states"}, other...)...)
		if code != exitUsage || !strings.Contains(errOut, "--dedup-states does not go with "+other[0]) {
			t.Errorf("%v: exit %d, stderr %q", other, code, errOut)
		}
	}
}
