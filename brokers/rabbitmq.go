package brokers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// RabbitMQ is a RabbitMQ server the lab reaches at an amqp:// URL (lab
// run --broker amqp://user:pass@host:port/vhost), through the real
// client, amqp091-go. Each world has a connection of its own, a quorum
// queue and a dead-letter queue beside it, and the lab drives every
// delivery itself, one at a time, so a run depends on its script only:
//
//   - the queue is a quorum queue (x-queue-type: quorum), the kind that
//     counts deliveries (x-delivery-count) and has a delivery limit;
//     x-delivery-limit is the script's max-deliveries less one, as the
//     server dead-letters a message returned when its count of earlier
//     deliveries is above the limit: max-deliveries deliveries in all;
//     past it the message goes through the default exchange to the
//     world's dead-letter queue (x-dead-letter-exchange "",
//     x-dead-letter-routing-key), as the model's DLQ;
//   - publish is a basic.publish on a channel in confirm mode, and the
//     lab waits for the server's confirm (basic.ack). The confirm's
//     delivery tag counts the world's publishes, as the model's offsets
//     do: the message's id, topups/0/N, is the tag, sent as its
//     message-id;
//   - deliver is a basic.get with manual acknowledgement on the worker's
//     channel: a channel of its own for each message a worker holds (the
//     lowest-numbered free one, opened when none is). The server picks
//     the message (the queue's head), and its answer says the delivery
//     tag, the redelivered flag and x-delivery-count;
//   - ack is basic.ack on that channel, nack basic.reject with requeue:
//     the negative acknowledgement every RabbitMQ version counts as a
//     failed delivery (since 4.3 a quorum queue no longer counts
//     basic.nack's requeue against the delivery limit);
//   - a crash closes the worker's channel, and the server returns the
//     message on its own terms: at once, its delivery counted, or to the
//     dead-letter queue past the limit;
//   - RabbitMQ has no visibility timeout: the nearest is consumer_timeout
//     (30 minutes by default), after which the server closes the channel
//     of a consumer that has not acked. When the lab's clock passes a
//     message's visibility timeout (redeliver, settlement, or
//     deliver-concurrent same), the lab closes the channel holding it, as
//     the server would, and the server returns the message;
//   - a return (a nack, a channel closed) reaches the queue a moment
//     after the server answered, and dead-lettering one a moment after
//     that: after each, the lab waits until the server's queues hold what
//     its book says (queue.declare passive: the ready messages of each),
//     so that the next basic.get never races it;
//   - deliver op= cannot be asked of a queue (basic.get takes its head):
//     a script with it stops with an error.
//
// Nothing connects before Open (NewRabbitMQ only checks that the server
// answers); Close lets go of nothing but what the worlds left.
type RabbitMQ struct {
	url    string // with the password
	shown  string // without it, for messages
	prefix string // the queues' names: this process's own
	seq    atomic.Uint64
	closed atomic.Bool
}

// rabbitTimeout bounds a wait for the server: a connection, a confirm,
// the server's queues catching up with the book. An answer takes
// milliseconds, so this only ends a run on a broken server.
const rabbitTimeout = 10 * time.Second

// rabbitExpires is each world's queues' x-expires: a queue nobody has
// used for so long is deleted by the server, should a run die before it
// deletes its own (a world lasts milliseconds).
const rabbitExpires = 10 * time.Minute

// IsAMQP reports whether spec is a RabbitMQ URL (amqp:// or amqps://).
func IsAMQP(spec string) bool {
	return strings.HasPrefix(spec, "amqp://") || strings.HasPrefix(spec, "amqps://")
}

