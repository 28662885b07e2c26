package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// runFinal runs src on one handler with snapshots and returns its result.
func runFinal(t *testing.T, src, handler string) sim.Result {
	t.Helper()
	run, err := sim.Execute(context.Background(), script.MustParse(src), sim.Options{Handlers: []string{handler}, Snapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	return run.Results[0]
}

// events joins the text and result of every event of a step, and of the
// settlement for step 0.
func events(r sim.Result, step int) string {
	tr := r.Settlement
	if step > 0 {
		tr = r.Trace[step-1]
	}
	var b strings.Builder
	for _, e := range tr.Events {
		b.WriteString(e.Actor + " " + e.Kind + " " + e.Text + " -> " + e.Result + "\n")
	}
	return b.String()
}

func TestGatewayCalls(t *testing.T) {
	tests := []struct {
		name, script string
		settled      int64
		verdict      sim.Verdict
		calls        []sim.GatewayCall // after the script, before settlement
	}{
		{
			name:    "down: refused, nothing charged",
			script:  "publish pay-1 amount=100\ngateway down\ndeliver\n",
			settled: 100, verdict: sim.OK,
			calls: []sim.GatewayCall{{Account: "alice", Amount: 100, Reference: "pay-1", OK: false, Outcome: sim.OutcomeRefused, Answer: sim.Answer503}},
		},
		{
			// The charge took effect: the balance counts it though the handler heard an error.
			name:    "timeout: charged, the caller hears a timeout",
			script:  "publish pay-1 amount=100\ngateway timeout\ndeliver\n",
			settled: 200, verdict: sim.Duplicate,
			calls: []sim.GatewayCall{{Account: "alice", Amount: 100, Reference: "pay-1", OK: true, Outcome: sim.OutcomeCharged, Answer: sim.AnswerTimeout}},
		},
		{
			// Settlement brings the gateway up and keeps dedup on: the
			// redelivery's charge is answered with success and charges nothing.
			name:    "dedup: a repeat of a charged reference charges nothing",
			script:  "publish pay-1 amount=100\ngateway dedup on\ngateway timeout\ndeliver\n",
			settled: 100, verdict: sim.OK,
			calls: []sim.GatewayCall{{Account: "alice", Amount: 100, Reference: "pay-1", OK: true, Outcome: sim.OutcomeCharged, Answer: sim.AnswerTimeout}},
		},
		{
			name:    "dedup off again: every call charges",
			script:  "publish pay-1 amount=100\ngateway dedup on\ngateway dedup off\ngateway timeout\ndeliver\n",
			settled: 200, verdict: sim.Duplicate,
		},
		{
			// A stalled request never arrives: nothing charged, so the
			// redelivery in settlement charges once.
			name:    "stall: not received, nothing charged",
			script:  "publish pay-1 amount=100\ngateway stall 2h\ndeliver\n",
			settled: 100, verdict: sim.OK,
			calls: []sim.GatewayCall{{Account: "alice", Amount: 100, Reference: "pay-1", OK: false, Outcome: sim.OutcomeNotReceived, Answer: sim.AnswerTimeout}},
		},
		{
			name:    "a stall hangs only the next charge",
			script:  "publish pay-1 amount=100\npublish pay-2 amount=5\ngateway stall 2h\ndeliver\ndeliver\n",
			settled: 105, verdict: sim.OK,
			calls: []sim.GatewayCall{
				{Account: "alice", Amount: 100, Reference: "pay-1", OK: false, Outcome: sim.OutcomeNotReceived, Answer: sim.AnswerTimeout},
				{Account: "alice", Amount: 5, Reference: "pay-2", OK: true, Outcome: sim.OutcomeCharged, Answer: sim.AnswerOK},
			},
		},
		{
			name:    "gateway up cancels a pending stall",
			script:  "publish pay-1 amount=100\ngateway stall 2h\ngateway up\ndeliver\n",
			settled: 100, verdict: sim.OK,
			calls: []sim.GatewayCall{{Account: "alice", Amount: 100, Reference: "pay-1", OK: true, Outcome: sim.OutcomeCharged, Answer: sim.AnswerOK}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runFinal(t, tc.script, "setnx")
			if r.Settled != tc.settled || r.Verdict != tc.verdict {
				t.Errorf("settled %d (%s), want %d (%s)", r.Settled, r.Verdict, tc.settled, tc.verdict)
			}
			if tc.calls == nil {
				return
			}
			got := r.Final.Gateway
			if len(got) != len(tc.calls) {
				t.Fatalf("calls %+v, want %+v", got, tc.calls)
			}
			for i := range got {
				if got[i] != tc.calls[i] {
					t.Errorf("call %d = %+v, want %+v", i, got[i], tc.calls[i])
				}
			}
		})
	}
}

func TestGatewayState(t *testing.T) {
	r := runFinal(t, "publish pay-1 amount=1\ngateway dedup on\ngateway timeout\n", "setnx")
	if f := r.Final; f.GatewayMode != script.GatewayTimeout || !f.GatewayDedup || f.GatewayUp {
		t.Errorf("final gateway: mode %q, dedup %v, up %v; want timeout, true, false", f.GatewayMode, f.GatewayDedup, f.GatewayUp)
	}
	if s := events(r, 0); !strings.Contains(s, "payment gateway up") {
		t.Errorf("settlement does not bring the gateway up:\n%s", s)
	}
	// Settlement leaves dedup as the script set it: TestGatewayCalls'
	// "dedup" case settles at one charge.
}

// TestStallMovesTheClock: a worker waiting on a stalled call is a clock
// moving in the middle of a delivery: its Redis claim expires meanwhile.
func TestStallMovesTheClock(t *testing.T) {
	r := runFinal(t, "publish pay-1 amount=100\ngateway stall 90m\ndeliver\n", "setnx")
	if got, want := r.Final.Now, "2026-01-01T10:30:00Z"; got != want {
		t.Errorf("clock after the stalled call: %s, want %s", got, want)
	}
	ev := events(r, 3)
	for _, want := range []string{
		"worker-1 gateway charge 100 to alice, reference pay-1 -> no answer after 1h30m: the request never reached the provider, nothing charged; the caller sees a timeout",
		"clock clock worker-1 waits 1h30m for the gateway: now 2026-01-01T10:30:00Z",
		"clock clock Redis key idem:pay-1 expired",
		"worker-1 redis DEL idem:pay-1 -> (integer) 0",
		"worker-1 nack nack: charge alice: payment gateway timed out: no answer",
	} {
		if !strings.Contains(ev, want) {
			t.Errorf("step 3 lacks %q:\n%s", want, ev)
		}
	}
	if strings.Contains(ev, "yield") {
		t.Errorf("a lone worker yielded:\n%s", ev)
	}
}

// TestDeliverConcurrentSame: one message, two workers, settled once.
func TestDeliverConcurrentSame(t *testing.T) {
	t.Run("the second delivery is the same message, delivery 2", func(t *testing.T) {
		r := runFinal(t, "publish pay-1 amount=100\ndeliver-concurrent same\n", "unique-error")
		ev := events(r, 2)
		for _, want := range []string{
			"broker deliver topups/0/1 to worker-1: key pay-1, alice +100 (delivery 1, redelivered=false)",
			"broker requeue topups/0/1: the visibility timeout runs out while worker-1 is still at work: delivered again",
			"broker deliver topups/0/1 to worker-2: key pay-1, alice +100 (delivery 2, redelivered=true)",
			"worker-1 ack ack topups/0/1",
			"worker-2 note late nack (duplicate key pay-1:",
		} {
			if !strings.Contains(ev, want) {
				t.Errorf("step 2 lacks %q:\n%s", want, ev)
			}
		}
		if r.Deliveries != 2 || len(r.Broker.Acked) != 1 || len(r.Broker.Ready)+len(r.Broker.InFlight) != 0 || r.Broker.Acked[0].Deliveries != 2 {
			t.Errorf("deliveries %d, broker %+v: want 2 deliveries of one acked message", r.Deliveries, r.Broker)
		}
		if r.Verdict != sim.OK || r.DeadLettered != 0 {
			t.Errorf("verdict %s, %d dead letters: a late nack must not requeue", r.Verdict, r.DeadLettered)
		}
	})
	t.Run("a handler without a race window is caught before its ack", func(t *testing.T) {
		r := runFinal(t, "publish pay-1 amount=100\ndeliver-concurrent same\n", "naive")
		ev := events(r, 2)
		if !strings.Contains(ev, "worker-1 yield worker-1 is slow to ack") || !strings.Contains(ev, "worker-1 note late ack") {
			t.Errorf("naive's first worker does not hand over before its ack:\n%s", ev)
		}
		if r.Settled != 200 {
			t.Errorf("settled %d, want 200", r.Settled)
		}
	})
	t.Run("no delivery left under max-deliveries: one worker", func(t *testing.T) {
		r := runFinal(t, "max-deliveries: 1\npublish pay-1 amount=100\ndeliver-concurrent same\n", "naive")
		if ev := events(r, 2); !strings.Contains(ev, "a single worker takes it") || strings.Contains(ev, "worker-2") {
			t.Errorf("step 2:\n%s", ev)
		}
		if r.Settled != 100 || r.Deliveries != 1 {
			t.Errorf("settled %d after %d deliveries, want 100 after 1", r.Settled, r.Deliveries)
		}
	})
	t.Run("with a stall pending, a worker that never waits gets no second delivery", func(t *testing.T) {
		r := runFinal(t, "publish pay-1 amount=100\ngateway stall 2h\ndeliver-concurrent same\n", "naive")
		if ev := events(r, 3); !strings.Contains(ev, "finished without waiting on the gateway") || strings.Contains(ev, "worker-2") {
			t.Errorf("step 3:\n%s", ev)
		}
		if r.Deliveries != 1 || r.Settled != 100 {
			t.Errorf("%d deliveries, settled %d; want 1 and 100", r.Deliveries, r.Settled)
		}
	})
	t.Run("nothing ready", func(t *testing.T) {
		r := runFinal(t, "deliver-concurrent same\n", "naive")
		if ev := events(r, 1); !strings.Contains(ev, "nothing is ready to deliver") {
			t.Errorf("step 1:\n%s", ev)
		}
	})
}

// TestStolenClaimToken shows the keys the two setnx handlers leave in the
// stolen-claim preset after the concurrent step: setnx's DEL removed
// worker 2's "done", setnx-token's compare-and-delete left it.
func TestStolenClaimToken(t *testing.T) {
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	p, err := sim.FindPreset(presets, "stolen-claim")
	if err != nil {
		t.Fatal(err)
	}
	step := 0
	for i, st := range p.Script.Steps {
		if st.Verb == script.VerbDeliverConcurrent {
			step = i + 1
		}
	}
	run, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"setnx", "setnx-token"}, Snapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, r := range run.Results {
		for _, k := range r.Trace[step-1].State.Redis {
			keys[r.Handler] += k.Key + "=" + k.Value
		}
	}
	if keys["setnx"] != "" || keys["setnx-token"] != "idem:pay-1=done" {
		t.Errorf("keys after the race: %v; want none for setnx, idem:pay-1=done for setnx-token", keys)
	}
}

// TestQuarantineCountsRepeats: a conflicting message delivered three times
// is one quarantine row with a count of 3, and every delivery is seen as
// quarantined (no silent conflict).
func TestQuarantineCountsRepeats(t *testing.T) {
	src := "publish pay-1 amount=100\ndeliver\nchange-payload pay-1 amount=150\n" +
		"deliver crash=before-ack\nredeliver\ndeliver crash=before-ack\nredeliver\ndeliver\n"
	r := runFinal(t, src, "inbox")
	if r.Verdict != sim.OK || r.Quarantined != 1 || r.Conflicts != 0 {
		t.Errorf("verdict %s, quarantined %d, conflicts %d; want ok, 1, 0 (%s)", r.Verdict, r.Quarantined, r.Conflicts, r.Reason)
	}
	var q *sim.Table
	for i := range r.Final.Tables {
		if r.Final.Tables[i].Name == "quarantine" {
			q = &r.Final.Tables[i]
		}
	}
	if q == nil || len(q.Rows) != 1 {
		t.Fatalf("quarantine table %+v, want one row", q)
	}
	for i, c := range q.Columns {
		if c == "count" && q.Rows[0][i] != "3" {
			t.Errorf("count = %s, want 3", q.Rows[0][i])
		}
	}
	// A different changed amount is another conflict: another row.
	r = runFinal(t, src+"change-payload pay-1 amount=170\ndeliver\n", "inbox")
	if r.Quarantined != 2 || r.Verdict != sim.OK {
		t.Errorf("two different conflicts: quarantined %d (%s), want 2 (ok)", r.Quarantined, r.Verdict)
	}
}
