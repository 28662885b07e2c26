package sim

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/script"
)

// benchScript is a 20-step scenario that touches every part of the engine:
// crashes, redeliveries, retries, a changed payload, a race, the clock, the
// gateway and the DLQ.
const benchScript = `
publish pay-1 amount=100
deliver crash=before-ack
redeliver
deliver
publish pay-2 amount=250 key=v7
deliver crash=after-effect
redeliver
deliver
retry pay-2
change-payload pay-1 amount=999
publish pay-3 amount=40
retry pay-3
deliver-concurrent
gateway down
deliver
gateway up
advance 25h
redeliver
drain
dlq-replay
`

func BenchmarkExecuteAllHandlers(b *testing.B) {
	s := script.MustParse(benchScript)
	if len(s.Steps) != 20 {
		b.Fatalf("bench script has %d steps, want 20", len(s.Steps))
	}
	for _, snap := range []bool{false, true} {
		name := "trace-only"
		if snap {
			name = "with-snapshots"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Execute(context.Background(), s, Options{Handlers: []string{"all"}, Snapshots: snap}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScriptLength runs a script of 1 to 4 steps on inbox as the
// checker does (one handler, one event kept per step): what the steps of a
// prefix add to a run's fixed cost (a fresh world, settlement, the final
// state) is the most that sharing prefixes between scripts could save.
func BenchmarkScriptLength(b *testing.B) {
	steps := []string{"publish a amount=10000", "deliver crash=before-ack", "retry a", "redeliver"}
	for n := 1; n <= len(steps); n++ {
		s := script.MustParse(strings.Join(steps[:n], "\n"))
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Execute(context.Background(), s, Options{Handlers: []string{"inbox"}, StepEvents: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScriptLengthReused is BenchmarkScriptLength as the checker runs
// scripts now: on worlds reused (Worlds), with state keys, and with the
// settlement skipped as for a state known to settle OK (KnownOK). Its
// cpu-ms/op is the process' CPU time a script: what replaying a prefix
// costs, against which a restore of the world after it would have to win.
func BenchmarkScriptLengthReused(b *testing.B) {
	steps := []string{"publish a amount=10000", "deliver crash=before-ack", "retry a", "redeliver"}
	for _, skip := range []bool{false, true} {
		for n := 1; n <= len(steps); n++ {
			s := script.MustParse(strings.Join(steps[:n], "\n"))
			name := strconv.Itoa(n)
			if skip {
				name += "/settlement-skipped"
			}
			b.Run(name, func(b *testing.B) {
				pool := NewWorlds()
				defer pool.Close()
				opt := Options{Handlers: []string{"inbox"}, StepEvents: 1, Worlds: pool, StateKeys: true}
				if skip {
					opt.KnownOK = func(string, int) bool { return true }
				}
				start := processCPU(b)
				for b.Loop() {
					if _, err := Execute(context.Background(), s, opt); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processCPU(b)-start)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// processCPU is the CPU time the process has used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