// NewRabbitMQ checks the URL and that a RabbitMQ server answers at it.
func NewRabbitMQ(ctx context.Context, rawURL string) (*RabbitMQ, error) {
	shown := redact(rawURL)
	if _, err := amqp.ParseURI(rawURL); err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // not the URL itself: it holds the password
		}
		return nil, fmt.Errorf("--broker %s: %v (want amqp://user:pass@host:port/vhost)", shown, err)
	}
	var id [4]byte
	rand.Read(id[:])
	b := &RabbitMQ{url: rawURL, shown: shown, prefix: "lab-" + hex.EncodeToString(id[:])}
	conn, err := b.dial(ctx, "lab")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if p, _ := conn.Properties["product"].(string); p != "RabbitMQ" {
		return nil, fmt.Errorf("--broker %s: the server is %q, not RabbitMQ", shown, p)
	}
	return b, nil
}

// redact is the URL without its password.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unreadable URL)"
	}
	return u.Redacted()
}

func (b *RabbitMQ) dial(ctx context.Context, name string) (*amqp.Connection, error) {
	if b.closed.Load() {
		return nil, errors.New("rabbitmq: closed")
	}
	props := amqp.NewConnectionProperties()
	props.SetClientConnectionName(name)
	ctx, cancel := context.WithTimeout(ctx, rabbitTimeout)
	defer cancel()
	type dialed struct {
		conn *amqp.Connection
		err  error
	}
	done := make(chan dialed, 1)
	go func() {
		conn, err := amqp.DialConfig(b.url, amqp.Config{Properties: props, Dial: amqp.DefaultDial(rabbitTimeout)})
		done <- dialed{conn, err}
	}()
	select {
	case d := <-done:
		if d.err != nil {
			return nil, fmt.Errorf("rabbitmq at %s: %w", b.shown, d.err)
		}
		return d.conn, nil
	case <-ctx.Done():
		go func() {
			if d := <-done; d.conn != nil {
				d.conn.Close()
			}
		}()
		return nil, fmt.Errorf("rabbitmq at %s: %w", b.shown, ctx.Err())
	}
}

// Name is the profile a run on RabbitMQ follows: sim's rabbitmq profile.
func (b *RabbitMQ) Name() string { return "rabbitmq" }

// Close makes later Opens fail; each world closes its own connection.
func (b *RabbitMQ) Close() error {
	b.closed.Store(true)
	return nil
}

// Open makes a world's connection, its quorum queue (PREFIX-N.topups)
// and dead-letter queue (PREFIX-N.topups-dlq), and the confirm channel it
// publishes on.
func (b *RabbitMQ) Open(ctx context.Context, book *sim.Broker, s *script.Script, say func(narration.Text)) (sim.Transport, error) {
	if err := CheckPastLimit(s, b.Name()); err != nil {
		return nil, err // what lab run, lab conform and the pages refuse first
	}
	n := b.seq.Add(1)
	name := fmt.Sprintf("%s-%d.topups", b.prefix, n)
	conn, err := b.dial(ctx, name)
	if err != nil {
		return nil, err
	}
	q := &rabbitQueue{conn: conn, book: book, say: say, queue: name, dlq: name + "-dlq",
		limit: book.MaxDeliveries - 1, held: map[*sim.Message]rabbitHeld{}}
	if q.ctl, err = conn.Channel(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("rabbitmq: opening a channel: %w", err)
	}
	if err := q.ctl.Confirm(false); err != nil {
		conn.Close()
		return nil, fmt.Errorf("rabbitmq: confirm mode: %w", err)
	}
	expires := int64(rabbitExpires / time.Millisecond)
	if _, err := q.ctl.QueueDeclare(q.dlq, false, false, false, false, amqp.Table{"x-expires": expires}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("rabbitmq: declaring the dead-letter queue: %w", err)
	}
	if _, err := q.ctl.QueueDeclare(q.queue, true, false, false, false, amqp.Table{
		amqp.QueueTypeArg: amqp.QueueTypeQuorum, "x-delivery-limit": int64(q.limit),
		"x-dead-letter-exchange": "", "x-dead-letter-routing-key": q.dlq, "x-expires": expires,
	}); err != nil {
		q.ctl.QueueDelete(q.dlq, false, false, false)
		conn.Close()
		return nil, fmt.Errorf("rabbitmq: declaring the quorum queue (RabbitMQ 3.8 or later has them): %w", err)
	}
	return q, nil
}

