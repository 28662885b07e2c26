package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/script"
)

// Message is one message as the broker holds it.
type Message struct {
	TransportID string `json:"transport_id"` // like a Kafka offset: same on redelivery, new on republish or DLQ replay
	Key         string `json:"key"`          // the producer's idempotency key
	Tenant      string `json:"tenant"`
	Op          string `json:"op"` // the operation (intent) it belongs to
	Account     string `json:"account"`
	Amount      int64  `json:"amount"`
	Changed     bool   `json:"changed"` // the amount differs from the intent's first publish
	// Kind is payment or refund; Order, for a refund, the order it is for.
	Kind  string `json:"kind,omitempty"` // "" is a payment
	Order string `json:"order,omitempty"`
	// Version is the operation's place among its account's operations,
	// Balance the account's total after it, as the producer sees them.
	Version     int64 `json:"version"`
	Balance     int64 `json:"balance"`
	Deliveries  int   `json:"deliveries"`
	Redelivered bool  `json:"redelivered"`
}

// Body is the message's payload as a producer would serialise it.
func (m *Message) Body() string {
	return fmt.Sprintf(`{"op":%q,"tenant":%q,"account":%q,"amount":%d}`, m.Op, m.Tenant, m.Account, m.Amount)
}

// Broker is an at-least-once broker: a message leaves only when acked, and
// a message delivered MaxDeliveries times without an ack is dead-lettered.
type Broker struct {
	MaxDeliveries int
	// RequeueAt is where a message that comes back goes: RequeueBack (""
	// too), RequeueFront or RequeueRedeliveries (script.BrokerProfile.Requeue).
	RequeueAt string
	// PastLimit is what happens to a message past MaxDeliveries:
	// script.PastLimitDrop deletes it (Dropped), anything else puts it in
	// DLQ, the messages the broker will not deliver again and dlq-replay
	// publishes again (dead-lettered, or kept in a stream).
	PastLimit string
	// Unflagged: the broker tells a consumer nothing of earlier
	// deliveries (Kafka; script.BrokerProfile.Redelivery ""), so no
	// message is marked Redelivered.
	Unflagged bool
	Ready     []*Message
	InFlight  []*Message
	Acked     []*Message
	DLQ       []*Message
	// Dropped are the messages deleted past the limit: gone for good.
	Dropped []*Message
	offset  int
	// now, when set, is the world's clock; leased is when a worker last
	// took each message: its visibility timeout
	// (Script.VisibilityTimeout) runs from there.
	now    func() time.Time
	leased map[*Message]time.Time
}

// lease starts m's lease, from which its visibility timeout runs.
func (b *Broker) lease(m *Message) {
	if b.now == nil {
		return
	}
	if b.leased == nil {
		b.leased = map[*Message]time.Time{}
	}
	b.leased[m] = b.now()
}

// leaseEnd is when m's lease runs out under the visibility timeout vt.
func (b *Broker) leaseEnd(m *Message, vt time.Duration) time.Time {
	return b.leased[m].Add(vt)
}

// BrokerState is a copy of the broker's queues at one moment.
type BrokerState struct {
	Ready    []Message `json:"ready"`
	InFlight []Message `json:"in_flight"`
	Acked    []Message `json:"acked"`
	DLQ      []Message `json:"dlq"`
	Dropped  []Message `json:"dropped,omitempty"`
}

func (b *Broker) nextID() string {
	b.offset++
	return fmt.Sprintf("topups/0/%d", b.offset)
}

// Publish appends a message with a new transport id.
func (b *Broker) Publish(m *Message) {
	m.TransportID = b.nextID()
	b.Ready = append(b.Ready, m)
}

// Take moves the oldest ready message in flight and counts the delivery.
func (b *Broker) Take() *Message {
	if len(b.Ready) == 0 {
		return nil
	}
	m := b.Ready[0]
	b.Ready = b.Ready[1:]
	m.Deliveries++
	b.InFlight = append(b.InFlight, m)
	b.lease(m)
	return m
}

// TakeAgain hands an in-flight message out once more, as a visibility
// timeout does while its first worker is still busy with it: the message
// stays in flight once, its delivery count grows. It returns that count.
func (b *Broker) TakeAgain(m *Message) int {
	m.Deliveries++
	m.Redelivered = !b.Unflagged
	b.lease(m)
	return m.Deliveries
}

