package sim

import (
	"context"
	"testing"
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
	s := MustParse(benchScript)
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
