//go:build !lean

package brokers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Kafka is franz-go's in-process Kafka cluster (kfake: one broker on a
// loopback port, in memory) and the real client, franz-go's kgo, speaking
// the Kafka protocol to it. Each world has a topic of its own with one
// partition, a dead-letter topic beside it and a consumer group, and the
// lab drives every request itself, one at a time, so a run depends on its
// script only:
//
//   - publish is a synchronous produce (acks=all); the broker's answer is
//     the record's offset, and the message's id is topups/0/OFFSET. Offset
//     0 of every topic holds the lab's opening marker, committed when the
//     world opens, so the first message is offset 1, as in the model;
//   - deliver is a fetch of the partition at the consumer's position: the
//     record at that offset is the one delivered. Kafka hands records out
//     in offset order only, so deliver op= cannot run (ErrCannotPick);
//   - ack is a synchronous offset commit of the consumer group (a simple
//     commit: generation -1, the lab being the group's only consumer),
//     read back from the broker with an offset fetch. A commit of N means
//     every offset below N is done, so the lab's consumer commits only up
//     to its lowest offset not yet acked (an ack above it is held: the
//     consumer keeps it and commits it when the offsets below it are done);
//     deliver-batch's commit is one commit for the batch (AckBatch), as
//     a consumer commits once after handling what its poll returned;
//   - Kafka has no nack and no per-message redelivery: a nack, a worker's
//     death noticed after session.timeout.ms (redeliver, settlement) or a
//     visibility lapse (deliver-concurrent same) is a seek back to the
//     group's committed offset, and the next fetch re-reads from there.
//     The records the consumer has acked above the committed offset, or
//     still has with another worker, are skipped when read again;
//   - Kafka counts no deliveries and sets no redelivered flag: the
//     delivery count is the lab's book's, and the handler's flag is
//     false on every read, as under the kafka profile (its Redelivery
//     is ""). There is no delivery limit either: past the script's
//     max-deliveries the lab's consumer produces the record to the
//     world's dead-letter topic and commits past it, as a consumer with
//     a dead-letter topic does (Kafka Connect's
//     errors.deadletterqueue.topic.name, Spring Kafka's
//     DeadLetterPublishingRecoverer); dlq-replay produces it to the topic
//     again, at a new offset;
//   - session.timeout.ms runs on the lab's clock: the broker's own group
//     timers never act, as the lab's consumer commits without joining.
//
// The cluster starts on the first Open, never when the binary starts;
// Close shuts it down.
type Kafka struct {
	seq  atomic.Uint64
	mu   sync.Mutex
	c    *kfake.Cluster
	cl   *kgo.Client
	err  error
	once sync.Once
}

// kafkaTimeout bounds every request to the in-process cluster: an answer
// takes microseconds, so this only ends a run on a broken cluster.
const kafkaTimeout = 10 * time.Second

// kafkaFetchWait is how long a fetch waits for the record the book counts
// ready (the broker answers at once when it has it).
const kafkaFetchWait = 5 * time.Second

// NewKafka makes a Kafka broker whose cluster starts on its first Open.
func NewKafka() *Kafka { return &Kafka{} }

// Name is the profile a run on Kafka follows: sim's kafka profile.
func (b *Kafka) Name() string { return "kafka" }

// start starts the cluster and the client, once.
func (b *Kafka) start() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cl != nil || b.err != nil {
		return b.err
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(0), kfake.ClusterID("lab"))
	if err != nil {
		b.err = fmt.Errorf("kafka: starting kfake: %w", err)
		return b.err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ClientID("lab"),
		kgo.MaxVersions(kversion.V3_8_0()), kgo.ProducerLinger(0), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		// A world's topic is new to the producer on its first record:
		// load its metadata at once rather than after the defaults'
		// backoff (a run's speed only; no answer depends on it).
		kgo.MetadataMinAge(10*time.Millisecond), kgo.RetryBackoffFn(func(int) time.Duration { return time.Millisecond }))
	if err != nil {
		c.Close()
		b.err = fmt.Errorf("kafka: %w", err)
		return b.err
	}
	b.c, b.cl = c, cl
	return nil
}

// Close closes the client and shuts the cluster down. It may be called
// more than once.
func (b *Kafka) Close() error {
	b.once.Do(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.cl != nil {
			b.cl.Close()
		}
		if b.c != nil {
			b.c.Close()
		}
		if b.err == nil {
			b.err = errors.New("kafka: the cluster is closed")
		}
	})
	return nil
}

