package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestHelpListsEveryCommandAndFlag: lab help names lab check api and
// every flag lab serve takes (read from serve's own flag list), and
// does not offer lab conform --code, which conform does not take.
func TestHelpListsEveryCommandAndFlag(t *testing.T) {
	help := labOK(t, "", "help")
	if !strings.Contains(help, "lab check HANDLER[,HANDLER...]|core|api|all") || !strings.Contains(help, "lab check api") {
		t.Errorf("help lacks lab check api:\n%s", help)
	}
	_, _, flags := lab(t, "", "serve", "-h")
	names := regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(flags, -1)
	if len(names) < 20 {
		t.Fatalf("serve -h lists %d flags:\n%s", len(names), flags)
	}
	for _, n := range names {
		if !strings.Contains(help, "[--"+n[1]) {
			t.Errorf("help lacks serve's --%s", n[1])
		}
	}
	if code, _, errOut := lab(t, "", "conform", "--code", "x.go"); code != exitUsage || !strings.Contains(errOut, "flag provided but not defined") {
		t.Fatalf("lab conform --code: exit %d, %s; if conform takes --code now, list it in the help", code, errOut)
	}
	if strings.Contains(help, "conform --code") {
		t.Error("help offers lab conform --code, which conform does not take")
	}
}

// TestCheckAPIOneStep: a story of one step says "1 step", in the table
// of lab run and in lab check's stories; lab check --json gives every
// failure's reason, the API side's in a client's words (no published
// messages).
func TestCheckAPIOneStep(t *testing.T) {
	code, out, errOut := lab(t, "", "check", "api-naive", "--depth", "1", "--runs", "0")
	if code != exitError || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "api-naive: duplicate in 1 step (") || strings.Contains(out, "1 steps") {
		t.Errorf("output:\n%s", out)
	}
	_, out, _ = lab(t, "", "check", "api-naive,naive", "--depth", "2", "--runs", "0", "--json")
	var reports []struct {
		Handler  string
		Failures []struct{ Verdict, Reason string }
	}
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, r := range reports {
		if len(r.Failures) == 0 {
			t.Errorf("%s: no failures", r.Handler)
		}
		for _, f := range r.Failures {
			if f.Reason == "" || (r.Handler == "api-naive" && strings.Contains(f.Reason, "published")) {
				t.Errorf("%s: %s with reason %q", r.Handler, f.Verdict, f.Reason)
			}
		}
	}
	if out := labOK(t, "publish a amount=100\n", "run", "-", "--handlers", "naive"); !strings.Contains(out, ": 1 step\n") {
		t.Errorf("lab run of one step:\n%s", out)
	}
}
