package sim_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/idempotency-lab/lab/sim"
)

func newMsg(op string) *sim.Message {
	return &sim.Message{Key: "key-" + op, Tenant: "acme", Op: op, Account: "alice", Amount: 100}
}

// transportIDs lists the transport ids of a queue.
func transportIDs(ms []*sim.Message) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.TransportID
	}
	return ids
}

// checkQueues compares the broker's queues, by transport id, with want.
func checkQueues(t *testing.T, b *sim.Broker, ready, inFlight, acked, dlq []string) {
	t.Helper()
	for _, q := range []struct {
		name      string
		got, want []string
	}{
		{"Ready", transportIDs(b.Ready), ready},
		{"InFlight", transportIDs(b.InFlight), inFlight},
		{"Acked", transportIDs(b.Acked), acked},
		{"DLQ", transportIDs(b.DLQ), dlq},
	} {
		if len(q.got) == 0 && len(q.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(q.got, q.want) {
			t.Errorf("%s = %v, want %v", q.name, q.got, q.want)
		}
	}
}

func TestBrokerPublishGivesNewTransportIDs(t *testing.T) {
	b := &sim.Broker{MaxDeliveries: 5}
	a, c := newMsg("pay-1"), newMsg("pay-1") // the same intent published twice
	b.Publish(a)
	b.Publish(c)
	if a.TransportID != "topups/0/1" || c.TransportID != "topups/0/2" {
		t.Errorf("transport ids = %q, %q; want topups/0/1, topups/0/2", a.TransportID, c.TransportID)
	}
	if a.Key != c.Key {
		t.Errorf("Publish changed the producer's key")
	}
	checkQueues(t, b, []string{"topups/0/1", "topups/0/2"}, nil, nil, nil)
	if a.Deliveries != 0 || a.Redelivered {
		t.Errorf("a fresh message has Deliveries=%d Redelivered=%v", a.Deliveries, a.Redelivered)
	}
}

func TestBrokerTakeAckNack(t *testing.T) {
	t.Run("take from an empty broker gives nil", func(t *testing.T) {
		b := &sim.Broker{MaxDeliveries: 5}
		if m := b.Take(); m != nil {
			t.Errorf("Take() = %+v, want nil", m)
		}
	})
	t.Run("take is FIFO and counts the delivery", func(t *testing.T) {
		b := &sim.Broker{MaxDeliveries: 5}
		m1, m2 := newMsg("pay-1"), newMsg("pay-2")
		b.Publish(m1)
		b.Publish(m2)
		if got := b.Take(); got != m1 {
			t.Fatalf("Take() = %+v, want the first message", got)
		}
		if m1.Deliveries != 1 || m1.Redelivered {
			t.Errorf("after Take: Deliveries=%d Redelivered=%v, want 1, false", m1.Deliveries, m1.Redelivered)
		}
		checkQueues(t, b, []string{m2.TransportID}, []string{m1.TransportID}, nil, nil)
	})
	t.Run("ack removes the message from flight for good", func(t *testing.T) {
		b := &sim.Broker{MaxDeliveries: 5}
		m1, m2 := newMsg("pay-1"), newMsg("pay-2")
		b.Publish(m1)
		b.Publish(m2)
		b.Take()
		b.Take()
		b.Ack(m1)
		checkQueues(t, b, nil, []string{m2.TransportID}, []string{m1.TransportID}, nil)
		b.Ack(m2)
		checkQueues(t, b, nil, nil, []string{m1.TransportID, m2.TransportID}, nil)
		if b.Take() != nil {
			t.Error("acked messages came back")
		}
	})
	t.Run("nack requeues at the back with the redelivered flag and the same transport id", func(t *testing.T) {
		b := &sim.Broker{MaxDeliveries: 5}
		m1, m2 := newMsg("pay-1"), newMsg("pay-2")
		b.Publish(m1)
		b.Publish(m2)
		id := m1.TransportID
		b.Take()
		if dead := b.Nack(m1); dead {
			t.Fatal("Nack after one delivery dead-lettered the message")
		}
		if m1.TransportID != id || !m1.Redelivered || m1.Deliveries != 1 {
			t.Errorf("after Nack: %+v; want transport id %s, Redelivered, Deliveries 1", *m1, id)
		}
		checkQueues(t, b, []string{m2.TransportID, m1.TransportID}, nil, nil, nil)
		b.Take() // m2
		if got := b.Take(); got != m1 || got.Deliveries != 2 {
			t.Errorf("second Take of m1 = %+v, want m1 with Deliveries 2", got)
		}
	})
}

func TestBrokerMaxDeliveriesToDLQ(t *testing.T) {
	for _, max := range []int{1, 2, 5} {
		t.Run(fmt.Sprintf("MaxDeliveries=%d", max), func(t *testing.T) {
			b := &sim.Broker{MaxDeliveries: max}
			m := newMsg("pay-1")
			b.Publish(m)
			for i := 1; i <= max; i++ {
				if got := b.Take(); got != m {
					t.Fatalf("delivery %d: Take() = %v", i, got)
				}
				dead := b.Nack(m)
				if want := i == max; dead != want {
					t.Fatalf("delivery %d of %d: Nack dead = %v, want %v", i, max, dead, want)
				}
			}
			checkQueues(t, b, nil, nil, nil, []string{m.TransportID})
			if m.Deliveries != max {
				t.Errorf("Deliveries = %d, want %d", m.Deliveries, max)
			}
			if b.Take() != nil {
				t.Error("a dead letter was delivered")
			}
		})
	}
}

func TestBrokerRedeliver(t *testing.T) {
	t.Run("nothing in flight", func(t *testing.T) {
		b := &sim.Broker{MaxDeliveries: 5}
		moved, dead := b.Redeliver()
		if len(moved) != 0 || len(dead) != 0 {
			t.Errorf("Redeliver() = %v, %v; want nothing", moved, dead)
		}
	})
	t.Run("returns every in-flight message in order with the redelivered flag", func(t *testing.T) {
		b := &sim.Broker{MaxDeliveries: 5}
		m1, m2, m3 := newMsg("pay-1"), newMsg("pay-2"), newMsg("pay-3")
		for _, m := range []*sim.Message{m1, m2, m3} {
			b.Publish(m)
		}
		b.Take()
		b.Take()
		moved, dead := b.Redeliver()
		if !reflect.DeepEqual(moved, []*sim.Message{m1, m2}) || !reflect.DeepEqual(dead, []bool{false, false}) {
			t.Errorf("Redeliver() = %v, %v", transportIDs(moved), dead)
		}
		if !m1.Redelivered || !m2.Redelivered || m3.Redelivered {
			t.Errorf("Redelivered flags = %v, %v, %v; want true, true, false", m1.Redelivered, m2.Redelivered, m3.Redelivered)
		}
		checkQueues(t, b, []string{m3.TransportID, m1.TransportID, m2.TransportID}, nil, nil, nil)
	})
	t.Run("a message at its last delivery goes to the DLQ", func(t *testing.T) {
		b := &sim.Broker{MaxDeliveries: 2}
		m1, m2 := newMsg("pay-1"), newMsg("pay-2")
		b.Publish(m1)
		b.Publish(m2)
		b.Take()   // m1: 1
		b.Nack(m1) // ready: m2, m1
		b.Take()   // m2: 1
		b.Take()   // m1: 2
		moved, dead := b.Redeliver()
		if !reflect.DeepEqual(moved, []*sim.Message{m2, m1}) || !reflect.DeepEqual(dead, []bool{false, true}) {
			t.Errorf("Redeliver() = %v, %v; want [m2 m1] [false true]", transportIDs(moved), dead)
		}
		checkQueues(t, b, []string{m2.TransportID}, nil, nil, []string{m1.TransportID})
	})
}

func TestBrokerReplayDLQ(t *testing.T) {
	t.Run("empty DLQ", func(t *testing.T) {
		b := &sim.Broker{MaxDeliveries: 1}
		if got := b.ReplayDLQ(); len(got) != 0 {
			t.Errorf("ReplayDLQ() = %v, want none", got)
		}
	})
	t.Run("new transport id, same key and body, fresh count", func(t *testing.T) {
		b := &sim.Broker{MaxDeliveries: 1}
		m1, m2 := newMsg("pay-1"), newMsg("pay-2")
		b.Publish(m1) // topups/0/1
		b.Publish(m2) // topups/0/2
		b.Take()
		b.Nack(m1)
		b.Take()
		b.Nack(m2)
		checkQueues(t, b, nil, nil, nil, []string{"topups/0/1", "topups/0/2"})
		key, body := m1.Key, m1.Body()
		replayed := b.ReplayDLQ()
		if !reflect.DeepEqual(replayed, []*sim.Message{m1, m2}) {
			t.Fatalf("ReplayDLQ() = %v", transportIDs(replayed))
		}
		if m1.TransportID != "topups/0/3" || m2.TransportID != "topups/0/4" {
			t.Errorf("replayed transport ids = %s, %s; want topups/0/3, topups/0/4", m1.TransportID, m2.TransportID)
		}
		if m1.Key != key || m1.Body() != body {
			t.Errorf("replay changed key or body: %s %s", m1.Key, m1.Body())
		}
		if m1.Deliveries != 0 || m1.Redelivered {
			t.Errorf("replayed message has Deliveries=%d Redelivered=%v, want 0, false", m1.Deliveries, m1.Redelivered)
		}
		checkQueues(t, b, []string{"topups/0/3", "topups/0/4"}, nil, nil, nil)
		// The fresh count gives the replayed message its full MaxDeliveries again.
		b.Take()
		if m1.Deliveries != 1 {
			t.Errorf("Deliveries after replay and Take = %d, want 1", m1.Deliveries)
		}
		if dead := b.Nack(m1); !dead {
			t.Error("replayed message with MaxDeliveries 1 was not dead-lettered after one failed delivery")
		}
	})
	t.Run("ids keep counting after replay", func(t *testing.T) {
		b := &sim.Broker{MaxDeliveries: 1}
		m1 := newMsg("pay-1")
		b.Publish(m1)
		b.Take()
		b.Nack(m1)
		b.ReplayDLQ()
		m2 := newMsg("pay-2")
		b.Publish(m2)
		if m2.TransportID != "topups/0/3" {
			t.Errorf("next publish after replay got %s, want topups/0/3", m2.TransportID)
		}
	})
}

func TestBrokerStateCopies(t *testing.T) {
	b := &sim.Broker{MaxDeliveries: 2}
	m1, m2, m3, m4 := newMsg("pay-1"), newMsg("pay-2"), newMsg("pay-3"), newMsg("pay-4")
	for _, m := range []*sim.Message{m1, m2, m3, m4} {
		b.Publish(m)
	}
	b.Take() // m1
	b.Ack(m1)
	b.Take() // m2
	b.Nack(m2)
	b.Take() // m3 in flight
	b.Take() // m4
	b.Nack(m4)
	b.Take()   // m2 again
	b.Nack(m2) // dead
	// Ready: m4; InFlight: m3; Acked: m1; DLQ: m2.
	st := b.State()
	want := sim.BrokerState{
		Ready:    []sim.Message{*m4},
		InFlight: []sim.Message{*m3},
		Acked:    []sim.Message{*m1},
		DLQ:      []sim.Message{*m2},
	}
	if !reflect.DeepEqual(st, want) {
		t.Fatalf("State() =\n %+v\nwant\n %+v", st, want)
	}
	// Changing the broker afterwards does not change the copy.
	m4.Amount = 999
	m3.Deliveries = 42
	b.Take()
	b.Ack(m4)
	b.ReplayDLQ()
	if !reflect.DeepEqual(st, want) {
		t.Errorf("State() copy changed with the broker:\n %+v\nwant\n %+v", st, want)
	}
	if st.Ready[0].Amount != 100 || st.InFlight[0].Deliveries != 1 {
		t.Errorf("copy shares messages with the broker: %+v", st)
	}
	// Changing the copy does not change the broker.
	st.InFlight[0].Amount = -1
	if m3.Amount != 100 {
		t.Errorf("changing the copy changed the broker's message")
	}
	empty := (&sim.Broker{MaxDeliveries: 1}).State()
	if empty.Ready == nil || empty.InFlight == nil || empty.Acked == nil || empty.DLQ == nil {
		t.Errorf("State() of an empty broker has nil queues (they marshal as null): %+v", empty)
	}
}

func TestMessageBody(t *testing.T) {
	m := &sim.Message{Key: "k", Tenant: "acme", Op: `pay"1`, Account: "alice", Amount: 100}
	want := `{"op":"pay\"1","tenant":"acme","account":"alice","amount":100}`
	if got := m.Body(); got != want {
		t.Errorf("Body() = %s, want %s", got, want)
	}
}
