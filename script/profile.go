package script

import (
	"strconv"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/narration"
)

// A BrokerProfile is the semantics the model follows for one broker (the
// broker: header): how long a message whose worker died waits before it
// is handed out again, how many deliveries it gets before the
// dead-letter queue, and the broker's own deduplication of publishes.
// Each number is the broker's documented default, cited beside it; the
// script's own headers (visibility-timeout:, max-deliveries:,
// dedup-window:) override any of them. What the model does not follow of
// a broker is in Gaps, and the README's broker section says it too.
type BrokerProfile struct {
	Name              string
	Title             string
	VisibilityTimeout time.Duration
	MaxDeliveries     int
	DedupWindow       time.Duration
	// Requeue is where a message goes back when its worker nacks it, dies
	// or lets its lease run out: RequeueBack, behind every ready message;
	// RequeueFront, to its old place in offset order, ahead of the
	// messages published after it; or RequeueRedeliveries, behind the
	// other messages waiting to be redelivered but ahead of every message
	// never delivered yet.
	Requeue string
	// PastLimit is what the broker does with a message past MaxDeliveries:
	// PastLimitDeadLetter, PastLimitDrop or PastLimitKeep.
	PastLimit string
	// Duplicates: the broker may hand out a message once more with no
	// failure at all, even after its ack (the duplicate step).
	Duplicates bool
	// Redelivery names, in the broker's own words, what a consumer is
	// told of a message's earlier deliveries, from which the handler's
	// redelivered flag comes (handlers.Message.Redelivered: set from the
	// second delivery on); "" when the broker tells nothing, and the
	// flag is false on every delivery.
	Redelivery string
	// Gaps names what this broker does that the model does not (yet).
	Gaps narration.Text
}

// Where a requeued message goes (BrokerProfile.Requeue).
const (
	RequeueBack         = "back"
	RequeueFront        = "front"
	RequeueRedeliveries = "redeliveries-first"
)

// What a broker does with a message delivered MaxDeliveries times without
// an ack (BrokerProfile.PastLimit, the past-limit: header).
const (
	// PastLimitDeadLetter moves it to the dead-letter queue, from which
	// dlq-replay publishes it again.
	PastLimitDeadLetter = "dead-letter"
	// PastLimitDrop deletes it: nothing can bring it back.
	PastLimitDrop = "drop"
	// PastLimitKeep keeps it in the stream or partition and never
	// delivers it again; dlq-replay publishes it again, as an operator
	// republishes it from the stream.
	PastLimitKeep = "keep"
)

// PastLimits lists the choices of past-limit:.
func PastLimits() []string { return []string{PastLimitDeadLetter, PastLimitDrop, PastLimitKeep} }

// Unlimited stands for a broker that never dead-letters by default: the
// model's highest delivery count (MaxDeliveries), past which a real
// broker would go on redelivering.
const Unlimited = MaxDeliveries

