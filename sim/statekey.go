package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
)

// stateKey is a hash of everything a world holds after a step that its
// next steps, its settlement and the oracle's verdict depend on: two
// worlds of one handler and one script header with the same key go on
// alike and are judged alike, whatever steps led there (Options.StateKeys;
// the checker's --dedup-states expands each key once).
//
// It holds the durable state, the database's rows (in rowid order, as
// State writes them), every Redis key of every type with its time to
// live, the broker's queues, the gateway and the clock; and the oracle's
// bookkeeping, which durable state alone does not show: the intents, the
// effects applied per intent and payload, the messages failed after
// their effect or set aside, the conflicts and quarantines counted, the
// producer's versions, the broker's dedup window and the seeded source
// the next keys come from. Two worlds with the same rows but another
// count of applications are not the same state.
//
// Left out, because nothing after the step reads them: the trace and its
// counters (crashes, timeouts, the text spent), the acked messages' order,
// transport ids and delivery counts (an acked message is never delivered
// again; the producer's story reads only which operations were sent),
// and the caches the engine reads the database through. The deliveries
// and Lua scripts spent against the run's budget are not in the key
// either: runHandler returns them beside it (Result.StateSpent), since a
// world that spent less can do all that one that spent more can.
//
// It returns "" for a world it cannot key: the API side (its client's
// bookkeeping is not keyed yet), a real engine (Redis's values are read as
// strings only there), a real broker (the book of its queues is not all
// its server holds), or a worker still inside a delivery. A caller
// treats "" as a state never seen.
func (w *world) stateKey(final *State) string {
	if w.api != nil || w.real || w.queue != Transport(w.broker) || w.active != nil || w.workers != nil || final == nil {
		return ""
	}
	var k keyWriter
	// Tables and the gateway's calls as State holds them; the clock to
	// the nanosecond (State.Now is to the second).
	k.tag("tables")
	for _, tb := range final.Tables {
		k.str(tb.Name)
		k.strs(tb.Columns)
		k.int(int64(len(tb.Rows)))
		for _, row := range tb.Rows {
			k.strs(row)
		}
	}
	k.tag("gateway")
	for _, c := range final.Gateway {
		k.str(c.Account)
		k.int(c.Amount)
		k.str(c.Reference)
		k.bool(c.OK)
		k.str(c.Outcome)
		k.str(c.Answer)
	}
	g := w.gateway
	k.str(g.mode)
	k.bool(g.dedup)
	k.int(int64(g.stall))
	k.strs(sortedKeys(g.refs))
	k.int(g.charged)
	k.tag("clock")
	k.int(w.now.UnixNano())
	if w.mr != nil && !w.putRedis(&k) {
		return ""
	}
	b := w.broker
	k.tag("broker")
	k.int(int64(b.MaxDeliveries))
	k.str(b.RequeueAt)
	k.str(b.PastLimit)
	k.bool(b.Unflagged)
	k.int(int64(b.offset))
	for _, q := range [][]*Message{b.Ready, b.InFlight, b.DLQ, b.Dropped} {
		k.tag("queue")
		for _, m := range q {
			k.str(m.TransportID)
			k.msg(m)
			k.int(int64(m.Deliveries))
			k.bool(m.Redelivered)
			var lease int64
			if at, ok := b.leased[m]; ok {
				lease = at.UnixNano()
			}
			k.int(lease)
			k.bool(w.failedAfterApplied[m])
			k.bool(w.setAside[m])
		}
	}
	acked := make([]string, len(b.Acked))
	for i, m := range b.Acked {
		var a keyWriter
		a.msg(m)
		a.bool(w.failedAfterApplied[m])
		a.bool(w.setAside[m])
		acked[i] = string(a.b)
	}
	sort.Strings(acked)
	k.tag("acked")
	k.strs(acked)
	src, err := w.src.MarshalBinary()
	if err != nil {
		panic(err) // never: a PCG always marshals
	}
	k.tag("source")
	k.str(string(src))
	k.tag("intents")
	for _, in := range w.intentList() {
		ik := intentKey{in.tenant, in.op}
		k.str(in.tenant)
		k.str(in.op)
		k.str(in.account)
		k.int(in.amount)
		k.str(in.keyMode)
		k.str(in.key)
		k.int(int64(len(in.variants)))
		for _, v := range in.variants {
			k.int(v)
		}
		k.str(in.kind)
		k.str(in.order)
		k.int(in.version)
		k.int(in.balance)
		k.bool(in.optional)
		k.int(w.applied[ik])
		k.strs(sortedCounts(w.applications[ik]))
	}
	// What was applied for operations no intent was born for (phantoms).
	var stray []string
	for ik, a := range w.applied {
		if w.intents[ik] == nil {
			stray = append(stray, fmt.Sprintf("%s/%s=%d", ik.tenant, ik.op, a))
		}
	}
	for ik, apps := range w.applications {
		if w.intents[ik] == nil {
			for _, c := range sortedCounts(apps) {
				stray = append(stray, fmt.Sprintf("%s/%s:%s", ik.tenant, ik.op, c))
			}
		}
	}
	sort.Strings(stray)
	k.tag("stray")
	k.strs(stray)
	k.tag("counts")
	k.int(int64(w.conflicts))
	k.int(int64(w.quarantines))
	k.tag("versions")
	k.strs(sortedPairs(w.versions))
	k.strs(sortedPairs(w.totals))
	seen := make([]string, 0, len(w.dedupSeen))
	for key, at := range w.dedupSeen {
		seen = append(seen, fmt.Sprintf("%s=%d", key, at.UnixNano()))
	}
	sort.Strings(seen)
	k.tag("dedup-seen")
	k.strs(seen)
	sum := sha256.Sum256(k.b)
	return hex.EncodeToString(sum[:])
}

