package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/web/webtest"
)

// fixed is naive made safe against redelivery (the web's tests use the
// same file).
const fixed = webtest.FixedNaive

func writeCode(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mine.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunCode(t *testing.T) {
	path := writeCode(t, fixed)
	out := labOK(t, "", "run", "crash-before-ack", "--code", path, "--json")
	if v := verdicts(decodeRun(t, out)); len(v) != 1 || v["yours"] != "ok" {
		t.Errorf("verdicts %v, want yours alone, ok", v)
	}
	out = labOK(t, "", "run", "crash-before-ack", "--code", path, "--name", "mine", "--handlers", "naive")
	rows := tableRows(out)
	if rows["naive"][4] != "duplicate" || rows["mine"][4] != "ok" {
		t.Errorf("table:\n%s", out)
	}
}

func TestCheckCode(t *testing.T) {
	code, out, _ := lab(t, "", "check", "--code", writeCode(t, fixed), "--depth", "2", "--runs", "0")
	// Keyed by tenant and operation, with no payload hash: a changed
	// payload is acked as a repeat.
	if code != exitError || !strings.Contains(out, "yours    silent-conflict") || !strings.Contains(out, "&code=1") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// before puts code at the start of fixed's Handle.
func before(code string) string {
	first := "tx, err := d.DB.BeginTx(ctx, nil)"
	return strings.Replace(fixed, first, code+"\n\t"+first, 1)
}

func TestBadCode(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		src  string
		want string
	}{
		{"a forbidden import", nil, strings.Replace(fixed, `"context"`, `"context"`+"\n\t\"os\"", 1), `line 5: import "os" is not allowed`},
		{"an endless loop", []string{"--timeout", "1s"}, before("for {\n\t}"), "used more than 1 s of CPU and was stopped"},
		{"a syntax error", nil, before("return nil nil"), "syntax error"},
		{"an undefined name", nil, before("return nothing"), "does not compile: undefined: nothing"},
		{"an allocation bomb", []string{"--memory", "64"}, before("var keep [][]byte\n\tfor {\n\t\tkeep = append(keep, make([]byte, 1<<20))\n\t}"), "more than 64 MB of memory"},
		{"a goroutine bomb", []string{"--memory", "64"}, before("for {\n\t\tgo func() { select {} }()\n\t}"), "more than 64 MB of memory"},
		{"a panic in a goroutine", nil, before("go func() { panic(\"boom\") }()\n\tselect {}"), "crashed its process with a panic"},
		{"a 10,000-line file", nil, strings.Repeat("// a line\n", 10000), "a handler file may have at most 16384 bytes"},
		{"a bad memory flag", []string{"--memory", "1"}, fixed, "--memory 1: must be from 32 to 16384"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", "crash-before-ack", "--code", writeCode(t, c.src)}, c.args...)
			code, _, stderr := lab(t, "", args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, c.want)
			}
		})
	}
	code, _, stderr := lab(t, "", "check", "--code", "/nonexistent/mine.go")
	if code != exitUsage || !strings.Contains(stderr, "--code: open /nonexistent/mine.go") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
