//go:build !lean

package brokers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// NATS is a NATS JetStream server embedded in the process (nats-server
// in process, JetStream in memory, no listening port: the client reaches
// it through an in-process connection) and the real client, nats.go's
// jetstream package. Each world opens a stream of its own with one
// durable pull consumer, and the lab drives every delivery itself:
//
//   - publish is a JetStream publish, acknowledged by the server (PubAck:
//     the stream sequence becomes the message's offset, topups/0/SEQ);
//   - deliver is a Fetch of one message, no wait: the server picks which
//     (its redelivery queue first, then the stream in order), and its
//     metadata says the delivery count (NumDelivered) and sequences;
//   - ack is a double ack (the server confirms it), nack a -NAK sent as a
//     request, so the server has processed it before the next step;
//   - a crash changes nothing on the server: the pull consumer's message
//     stays pending until its AckWait;
//   - AckWait, on the lab's simulated clock: the server's own AckWait is
//     the script's visibility timeout, but at least 30 seconds of wall
//     time, which a run never lasts; when the lab's clock passes a
//     message's visibility timeout (redeliver, settlement, or
//     deliver-concurrent same), the lab sends the server a -NAK for it
//     at that moment, which puts it on the consumer's redelivery queue
//     as an AckWait running out does (nats-server's consumer.go: both
//     end in addToRedeliverQueue). So a run depends on its script only;
//   - MaxDeliver is the script's max-deliveries (100 under the nats
//     profile, for JetStream's unlimited -1). Past it the server stops
//     delivering the message, keeps it in the stream and sends a
//     MAX_DELIVERIES advisory; the lab's book counts it as dead-lettered,
//     and dlq-replay publishes it again as a new message, as a consumer of
//     that advisory would;
//   - deliver op= cannot be asked of a pull consumer (it hands out its own
//     next message): a script with it stops with an error.
//
// The server starts when NATS is called (lab run --broker nats), never
// when the binary starts; Close shuts it down and removes its folder.
type NATS struct {
	dir  string
	srv  *server.Server
	nc   *nats.Conn
	js   jetstream.JetStream
	seq  atomic.Uint64
	once sync.Once
}

// natsTimeout bounds every request to the embedded server: an answer
// takes microseconds, so this only ends a run on a broken server.
const natsTimeout = 10 * time.Second

// minAckWait is the least AckWait the server is given: far longer than a
// run, so that the server's own timer never redelivers within one.
const minAckWait = 30 * time.Second

// fetchWait is how long a fetch waits for the message the book counts
// ready.
const fetchWait = 5 * time.Second

// NewNATS starts an embedded NATS server with JetStream in memory and
// connects to it in process.
func NewNATS() (*NATS, error) {
	dir, err := os.MkdirTemp("", "lab-nats-")
	if err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	b := &NATS{dir: dir}
	opts := &server.Options{
		ServerName: "lab", DontListen: true, NoLog: true, NoSigs: true,
		JetStream: true, StoreDir: dir,
		JetStreamMaxMemory: 256 << 20, JetStreamMaxStore: 1 << 20,
	}
	if b.srv, err = server.NewServer(opts); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("nats: %w", err)
	}
	b.srv.Start()
	if !b.srv.ReadyForConnections(natsTimeout) {
		b.Close()
		return nil, errors.New("nats: the embedded server did not start")
	}
	if b.nc, err = nats.Connect("", nats.InProcessServer(b.srv), nats.Name("lab")); err != nil {
		b.Close()
		return nil, fmt.Errorf("nats: %w", err)
	}
	if b.js, err = jetstream.New(b.nc); err != nil {
		b.Close()
		return nil, fmt.Errorf("nats: %w", err)
	}
	return b, nil
}

// Name is the profile a run on NATS follows: sim's nats profile.
func (b *NATS) Name() string { return "nats" }

// Close closes the connection, shuts the server down and removes its
// folder. It may be called more than once.
func (b *NATS) Close() error {
	b.once.Do(func() {
		if b.nc != nil {
			b.nc.Close()
		}
		if b.srv != nil {
			b.srv.Shutdown()
			b.srv.WaitForShutdown()
		}
		os.RemoveAll(b.dir)
	})
	return nil
}

