package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

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

// BenchmarkEditorRun is one editor run (Runner.Run, inbox's file on a
// preset, isolated as the server isolates it) with a child started for
// it ("cold", Limits.Warm -1) and with a warm child, started before and
// waiting, blocked reading its request ("warm"), in turns within one
// benchmark so that a loaded machine weighs on both alike. It reports
// the median wall time of a run each way and their ratio, and the
// median CPU of the child that served it, its start included (the
// kernel's rusage of reaped children).
func BenchmarkEditorRun(b *testing.B) {
	cold := runner(sandbox.Limits{Warm: -1})
	warm := runner(sandbox.Limits{})
	defer cold.Close()
	defer warm.Close()
	for _, r := range []*sandbox.Runner{cold, warm} {
		if _, err := r.Isolation(); err != nil {
			b.Fatal(err)
		}
	}
	req := sandbox.Request{Op: "run", Name: "yours", Code: inboxFile(b), Script: presetSource(b, "crash-before-ack")}
	run := func(r *sandbox.Runner) (wall, cpu time.Duration) {
		before := childrenCPU(b)
		start := time.Now()
		resp, err := r.Run(context.Background(), req)
		wall = time.Since(start)
		if err != nil || resp.Error != nil {
			b.Fatal(err, resp)
		}
		return wall, childrenCPU(b) - before
	}
	var coldWall, warmWall, coldCPU, warmCPU []time.Duration
	b.StopTimer()
	for range b.N {
		for _, pid := range sandbox.Waiting(warm) {
			waitBlocked(pid)
		}
		w, c := run(cold)
		coldWall, coldCPU = append(coldWall, w), append(coldCPU, c)
		w, c = run(warm)
		warmWall, warmCPU = append(warmWall, w), append(warmCPU, c)
	}
	ms := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(ms(coldWall), "cold-ms/run")
	b.ReportMetric(ms(warmWall), "warm-ms/run")
	b.ReportMetric(ms(warmWall)/ms(coldWall), "warm/cold")
	b.ReportMetric(ms(coldCPU), "cold-cpu-ms/run")
	b.ReportMetric(ms(warmCPU), "warm-cpu-ms/run")
}

// childrenCPU is the CPU of this process's children reaped so far.
func childrenCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// waitBlocked waits until one of process pid's threads is in read(0): a
// waiting child has initialised and reads its request.
func waitBlocked(pid int) {
	for {
		ids, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			return
		}
		for _, id := range ids {
			sc, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/syscall", pid, id.Name()))
			if err != nil || strings.HasPrefix(string(sc), "0 0x0 ") {
				return // not ours to read: go on
			}
		}
		time.Sleep(time.Millisecond)
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
