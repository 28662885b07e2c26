package sim_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
)

// events lists a result's events as "actor kind text", the settlement's
// included.
func allEvents(r sim.Result) []string {
	var out []string
	for _, tr := range append(r.Trace, r.Settlement) {
		for _, e := range tr.Events {
			out = append(out, e.Actor+" "+e.Kind+" "+e.Text)
		}
	}
	return out
}

func hasEventPrefix(r sim.Result, prefix string) bool {
	return slices.ContainsFunc(allEvents(r), func(e string) bool { return strings.HasPrefix(e, prefix) })
}

// recorder is a handler that credits each message and records what it
// was given: the lab's messages as a handler sees them.
func recorder(got *[]handlers.Message) handlers.Info {
	return handlers.Info{Name: "recorder", Handle: func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		*got = append(*got, m)
		_, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account)
		return err
	}}
}

// TestProducerModes: what each producer mode leaves, and the oracle's
// reason naming the producer's failure.
func TestProducerModes(t *testing.T) {
	tests := []struct {
		name, src string
		verdict   sim.Verdict
		expected  int64
		reason    string
	}{
		{"dual-write dies after its commit: the message is never sent",
			"produce p amount=100 crash=after-commit\n", sim.Lost, 100,
			"acme/p: its order committed, and no message for it was ever published"},
		{"dual-write dies after its publish: both writes were done",
			"produce p amount=100 crash=after-publish\n", sim.OK, 100, "credited 100"},
		// Nothing is owed (the order rolled back), yet the message is out.
		{"publish-first dies before its commit: a phantom",
			"produce p amount=100 mode=publish-first crash=after-publish\n", sim.Duplicate, 0,
			"acme/p credited 100 though its order never committed"},
		{"publish-first produced again after the phantom: the copy carries the same key",
			"produce p amount=100 mode=publish-first crash=after-publish\nproduce p amount=100 mode=publish-first\n", sim.Duplicate, 100,
			"credited 200, expected 100"},
		{"the outbox waits for its relay, which settlement runs",
			"produce p amount=100 mode=outbox crash=after-commit\n", sim.OK, 100, "credited 100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCustom(t, tc.src, handlers.Info{Name: "naive"})
			if r.Verdict != tc.verdict || r.Expected != tc.expected || !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("%s, expected %d: %s; want %s, %d, a reason with %q", r.Verdict, r.Expected, r.Reason, tc.verdict, tc.expected, tc.reason)
			}
		})
	}
}

// TestOutboxRelay: the outbox row commits with the order, the relay
// publishes it and marks it sent, a relay that dies after its publish
// leaves the row pending and the next one publishes it again under the
// same key, and settlement relays what is left.
func TestOutboxRelay(t *testing.T) {
	src := "produce p amount=100 mode=outbox\nrelay crash=after-publish\nrelay\nrelay\n"
	s := parseOK(t, src)
	run := execute(t, s, sim.Options{Handlers: []string{"inbox"}, Snapshots: true})
	r := run.Results[0]
	outbox := func(step int) sim.Table {
		for _, tb := range r.Trace[step].State.Tables {
			if tb.Name == "outbox" {
				return tb
			}
		}
		t.Fatalf("step %d: no outbox table", step+1)
		return sim.Table{}
	}
	sent := slices.Index(outbox(0).Columns, "published_at")
	if rows := outbox(0).Rows; len(rows) != 1 || rows[0][sent] != "NULL" {
		t.Errorf("after produce: outbox %v, want one pending row", rows)
	}
	if rows := outbox(1).Rows; rows[0][sent] != "NULL" {
		t.Errorf("after the relay died: the row is marked sent: %v", rows)
	}
	if rows := outbox(2).Rows; rows[0][sent] == "NULL" {
		t.Errorf("after the second relay: the row is still pending: %v", rows)
	}
	keys := []string{}
	for _, m := range r.Broker.Ready {
		keys = append(keys, m.Key+" "+m.TransportID)
	}
	if !slices.Equal(keys, []string{"p topups/0/1", "p topups/0/2"}) {
		t.Errorf("ready: %v, want the row twice under its key", keys)
	}
	if !hasEventPrefix(r, "relay note the outbox has no pending rows") {
		t.Errorf("the third relay does not say it had nothing to do:\n%s", strings.Join(allEvents(r), "\n"))
	}
	if r.Verdict != sim.OK || r.Settled != 100 {
		t.Errorf("inbox: %s %d, want ok 100", r.Verdict, r.Settled)
	}

	// A relay that died is restarted by settlement.
	r = runCustom(t, "produce p amount=100 mode=outbox\n", handlers.Info{Name: "naive"})
	if !strings.Contains(r.Settlement.Text, "relay") || !hasEventPrefix(r, "relay publish relay publishes outbox row 1") || r.Settled != 100 {
		t.Errorf("settlement does not relay the pending row: %s\n%s", r.Settlement.Text, strings.Join(allEvents(r), "\n"))
	}
}

