package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

func runOne(t *testing.T, src, handler string) sim.Result {
	t.Helper()
	res, err := sim.Execute(context.Background(), script.MustParse(src), sim.Options{Handlers: []string{handler}})
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

// TestOracleTwoPayloads: a key that carries two payloads is judged by what
// a consumer can know. The crashed first payload goes back behind the
// changed one, so settlement delivers the changed one first: applying it
// and quarantining the other is right, though the other was published
// first; acking the other without a trace is a silent conflict, not the
// duplicate the totals would suggest.
func TestOracleTwoPayloads(t *testing.T) {
	src := "publish a amount=5000\nchange-payload a amount=7000\ndeliver crash=before-effect\n"
	s, err := script.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	run, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]sim.Verdict{
		"inbox":        sim.OK,             // applies 70, quarantines 50: exactly as designed
		"unique":       sim.SilentConflict, // applies 70, acks 50 as a harmless repeat
		"statemachine": sim.SilentConflict, // the same: it compares states, not payloads
		"naive":        sim.Duplicate,      // applies both
		"broker-key":   sim.Duplicate,      // two transport ids: applies both
		"setnx":        sim.Lost,           // the crashed claim stays "processing": neither is charged
		"unique-error": sim.Poison,         // 50 hits UNIQUE after 70 was applied, and loops to the DLQ
	}
	for _, r := range run.Results {
		if v, ok := want[r.Handler]; ok && r.Verdict != v {
			t.Errorf("%s: %s (%s), want %s", r.Handler, r.Verdict, r.Reason, v)
		}
		if fmt.Sprint(r.ExpectedOneOf) != "[5000 7000]" {
			t.Errorf("%s: expected one of %v, want [5000 7000]", r.Handler, r.ExpectedOneOf)
		}
	}
}
