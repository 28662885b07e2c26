package sandbox_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
)

// The goals for a submitted handler: compiled and run on a preset
// in under 500 ms, checked to depth 4 in under 5 s; and the interpreter's
// overhead, as a ratio against the same handler compiled in. inbox is the
// handler measured: the lab's longest, and its copy is a handler file
// (testdata/builtin/inbox.go). `make sandbox-bench` runs these.

func inboxFile(b *testing.B) string {
	src, err := os.ReadFile("testdata/builtin/inbox.go")
	if err != nil {
		b.Fatal(err)
	}
	return string(src)
}

// BenchmarkSubmitAndRun is what the lab does for a Run: a child process
// that checks, interprets and runs the file on a preset.
func BenchmarkSubmitAndRun(b *testing.B) {
	r := runner(sandbox.Limits{})
	req := sandbox.Request{Op: "run", Name: "yours", Code: inboxFile(b), Script: presetSource(b, "crash-before-ack")}
	for b.Loop() {
		resp, err := r.Run(context.Background(), req)
		if err != nil || resp.Error != nil {
			b.Fatal(err, resp)
		}
	}
}

// BenchmarkSubmitAndCheckDepth4 is `lab check --code` at its default
// depth: every script up to four steps, then 2,000 random ones.
func BenchmarkSubmitAndCheckDepth4(b *testing.B) {
	r := runner(sandbox.Limits{Timeout: 2 * 60e9})
	req := sandbox.Request{Op: "check", Name: "yours", Code: inboxFile(b),
		Check: check.Options{Depth: 4, Runs: check.DefaultRuns, Len: check.DefaultLen, Seed: check.DefaultSeed}}
	for b.Loop() {
		resp, err := r.Run(context.Background(), req)
		if err != nil || resp.Error != nil || resp.Report.Failed() {
			b.Fatal(err, resp)
		}
	}
}

// BenchmarkInterpretedVsCompiled runs inbox's depth-3 search in this
// process twice: the handler compiled in, and the same file interpreted.
// The ratio of the two is the interpreter's cost to a search.
func BenchmarkInterpretedVsCompiled(b *testing.B) {
	f, err := sandbox.Parse(inboxFile(b))
	if err != nil {
		b.Fatal(err)
	}
	fn, err := loadQuietly(f)
	if err != nil {
		b.Fatal(err)
	}
	var builtin handlers.Info
	for _, h := range handlers.List() {
		if h.Name == "inbox" {
			builtin = h
		}
	}
	opt := check.Options{Depth: 3, Runs: -1}
	for _, c := range []struct {
		name string
		h    handlers.Info
	}{
		{"compiled", builtin},
		{"interpreted", handlers.Info{Name: "inbox", Schema: f.Schema, Redis: f.Redis, Handle: fn}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := check.CheckHandler(context.Background(), c.h, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func presetSource(b *testing.B, name string) string {
	presets, err := sim.Presets()
	if err != nil {
		b.Fatal(err)
	}
	p, err := sim.FindPreset(presets, name)
	if err != nil {
		b.Fatal(err)
	}
	return p.Script.String()
}

// BenchmarkCheckFreshState is the checker's speed, in scripts a second,
// on inbox's file as it is (no package-level variable: one interpreter
// serves every delivery) and with one package-level variable added
// (interpreted anew for every delivery, so that no state outlives a
// worker: handlers.Info.Fresh).
func BenchmarkCheckFreshState(b *testing.B) {
	src := inboxFile(b)
	withVar := strings.Replace(src, "\nfunc Handle(", "\nvar errUnused = errors.New(\"unused\")\n\nfunc Handle(", 1)
	if !strings.Contains(withVar, "\"errors\"") {
		withVar = strings.Replace(withVar, "import (", "import (\n\t\"errors\"", 1)
	}
	for _, c := range []struct{ name, src string }{{"no-vars", src}, {"a-var", withVar}} {
		b.Run(c.name, func(b *testing.B) {
			f, err := sandbox.Parse(c.src)
			if err != nil {
				b.Fatal(err)
			}
			h, err := sandbox.LoadHandler(f)
			if err != nil {
				b.Fatal(err)
			}
			h.Name = "inbox"
			explored := 0
			for b.Loop() {
				rep, err := check.CheckHandler(context.Background(), h, check.Options{Depth: 3, Runs: -1})
				if err != nil {
					b.Fatal(err)
				}
				explored += rep.Explored
			}
			b.ReportMetric(float64(explored)/b.Elapsed().Seconds(), "scripts/s")
		})
	}
}