// Open makes a world's stream (LABn, subject labn.topups, in memory) and
// its durable pull consumer, explicit acks, AckWait and MaxDeliver from
// the script.
func (b *NATS) Open(ctx context.Context, book *sim.Broker, s *script.Script, say func(narration.Text)) (sim.Transport, error) {
	if err := CheckPastLimit(s, b.Name()); err != nil {
		return nil, err // what lab run, lab conform and the pages refuse first
	}
	n := b.seq.Add(1)
	q := &natsQueue{b: b, book: book, say: say, stream: fmt.Sprintf("LAB%d", n), subject: fmt.Sprintf("lab%d.topups", n),
		held: map[*sim.Message]jetstream.Msg{}}
	ctx, cancel := context.WithTimeout(ctx, natsTimeout)
	defer cancel()
	st, err := b.js.CreateStream(ctx, jetstream.StreamConfig{Name: q.stream, Subjects: []string{q.subject},
		Storage: jetstream.MemoryStorage, Retention: jetstream.LimitsPolicy})
	if err != nil {
		return nil, fmt.Errorf("creating the stream: %w", err)
	}
	q.maxDeliver = book.MaxDeliveries
	q.ackWait = max(s.VisibilityTimeout, minAckWait)
	if q.cons, err = st.CreateConsumer(ctx, jetstream.ConsumerConfig{Durable: "workers",
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: q.ackWait, MaxDeliver: q.maxDeliver,
		DeliverPolicy: jetstream.DeliverAllPolicy}); err != nil {
		b.js.DeleteStream(context.Background(), q.stream)
		return nil, fmt.Errorf("creating the consumer: %w", err)
	}
	// The book's limit is the server's, as the server reports it.
	info := q.cons.CachedInfo()
	book.MaxDeliveries = info.Config.MaxDeliver
	return q, nil
}

// natsQueue is one world's stream and consumer: a sim.Transport that
// carries each answer of the server into the world's book.
type natsQueue struct {
	b               *NATS
	book            *sim.Broker
	say             func(narration.Text)
	stream, subject string
	cons            jetstream.Consumer
	maxDeliver      int
	ackWait         time.Duration
	// held is each in-flight message's latest delivery: what an ack or a
	// nak answers.
	held map[*sim.Message]jetstream.Msg
	err  error
}

func (q *natsQueue) fail(what string, err error) {
	if q.err == nil {
		q.err = fmt.Errorf("nats, %s: %w", what, err)
	}
}

func (q *natsQueue) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), natsTimeout)
}

// Publish sends the message's body to the world's subject; the server's
// PubAck gives the stream sequence, the message's offset.
func (q *natsQueue) Publish(m *sim.Message) {
	q.book.Publish(m)
	if q.err != nil {
		return
	}
	ctx, cancel := q.ctx()
	defer cancel()
	msg := nats.NewMsg(q.subject)
	msg.Data = []byte(m.Body())
	msg.Header.Set("idempotency-key", m.Key)
	msg.Header.Set("tenant", m.Tenant)
	ack, err := q.b.js.PublishMsg(ctx, msg)
	if err != nil {
		q.fail("publish", err)
		return
	}
	m.TransportID = sim.TransportID(ack.Sequence)
	q.say(note("brokers.nats.puback", ack.Sequence))
}

// fetch asks the server for the next message. It is asked only when the
// lab's book counts a message ready, so the pull request waits for one:
// the server may still be handing a new message to its consumer when the
// request comes (the stream stores it, then signals the consumer), and a
// no-wait request would find nothing then. Only a server that disagrees
// with the book waits out fetchWait.
func (q *natsQueue) fetch() jetstream.Msg {
	batch, err := q.cons.Fetch(1, jetstream.FetchMaxWait(fetchWait))
	if err != nil {
		q.fail("fetch", err)
		return nil
	}
	var got jetstream.Msg
	for msg := range batch.Messages() {
		got = msg
	}
	if err := batch.Error(); err != nil {
		q.fail("fetch", err)
		return nil
	}
	return got
}

// delivered reads a fetched message's metadata and says it in the trace.
func (q *natsQueue) delivered(msg jetstream.Msg) (*jetstream.MsgMetadata, *sim.Message) {
	md, err := msg.Metadata()
	if err != nil {
		q.fail("metadata", err)
		return nil, nil
	}
	m := q.book.ByTransportID(sim.TransportID(md.Sequence.Stream))
	if m == nil {
		q.fail("fetch", fmt.Errorf("the server delivered stream seq %d, which the lab never published", md.Sequence.Stream))
		return nil, nil
	}
	// Not NumPending: the consumer counts a new message a moment after
	// the stream stores it, so that number depends on timing.
	q.say(note("brokers.nats.fetch", md.Sequence.Stream, md.Sequence.Consumer, md.NumDelivered))
	return md, m
}

// Take fetches the message the server delivers next.
func (q *natsQueue) Take() *sim.Message {
	if q.err != nil {
		return nil
	}
	msg := q.fetch()
	if msg == nil {
		if q.err == nil {
			q.fail("fetch", fmt.Errorf("the server has nothing to deliver, while the lab counts %d ready", len(q.book.Ready)))
		}
		return nil
	}
	md, m := q.delivered(msg)
	if m == nil {
		return nil
	}
	if !q.book.TakeThis(m, int(md.NumDelivered)) {
		q.fail("fetch", fmt.Errorf("the server delivered %s, which the lab does not count as ready (acked, in flight or past MaxDeliver)", m.TransportID))
		return nil
	}
	q.held[m] = msg
	return m
}

