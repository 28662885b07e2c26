package practice

import (
	"testing"

	"github.com/idempotency-lab/lab/sim"
)

// TestCostPredicts pins the outcomes the cost topic's predict items are
// written around: the question texts tell these stories, so a change in
// the engine that changes an outcome must change the text too.
func TestCostPredicts(t *testing.T) {
	b := mustLoad(t)
	for _, tc := range []struct {
		id      string
		settled int64
		verdict sim.Verdict
	}{
		// The reaper deleted the row a day before the retry came.
		{"predict-inbox-retention-late-retry", 20000, sim.Duplicate},
		{"predict-inbox-retention-within-window", 10000, sim.OK},
		// inbox-retention: reaps the inbox's table only; unique's rows
		// stay, and so does its protection (and its storage).
		{"predict-unique-keeps-every-row", 10000, sim.OK},
		{"predict-naive-webhook-retries", 15000, sim.Duplicate},
	} {
		q, ok := b.Question(tc.id)
		if !ok || q.Topic != "cost" || q.Kind != KindPredict {
			t.Errorf("%s: not a cost predict item: %+v", tc.id, q)
			continue
		}
		res, err := b.Run(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if res.Settled != tc.settled || res.Verdict != tc.verdict {
			t.Errorf("%s: settled %d %s, want %d %s", tc.id, res.Settled, res.Verdict, tc.settled, tc.verdict)
		}
	}
}
