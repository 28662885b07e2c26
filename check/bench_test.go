package check

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/sim"
)

// BenchmarkShortestFailure is the time to find each failing handler's
// shortest story: the search to depth 2, where every built-in failure
// lies (`make check-bench`).
func BenchmarkShortestFailure(b *testing.B) {
	for _, h := range []string{"naive", "unique", "setnx", "check-then-insert", "unique-error", "marker-first",
		"effect-first", "broker-key", "setnx-no-release", "inbox-no-hash"} {
		b.Run(h, func(b *testing.B) {
			for b.Loop() {
				rep, err := Check(context.Background(), h, Options{Depth: 2, Runs: -1})
				if err != nil || !rep.Failed() {
					b.Fatalf("%s: %+v, %v", h, rep, err)
				}
			}
		})
	}
}

// BenchmarkInboxDepth4 is the exhaustive search of inbox to depth 4,
// which finds nothing, in full and expanding each state once
// (DedupStates): cpu-s/op is the process' CPU time a search (the
// collector's included), the figure the web's 2 s --check-budget is held
// to on an idle 2-core machine.
func BenchmarkInboxDepth4(b *testing.B) {
	for _, dedup := range []bool{false, true} {
		name := "full"
		if dedup {
			name = "dedup-states"
		}
		b.Run(name, func(b *testing.B) {
			start := cpuTime(b)
			for b.Loop() {
				rep, err := Check(context.Background(), "inbox", Options{Depth: 4, Runs: -1, DedupStates: dedup})
				if err != nil || rep.Failed() {
					b.Fatalf("%+v, %v", rep, err)
				}
			}
			b.ReportMetric((cpuTime(b)-start).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkCheckCore is `lab check core` (depth 4, 2,000 random scripts,
// seed 1) in one process: its scripts/cpu-s is the scripts run per
// second of the process' CPU time (user and system, the garbage
// collector's included), which the machine's load barely moves.
// `make check-compare` measures the same against a base commit.
func BenchmarkCheckCore(b *testing.B) {
	hs, err := sim.Handlers([]string{"core"})
	if err != nil {
		b.Fatal(err)
	}
	scripts := 0
	start := cpuTime(b)
	for b.Loop() {
		for _, h := range hs {
			rep, err := Check(context.Background(), h.Name, Options{})
			if err != nil {
				b.Fatalf("%s: %v", h.Name, err)
			}
			scripts += rep.Explored
		}
	}
	b.ReportMetric(float64(scripts)/(cpuTime(b)-start).Seconds(), "scripts/cpu-s")
	b.ReportMetric(float64(scripts)/float64(b.N), "scripts/op")
}

// cpuTime is the CPU time the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
