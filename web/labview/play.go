package labview

// Play: the message of a step, moving between the parts of a card (Raft
// Scope's way). Which parts it visits is decided here, from the step's
// traced events; static/lab.js only moves a token along the hops the
// card's lane carries in data-path.

import (
	"strings"

	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview/timeline"
	"github.com/idempotency-lab/lab/web/page"
)

// The parts of a card a message visits, as data-part and data-path name
// them.
const (
	partProducer = "producer"
	partBroker   = "broker"
	partWorker   = "worker"
	partDB       = "db"
	partRedis    = "redis"
	partGateway  = "gateway"
)

// laneOrder is the order of the parts on a card's lane, left to right.
var laneOrder = []string{partProducer, partBroker, partWorker, partDB, partRedis, partGateway}

// maxPathHops bounds a step's path: a drain of many messages would
// otherwise send the token round the card for seconds. A cut path ends
// where a message's journey ends (back at the broker) when it can.
const maxPathHops = 12

// msgPath is where a step's message went: the parts in order, the label
// its token carries, and whether the worker died on the way.
type msgPath struct {
	Hops  []string
	Label string
	Crash bool
}

// stepPath reads a step's events as the journey of its message: the
// producer publishes to the broker, the broker delivers to a worker, the
// worker calls the database, Redis or the gateway (each call a visit
// there and back; calls in a row to the same part are one visit), and
// acks or nacks back to the broker. A requeue or a dead letter is the
// message staying at the broker; a crash ends the journey at the worker.
// Events that move no message (the clock, notes, a gateway switch, the
// database cleaning up after a crash) are no hops. label gives a
// transport id's label (its key); "" keeps the transport id.
func stepPath(events []sim.Event, label func(tid string) string) msgPath {
	var p msgPath
	at := func(part string) {
		if n := len(p.Hops); n == 0 || p.Hops[n-1] != part {
			p.Hops = append(p.Hops, part)
		}
	}
	msg := ""
	call := func(e sim.Event, part string) {
		if n := len(p.Hops); !isWorkerActor(e.Actor) || n > 0 && p.Hops[n-1] == part {
			return
		}
		at(partWorker)
		at(part)
	}
	for _, e := range events {
		if msg == "" && e.Msg != "" {
			msg = e.Msg
		}
		switch e.Kind {
		case sim.KindPublish:
			if e.Actor == "producer" || e.Actor == "relay" {
				// The outbox relay publishes for the order service.
				at(partProducer)
			}
			at(partBroker)
		case sim.KindDeliver:
			at(partBroker)
			at(partWorker)
		case sim.KindSQL:
			call(e, partDB)
		case sim.KindRedis:
			call(e, partRedis)
		case sim.KindGateway:
			call(e, partGateway)
		case sim.KindAck, sim.KindNack:
			at(partWorker)
			at(partBroker)
		case sim.KindRequeue, sim.KindDLQ:
			at(partBroker)
		case sim.KindCrash:
			if isWorkerActor(e.Actor) {
				at(partWorker)
				p.Crash = true
			}
		}
	}
	if len(p.Hops) > maxPathHops {
		cut := maxPathHops
		for i := maxPathHops - 1; i > 0; i-- {
			if p.Hops[i] == partBroker && p.Hops[i-1] == partWorker {
				cut = i + 1
				break
			}
		}
		p.Hops = p.Hops[:cut]
		// The cut path is one message's journey (or part of one): a crash
		// further on is not on it.
		p.Crash = false
	}
	if len(p.Hops) == 0 {
		return msgPath{}
	}
	p.Label = msg
	if label != nil {
		if l := label(msg); l != "" {
			p.Label = l
		}
	}
	return p
}

// isWorkerActor is a worker (worker, worker-1, worker-2): the one who
// calls the database, Redis and the gateway.
func isWorkerActor(actor string) bool {
	return actor == "worker" || strings.HasPrefix(actor, "worker-")
}

// messageLabels labels transport ids with the message's key, short
// enough for a token (a UUID key gives way to the transport id).
func messageLabels(b sim.BrokerState) func(string) string {
	keys := map[string]string{}
	for _, q := range [][]sim.Message{b.Ready, b.InFlight, b.Acked, b.DLQ} {
		for _, m := range q {
			keys[m.TransportID] = m.Key
		}
	}
	return func(tid string) string {
		if k := keys[tid]; k != "" && len(k) <= 16 {
			return k
		}
		return ""
	}
}

// lanePart is one part on a card's lane.
type lanePart struct {
	ID, Label string
	Hit       bool // the step's message visits it
	Crash     bool // the worker, when it dies on the way
	// Act is what a click on the part does in the lab (picture.go); nil
	// for none, and always in the presenter.
	Act *laneAct
}

// laneView is a card's lane: the parts a message can visit, left to
// right, and the step's path over them for the token (data-path).
type laneView struct {
	Parts []lanePart
	Path  msgPath
	Said  string // the path in words, for a screen reader
	// Name names the lane for a screen reader when a part is clickable
	// (offerActs): the lane is then a list of its parts, not a picture.
	Name string
}

// DataPath is the path as data-path carries it: "broker,worker,db,worker,broker".
func (l laneView) DataPath() string { return strings.Join(l.Path.Hops, ",") }

// lane lays out a card's lane: the producer, broker, worker and database
// always, Redis and the gateway for a handler that uses them (the Redis
// handlers guard a gateway charge) or when the path goes there.
func lane(t page.Text, p msgPath, redis, real bool) laneView {
	l := timeline.LabelsIn(t)
	if real {
		l.SQLite = "PostgreSQL"
	}
	names := map[string]string{partProducer: l.Producer, partBroker: l.Broker, partWorker: l.Worker,
		partDB: l.SQLite, partRedis: l.Redis, partGateway: l.Gateway}
	hit := map[string]bool{}
	for _, h := range p.Hops {
		hit[h] = true
	}
	v := laneView{Path: p}
	for _, id := range laneOrder {
		if (id == partRedis || id == partGateway) && !redis && !hit[id] {
			continue
		}
		v.Parts = append(v.Parts, lanePart{ID: id, Label: names[id], Hit: hit[id], Crash: id == partWorker && p.Crash})
	}
	if len(p.Hops) > 0 {
		words := make([]string, len(p.Hops))
		for i, h := range p.Hops {
			words[i] = names[h]
		}
		v.Said = t.F("lane.path", p.Label, strings.Join(words, " → "))
		if p.Crash {
			v.Said += " " + t.S("lane.crash")
		}
	}
	return v
}