// TestDeliverBatch: commit=after leaves the whole range in flight when
// the worker dies, commit=before acks it first and loses the rest.
func TestDeliverBatch(t *testing.T) {
	three := "publish a amount=1\npublish b amount=2\npublish c amount=3\n"
	tests := []struct {
		step              string
		inFlight, acked   int
		settled           int64
		naive, offsetInDB sim.Verdict
	}{
		{"deliver-batch 3", 0, 3, 6, sim.OK, sim.OK},
		// Both finished messages come back with the third.
		{"deliver-batch 3 crash=after-message:2", 3, 0, 9, sim.Duplicate, sim.OK},
		{"deliver-batch 3 commit=before crash=after-message:1", 0, 3, 1, sim.Lost, sim.Lost},
		// Two of the three: both finished and both come back (a and b
		// credited twice, c once).
		{"deliver-batch 2 crash=after-message:2", 2, 0, 9, sim.Duplicate, sim.OK},
		// Fewer ready than asked: the batch takes what there is.
		{"deliver-batch 5", 0, 3, 6, sim.OK, sim.OK},
	}
	for _, tc := range tests {
		t.Run(tc.step, func(t *testing.T) {
			run := execute(t, parseOK(t, three+tc.step+"\n"), sim.Options{Handlers: []string{"naive", "offset-in-db"}})
			naive, off := run.Results[0], run.Results[1]
			if len(naive.Broker.InFlight) != tc.inFlight || len(naive.Broker.Acked) != tc.acked {
				t.Errorf("in flight %d, acked %d; want %d, %d", len(naive.Broker.InFlight), len(naive.Broker.Acked), tc.inFlight, tc.acked)
			}
			if naive.Settled != tc.settled || naive.Verdict != tc.naive || off.Verdict != tc.offsetInDB {
				t.Errorf("naive %s %d, offset-in-db %s; want naive %s %d, offset-in-db %s",
					naive.Verdict, naive.Settled, off.Verdict, tc.naive, tc.settled, tc.offsetInDB)
			}
		})
	}
}

