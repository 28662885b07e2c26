package main

import (
	"encoding/json"
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