// Open makes a world's topic (labN.topups, one partition), its
// dead-letter topic (labN.topups-dlt) and its consumer group (labN-workers),
// produces the opening marker at offset 0 and commits 1 for the group.
func (b *Kafka) Open(ctx context.Context, book *sim.Broker, s *script.Script, say func(narration.Text)) (sim.Transport, error) {
	if err := CheckPastLimit(s, b.Name()); err != nil {
		return nil, err // what lab run, lab conform and the pages refuse first
	}
	if err := b.start(); err != nil {
		return nil, err
	}
	n := b.seq.Add(1)
	q := &kafkaTopic{b: b, book: book, say: say, topic: fmt.Sprintf("lab%d.topups", n),
		dlt: fmt.Sprintf("lab%d.topups-dlt", n), group: fmt.Sprintf("lab%d-workers", n),
		offsets: map[*sim.Message]int64{}, done: map[int64]bool{}, held: map[int64]bool{}}
	ctx, cancel := context.WithTimeout(ctx, kafkaTimeout)
	defer cancel()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = int32(kafkaTimeout / time.Millisecond)
	for _, name := range []string{q.topic, q.dlt} {
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic, t.NumPartitions, t.ReplicationFactor = name, 1, 1
		req.Topics = append(req.Topics, t)
	}
	resp, err := req.RequestWith(ctx, b.cl)
	if err != nil {
		return nil, fmt.Errorf("creating the topic: %w", err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return nil, fmt.Errorf("creating the topic %s: %w", t.Topic, err)
		}
		if t.Topic == q.topic {
			q.topicID = t.TopicID
		}
	}
	marker, err := q.produce(ctx, q.topic, &kgo.Record{Key: []byte("lab-open"), Value: []byte("the lab opened this world")})
	if err != nil {
		return nil, fmt.Errorf("producing the opening marker: %w", err)
	}
	if marker != 0 {
		return nil, fmt.Errorf("the opening marker went to offset %d, not 0", marker)
	}
	if err := q.commit(ctx, 1); err != nil {
		return nil, err
	}
	q.pos = q.committed
	return q, nil
}

// kafkaTopic is one world's topic and consumer group: a sim.Transport
// that carries each answer of the broker into the world's book.
type kafkaTopic struct {
	b              *Kafka
	book           *sim.Broker
	say            func(narration.Text)
	topic, dlt     string
	topicID        [16]byte
	group          string
	committed, pos int64 // the group's committed offset (the broker's); the consumer's position
	offsets        map[*sim.Message]int64
	done           map[int64]bool // acked or dead-lettered, not yet below the committed offset
	held           map[int64]bool // with a worker
	err            error
}

func (q *kafkaTopic) fail(what string, err error) {
	if q.err == nil {
		q.err = fmt.Errorf("kafka, %s: %w", what, err)
	}
}

func (q *kafkaTopic) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), kafkaTimeout)
}

// produce sends one record to partition 0 of topic and waits for the
// broker's acknowledgement: its offset.
func (q *kafkaTopic) produce(ctx context.Context, topic string, r *kgo.Record) (int64, error) {
	r.Topic, r.Partition = topic, 0
	res := q.b.cl.ProduceSync(ctx, r)
	if err := res.FirstErr(); err != nil {
		return 0, err
	}
	return res[0].Record.Offset, nil
}

// record is m as a producer would send it: keyed by its idempotency key.
func record(m *sim.Message) *kgo.Record {
	return &kgo.Record{Key: []byte(m.Key), Value: []byte(m.Body()),
		Headers: []kgo.RecordHeader{{Key: "idempotency-key", Value: []byte(m.Key)}, {Key: "tenant", Value: []byte(m.Tenant)}}}
}

// commit commits offset for the group, synchronously, and reads the
// committed offset back from the broker.
func (q *kafkaTopic) commit(ctx context.Context, offset int64) error {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.Generation, req.MemberID = q.group, -1, ""
	t := kmsg.NewOffsetCommitRequestTopic()
	t.Topic = q.topic
	p := kmsg.NewOffsetCommitRequestTopicPartition()
	p.Partition, p.Offset, p.LeaderEpoch = 0, offset, -1
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, q.b.cl)
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("commit: %w", err)
			}
		}
	}
	got, err := q.fetchCommitted(ctx)
	if err != nil {
		return err
	}
	if got != offset {
		return fmt.Errorf("commit: the group's committed offset is %d after committing %d", got, offset)
	}
	q.committed = got
	return nil
}

