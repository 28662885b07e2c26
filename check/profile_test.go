package check

import (
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/internal/fixtures"
	"github.com/idempotency-lab/lab/sim"
)

// TestBrokerProfileJudgesLikeThePlatform: under broker: sqs the model
// waits SQS's default visibility timeout (30s) before a crashed message
// comes back. A lease-based handler whose function timeout (its lease,
// processing-ttl) is shorter, as AWS requires of a queue's consumer, is
// then judged as on the platform: a crash before the charge is retried
// (nothing lost, no poison loop); a crash after the charge charges again
// (a duplicate: no lease can tell a charge that happened). Under the lab's
// own model (redelivery at once) the same handler loses and loops.
func TestBrokerProfileJudgesLikeThePlatform(t *testing.T) {
	for _, c := range []struct {
		name      string
		header    string
		must, not []sim.Verdict
	}{
		{"sqs, lease shorter than the visibility timeout", "processing-ttl: 20s\nbroker: sqs",
			[]sim.Verdict{sim.Duplicate}, []sim.Verdict{sim.Lost, sim.Poison}},
		{"the lab's model", "processing-ttl: 20s",
			[]sim.Verdict{sim.Lost, sim.Poison}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := checkHandler(t, fixtures.Lease(), withHeader(quick, c.header))
			for _, v := range c.must {
				if _, ok := failure(rep, v); !ok {
					t.Errorf("no %s story: %+v", v, rep.Failures)
				}
			}
			for _, v := range c.not {
				if f, ok := failure(rep, v); ok {
					t.Errorf("a false %s:\n%s", v, f.Script)
				}
			}
		})
	}
}

// TestDuplicateUnderSQS: under broker: sqs the alphabet has the duplicate
// step (a copy with no failure), and a story whose only cause is that
// copy is found where one exists. unique-error answers a repeat with an
// error: under the lab's model it needs a retry or a crash to start its
// poison loop; under SQS a copy of a message acked with no failure
// anywhere is enough. inbox takes every copy for a repeat. No handler of
// the lab passes under the lab's model and fails under SQS through a copy
// alone: one that survives the lab's producer retries (the same key, a new
// transport id) and redeliveries after a crash before the ack (the same
// transport id, its count grown) deduplicates every repeat a copy makes.
// The lease fixture, which a copy into its held lease makes fail, is
// judged without a false loss: TestBrokerProfileJudgesLikeThePlatform.
func TestDuplicateUnderSQS(t *testing.T) {
	for _, c := range []struct {
		handler, header string
		verdict         sim.Verdict // of the story whose cause is duplicate; "" for none
	}{
		{"unique-error", "broker: sqs", sim.Poison},
		// The lab's model makes no copies: the step is not in its
		// alphabet, so no story has it.
		{"unique-error", "", ""},
		{"inbox", "broker: sqs", ""},
	} {
		t.Run(c.handler+" "+c.header, func(t *testing.T) {
			rep := mustCheck(t, c.handler, withHeader(quick, c.header))
			var got sim.Verdict
			for _, f := range rep.Failures {
				if strings.Contains(f.Script, "\nduplicate") && !strings.Contains(f.Cause, "duplicate") {
					t.Errorf("a story with a copy whose cause %q does not name it:\n%s", f.Cause, f.Script)
				}
				if f.Cause == "duplicate" {
					got = f.Verdict
					if !strings.Contains(f.Script, "broker: sqs\n") {
						t.Errorf("the story does not say its broker:\n%s", f.Script)
					}
				}
			}
			if got != c.verdict {
				t.Errorf("the story of a copy alone: %q, want %q; failures %+v", got, c.verdict, rep.Failures)
			}
		})
	}
}

// TestRedeliveredFlagUnderKafka: redelivered-flag looks for a repeat only
// when the broker's flag is set. Under the lab's model and RabbitMQ the
// flag catches the broker's own redelivery, and the checker's duplicate
// is a producer's retry; Kafka's records carry no flag, so there a crash
// before the ack alone credits twice.
func TestRedeliveredFlagUnderKafka(t *testing.T) {
	for _, c := range []struct {
		header string
		crash  bool // a duplicate story whose cause is crash=before-ack alone
	}{
		{"", false},
		{"broker: rabbitmq", false},
		{"broker: kafka", true},
	} {
		t.Run(c.header, func(t *testing.T) {
			rep := mustCheck(t, "redelivered-flag", withHeader(quick, c.header))
			crash := false
			for _, f := range rep.Failures {
				crash = crash || f.Verdict == sim.Duplicate && f.Cause == "crash=before-ack"
			}
			if crash != c.crash {
				t.Errorf("a duplicate from crash=before-ack alone: %v, want %v; failures %+v", crash, c.crash, rep.Failures)
			}
		})
	}
}
