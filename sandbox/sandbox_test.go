package sandbox_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
)

// TestMain makes the test binary its own sandbox child, as `lab
// sandbox-child` is the lab's.
func TestMain(m *testing.M) {
	if sandbox.IsChild() {
		os.Exit(sandbox.Child())
	}
	os.Exit(m.Run())
}

func runner(lim sandbox.Limits) *sandbox.Runner {
	return sandbox.NewRunner([]string{os.Args[0]}, lim)
}

// file is a handler file whose Handle has the given body and imports.
func file(imports, body string) string {
	return "package handler\n\nimport (\n\t\"context\"\n" + imports + "\n\t\"github.com/idempotency-lab/lab/handlers\"\n)\n\n" +
		"func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {\n" + body + "\n}\n"
}

const naiveBody = `	_, err := d.DB.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account)
	return err`

func TestRunsAHandlerFile(t *testing.T) {
	resp, err := runner(sandbox.Limits{}).Run(context.Background(), sandbox.Request{Op: "run", Name: "yours",
		Code: file("", naiveBody), Script: "publish a amount=100\ndeliver crash=before-ack\n", Snapshots: true})
	if err != nil || resp.Error != nil {
		t.Fatalf("%v %+v", err, resp)
	}
	res := resp.Run.Unwire()
	if res.Handler != "yours" || res.Verdict != sim.Duplicate || res.Settled != 200 {
		t.Errorf("got %s %s %d", res.Handler, res.Verdict, res.Settled)
	}
	if res.Trace[1].State == nil || res.Final == nil || !res.Trace[1].Crashed {
		t.Error("the snapshots, the final state and the crash flags did not travel")
	}
}

// The failure modes of a person's file: each ends with a message naming
// what happened, on its line when there is one.
func TestFailureModes(t *testing.T) {
	lim := sandbox.Limits{Memory: 64 << 20, Timeout: 2 * time.Second}
	cases := []struct {
		name, code string
		line       int
		want       string
	}{
		{"a forbidden import", file("\t\"os\"", naiveBody), 5, `import "os" is not allowed; a handler file may import: context, crypto/sha256`},
		{"a 10,000-line file", strings.Repeat("// a line\n", 10000), 0, "the file has 100000 bytes (10001 lines); a handler file may have at most 16384 bytes"},
		{"a syntax error", file("", "\treturn nil nil"), 10, "syntax error"},
		{"an undefined name", file("", "\treturn nothing"), 10, "does not compile: undefined: nothing"},
		{"opening a database of its own", file("\t\"database/sql\"", "\t_, err := sql.Open(\"sqlite\", \"/etc/passwd\")\n\treturn err"), 10, "does not compile"},
		{"no Handle", "package handler\n", 0, "no Handle function"},
		{"another package", "package main\n\nfunc Handle() {}\n", 1, "it must be package handler"},
		// Two seconds of CPU, however long the loaded machine takes to
		// give them.
		{"an endless loop", file("", "\tfor {\n\t}"), 0, "used more than 2 s of CPU and was stopped"},
		{"an allocation bomb", file("", "\tvar keep [][]byte\n\tfor {\n\t\tkeep = append(keep, make([]byte, 1<<20))\n\t}"), 0, "more than 64 MB of memory"},
		{"a goroutine bomb", file("", "\tfor {\n\t\tgo func() { select {} }()\n\t}"), 0, "more than 64 MB of memory"},
		// The line comes from the interpreter's own report; the panic's
		// value, the handler's text, is not in the lab's message.
		{"a panic in a goroutine of its own", file("", "\tgo func() { panic(\"boom\") }()\n\tselect {}"), 10, "crashed its process with a panic"},
	}
	r := runner(lim)
	// The bombs must be stopped by their memory, however loaded the
	// machine: their time limit is far beyond what filling 64 MB takes.
	roomy := runner(sandbox.Limits{Memory: lim.Memory, Timeout: time.Minute})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := r
			if strings.Contains(c.name, "bomb") {
				r = roomy
			}
			resp, err := r.Run(context.Background(), sandbox.Request{Op: "run", Name: "yours", Code: c.code,
				Script: "publish a amount=100\ndeliver\n"})
			var se *sandbox.Error
			switch {
			case err != nil && errors.As(err, &se):
			case err == nil && resp.Error != nil:
				se = resp.Error
			default:
				t.Fatalf("no error: %v %+v", err, resp)
			}
			if !strings.Contains(se.Text.String(), c.want) || se.Line != c.line || se.Text.In("ru") == "" {
				t.Errorf("got line %d %q (ru %q), want line %d %q", se.Line, se.Text.String(), se.Text.In("ru"), c.line, c.want)
			}
		})
	}
}

// A panic inside Handle is the handler failing: the engine recovers it,
// nacks the message and shows it in the trace, as for a built-in handler.
func TestPanicInHandleIsANack(t *testing.T) {
	resp, err := runner(sandbox.Limits{}).Run(context.Background(), sandbox.Request{Op: "run", Name: "yours",
		Code: file("", "\tpanic(\"boom\")"), Script: "publish a amount=100\ndeliver\n"})
	if err != nil || resp.Error != nil {
		t.Fatalf("%v %+v", err, resp)
	}
	res := resp.Run.Unwire()
	found := ""
	for _, e := range res.Trace[1].Events {
		if e.Kind == sim.KindNack {
			found = e.Text
		}
	}
	if !strings.Contains(found, "handler panicked") || !strings.Contains(found, "boom") {
		t.Errorf("nack %q", found)
	}
}

func TestBusy(t *testing.T) {
	r := runner(sandbox.Limits{MaxChildren: 1, Timeout: 2 * time.Second})
	started := make(chan struct{})
	go func() {
		close(started)
		r.Run(context.Background(), sandbox.Request{Op: "run", Code: file("", "\tfor {\n\t}"), Script: "publish a amount=1\ndeliver\n"})
	}()
	<-started
	for range 200 {
		_, err := r.Run(context.Background(), sandbox.Request{Op: "run", Code: file("", naiveBody), Script: "publish a amount=1\n"})
		if errors.Is(err, sandbox.ErrBusy) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("a second child started while the only slot was taken")
}