// keyWriter writes a state key's parts unambiguously: each string with
// its length before it, each number in full.
type keyWriter struct{ b []byte }

func (k *keyWriter) tag(t string) { k.b = append(append(append(k.b, 0, '#'), t...), 0) }
func (k *keyWriter) int(n int64)  { k.b = append(strconv.AppendInt(k.b, n, 10), ';') }
func (k *keyWriter) str(s string) { k.int(int64(len(s))); k.b = append(k.b, s...) }
func (k *keyWriter) bool(v bool) {
	if v {
		k.b = append(k.b, 'T')
	} else {
		k.b = append(k.b, 'F')
	}
}

func (k *keyWriter) strs(ss []string) {
	k.int(int64(len(ss)))
	for _, s := range ss {
		k.str(s)
	}
}

// msg writes what a message carries, but its transport id, delivery count
// and redelivered flag for an acked message: the caller adds those.
func (k *keyWriter) msg(m *Message) {
	k.str(m.Key)
	k.str(m.Tenant)
	k.str(m.Op)
	k.str(m.Account)
	k.int(m.Amount)
	k.bool(m.Changed)
	k.str(m.Kind)
	k.str(m.Order)
	k.int(m.Version)
	k.int(m.Balance)
}

// putRedis writes every key of the world's miniredis, of every type, with
// its time to live to the nanosecond. It reports false on a key of a type
// it cannot read whole (a stream, a HyperLogLog): no key for that world.
func (w *world) putRedis(k *keyWriter) bool {
	k.tag("redis")
	for _, key := range w.mr.Keys() {
		t := w.mr.Type(key)
		k.str(key)
		k.str(t)
		switch t {
		case "string":
			v, _ := w.mr.Get(key)
			k.str(v)
		case "list":
			v, _ := w.mr.List(key)
			k.strs(v)
		case "set":
			v, _ := w.mr.Members(key)
			k.strs(v)
		case "hash":
			fields, _ := w.mr.HKeys(key)
			k.int(int64(len(fields)))
			for _, f := range fields {
				k.str(f)
				k.str(w.mr.HGet(key, f))
			}
		case "zset":
			m, _ := w.mr.SortedSet(key)
			k.strs(sortedScores(m))
		default:
			return false
		}
		k.int(int64(w.mr.TTL(key)))
	}
	return true
}

// sortedCounts writes an intent's applications per payload amount.
func sortedCounts(m map[int64]int) []string {
	out := make([]string, 0, len(m))
	for a, n := range m {
		out = append(out, fmt.Sprintf("%d*%d", a, n))
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func sortedPairs(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(out)
	return out
}

func sortedScores(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, fmt.Sprintf("%q=%v", k, v))
	}
	sort.Strings(out)
	return out
}
