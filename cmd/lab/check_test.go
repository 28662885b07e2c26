package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestCheckCommand: lab check prints each handler's shortest failure with
// the address that replays it, and exits 1 when any handler failed, 0
// when none did.
func TestCheckCommand(t *testing.T) {
	code, out, errOut := lab(t, "", "check", "naive", "--depth", "2", "--runs", "0")
	if code != exitError || errOut != "" {
		t.Fatalf("exit %d, stderr %q; want 1 (a failure found)", code, errOut)
	}
	for _, want := range []string{"naive: duplicate in 2 steps", "publish a amount=10000", "deliver crash=before-ack",
		"replay: /lab?s=1", "&handlers=naive"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// inbox survives every story of two steps: exit 0 and says how far it looked.
	out = labOK(t, "", "check", "inbox", "--depth", "2", "--runs", "0")
	if !strings.Contains(out, "none up to depth 2 and 0 random scripts") {
		t.Errorf("a passing handler:\n%s", out)
	}
}

func TestCheckJSON(t *testing.T) {
	code, out, _ := lab(t, "", "check", "naive,broker-key", "--depth", "2", "--runs", "20", "--json")
	if code != exitError {
		t.Fatalf("exit %d, want 1", code)
	}
	var reports []struct {
		Handler, Verdict, Script, Permalink string
		Failed                              bool
		Steps, Explored, Depth, Runs        int
		Seed                                uint64
		Failures                            []struct{ Verdict, Script, Permalink string }
		PerSecond                           int `json:"schedules_per_second"`
	}
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(reports) != 2 || reports[0].Handler != "naive" || !reports[0].Failed || reports[0].Verdict != "duplicate" ||
		reports[0].Steps != 2 || reports[0].Seed != 1 || reports[0].Depth != 2 || reports[0].Runs != 20 || reports[0].Explored == 0 {
		t.Errorf("reports: %+v", reports)
	}
	// The top level repeats the shortest failure.
	if r := reports[0]; len(r.Failures) == 0 || r.Failures[0].Script != r.Script || r.Failures[0].Permalink != r.Permalink {
		t.Errorf("the top level is not the first failure: %+v", r)
	}
	// One entry for each distinct failure: naive's duplicates from a
	// crash before the ack and from a producer's retry are two, each with
	// its verdict, cause, reason, steps, script and address, the shortest
	// first; no verdict and cause twice.
	var raw []struct {
		Failures []map[string]any `json:"failures"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range raw[0].Failures {
		for _, k := range []string{"verdict", "cause", "reason", "steps", "script", "address", "permalink", "settled", "expected"} {
			if _, ok := f[k]; !ok {
				t.Errorf("a failure lacks %q: %v", k, f)
			}
		}
		if f["address"] == "" || f["address"] != f["permalink"] || f["reason"] == "" {
			t.Errorf("a failure's address or reason: %v", f)
		}
		key := fmt.Sprint(f["verdict"], " ", f["cause"])
		if seen[key] {
			t.Errorf("%s listed twice", key)
		}
		seen[key] = true
	}
	if fs := raw[0].Failures; len(fs) < 2 || fs[0]["cause"] != "crash=before-ack" || !seen["duplicate retry"] {
		t.Errorf("naive's failures: %v", fs)
	}
}

// TestCheckListsEveryDistinctFailure: the text lists every distinct
// failure under its handler, each with its cause; an API handler's
// stories have an address in --json too (its card in the lab).
func TestCheckListsEveryDistinctFailure(t *testing.T) {
	_, out, _ := lab(t, "", "check", "naive", "--depth", "2", "--runs", "0")
	for _, want := range []string{"naive: duplicate in 2 steps (settled 200.00, expected 100.00)\n  cause: crash=before-ack\n    publish a amount=10000\n    deliver crash=before-ack\n",
		"  cause: retry\n    publish a amount=10000\n    retry a\n", "distinct failures\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = lab(t, "", "check", "api-naive", "--depth", "1", "--runs", "0", "--json")
	var reports []struct {
		Failures []struct{ Cause, Address, Permalink string }
	}
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatal(err)
	}
	for _, f := range reports[0].Failures {
		if f.Cause == "" || f.Permalink != "" || !strings.HasPrefix(f.Address, "/lab?s=") || !strings.Contains(f.Address, "handlers=api-naive") {
			t.Errorf("an API story: %+v", f)
		}
	}
}

func TestCheckBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no handler", []string{"check"}, "want the handlers to check"},
		{"unknown handler", []string{"check", "nope"}, `unknown handler "nope"; valid handlers: naive,`},
		{"depth too big", []string{"check", "naive", "--depth", "9"}, "--depth 9: must be from 1 to 6"},
		{"negative runs", []string{"check", "naive", "--runs", "-1"}, "--runs -1: must be 0 (none) or more"},
		{"bad header", []string{"check", "naive", "--header", "max-deliveries: lots"}, "header"},
		{"bad budget", []string{"check", "naive", "--budget", "soon"}, "invalid value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := lab(t, "", tc.args...)
			if code != exitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 mentioning %q", code, errOut, tc.want)
			}
		})
	}
}