// rabbitQueue is one world's queues and channels: a sim.Transport that
// carries each answer of the server into the world's book.
type rabbitQueue struct {
	conn       *amqp.Connection
	ctl        *amqp.Channel // confirm mode: publishes, the dead-letter queue, queue.declare passive
	book       *sim.Broker
	say        func(narration.Text)
	queue, dlq string
	limit      int // x-delivery-limit
	published  uint64
	channels   int          // worker channels opened so far: the next one's number
	free       []rabbitChan // worker channels that hold no message, lowest number first
	held       map[*sim.Message]rabbitHeld
	err        error
}

// rabbitChan is a worker's channel and the lab's number for it.
type rabbitChan struct {
	ch *amqp.Channel
	n  int
}

// rabbitHeld is a message's latest delivery: the channel holding it and
// its delivery tag there.
type rabbitHeld struct {
	c   rabbitChan
	tag uint64
}

func (q *rabbitQueue) fail(what string, err error) {
	if q.err == nil {
		q.err = fmt.Errorf("rabbitmq, %s: %w", what, err)
	}
}

func (q *rabbitQueue) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), rabbitTimeout)
}

// Publish publishes m and waits for the server's confirm.
func (q *rabbitQueue) Publish(m *sim.Message) {
	q.book.Publish(m)
	q.publish(m)
}

func (q *rabbitQueue) publish(m *sim.Message) {
	if q.err != nil {
		return
	}
	ctx, cancel := q.ctx()
	defer cancel()
	dc, err := q.ctl.PublishWithDeferredConfirmWithContext(ctx, "", q.queue, false, false, amqp.Publishing{
		MessageId: m.TransportID, ContentType: "application/json", DeliveryMode: amqp.Persistent,
		Headers: amqp.Table{"idempotency-key": m.Key, "tenant": m.Tenant}, Body: []byte(m.Body()),
	})
	if err != nil {
		q.fail("publish", err)
		return
	}
	ok, err := dc.WaitContext(ctx)
	if err != nil {
		q.fail("publisher confirm", err)
		return
	}
	if !ok {
		q.fail("publisher confirm", fmt.Errorf("the server refused %s (basic.nack)", m.TransportID))
		return
	}
	q.published++
	if want := sim.TransportID(dc.DeliveryTag); want != m.TransportID || dc.DeliveryTag != q.published {
		q.fail("publisher confirm", fmt.Errorf("the server confirmed delivery tag %d for %s", dc.DeliveryTag, m.TransportID))
		return
	}
	q.say(note("brokers.rabbitmq.confirm", dc.DeliveryTag, m.TransportID))
}

// channel is a free worker channel, the lowest-numbered, or a new one.
func (q *rabbitQueue) channel() (rabbitChan, bool) {
	if len(q.free) > 0 {
		c := q.free[0]
		q.free = q.free[1:]
		return c, true
	}
	ch, err := q.conn.Channel()
	if err != nil {
		q.fail("opening a channel", err)
		return rabbitChan{}, false
	}
	q.channels++
	return rabbitChan{ch: ch, n: q.channels}, true
}

// release gives a worker channel back, kept in number order.
func (q *rabbitQueue) release(c rabbitChan) {
	i := 0
	for i < len(q.free) && q.free[i].n < c.n {
		i++
	}
	q.free = append(q.free[:i], append([]rabbitChan{c}, q.free[i:]...)...)
}

// deliveryCount reads x-delivery-count, the quorum queue's count of a
// message's earlier deliveries (0 on the first).
func deliveryCount(d amqp.Delivery) (int, bool) {
	switch v := d.Headers["x-delivery-count"].(type) {
	case int64:
		return int(v), true
	case int32:
		return int(v), true
	case int16:
		return int(v), true
	case int8:
		return int(v), true
	case int:
		return v, true
	case uint8:
		return int(v), true
	}
	return 0, false
}