// TestRedeliveredFlagAndOffsets: what a handler is told about a
// delivery: the broker's flag is true only for a message handed out
// before, and the offset is the record's place in the log.
func TestRedeliveredFlagAndOffsets(t *testing.T) {
	var got []handlers.Message
	runCustom(t, "publish p amount=1\ndeliver crash=before-ack\nredeliver\ndeliver\nretry p\ndeliver\n", recorder(&got))
	var seen []string
	for _, m := range got {
		seen = append(seen, fmt.Sprintf("%s %s %d %v %s", m.TransportID, m.Partition, m.Offset, m.Redelivered, m.Kind))
	}
	want := []string{
		"topups/0/1 topups/0 1 false payment",
		"topups/0/1 topups/0 1 true payment",  // the broker's redelivery
		"topups/0/2 topups/0 2 false payment", // the producer's retry: a new message
	}
	if !slices.Equal(seen, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

// TestOrdering: deliver OP takes that operation's message, a refund goes
// to the account of the order it refunds, and versions count each
// account's operations with the producer's balance after each.
func TestOrdering(t *testing.T) {
	var got []handlers.Message
	r := runCustom(t, `publish a amount=100 account=bob
publish b amount=50
publish c amount=30 account=bob
publish r amount=100 kind=refund order=a
deliver r
deliver c
deliver
`, recorder(&got))
	var seen []string
	for _, m := range got {
		seen = append(seen, fmt.Sprintf("%s %s %s %d v%d=%d", m.Key, m.Kind, m.Account, m.Amount, m.Version, m.Balance))
	}
	want := []string{
		"r refund bob -100 v3=30", // delivered first: the refund of a, from a's account
		"c payment bob 30 v2=130",
		"a payment bob 100 v1=100", // the oldest left
		"b payment alice 50 v1=50", // settlement
	}
	if !slices.Equal(seen, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	if r.Expected != 80 || r.Verdict != sim.OK {
		t.Errorf("%s, expected %d: %s", r.Verdict, r.Expected, r.Reason)
	}
	// deliver OP with nothing of OP ready says so and changes nothing.
	r = runCustom(t, "publish a amount=1\npublish b amount=1\ndeliver b\ndeliver b\n", handlers.Info{Name: "naive"})
	if !hasEventPrefix(r, "broker note no message of b is ready to deliver") {
		t.Errorf("a second deliver b does not say it had nothing:\n%s", strings.Join(allEvents(r), "\n"))
	}
}

// TestRefundVerdicts: a refund never applied is lost, applied twice a
// duplicate, judged per operation since the total cannot tell.
func TestRefundVerdicts(t *testing.T) {
	tests := []struct {
		handler, src string
		verdict      sim.Verdict
		reason       string
	}{
		{"statemachine", "publish a amount=100\npublish r amount=100 kind=refund order=a\ndeliver r\n", sim.Lost, "acme/r refunded 0 of 100"},
		{"naive", "publish a amount=100\npublish r amount=100 kind=refund order=a\ndeliver\ndeliver crash=before-ack\nredeliver\n", sim.Duplicate, "acme/r refunded 200 of 100"},
		{"statemachine", "publish a amount=100\npublish r amount=100 kind=refund order=a\n", sim.OK, "credited 0"},
	}
	for _, tc := range tests {
		r := runCustom(t, tc.src, handlers.Info{Name: tc.handler})
		if r.Verdict != tc.verdict || !strings.Contains(r.Reason, tc.reason) {
			t.Errorf("%s on\n%s: %s (%s), want %s with %q", tc.handler, tc.src, r.Verdict, r.Reason, tc.verdict, tc.reason)
		}
	}
}

// TestAbsoluteHandlersAreJudgedByAccount: version-guard's late, older
// message changes nothing and the account is right, though pay-2's
// delivery alone moved the balance by 150: judged operation by operation
// it would look like one credited too much and one never.
func TestAbsoluteHandlersAreJudgedByAccount(t *testing.T) {
	src := "publish p1 amount=100\npublish p2 amount=50\ndeliver p2\ndeliver p1\n"
	run := execute(t, parseOK(t, src), sim.Options{Handlers: []string{"version-guard", "absolute-update"}})
	if r := run.Results[0]; r.Verdict != sim.OK || r.Settled != 150 {
		t.Errorf("version-guard: %s %d (%s), want ok 150", r.Verdict, r.Settled, r.Reason)
	}
	if r := run.Results[1]; r.Verdict != sim.Lost || !strings.Contains(r.Reason, "account alice holds 100, its operations add up to 150") {
		t.Errorf("absolute-update: %s (%s), want lost naming the account", r.Verdict, r.Reason)
	}
}
