package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sim"
)

func runOne(t *testing.T, src, handler string) sim.Result {
	t.Helper()
	res, err := sim.Execute(context.Background(), sim.MustParse(src), sim.Options{Handlers: []string{handler}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Results[0]
}

// TestOracleEdges covers the oracle's less obvious rules.
func TestOracleEdges(t *testing.T) {
	tests := []struct {
		name, handler, script string
		verdict               sim.Verdict
		reason                string // a part of the reason, if it matters
	}{
		{
			// The message reaches the DLQ because its workers died, not
			// because the handler failed it: that is no poison message.
			name: "dead-lettered by crashes is not poison", handler: "unique", verdict: sim.OK,
			script: "max-deliveries: 2\npublish a amount=100\ndeliver crash=after-effect\nredeliver\ndeliver crash=before-ack\nredeliver\n",
		},
		{
			// The handler itself fails the applied message until the DLQ.
			name: "nacked after it was applied is poison", handler: "unique-error", verdict: sim.Poison,
			script: "max-deliveries: 2\npublish a amount=100\ndeliver crash=before-ack\nredeliver\ndrain\n",
		},
		{
			// a is never charged (its key stays "processing"), b is charged
			// twice once its done key expired: the total is right, the
			// operations are not.
			name: "a loss and a duplicate do not cancel out", handler: "setnx", verdict: sim.Duplicate, reason: "cancel out",
			script: "publish a amount=100\npublish b amount=100\ndeliver crash=before-effect\nredeliver\ndeliver\ndeliver\nadvance 25h\nretry b\ndeliver\n",
		},
		{
			// Dead letters nobody replays are money that never arrived.
			name: "a dead letter nobody replays is lost", handler: "inbox", verdict: sim.Lost,
			script: "max-deliveries: 1\npublish a amount=100\ndeliver crash=before-effect\nredeliver\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runOne(t, tc.script, tc.handler)
			if r.Verdict != tc.verdict || !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("%s: verdict %s (%s), want %s with %q", tc.handler, r.Verdict, r.Reason, tc.verdict, tc.reason)
			}
		})
	}
}