// get is basic.get on a worker channel: the message the server hands out
// next, said in the trace, with its delivery count (x-delivery-count + 1).
// The book counts a message ready only when the server's queue holds it,
// so an empty answer is asked again only while rabbitTimeout lasts.
func (q *rabbitQueue) get() (*sim.Message, int, rabbitHeld) {
	c, ok := q.channel()
	if !ok {
		return nil, 0, rabbitHeld{}
	}
	deadline := time.Now().Add(rabbitTimeout)
	for {
		d, ok, err := c.ch.Get(q.queue, false)
		if err != nil {
			q.fail("basic.get", err)
			return nil, 0, rabbitHeld{}
		}
		if !ok {
			if time.Now().After(deadline) {
				q.release(c)
				q.fail("basic.get", fmt.Errorf("the queue is empty (basic.get-empty), while the lab counts %d ready", len(q.book.Ready)))
				return nil, 0, rabbitHeld{}
			}
			time.Sleep(time.Millisecond)
			continue
		}
		m := q.book.ByTransportID(d.MessageId)
		count, counted := deliveryCount(d)
		if m == nil || !counted {
			q.fail("basic.get", fmt.Errorf("the server delivered message-id %q (x-delivery-count %v), which the lab never published",
				d.MessageId, d.Headers["x-delivery-count"]))
			return nil, 0, rabbitHeld{}
		}
		q.say(note("brokers.rabbitmq.get-ok", c.n, d.DeliveryTag, d.MessageId, d.Redelivered, count, d.MessageCount))
		return m, count + 1, rabbitHeld{c: c, tag: d.DeliveryTag}
	}
}

// Take is basic.get: the message at the queue's head.
func (q *rabbitQueue) Take() *sim.Message {
	if q.err != nil {
		return nil
	}
	m, deliveries, h := q.get()
	if m == nil {
		return nil
	}
	if !q.book.TakeThis(m, deliveries) {
		q.fail("basic.get", fmt.Errorf("the server delivered %s, which the lab does not count as ready", m.TransportID))
		return nil
	}
	q.held[m] = h
	return m
}

// TakeOp cannot be done: basic.get takes the queue's head.
func (q *rabbitQueue) TakeOp(op string) *sim.Message {
	q.fail("deliver "+op, ErrCannotPick)
	return nil
}

// holder is the delivery of m a worker holds.
func (q *rabbitQueue) holder(m *sim.Message, what string) (rabbitHeld, bool) {
	h, ok := q.held[m]
	if !ok {
		q.fail(what, fmt.Errorf("%s is not held on a worker's channel", m.TransportID))
	}
	return h, ok
}

// Ack is basic.ack on the channel holding m.
func (q *rabbitQueue) Ack(m *sim.Message) {
	if q.err != nil {
		return
	}
	h, ok := q.holder(m, "basic.ack")
	if !ok {
		return
	}
	if err := h.c.ch.Ack(h.tag, false); err != nil {
		q.fail("basic.ack", err)
		return
	}
	delete(q.held, m)
	q.release(h.c)
	q.book.Ack(m)
	q.say(note("brokers.rabbitmq.ack", h.c.n, h.tag))
}

// Nack is basic.reject with requeue on the channel holding m; the server
// dead-letters it past x-delivery-limit.
func (q *rabbitQueue) Nack(m *sim.Message) bool {
	if q.err != nil {
		return false
	}
	h, ok := q.holder(m, "basic.reject")
	if !ok {
		return false
	}
	if err := h.c.ch.Reject(h.tag, true); err != nil {
		q.fail("basic.reject", err)
		return false
	}
	delete(q.held, m)
	q.release(h.c)
	dead := q.book.Nack(m)
	q.returned(m, dead, "reject", h)
	return dead
}

