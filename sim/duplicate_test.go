package sim_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/internal/fixtures"
	"github.com/idempotency-lab/lab/sim"
)

// TestDuplicateStep: under broker: sqs the duplicate step hands out once
// more a message already delivered, with no crash, timeout, nack or
// producer's retry: a handler that keeps no key applies it twice, every
// handler that deduplicates (by key, by transport id, by the redelivered
// flag) takes it as a repeat.
func TestDuplicateStep(t *testing.T) {
	const sqs = "broker: sqs\n"
	// A handler of the lab by name (runCustom runs it by its name).
	byName := func(name string) handlers.Info { return handlers.Info{Name: name} }
	for _, c := range []struct {
		name, script string
		h            handlers.Info
		verdict      sim.Verdict
		note         string // a note key the step's events must hold
		deliveries   int    // the message's delivery count after the last step
		inFlight     bool   // where it is after the last step: in flight or acked
	}{
		{"an acked message comes again", sqs + "publish a amount=100\ndeliver\nduplicate\n", byName("naive"),
			sim.Duplicate, "event.broker.duplicate-acked", 2, false},
		{"unique takes the copy for a repeat", sqs + "publish a amount=100\ndeliver\nduplicate\n", byName("unique"),
			sim.OK, "event.broker.duplicate-acked", 2, false},
		// The copy keeps its transport id: a handler keyed by it is
		// right here, whatever the producer's retries do to it.
		{"broker-key: the same transport id", sqs + "publish a amount=100\ndeliver\nduplicate\n", byName("broker-key"),
			sim.OK, "event.broker.duplicate-acked", 2, false},
		// The receive count grows: the redelivered flag is set, and the
		// flag-trusting handler checks.
		{"redelivered-flag sees the flag", sqs + "publish a amount=100\ndeliver\nduplicate\n", byName("redelivered-flag"),
			sim.OK, "event.broker.duplicate-acked", 2, false},
		{"nothing delivered yet", sqs + "publish a amount=100\nduplicate\n", byName("naive"),
			sim.OK, "event.broker.duplicate-none", 0, false},
		{"an operation not delivered yet", sqs + "publish a amount=100\npublish b amount=5\ndeliver\nduplicate b\n", byName("naive"),
			sim.OK, "event.broker.duplicate-none-op", 1, false},
		{"duplicate OP picks that operation's message", sqs + "publish a amount=100\npublish b amount=5\ndeliver\ndeliver\nduplicate a\n", byName("naive"),
			sim.Duplicate, "event.broker.duplicate-acked", 2, false},
		// In flight after a crash before the charge, its lease (20s) not
		// run out: the copy finds it held and fails. SQS has no nack: the
		// message waits out its visibility timeout (30s) and is then
		// taken over, once. Were the failure nacked at once, it would
		// fail against the lease until the delivery limit: lost.
		{"a copy into a held lease waits the timeout", sqs + "processing-ttl: 20s\npublish a amount=100\ndeliver crash=before-effect\nduplicate\n", fixtures.Lease(),
			sim.OK, "event.broker.duplicate-kept", 2, true},
		// In flight after a crash before the ack: the copy comes before
		// the visibility timeout, and the handler's key makes it a repeat.
		{"an in-flight message comes before its timeout", sqs + "publish a amount=100\ndeliver crash=before-ack\nduplicate\n", byName("unique"),
			sim.OK, "event.broker.duplicate-in-flight", 2, false},
		{"naive, in flight", sqs + "publish a amount=100\ndeliver crash=before-ack\nduplicate\n", byName("naive"),
			sim.Duplicate, "event.broker.duplicate-in-flight", 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCustom(t, c.script, c.h)
			if r.Verdict != c.verdict {
				t.Errorf("verdict %s (%s), want %s", r.Verdict, r.Reason, c.verdict)
			}
			last := r.Trace[len(r.Trace)-1]
			if !slices.ContainsFunc(last.Events, func(e sim.Event) bool { return e.Note.Key == c.note }) {
				t.Errorf("the duplicate step's events lack %s: %+v", c.note, last.Events)
			}
			var msgs []sim.Message
			if c.inFlight {
				msgs = r.Broker.InFlight
			} else {
				msgs = r.Broker.Acked
			}
			for _, m := range msgs {
				if m.Op == "a" && m.Deliveries != c.deliveries {
					t.Errorf("a delivered %d times, want %d", m.Deliveries, c.deliveries)
				}
			}
			if c.deliveries > 0 && !slices.ContainsFunc(msgs, func(m sim.Message) bool { return m.Deliveries == c.deliveries }) {
				t.Errorf("no message delivered %d times where expected (in flight %v): %+v", c.deliveries, c.inFlight, r.Broker)
			}
			if r.Timeouts > 1 {
				// At most the settlement's redelivery: the copy itself is no timeout.
				t.Errorf("%d timeouts", r.Timeouts)
			}
		})
	}
}

