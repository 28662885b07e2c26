package check

import (
	"context"
	"testing"
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
// which finds nothing.
func BenchmarkInboxDepth4(b *testing.B) {
	for b.Loop() {
		rep, err := Check(context.Background(), "inbox", Options{Depth: 4, Runs: -1})
		if err != nil || rep.Failed() {
			b.Fatalf("%+v, %v", rep, err)
		}
	}
}
