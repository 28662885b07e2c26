package check

import (
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
