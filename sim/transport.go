package sim

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
)

// Transport is what a broker does under the lab's steps: the seam between
// the engine and a broker. The lab's own model (*Broker) is one Transport;
// a real broker (package brokers: NATS JetStream, and Kafka and RabbitMQ
// after it) is another, so the engine never imports a network client.
//
// The engine keeps one book of the queues for every world, a *Broker
// (Ready, InFlight, Acked, DLQ): it reads the book to decide what a step
// can do and what the oracle judges. The model is its own book. A real
// broker is handed the book when it opens (RealBroker.Open) and, after
// each answer of its server, moves the message in the book to where the
// server says it is (the exported *Broker methods below do the moves), so
// that the book is always what the server did, in the server's terms:
// which message it handed out, its delivery count, whether it will be
// delivered again.
//
// The methods never return an error, as the model has none: a real broker
// that fails keeps its first error for Err, which the engine reads after
// every step (ending the run with it), and does nothing after it.
type Transport interface {
	// Publish stores a new message and sets m.TransportID to the broker's
	// id for it (topic/partition/offset, or stream/seq: "topups/0/N").
	Publish(m *Message)
	// Take hands the message the broker delivers next to a worker: moved
	// in flight, m.Deliveries set to the broker's delivery count. nil when
	// nothing is ready.
	Take() *Message
	// TakeOp is Take for the oldest ready message of one operation
	// (deliver op=); nil when none is ready. A broker that cannot pick
	// (a pull consumer hands out its own next message) sets Err.
	TakeOp(op string) *Message
	// TakeAgain hands m, in flight with a worker that is still busy, to a
	// second worker, as a visibility timeout running out does; it returns
	// the delivery count of the second delivery.
	TakeAgain(m *Message) int
	// Ack settles m for good.
	Ack(m *Message)
	// Nack gives m back (requeue) and reports whether the broker will not
	// deliver it again: dead-lettered past its delivery limit.
	Nack(m *Message) bool
	// Drop is the worker holding m dying: its connection, channel or
	// lease is gone. The model and JetStream do nothing (the message waits
	// for its visibility timeout, Redeliver); RabbitMQ requeues at once.
	Drop(m *Message)
	// Redeliver is the visibility timeout (ack wait, session timeout)
	// running out for every message still in flight, the engine's clock
	// already moved past it: each goes back, or to the dead letters past
	// the limit. It returns them in the order handled and whether each
	// was dead-lettered.
	Redeliver() (moved []*Message, dead []bool)
	// ReplayDLQ publishes the dead letters again as new messages (same key
	// and body, new transport id, fresh delivery count).
	ReplayDLQ() []*Message
	// Err is the first error talking to the broker; nil for the model.
	Err() error
	// Close lets go of what the world held on the broker.
	Close() error
}

// BatchAcker is a Transport that settles a batch with one
// acknowledgement, as a Kafka consumer commits one offset for the batch
// it polled: deliver-batch's commit acks the batch's messages through
// AckBatch (in offset order) where the transport has it, and one Ack each
// where it does not (the model, and brokers that ack message by message).
type BatchAcker interface {
	AckBatch(ms []*Message)
}

// RealBroker is a real broker server the worlds of a run share: each
// world opens a Transport of its own on it (its own stream, topic or
// queue), so worlds running side by side never see each other's messages.
type RealBroker interface {
	// Name is the broker's profile name (nats, kafka, rabbitmq): a run on
	// it uses that profile's numbers unless the script's headers say
	// otherwise (RealProfile).
	Name() string
	// Open makes one world's Transport. book is the world's book of the
	// queues, empty, with MaxDeliveries the script's; s is the script
	// (VisibilityTimeout, MaxDeliveries, DedupWindow); say adds what the
	// server answered to the trace, as the broker's event: a message of
	// package narration (stream sequence, Nats-Num-Delivered, delivery
	// tag, offset).
	Open(ctx context.Context, book *Broker, s *script.Script, say func(narration.Text)) (Transport, error)
}

// The model is its own book: every method is the model's.

// Drop does nothing in the model: the message stays in flight until its
// visibility timeout (a redeliver step, or settlement).
func (b *Broker) Drop(*Message) {}

// Err is always nil: the model cannot fail.
func (b *Broker) Err() error { return nil }

// Close does nothing: the model holds nothing.
func (b *Broker) Close() error { return nil }

var _ Transport = (*Broker)(nil)

// Moves in the book, for a real broker's Transport: each is one answer of
// the server carried into the book.

// TakeThis moves m from ready to in flight, as the server handed it out,
// with the server's delivery count, and starts its lease (the visibility
// timeout runs from here on the lab's clock). It reports whether m was
// ready.
func (b *Broker) TakeThis(m *Message, deliveries int) bool {
	for i, x := range b.Ready {
		if x == m {
			b.Ready = append(b.Ready[:i:i], b.Ready[i+1:]...)
			m.Deliveries = deliveries
			b.InFlight = append(b.InFlight, m)
			b.lease(m)
			return true
		}
	}
	return false
}

// ByTransportID finds a message of the book by its transport id, in any
// queue; nil when the book has none.
func (b *Broker) ByTransportID(id string) *Message {
	for _, q := range [][]*Message{b.InFlight, b.Ready, b.DLQ, b.Acked, b.Dropped} {
		for _, m := range q {
			if m.TransportID == id {
				return m
			}
		}
	}
	return nil
}

// Requeue moves an in-flight m back to ready at once, redelivered (where
// the profile puts a message that comes back), as a
// broker does when the connection of the worker holding it closes
// (Drop). It reports whether m was in flight.
func (b *Broker) Requeue(m *Message) bool {
	if !b.InFlightHas(m) {
		return false
	}
	b.InFlight = remove(b.InFlight, m)
	b.putBack(m)
	return true
}

// TransportID is the id the lab gives a message at offset n of its one
// topic and partition: topic/partition/offset, as the handlers read it
// (handlers.Message.Partition and Offset). A real broker names its
// messages the same way, with its own sequence number as the offset.
func TransportID(n uint64) string { return fmt.Sprintf("topups/0/%d", n) }