// brokerProfiles are the profiles, the lab's own first (the default).
var brokerProfiles = []BrokerProfile{
	{
		Name: "lab", Title: "the lab's model",
		VisibilityTimeout: 0, MaxDeliveries: DefaultMaxDeliveries, DedupWindow: 0,
		Requeue: RequeueBack, PastLimit: PastLimitDeadLetter, Redelivery: "redelivered",
		Gaps: narration.T("script.gaps.lab"),
	},
	{
		// Amazon SQS standard queue. Visibility timeout: 30 seconds by
		// default (SQS Developer Guide, "Amazon SQS visibility timeout").
		// No dead-letter queue unless a redrive policy sets
		// maxReceiveCount: a message is received again until its
		// retention (4 days by default) ends. Standard queues have no
		// deduplication (FIFO queues: a 5-minute interval, profile
		// sqs-fifo). A message whose visibility timeout ran out is
		// visible again among the others, and a standard queue keeps no
		// order: the model puts it at the back, behind the ones a
		// consumer would be handed meanwhile. A standard queue stores
		// each message on several servers and delivers it at least once:
		// "on rare occasions, one of the servers that stores a copy of a
		// message might be unavailable when you receive or delete a
		// message", and that copy is delivered again (SQS Developer
		// Guide, "At-least-once delivery"): the duplicate step. Past a
		// redrive policy's maxReceiveCount the message moves to its
		// dead-letter queue (SQS Developer Guide, "Using dead-letter
		// queues"); without one it comes back until its retention ends,
		// and the model's 100 deliveries stand for that. A received
		// message carries the ApproximateReceiveCount attribute, the
		// times it was received, the duplicate's receive too (SQS API
		// Reference, ReceiveMessage: MessageSystemAttributeNames).
		Name: "sqs", Title: "Amazon SQS (standard queue)",
		VisibilityTimeout: 30 * time.Second, MaxDeliveries: Unlimited, DedupWindow: 0,
		Requeue: RequeueBack, PastLimit: PastLimitDeadLetter, Duplicates: true, Redelivery: "ApproximateReceiveCount",
		Gaps: narration.T("script.gaps.sqs"),
	},
	{
		// Amazon SQS FIFO queue: the same visibility timeout, and
		// content- or id-based deduplication over a 5-minute interval
		// (SQS Developer Guide, "Exactly-once processing in Amazon SQS").
		// Within a message group a FIFO queue hands out nothing after a
		// message until it is deleted or its visibility timeout ends
		// (the lab's messages are one group), so it comes back first.
		// ApproximateReceiveCount as in a standard queue.
		Name: "sqs-fifo", Title: "Amazon SQS (FIFO queue)",
		VisibilityTimeout: 30 * time.Second, MaxDeliveries: Unlimited, DedupWindow: 5 * time.Minute,
		Requeue: RequeueFront, PastLimit: PastLimitDeadLetter, Redelivery: "ApproximateReceiveCount",
		Gaps: narration.T("script.gaps.sqs-fifo"),
	},
	{
		// RabbitMQ quorum queue. A message whose channel or connection
		// closes before the ack is requeued at once. Since RabbitMQ 4.0 a
		// quorum queue's delivery-limit defaults to 20; past it the
		// message is dead-lettered (or dropped without a dead-letter
		// exchange) ("Quorum Queues", Poison Message Handling). No
		// deduplication of publishes. A classic queue puts a requeued
		// message back "to its original position in its queue, if
		// possible" ("Negative Acknowledgements"); a quorum queue hands
		// out the messages returned to it, in the order they came back,
		// before those never delivered (seen on the server: lab conform
		// --broker amqp://…, batch-crash-replay). Past the limit: the
		// profile dead-letters, as the lab's real RabbitMQ path does, whose
		// queue is declared with a dead-letter exchange
		// (brokers/rabbitmq.go); a quorum queue without one drops the
		// message (past-limit: drop). basic.deliver and basic.get-ok
		// carry the redelivered flag, set when the message was delivered
		// before and not acked (AMQP 0-9-1 reference, basic.deliver;
		// "Consumer Acknowledgements and Publisher Confirms", Redelivery
		// Flag); a quorum queue adds the x-delivery-count header.
		Name: "rabbitmq", Title: "RabbitMQ (quorum queue)",
		VisibilityTimeout: 0, MaxDeliveries: 20, DedupWindow: 0,
		Requeue: RequeueRedeliveries, PastLimit: PastLimitDeadLetter, Redelivery: "redelivered",
		Gaps: narration.T("script.gaps.rabbitmq"),
	},
	{
		// NATS JetStream consumer: AckWait 30 seconds, MaxDeliver -1
		// (no limit) by default; the stream's duplicate window for
		// Nats-Msg-Id is 2 minutes by default (NATS docs, "Consumers"
		// and "Streams"). A consumer hands out its pending redeliveries,
		// in the order they became due, before the stream's next message
		// (TestNATSRequeuePosition shows it on the server). Past
		// MaxDeliver the server stops delivering the message and keeps
		// it in the stream, with a MAX_DELIVERIES advisory (NATS docs,
		// "Consumers": MaxDeliver); there is no dead-letter queue. Each
		// delivery's metadata (its reply subject) carries NumDelivered,
		// the delivery count (nats.go, jetstream.MsgMetadata).
		Name: "nats", Title: "NATS JetStream",
		VisibilityTimeout: 30 * time.Second, MaxDeliveries: Unlimited, DedupWindow: 2 * time.Minute,
		Requeue: RequeueRedeliveries, PastLimit: PastLimitKeep, Redelivery: "NumDelivered",
		Gaps: narration.T("script.gaps.nats"),
	},
	{
		// Apache Kafka consumer group: a consumer that dies is noticed
		// after session.timeout.ms, 45 seconds by default since Kafka
		// 3.0 (KIP-735); its partitions then restart from the last
		// committed offset. No dead-letter queue and no delivery limit.
		// A record read again comes back in offset order, ahead of the
		// ones after it: a failed record blocks its partition. Failing
		// deletes no record: it stays in the partition until retention
		// (the model's 100 deliveries stand for "never given up"). A
		// record carries its offset, key, value, headers and timestamp,
		// and nothing about earlier reads: no redelivered flag and no
		// delivery count (Kafka protocol, FetchResponse and the record
		// format), so Redelivery is "" and the handler's flag is false
		// on every read. (Its Delivery stays the lab's count, as a
		// consumer's own code may keep one, like Spring Kafka's
		// delivery-attempt header counted in the listener container's
		// memory: SetNXToken makes its per-attempt token from it, a
		// random UUID in production, and a count stuck at 1 would give
		// every attempt the same token, a failure the broker does not
		// cause.)
		Name: "kafka", Title: "Apache Kafka (consumer group)",
		VisibilityTimeout: 45 * time.Second, MaxDeliveries: Unlimited, DedupWindow: 0,
		Requeue: RequeueFront, PastLimit: PastLimitKeep,
		Gaps: narration.T("script.gaps.kafka"),
	},
}