// returned waits until the server's queues hold what the book says after
// m came back, and says where the server put it. how is "reject" (a
// basic.reject with requeue) or "closed" (its channel closed with the
// worker); h is the delivery that came back.
func (q *rabbitQueue) returned(m *sim.Message, dead bool, how string, h rabbitHeld) {
	if !q.caughtUp(len(q.book.Ready), len(q.book.DLQ)) {
		return
	}
	if dead {
		q.say(note("brokers.rabbitmq.returned-dead", how, h.c.n, h.tag, m.TransportID, m.Deliveries, q.limit))
		return
	}
	q.say(note("brokers.rabbitmq.returned", how, h.c.n, h.tag, m.TransportID, m.Deliveries))
}

// caughtUp waits until the server's queue holds ready messages ready and
// its dead-letter queue dead ones (queue.declare passive): a return or a
// dead-lettering is done a moment after the server's answer.
func (q *rabbitQueue) caughtUp(ready, dead int) bool {
	deadline := time.Now().Add(rabbitTimeout)
	for {
		a, err := q.ctl.QueueDeclarePassive(q.queue, true, false, false, false, nil)
		if err != nil {
			q.fail("queue.declare passive", err)
			return false
		}
		b, err := q.ctl.QueueDeclarePassive(q.dlq, false, false, false, false, nil)
		if err != nil {
			q.fail("queue.declare passive", err)
			return false
		}
		if a.Messages == ready && b.Messages == dead {
			return true
		}
		if time.Now().After(deadline) {
			q.fail("queue.declare passive", fmt.Errorf("the server's queue holds %d ready and its dead-letter queue %d, the lab counts %d and %d",
				a.Messages, b.Messages, ready, dead))
			return false
		}
		time.Sleep(time.Millisecond)
	}
}

// closeChannel closes the channel holding m, as the worker's death or
// the server's consumer_timeout does, and forgets its delivery: the
// server returns it.
func (q *rabbitQueue) closeChannel(m *sim.Message) (rabbitHeld, bool) {
	h, ok := q.holder(m, "channel.close")
	if !ok {
		return h, false
	}
	delete(q.held, m)
	if err := h.c.ch.Close(); err != nil {
		q.fail("channel.close", err)
		return h, false
	}
	return h, true
}

// Drop: the worker's channel closes, and the server returns the message
// at once (its delivery counted), or dead-letters it past the limit.
func (q *rabbitQueue) Drop(m *sim.Message) {
	if q.err != nil {
		return
	}
	h, ok := q.closeChannel(m)
	if !ok {
		return
	}
	dead := q.book.Nack(m)
	q.returned(m, dead, "closed", h)
}

// TakeAgain: the lab's clock passed m's visibility timeout while its
// worker is busy: the lab closes the channel holding it, as the server's
// consumer_timeout does, and basic.get hands it out again.
func (q *rabbitQueue) TakeAgain(m *sim.Message) int {
	if q.err != nil {
		return m.Deliveries
	}
	if m.Deliveries >= q.book.MaxDeliveries {
		q.fail("consumer_timeout", fmt.Errorf("%s has had %d deliveries, the limit: closing its channel would dead-letter it, and the step hands it out again", m.TransportID, m.Deliveries))
		return m.Deliveries
	}
	h, ok := q.closeChannel(m)
	if !ok || !q.caughtUp(len(q.book.Ready)+1, len(q.book.DLQ)) {
		return m.Deliveries
	}
	q.say(note("brokers.rabbitmq.timeout-return", m.TransportID, h.c.n, h.tag))
	got, deliveries, nh := q.get()
	if got == nil {
		return m.Deliveries
	}
	if got != m {
		q.fail("basic.get", fmt.Errorf("after closing its channel the server delivered %s, not %s", got.TransportID, m.TransportID))
		return m.Deliveries
	}
	if d := q.book.TakeAgain(m); d != deliveries {
		q.fail("basic.get", fmt.Errorf("x-delivery-count says delivery %d of %s, the lab counts %d", deliveries, m.TransportID, d))
		return d
	}
	q.held[m] = nh
	return deliveries
}