// Delivered is the message a duplicate step hands out again (of op, when
// op is not ""): the oldest in flight, whose worker is gone and whose
// visibility timeout has not run out, or else the last one acked. acked
// says which; nil when no message (of op) was delivered.
func (b *Broker) Delivered(op string) (m *Message, acked bool) {
	of := func(x *Message) bool { return op == "" || x.Op == op }
	if i := slices.IndexFunc(b.InFlight, of); i >= 0 {
		return b.InFlight[i], false
	}
	for i := len(b.Acked) - 1; i >= 0; i-- {
		if of(b.Acked[i]) {
			return b.Acked[i], true
		}
	}
	return nil, false
}

// Duplicate hands m, delivered already, out once more with no failure, as
// an SQS standard queue's at-least-once storage does: a server holding a
// copy missed the receive (m in flight) or the delete (m acked, now in
// flight again). Its receive count grows and its lease starts anew. It
// returns the delivery count.
func (b *Broker) Duplicate(m *Message) int {
	if i := slices.Index(b.Acked, m); i >= 0 {
		b.Acked = slices.Delete(b.Acked, i, i+1)
		b.InFlight = append(b.InFlight, m)
	}
	m.Deliveries++
	m.Redelivered = !b.Unflagged
	b.lease(m)
	return m.Deliveries
}

// InFlightHas reports whether m is in flight. Two workers on the same
// message settle it once: the first ack or nack wins.
func (b *Broker) InFlightHas(m *Message) bool {
	for _, x := range b.InFlight {
		if x == m {
			return true
		}
	}
	return false
}

// Ack removes an in-flight message for good.
func (b *Broker) Ack(m *Message) {
	b.InFlight = remove(b.InFlight, m)
	b.Acked = append(b.Acked, m)
}

// Nack puts an in-flight message back, or dead-letters it once it has been
// delivered MaxDeliveries times. It reports whether it was dead-lettered.
func (b *Broker) Nack(m *Message) bool {
	b.InFlight = remove(b.InFlight, m)
	return b.requeue(m)
}

func (b *Broker) requeue(m *Message) bool {
	if m.Deliveries >= b.MaxDeliveries {
		if b.PastLimit == script.PastLimitDrop {
			b.Dropped = append(b.Dropped, m)
		} else {
			b.DLQ = append(b.DLQ, m)
		}
		return true
	}
	b.putBack(m)
	return false
}

// putBack puts m back among the ready messages, redelivered, where
// RequeueAt says.
func (b *Broker) putBack(m *Message) {
	m.Redelivered = !b.Unflagged
	at := len(b.Ready)
	switch b.RequeueAt {
	case script.RequeueFront:
		// Its old place: before the first ready message published after it.
		at = slices.IndexFunc(b.Ready, func(x *Message) bool { return offsetOf(x) > offsetOf(m) })
	case script.RequeueRedeliveries:
		// Behind the redeliveries already waiting, before the first
		// message never handed out.
		at = slices.IndexFunc(b.Ready, func(x *Message) bool { return x.Deliveries == 0 })
	}
	if at < 0 {
		at = len(b.Ready)
	}
	b.Ready = slices.Insert(b.Ready, at, m)
}

// offsetOf is a message's place in the queue, from its transport id
// (topups/0/N); a real broker's id that does not end in a number sorts
// last.
func offsetOf(m *Message) int {
	_, n, _ := strings.Cut(m.TransportID, "topups/0/")
	v, err := strconv.Atoi(n)
	if err != nil {
		return math.MaxInt
	}
	return v
}

// Redeliver returns every in-flight message, as a visibility timeout would.
// It returns the messages in the order handled and whether each went to the
// DLQ.
func (b *Broker) Redeliver() (moved []*Message, dead []bool) {
	inFlight := b.InFlight
	b.InFlight = nil
	for _, m := range inFlight {
		moved = append(moved, m)
		dead = append(dead, b.requeue(m))
	}
	return moved, dead
}

// ReplayDLQ sends dead letters back as new messages: same key and body, a
// new transport id, a fresh delivery count.
func (b *Broker) ReplayDLQ() []*Message {
	dlq := b.DLQ
	b.DLQ = nil
	for _, m := range dlq {
		m.Deliveries = 0
		m.Redelivered = false
		b.Publish(m)
	}
	return dlq
}

// State copies the queues.
func (b *Broker) State() BrokerState {
	st := BrokerState{Ready: copyMsgs(b.Ready), InFlight: copyMsgs(b.InFlight), Acked: copyMsgs(b.Acked), DLQ: copyMsgs(b.DLQ)}
	if len(b.Dropped) > 0 {
		st.Dropped = copyMsgs(b.Dropped)
	}
	return st
}

func copyMsgs(ms []*Message) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = *m
	}
	return out
}

func remove(ms []*Message, m *Message) []*Message {
	for i, x := range ms {
		if x == m {
			return append(ms[:i:i], ms[i+1:]...)
		}
	}
	return ms
}
