package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/internal/fixtures"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// TestVisibilityTimeout: with a visibility-timeout: header a redelivery
// after a crash or a timeout waits for the message's lease to run out, so
// a handler whose in-progress record expires is judged as on its real
// platform; without it, redelivery is at once, as before.
func TestVisibilityTimeout(t *testing.T) {
	lease := fixtures.Lease()
	const long = "processing-ttl: 1m\nvisibility-timeout: 2m\n" // the queue's timeout at least the lease, as the platforms ask
	for _, c := range []struct {
		name, script string
		verdict      sim.Verdict
	}{
		// At once, the redelivery finds the dead worker's record still
		// in progress and fails until the DLQ: the money never arrives.
		{"at once, crash before the effect", "publish a amount=100\ndeliver crash=before-effect\n", sim.Lost},
		// ... and the applied message fails until the DLQ.
		{"at once, crash after the effect", "publish a amount=100\ndeliver crash=after-effect\n", sim.Poison},
		{"after the timeout, crash before the effect", long + "publish a amount=100\ndeliver crash=before-effect\n", sim.OK},
		// The lease is gone and the charge was made: it is made again,
		// as on the real platform.
		{"after the timeout, crash after the effect", long + "publish a amount=100\ndeliver crash=after-effect\n", sim.Duplicate},
		// The settlement's redelivery waits too, and a redeliver step.
		{"a redeliver step waits", long + "publish a amount=100\ndeliver crash=before-effect\nredeliver\ndeliver\n", sim.OK},
		// A timeout shorter than the lease (the misconfiguration the
		// platforms warn of) redelivers into the lease: lost again.
		{"a timeout shorter than the lease", "processing-ttl: 1m\nvisibility-timeout: 30s\npublish a amount=100\ndeliver crash=before-effect\n", sim.Lost},
		// An explicit nack is redelivered at once: the second message of
		// the key fails against the held lease until the DLQ, and the
		// first, redelivered after its timeout, still applies once.
		{"a nack is at once", long + "publish a amount=100\nretry a\ndeliver crash=before-effect\ndrain\n", sim.OK},
		// A slow worker's lease runs out while it is at work: the second
		// delivery waits for the timeout and finds the record completed.
		{"deliver-concurrent same", long + "publish a amount=100\ndeliver-concurrent same\n", sim.OK},
		{"off is at once", "processing-ttl: 1m\nvisibility-timeout: off\npublish a amount=100\ndeliver crash=before-effect\n", sim.Lost},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCustom(t, c.script, lease)
			if r.Verdict != c.verdict {
				t.Errorf("verdict %s (%s), want %s", r.Verdict, r.Reason, c.verdict)
			}
		})
	}
}

// TestVisibilityTimeoutClock: the clock moves to when the lease runs out,
// not by the timeout on top of time that already passed; a redelivery
// with nothing in flight, and one without the header, move nothing.
func TestVisibilityTimeoutClock(t *testing.T) {
	for _, c := range []struct {
		name, script, now string
		waits             bool // the broker's wait is in the trace
	}{
		{"waits the timeout", "visibility-timeout: 2m\npublish a amount=100\ndeliver crash=before-ack\nredeliver\n", "2026-01-01T09:02:00Z", true},
		{"the rest of it", "visibility-timeout: 2m\npublish a amount=100\ndeliver crash=before-ack\nadvance 90s\nredeliver\n", "2026-01-01T09:02:00Z", true},
		{"nothing left of it", "visibility-timeout: 2m\npublish a amount=100\ndeliver crash=before-ack\nadvance 5m\nredeliver\n", "2026-01-01T09:05:00Z", false},
		{"nothing in flight", "visibility-timeout: 2m\npublish a amount=100\nredeliver\n", "2026-01-01T09:00:00Z", false},
		{"no header: at once", "publish a amount=100\ndeliver crash=before-ack\nredeliver\n", "2026-01-01T09:00:00Z", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			run, err := sim.Execute(context.Background(), script.MustParse(c.script), sim.Options{Handlers: []string{"inbox"}, Snapshots: true})
			if err != nil {
				t.Fatal(err)
			}
			r := run.Results[0]
			if got := r.Final.Now; got != c.now {
				t.Errorf("clock %s, want %s", got, c.now)
			}
			waits := false
			for _, e := range r.Trace[len(r.Trace)-1].Events {
				waits = waits || (e.Kind == sim.KindClock && strings.Contains(e.Text, "visibility timeout"))
			}
			if waits != c.waits {
				t.Errorf("the broker's wait traced: %v, want %v", waits, c.waits)
			}
		})
	}
}