// TakeOp cannot be done: a pull consumer hands out its own next message.
func (q *natsQueue) TakeOp(op string) *sim.Message {
	q.fail("deliver "+op, ErrCannotPick)
	return nil
}

// nak sends -NAK for m's latest delivery as a request: the server has
// put it on the redelivery queue when the answer comes.
func (q *natsQueue) nak(m *sim.Message) bool {
	msg := q.held[m]
	if msg == nil {
		q.fail("nak", fmt.Errorf("%s is not held by a worker", m.TransportID))
		return false
	}
	ctx, cancel := q.ctx()
	defer cancel()
	if _, err := q.b.nc.RequestWithContext(ctx, msg.Reply(), []byte("-NAK")); err != nil {
		q.fail("nak", err)
		return false
	}
	delete(q.held, m)
	return true
}

// TakeAgain: the lab's clock passed m's AckWait while its worker is busy:
// the lab naks it for the server (see NATS), and the next Fetch is m
// again, from the redelivery queue.
func (q *natsQueue) TakeAgain(m *sim.Message) int {
	if q.err != nil || !q.nak(m) {
		return m.Deliveries
	}
	q.say(note("brokers.nats.ackwait-one", m.TransportID))
	msg := q.fetch()
	if msg == nil {
		q.fail("fetch", fmt.Errorf("the server did not redeliver %s after its AckWait", m.TransportID))
		return m.Deliveries
	}
	md, got := q.delivered(msg)
	if got != m {
		if q.err == nil {
			q.fail("fetch", fmt.Errorf("after AckWait the server delivered %s, not %s", got.TransportID, m.TransportID))
		}
		return m.Deliveries
	}
	q.book.TakeAgain(m)
	m.Deliveries = int(md.NumDelivered)
	q.held[m] = msg
	return m.Deliveries
}

// Ack double-acks m: the server confirms it.
func (q *natsQueue) Ack(m *sim.Message) {
	if q.err != nil {
		return
	}
	msg := q.held[m]
	if msg == nil {
		q.fail("ack", fmt.Errorf("%s is not held by a worker", m.TransportID))
		return
	}
	ctx, cancel := q.ctx()
	defer cancel()
	if err := msg.DoubleAck(ctx); err != nil {
		q.fail("ack", err)
		return
	}
	delete(q.held, m)
	q.book.Ack(m)
}

// Nack naks m; past MaxDeliver the server will not deliver it again.
func (q *natsQueue) Nack(m *sim.Message) bool {
	if q.err != nil || !q.nak(m) {
		return false
	}
	return q.requeued(m, q.book.Nack(m))
}

// requeued says in the trace what the server does with a nak'd message.
func (q *natsQueue) requeued(m *sim.Message, dead bool) bool {
	if dead {
		q.say(note("brokers.nats.max-deliver", m.TransportID, m.Deliveries, q.maxDeliver))
	}
	return dead
}

// Drop: a pull consumer's worker going away changes nothing on the
// server; the message waits for its AckWait.
func (q *natsQueue) Drop(m *sim.Message) {
	if q.err != nil {
		return
	}
	q.say(note("brokers.nats.gone", m.TransportID, q.ackWait))
}

// Redeliver: the lab's clock passed AckWait for every message in flight:
// each is nak'd for the server, in the book's order.
func (q *natsQueue) Redeliver() ([]*sim.Message, []bool) {
	if q.err != nil {
		return nil, nil
	}
	for _, m := range q.book.InFlight {
		if !q.nak(m) {
			return nil, nil
		}
	}
	if len(q.book.InFlight) > 0 {
		q.say(note("brokers.nats.ackwait-all"))
	}
	moved, dead := q.book.Redeliver()
	for i, m := range moved {
		q.requeued(m, dead[i])
	}
	return moved, dead
}

// ReplayDLQ publishes each message past MaxDeliver again, as a new
// message with a new stream sequence.
func (q *natsQueue) ReplayDLQ() []*sim.Message {
	if q.err != nil {
		return nil
	}
	replayed := q.book.ReplayDLQ() // the book's own ids, replaced below
	for _, m := range replayed {
		ctx, cancel := q.ctx()
		msg := nats.NewMsg(q.subject)
		msg.Data = []byte(m.Body())
		msg.Header.Set("idempotency-key", m.Key)
		msg.Header.Set("tenant", m.Tenant)
		ack, err := q.b.js.PublishMsg(ctx, msg)
		cancel()
		if err != nil {
			q.fail("publish", err)
			return replayed
		}
		m.TransportID = sim.TransportID(ack.Sequence)
	}
	return replayed
}

// Err is the first error the server gave.
func (q *natsQueue) Err() error { return q.err }

// Close deletes the world's stream and its consumer.
func (q *natsQueue) Close() error {
	ctx, cancel := q.ctx()
	defer cancel()
	return q.b.js.DeleteStream(ctx, q.stream)
}
