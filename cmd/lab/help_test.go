package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestHelpListsEveryCommandAndFlag: lab help names lab check api, and
// every flag lab serve, lab check and lab conform take (read from each
// command's own flag list): check's --engine, --postgres and --redis,
// conform's --code among them.
func TestHelpListsEveryCommandAndFlag(t *testing.T) {
	help := labOK(t, "", "help")
	if !strings.Contains(help, "lab check HANDLER[,HANDLER...]|core|api|all") || !strings.Contains(help, "lab check api") {
		t.Errorf("help lacks lab check api:\n%s", help)
	}
	for _, c := range []struct {
		command string
		min     int      // flags the command has at least
		want    []string // flags that must be among them
	}{
		{"serve", 20, nil},
		{"check", 15, []string{"engine", "postgres", "redis", "code"}},
		{"conform", 8, []string{"engine", "postgres", "redis", "code", "name", "timeout", "memory"}},
	} {
		_, _, flags := lab(t, "", c.command, "-h")
		var names []string
		for _, n := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(flags, -1) {
			names = append(names, n[1])
		}
		if len(names) < c.min {
			t.Fatalf("%s -h lists %d flags:\n%s", c.command, len(names), flags)
		}
		for _, w := range c.want {
			if !slices.Contains(names, w) {
				t.Errorf("%s -h lacks --%s", c.command, w)
			}
		}
		// Each command's usage holds its flags: from its line in the
		// help to the next command's.
		start := strings.Index(help, "  lab "+c.command+" ")
		if c.command == "serve" {
			start = strings.Index(help, "  lab [serve]")
		}
		if start < 0 {
			t.Fatalf("help lacks lab %s", c.command)
		}
		usage := help[start:]
		if end := regexp.MustCompile(`\n  lab [a-z]`).FindStringIndex(usage[1:]); end != nil {
			usage = usage[:end[0]+1]
		}
		if c.command == "check" { // lab check's usage is two lines: its handlers' and --code's
			usage = help[start:strings.Index(help, "  lab conform")]
		}
		for _, n := range names {
			if !strings.Contains(usage, "[--"+n) && !strings.Contains(usage, " --"+n+" ") {
				t.Errorf("help's lab %s lacks --%s:\n%s", c.command, n, usage)
			}
		}
	}
	if !strings.Contains(help, "lab conform --engine real") || !strings.Contains(help, "[--code my.go") {
		t.Errorf("help lacks lab conform --code:\n%s", help)
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
