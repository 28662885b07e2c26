package sim

import (
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
	// Gaps names what this broker does that the model does not (yet).
	Gaps narration.Text
}

// Unlimited stands for a broker that never dead-letters by default: the
// model's highest delivery count (MaxDeliveries), past which a real
// broker would go on redelivering.
const Unlimited = MaxDeliveries

// brokerProfiles are the profiles, the lab's own first (the default).
var brokerProfiles = []BrokerProfile{
	{
		Name: "lab", Title: "the lab's model",
		VisibilityTimeout: 0, MaxDeliveries: DefaultMaxDeliveries, DedupWindow: 0,
		Gaps: narration.T("profile.lab.gaps"),
	},
	{
		// Amazon SQS standard queue. Visibility timeout: 30 seconds by
		// default (SQS Developer Guide, "Amazon SQS visibility timeout").
		// No dead-letter queue unless a redrive policy sets
		// maxReceiveCount: a message is received again until its
		// retention (4 days by default) ends. Standard queues have no
		// deduplication (FIFO queues: a 5-minute interval, profile
		// sqs-fifo).
		Name: "sqs", Title: "Amazon SQS (standard queue)",
		VisibilityTimeout: 30 * time.Second, MaxDeliveries: Unlimited, DedupWindow: 0,
		Gaps: narration.T("profile.sqs.gaps"),
	},
	{
		// Amazon SQS FIFO queue: the same visibility timeout, and
		// content- or id-based deduplication over a 5-minute interval
		// (SQS Developer Guide, "Exactly-once processing in Amazon SQS").
		Name: "sqs-fifo", Title: "Amazon SQS (FIFO queue)",
		VisibilityTimeout: 30 * time.Second, MaxDeliveries: Unlimited, DedupWindow: 5 * time.Minute,
		Gaps: narration.T("profile.sqs-fifo.gaps"),
	},
	{
		// RabbitMQ quorum queue. A message whose channel or connection
		// closes before the ack is requeued at once. Since RabbitMQ 4.0 a
		// quorum queue's delivery-limit defaults to 20; past it the
		// message is dead-lettered (or dropped without a dead-letter
		// exchange) ("Quorum Queues", Poison Message Handling). No
		// deduplication of publishes.
		Name: "rabbitmq", Title: "RabbitMQ (quorum queue)",
		VisibilityTimeout: 0, MaxDeliveries: 20, DedupWindow: 0,
		Gaps: narration.T("profile.rabbitmq.gaps"),
	},
	{
		// NATS JetStream consumer: AckWait 30 seconds, MaxDeliver -1
		// (no limit) by default; the stream's duplicate window for
		// Nats-Msg-Id is 2 minutes by default (NATS docs, "Consumers"
		// and "Streams").
		Name: "nats", Title: "NATS JetStream",
		VisibilityTimeout: 30 * time.Second, MaxDeliveries: Unlimited, DedupWindow: 2 * time.Minute,
		Gaps: narration.T("profile.nats.gaps"),
	},
	{
		// Apache Kafka consumer group: a consumer that dies is noticed
		// after session.timeout.ms, 45 seconds by default since Kafka
		// 3.0 (KIP-735); its partitions then restart from the last
		// committed offset. No dead-letter queue and no delivery limit.
		Name: "kafka", Title: "Apache Kafka (consumer group)",
		VisibilityTimeout: 45 * time.Second, MaxDeliveries: Unlimited, DedupWindow: 0,
		Gaps: narration.T("profile.kafka.gaps"),
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

func brokerNames() string {
	names := make([]string, len(brokerProfiles))
	for i, p := range brokerProfiles {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}