// TestVisibilityTimeoutHeader: the header reads a duration or off, says
// so in the canonical form, and a bad value names the header.
func TestVisibilityTimeoutHeader(t *testing.T) {
	if s := script.MustParse("publish a amount=1\n"); s.VisibilityTimeout != 0 {
		t.Errorf("default %v, want 0 (at once)", s.VisibilityTimeout)
	}
	s := script.MustParse("visibility-timeout: 90s\npublish a amount=1\n")
	if got, want := s.String(), "visibility-timeout: 1m30s\npublish a amount=1\n"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if s := script.MustParse("visibility-timeout: 2m\nvisibility-timeout: off\npublish a amount=1\n"); s.VisibilityTimeout != 0 {
		t.Errorf("off: %v", s.VisibilityTimeout)
	}
	for _, bad := range []string{"soon", "0s", "-1m"} {
		if _, err := script.Parse("visibility-timeout: " + bad + "\n"); err == nil || !strings.Contains(err.Error(), "line 1: visibility-timeout") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestQuarantine: a handler sets a conflicting message aside by calling
// Deps.Quarantine, or in a quarantine table of its own, with a count
// column or one row per message; either way the conflict is not silent.
// An error in the oracle's own read of the table stops the run.
func TestQuarantine(t *testing.T) {
	const conflict = "publish a amount=100\ndeliver\nchange-payload a amount=150\ndeliver\n"
	// The quarantined message redelivered: the table gains no row, and
	// the message is still set aside.
	const again = "publish a amount=100\ndeliver\nchange-payload a amount=150\ndeliver crash=before-ack\nredeliver\ndeliver\n"
	for _, c := range []struct {
		name, mode, script string
		verdict            sim.Verdict
		quarantined        int
	}{
		{"one row per message, no count column", fixtures.QuarantineRows, conflict, sim.OK, 1},
		{"one row per message, redelivered", fixtures.QuarantineRows, again, sim.OK, 1},
		{"Deps.Quarantine", fixtures.QuarantineCall, conflict, sim.OK, 1},
		// Called on each delivery: counted each time.
		{"Deps.Quarantine, redelivered", fixtures.QuarantineCall, again, sim.OK, 2},
		{"acked and told nobody", fixtures.QuarantineNone, conflict, sim.SilentConflict, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCustom(t, c.script, fixtures.Quarantine(c.mode))
			if r.Verdict != c.verdict || r.Quarantined != c.quarantined {
				t.Errorf("verdict %s (%s), %d quarantined; want %s, %d", r.Verdict, r.Reason, r.Quarantined, c.verdict, c.quarantined)
			}
			if c.mode != fixtures.QuarantineCall {
				return
			}
			var ev []sim.Event
			for _, tr := range r.Trace {
				for _, e := range tr.Events {
					if e.Kind == sim.KindQuarantine {
						ev = append(ev, e)
					}
				}
			}
			if len(ev) == 0 || ev[0].Actor != "worker-1" || ev[0].Msg == "" ||
				!strings.Contains(ev[0].Text, "applied with amount 100") || !strings.Contains(ev[0].In("ru"), "карантин") {
				t.Errorf("the quarantine's events: %+v", ev)
			}
		})
	}
	t.Run("the lab's read fails", func(t *testing.T) {
		h := fixtures.Quarantine(fixtures.QuarantineDrop)
		_, err := sim.Execute(context.Background(), script.MustParse(conflict), sim.Options{Custom: []handlers.Info{h}})
		if err == nil || !strings.Contains(err.Error(), "quarantine") {
			t.Errorf("Execute: %v, want the quarantine read's error, not a verdict", err)
		}
	})
}

// TestRedeliveredFlagPerProfile: the handler sees the redelivered flag
// where the broker tells a consumer of earlier deliveries (RabbitMQ's
// redelivered, JetStream's NumDelivered, SQS's ApproximateReceiveCount,
// the lab's own), and never on Kafka, whose records carry no such thing.
// redelivered-flag looks for a repeat only when the flag is set, so the
// redelivery after a crash before the ack is caught everywhere but on
// Kafka, where it is credited twice; the broker's queues mark the
// message redelivered only where the handler sees the flag.
func TestRedeliveredFlagPerProfile(t *testing.T) {
	const story = "publish pay-1 amount=10000\ndeliver crash=before-ack\nredeliver\ndeliver\n"
	for _, c := range []struct {
		broker  string
		verdict sim.Verdict
		flag    string // the second delivery's note
	}{
		{"lab", sim.OK, "(delivery 2, redelivered=true)"},
		{"sqs", sim.OK, "(delivery 2, redelivered=true)"},
		{"sqs-fifo", sim.OK, "(delivery 2, redelivered=true)"},
		{"rabbitmq", sim.OK, "(delivery 2, redelivered=true)"},
		{"nats", sim.OK, "(delivery 2, redelivered=true)"},
		// No flag: the handler takes the redelivery for a first copy.
		// The delivery count stays the lab's (see the kafka profile).
		{"kafka", sim.Duplicate, "(delivery 2, redelivered=false)"},
	} {
		t.Run(c.broker, func(t *testing.T) {
			r := runOne(t, "broker: "+c.broker+"\n"+story, "redelivered-flag")
			if r.Verdict != c.verdict {
				t.Errorf("verdict %s (%s), want %s", r.Verdict, r.Reason, c.verdict)
			}
			var notes []string
			for _, st := range r.Trace {
				for _, e := range st.Events {
					if e.Kind == sim.KindDeliver {
						notes = append(notes, e.Text)
					}
				}
			}
			if len(notes) != 2 || !strings.HasSuffix(notes[1], c.flag) {
				t.Errorf("deliveries %q, want the second to end %q", notes, c.flag)
			}
			// The queue the lab's page shows marks the message as the
			// handler saw it.
			if acked := r.Broker.Acked; len(acked) != 1 || acked[0].Redelivered != strings.HasSuffix(c.flag, "=true)") {
				t.Errorf("the broker's acked queue %+v, want the message's redelivered mark as in %q", acked, c.flag)
			}
		})
	}
}