// Redeliver: the lab's clock passed the visibility timeout of every
// message in flight: the channel holding each is closed, in the book's
// order, and the server returns it or dead-letters it.
func (q *rabbitQueue) Redeliver() ([]*sim.Message, []bool) {
	if q.err != nil {
		return nil, nil
	}
	ready, dead := len(q.book.Ready), len(q.book.DLQ)
	for _, m := range q.book.InFlight {
		h, ok := q.closeChannel(m)
		if !ok {
			return nil, nil
		}
		if m.Deliveries >= q.book.MaxDeliveries {
			dead++
		} else {
			ready++
		}
		// One at a time: the server returns each in the order closed.
		if !q.caughtUp(ready, dead) {
			return nil, nil
		}
		q.say(note("brokers.rabbitmq.timeout-close", m.TransportID, h.c.n, h.tag))
	}
	moved, deadOnes := q.book.Redeliver()
	for i, m := range moved {
		if deadOnes[i] {
			q.say(note("brokers.rabbitmq.timeout-dead", m.TransportID, m.Deliveries, q.limit))
		}
	}
	return moved, deadOnes
}

// ReplayDLQ takes each dead letter from the dead-letter queue
// (basic.get, basic.ack) and publishes it again as a new message.
func (q *rabbitQueue) ReplayDLQ() []*sim.Message {
	if q.err != nil {
		return nil
	}
	for _, m := range q.book.DLQ {
		d, ok, err := q.ctl.Get(q.dlq, false)
		if err != nil || !ok {
			q.fail("basic.get from the dead-letter queue", fmt.Errorf("%s: empty (%v)", m.TransportID, err))
			return nil
		}
		if d.MessageId != m.TransportID {
			q.fail("basic.get from the dead-letter queue", fmt.Errorf("got message-id %s, the lab's dead letters begin with %s", d.MessageId, m.TransportID))
			return nil
		}
		reason, _ := d.Headers["x-first-death-reason"].(string)
		if err := d.Ack(false); err != nil {
			q.fail("basic.ack", err)
			return nil
		}
		q.say(note("brokers.rabbitmq.dlq-get", d.MessageId, reason))
	}
	replayed := q.book.ReplayDLQ() // new ids, each the server's next confirm tag
	for _, m := range replayed {
		q.publish(m)
	}
	if len(replayed) > 0 {
		q.caughtUp(len(q.book.Ready), len(q.book.DLQ))
	}
	return replayed
}

// Err is the first error the server gave.
func (q *rabbitQueue) Err() error { return q.err }

// Close deletes the world's queues and closes its connection.
func (q *rabbitQueue) Close() error {
	defer q.conn.Close()
	if q.ctl.IsClosed() {
		return nil
	}
	if _, err := q.ctl.QueueDelete(q.queue, false, false, false); err != nil {
		return err
	}
	_, err := q.ctl.QueueDelete(q.dlq, false, false, false)
	return err
}

// Why the model and RabbitMQ differ, for the table (Differences).
const (
	rabbitPickWhy = "not run on the real broker: the preset delivers one operation's message out of order (deliver OP), " +
		"and basic.get takes the head of a RabbitMQ queue; there is no asking it for a particular message"
	rabbitCloseRequeueWhy = "a crash closes the worker's channel, and RabbitMQ returns its message at once, near the head of the quorum " +
		"queue, its delivery counted: the next basic.get hands out the crashed message again. The model (rabbitmq profile) keeps it in " +
		"flight until the redeliver step and hands out the next message meanwhile. Driven one delivery at a time, RabbitMQ gives pay-1 " +
		"back before pay-2, so no handler sees pay-2 first (offset-in-db and absolute-update do not lose here); the preset's loss needs " +
		"a second consumer taking pay-2 while pay-1's worker is still alive, which the lab's sequential steps do not run on the real server"
)