// fetchCommitted asks the broker for the group's committed offset.
func (q *kafkaTopic) fetchCommitted(ctx context.Context) (int64, error) {
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = q.group
	t := kmsg.NewOffsetFetchRequestTopic()
	t.Topic, t.Partitions = q.topic, []int32{0}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, q.b.cl)
	if err != nil {
		return 0, fmt.Errorf("offset fetch: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return 0, fmt.Errorf("offset fetch: %w", err)
	}
	topics := resp.Topics
	if len(resp.Groups) > 0 {
		if err := kerr.ErrorForCode(resp.Groups[0].ErrorCode); err != nil {
			return 0, fmt.Errorf("offset fetch: %w", err)
		}
		topics = nil
		for _, gt := range resp.Groups[0].Topics {
			t := kmsg.NewOffsetFetchResponseTopic()
			t.Topic = gt.Topic
			for _, gp := range gt.Partitions {
				p := kmsg.NewOffsetFetchResponseTopicPartition()
				p.Partition, p.Offset, p.ErrorCode = gp.Partition, gp.Offset, gp.ErrorCode
				t.Partitions = append(t.Partitions, p)
			}
			topics = append(topics, t)
		}
	}
	for _, t := range topics {
		for _, p := range t.Partitions {
			if t.Topic == q.topic && p.Partition == 0 {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return 0, fmt.Errorf("offset fetch: %w", err)
				}
				return p.Offset, nil
			}
		}
	}
	return 0, errors.New("offset fetch: the broker did not answer for the partition")
}