// BrokerProfiles lists the profiles, the lab's own first.
func BrokerProfiles() []BrokerProfile { return brokerProfiles }

// Profile is the script's broker profile (the lab's own without a
// broker: header).
func (s *Script) Profile() BrokerProfile {
	p, _ := brokerProfile(s.Broker)
	return p
}

// PastLimitRule is what the broker does with a message past
// MaxDeliveries: the past-limit: header's choice, or the profile's.
func (s *Script) PastLimitRule() string {
	if s.PastLimit != "" {
		return s.PastLimit
	}
	return s.Profile().PastLimit
}

func brokerProfile(name string) (BrokerProfile, bool) {
	if name == "" {
		name = "lab"
	}
	for _, p := range brokerProfiles {
		if p.Name == name {
			return p, true
		}
	}
	return BrokerProfile{}, false
}

// duplicateStep reads duplicate [OP]: the broker hands out again a
// message it delivered already (of OP when given), with no failure; only
// under a profile whose broker does that.
func (p *parser) duplicateStep(n int, args []string) (Step, error) {
	st := Step{Verb: VerbDuplicate}
	if prof := p.s.Profile(); !prof.Duplicates {
		return st, errf(n, "script.duplicate-profile", prof.Name, duplicatingBrokers())
	}
	switch {
	case len(args) > 1 || len(args) == 1 && strings.Contains(args[0], "="):
		return st, errf(n, "script.duplicate-arguments", strconv.Quote(strings.Join(args, " ")), usage(VerbDuplicate))
	case len(args) == 1:
		st.Op = args[0]
		if err := checkID(n, "operation id", st.Op); err != nil {
			return st, err
		}
		if !p.anyTenant(st.Op) {
			return st, errf(n, "script.duplicate-unpublished", st.Op, usage(VerbDuplicate))
		}
	}
	return st, nil
}

// duplicatingBrokers names the profiles whose broker delivers copies with
// no failure.
func duplicatingBrokers() string {
	var names []string
	for _, p := range brokerProfiles {
		if p.Duplicates {
			names = append(names, p.Name)
		}
	}
	return strings.Join(names, ", ")
}

func brokerNames() string {
	names := make([]string, len(brokerProfiles))
	for i, p := range brokerProfiles {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}
