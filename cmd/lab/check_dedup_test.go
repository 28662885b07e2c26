package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sandbox"
)

// TestCheckDedupStates: lab check --dedup-states --json reports the
// scripts run and the distinct states reached, fewer scripts than the
// full search for the same verdicts and shortest story; without the flag
// no distinct_states; a handler file (--code) searched as the compiled
// handler is; with --visibility-sweep, a usage error.
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
		if err := json.Unmarshal([]byte(out), &reps); err != nil || len(reps) == 0 {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return reps[len(reps)-1] // with --code, the file's report comes after naive's

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
	// A person's file is searched in the sandbox child, with the flag as
	// it travels there (check.Options whole): the naive handler's own
	// file finds naive's shortest story from as few scripts.
	src, err := sandbox.Builtin("naive")
	if err != nil {
		t.Fatal(err)
	}
	file := search("--dedup-states", "--code", writeCode(t, src), "--name", "mine")
	if file.Handler != "mine" || file.DistinctStates == nil || *file.DistinctStates != *dedup.DistinctStates || file.Scripts != dedup.Scripts ||
		file.Verdict != dedup.Verdict || file.Script != dedup.Script {
		t.Errorf("the file in the sandbox: %+v, the compiled handler: %+v", file, dedup)
	}
	code, _, errOut := lab(t, "", "check", "inbox", "--dedup-states", "--visibility-sweep")
	if code != exitUsage || !strings.Contains(errOut, "--dedup-states does not go with --visibility-sweep") {
		t.Errorf("--visibility-sweep: exit %d, stderr %q", code, errOut)
	}
}