// fetch reads the record at offset from the partition: the consumer's
// poll, one record.
func (q *kafkaTopic) fetch(offset int64) (*kgo.Record, error) {
	ctx, cancel := q.ctx()
	defer cancel()
	req := kmsg.NewPtrFetchRequest()
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = int32(kafkaFetchWait/time.Millisecond), 1, 1<<20
	req.SessionID, req.SessionEpoch = 0, -1
	t := kmsg.NewFetchRequestTopic()
	t.Topic, t.TopicID = q.topic, q.topicID
	p := kmsg.NewFetchRequestTopicPartition()
	p.Partition, p.FetchOffset, p.PartitionMaxBytes, p.CurrentLeaderEpoch, p.LogStartOffset = 0, offset, 1<<20, -1, -1
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, q.b.cl)
	if err != nil {
		return nil, err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	for _, rt := range resp.Topics {
		for i := range rt.Partitions {
			fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Offset: offset, Topic: q.topic},
				&rt.Partitions[i], kgo.DefaultDecompressor(), nil)
			if fp.Err != nil {
				return nil, fp.Err
			}
			for _, r := range fp.Records {
				if r.Offset == offset {
					return r, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("the broker has no record at offset %d", offset)
}

// Publish produces the message to the world's topic; the broker's answer
// is its offset.
func (q *kafkaTopic) Publish(m *sim.Message) {
	q.book.Publish(m)
	q.publish(m)
}

func (q *kafkaTopic) publish(m *sim.Message) {
	if q.err != nil {
		return
	}
	ctx, cancel := q.ctx()
	defer cancel()
	want := m.TransportID
	off, err := q.produce(ctx, q.topic, record(m))
	if err != nil {
		q.fail("produce", err)
		return
	}
	m.TransportID = sim.TransportID(uint64(off))
	q.offsets[m] = off
	if m.TransportID != want {
		q.fail("produce", fmt.Errorf("the broker stored the message at offset %d, the lab's book counts %s", off, want))
		return
	}
	q.say(note("brokers.kafka.produce", off))
}

// poll fetches from the consumer's position until a record the lab's
// consumer hands out: want, or any ready message (want nil). It skips the
// records re-read after a seek that are acked, dead-lettered or with
// another worker.
func (q *kafkaTopic) poll(want *sim.Message) *sim.Message {
	for {
		r, err := q.fetch(q.pos)
		if err != nil {
			q.fail(fmt.Sprintf("fetch at offset %d", q.pos), err)
			return nil
		}
		m := q.book.ByTransportID(sim.TransportID(uint64(r.Offset)))
		if m == nil || string(r.Key) != m.Key {
			q.fail("fetch", fmt.Errorf("the broker delivered offset %d, which the lab never produced", r.Offset))
			return nil
		}
		q.pos = r.Offset + 1
		ready := slices.Contains(q.book.Ready, m)
		if m == want || (want == nil && ready) {
			return m
		}
		if ready {
			q.fail("fetch", fmt.Errorf("the broker delivered offset %d before offset %d", r.Offset, q.offsets[want]))
			return nil
		}
		why := "held" // with another worker
		if q.done[r.Offset] {
			why = "acked" // the lab's consumer keeps its acks above the committed offset
		}
		q.say(note("brokers.kafka.skip", r.Offset, why))
	}
}

// delivered says a delivery in the trace: the broker's offset and
// committed offset, the lab's delivery count.
func (q *kafkaTopic) delivered(m *sim.Message, deliveries int) {
	q.say(note("brokers.kafka.fetch", q.offsets[m], q.committed, deliveries))
}

// Take fetches the record at the consumer's position.
func (q *kafkaTopic) Take() *sim.Message {
	if q.err != nil {
		return nil
	}
	m := q.poll(nil)
	if m == nil {
		return nil
	}
	d := m.Deliveries + 1
	if !q.book.TakeThis(m, d) {
		q.fail("fetch", fmt.Errorf("offset %d is not ready in the lab's book", q.offsets[m]))
		return nil
	}
	q.held[q.offsets[m]] = true
	q.delivered(m, d)
	return m
}

// TakeOp cannot be done: a consumer reads its partition in offset order.
func (q *kafkaTopic) TakeOp(op string) *sim.Message {
	q.fail("deliver "+op, ErrCannotPick)
	return nil
}

// seek moves the consumer back to the group's committed offset, as the
// broker reports it.
func (q *kafkaTopic) seek() bool {
	ctx, cancel := q.ctx()
	defer cancel()
	c, err := q.fetchCommitted(ctx)
	if err != nil {
		q.fail("seek", err)
		return false
	}
	q.committed, q.pos = c, c
	return true
}

// TakeAgain: the lab's clock passed session.timeout.ms while m's worker
// is busy: the consumer starts again from the committed offset and reads
// m again, for a second worker.
func (q *kafkaTopic) TakeAgain(m *sim.Message) int {
	if q.err != nil || !q.seek() {
		return m.Deliveries
	}
	q.say(note("brokers.kafka.lapse", q.offsets[m], q.committed))
	if q.poll(m) == nil {
		return m.Deliveries
	}
	d := q.book.TakeAgain(m)
	q.delivered(m, d)
	return d
}

// settle marks the offsets of ms done (acked or dead-lettered) and
// commits the group up to the lowest offset not done, once for them all.
func (q *kafkaTopic) settle(ms []*sim.Message, what string) {
	for _, m := range ms {
		off := q.offsets[m]
		delete(q.held, off)
		q.done[off] = true
	}
	// The offsets settled: one, or a batch's first and last.
	first, last := fmt.Sprint(q.offsets[ms[0]]), ""
	if len(ms) > 1 {
		last = fmt.Sprint(q.offsets[ms[len(ms)-1]])
	}
	next := q.committed
	for q.done[next] {
		delete(q.done, next)
		next++
	}
	if next == q.committed {
		q.say(note("brokers.kafka.held", what, first, last, next, q.committed))
		return
	}
	ctx, cancel := q.ctx()
	defer cancel()
	if err := q.commit(ctx, next); err != nil {
		q.fail("commit", err)
		return
	}
	q.say(note("brokers.kafka.commit", what, first, last, next, q.committed))
}

// Ack commits m's offset + 1 (up to the lowest offset not yet acked).
func (q *kafkaTopic) Ack(m *sim.Message) {
	if q.err != nil {
		return
	}
	if !q.held[q.offsets[m]] {
		q.fail("ack", fmt.Errorf("offset %d is not with a worker", q.offsets[m]))
		return
	}
	q.book.Ack(m)
	q.settle([]*sim.Message{m}, "ack")
}

var _ sim.BatchAcker = (*kafkaTopic)(nil)

// AckBatch is a batch's commit (deliver-batch): each offset acked, and
// one commit for the batch, as a consumer commits after its poll, up to
// the lowest offset not yet acked.
func (q *kafkaTopic) AckBatch(ms []*sim.Message) {
	if q.err != nil || len(ms) == 0 {
		return
	}
	for _, m := range ms {
		if !q.held[q.offsets[m]] {
			q.fail("ack", fmt.Errorf("offset %d is not with a worker", q.offsets[m]))
			return
		}
	}
	for _, m := range ms {
		q.book.Ack(m)
	}
	q.settle(ms, "ack")
}

// Nack: Kafka has none. The consumer seeks back to the committed offset
// (m is read again from there); past max-deliveries the lab's consumer
// produces m to the dead-letter topic and commits past it instead.
func (q *kafkaTopic) Nack(m *sim.Message) bool {
	if q.err != nil {
		return false
	}
	off := q.offsets[m]
	if !q.held[off] {
		q.fail("nack", fmt.Errorf("offset %d is not with a worker", off))
		return false
	}
	delete(q.held, off)
	dead := q.book.Nack(m)
	q.requeued([]*sim.Message{m}, []bool{dead}, "nack")
	return dead
}

// requeued carries messages given back into the broker: the dead ones to
// the dead-letter topic and committed past, then the consumer seeks back
// to the committed offset for the rest. why is "nack" (Kafka has none)
// or "session" (the lab's clock passed session.timeout.ms).
func (q *kafkaTopic) requeued(ms []*sim.Message, dead []bool, why string) {
	again := false
	for i, m := range ms {
		if dead[i] {
			q.deadLetter(m)
		} else {
			again = true
		}
	}
	if !again || q.err != nil || !q.seek() {
		return
	}
	q.say(note("brokers.kafka.seek", why, q.committed))
}

// deadLetter produces m to the world's dead-letter topic and commits past
// it: the lab's consumer gives up on it.
func (q *kafkaTopic) deadLetter(m *sim.Message) {
	ctx, cancel := q.ctx()
	defer cancel()
	off, err := q.produce(ctx, q.dlt, record(m))
	if err != nil {
		q.fail("produce to the dead-letter topic", err)
		return
	}
	q.say(note("brokers.kafka.dead-letter", q.offsets[m], q.book.MaxDeliveries, off))
	q.settle([]*sim.Message{m}, "dead-lettered")
}

// Drop: the consumer is gone, and the broker does not know yet: its
// offset stays uncommitted until session.timeout.ms (Redeliver).
func (q *kafkaTopic) Drop(m *sim.Message) {
	if q.err != nil {
		return
	}
	q.say(note("brokers.kafka.gone", q.offsets[m], q.committed))
}

// Redeliver: the lab's clock passed session.timeout.ms: every offset
// with a worker goes back, and the consumer restarts from the committed
// offset.
func (q *kafkaTopic) Redeliver() ([]*sim.Message, []bool) {
	if q.err != nil {
		return nil, nil
	}
	for _, m := range q.book.InFlight {
		delete(q.held, q.offsets[m])
	}
	moved, dead := q.book.Redeliver()
	if len(moved) > 0 {
		q.requeued(moved, dead, "session")
	}
	return moved, dead
}

// ReplayDLQ produces each dead letter to the topic again, at a new offset.
func (q *kafkaTopic) ReplayDLQ() []*sim.Message {
	if q.err != nil {
		return nil
	}
	replayed := q.book.ReplayDLQ() // the book's new ids, checked against the broker's
	for _, m := range replayed {
		q.publish(m)
	}
	return replayed
}

// Err is the first error the broker gave.
func (q *kafkaTopic) Err() error { return q.err }

// Close deletes the world's topics and its group.
func (q *kafkaTopic) Close() error {
	ctx, cancel := q.ctx()
	defer cancel()
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = int32(kafkaTimeout / time.Millisecond)
	for _, name := range []string{q.topic, q.dlt} {
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = &name
		req.Topics = append(req.Topics, t)
		req.TopicNames = append(req.TopicNames, name)
	}
	if _, err := req.RequestWith(ctx, q.b.cl); err != nil {
		return err
	}
	g := kmsg.NewPtrDeleteGroupsRequest()
	g.Groups = []string{q.group}
	_, err := g.RequestWith(ctx, q.b.cl)
	return err
}