// TestPastLimit: what the broker does with a message past its delivery
// limit (past-limit:, each profile's own), and the oracle's verdict on it:
// a message dropped before it was applied is lost; one whose operation
// was applied (a repeat that kept failing) is dropped harmlessly, where a
// dead letter of it is poison; a message kept in its stream is judged as
// a dead letter and dlq-replay publishes it again.
func TestPastLimit(t *testing.T) {
	fails := handlers.Info{Name: "always-fails", Summary: "fails every delivery",
		Handle: func(context.Context, handlers.Deps, handlers.Message) error { return errors.New("cannot") }}
	uniqueError := handlers.Info{Name: "unique-error"}
	// A repeat of an applied operation fails until the limit.
	const repeat = "max-deliveries: 2\npublish a amount=100\ndeliver\nretry a\ndrain\n"
	for _, c := range []struct {
		name, script string
		h            handlers.Info
		verdict      sim.Verdict
		note         string
		dlq, dropped int // after the last step
	}{
		{"dead-letter, never applied", "max-deliveries: 2\npublish a amount=100\ndrain\n", fails, sim.Lost, "event.broker.dlq", 1, 0},
		{"drop, never applied", "past-limit: drop\nmax-deliveries: 2\npublish a amount=100\ndrain\n", fails, sim.Lost, "event.broker.past-limit-drop", 0, 1},
		{"dead-letter, applied", repeat, uniqueError, sim.Poison, "event.broker.dlq", 1, 0},
		// The operation was applied: the dropped repeat costs nothing.
		{"drop, applied", "past-limit: drop\n" + repeat, uniqueError, sim.OK, "event.broker.past-limit-drop", 0, 1},
		{"keep (nats), applied", "broker: nats\ndedup-window: off\n" + repeat, uniqueError, sim.Poison, "event.broker.past-limit-keep", 1, 0},
		{"keep (kafka), never applied", "broker: kafka\nmax-deliveries: 2\npublish a amount=100\ndrain\n", fails, sim.Lost, "event.broker.past-limit-keep", 1, 0},
		// dlq-replay publishes a kept message again; a dropped one is gone.
		{"keep, replayed", "broker: nats\nmax-deliveries: 1\npublish a amount=100\ndeliver crash=before-effect\nredeliver\ndlq-replay\n", handlers.Info{Name: "unique"}, sim.OK, "event.broker.dlq-replay", 0, 0},
		{"drop, nothing to replay", "past-limit: drop\nmax-deliveries: 1\npublish a amount=100\ndeliver crash=before-effect\nredeliver\ndlq-replay\n", uniqueError, sim.Lost, "event.broker.dlq-empty", 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCustom(t, c.script, c.h)
			if r.Verdict != c.verdict {
				t.Errorf("verdict %s (%s), want %s", r.Verdict, r.Reason, c.verdict)
			}
			var notes []string
			for _, tr := range r.Trace {
				for _, e := range tr.Events {
					notes = append(notes, e.Note.Key)
				}
			}
			if !slices.Contains(notes, c.note) {
				t.Errorf("no %s event: %v", c.note, notes)
			}
			if len(r.Broker.DLQ) != c.dlq || len(r.Broker.Dropped) != c.dropped {
				t.Errorf("%d dead letters and %d dropped, want %d and %d", len(r.Broker.DLQ), len(r.Broker.Dropped), c.dlq, c.dropped)
			}
		})
	}
}
