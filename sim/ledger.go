package sim

import (
	"slices"
	"sort"
)

// ledger is the oracle's book of one world: the operations the producer
// (or the API's client) wanted done once, with the payloads published
// under each key, and the effects workers made durable for them, which
// the verdict weighs against each other. The world keeps it (embedded)
// and writes to it as the run goes; nothing in it reads the handler's
// own tables.
type ledger struct {
	// intents are the operations owed, by tenant and operation id.
	intents map[intentKey]*intent
	applied map[intentKey]int64 // per intent, the amounts whose effect a worker made durable
	// applications counts, per intent and payload variant (amount), the
	// effects made durable: what the oracle judges a key with two
	// payloads by (see verdict).
	applications map[intentKey]map[int64]int
	// failedAfterApplied marks messages a handler failed (nack) while
	// their operation was already applied: the makings of a poison message.
	failedAfterApplied map[*Message]bool
	conflicts          int // changed payloads acked without quarantine
	// setAside marks the messages the handler quarantined, in any of
	// their deliveries (see checkQuarantined).
	setAside map[*Message]bool
}

// newLedger is an empty book.
func newLedger() ledger {
	return ledger{
		intents:            map[intentKey]*intent{},
		applied:            map[intentKey]int64{},
		applications:       map[intentKey]map[int64]int{},
		failedAfterApplied: map[*Message]bool{},
		setAside:           map[*Message]bool{},
	}
}

// intent is one business operation the producer wants done once.
type intent struct {
	tenant, op, account string
	amount              int64 // of the first publish: what the oracle expects
	keyMode, key        string
	// variants are the amounts published under the key, the first one
	// first: more than one when a changed payload reused it.
	variants []int64
	// kind is KindPayment or KindRefund (amount is then negative), order
	// the order a refund is for. version is the intent's place among its
	// account's operations, balance the account's total after it.
	kind, order      string
	version, balance int64
	// optional: an API request sent without a key, which the right
	// server refuses (amount 0); one charge of it is tolerated.
	optional bool
}

// apply records an effect made durable for the message's operation.
func (l *ledger) apply(m *Message, amount int64) {
	ik := intentKey{m.Tenant, m.Op}
	l.applied[ik] += amount
	if (amount < 0) != (m.Amount < 0) {
		return // taken back, not applied (a refund applies as a negative amount)
	}
	if l.applications[ik] == nil {
		l.applications[ik] = map[int64]int{}
	}
	l.applications[ik][m.Amount]++
}

// applicationCount is how many effects of the operation were made durable,
// over all its payload variants.
func (l *ledger) applicationCount(ik intentKey) int {
	n := 0
	for _, c := range l.applications[ik] {
		n += c
	}
	return n
}

// intentList is the intents in a stable order (maps have none).
func (l *ledger) intentList() []*intent {
	out := make([]*intent, 0, len(l.intents))
	for _, in := range l.intents {
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].tenant != out[j].tenant {
			return out[i].tenant < out[j].tenant
		}
		return out[i].op < out[j].op
	})
	return out
}

// expectedOneOf is every total that is right when some key carries two
// payloads (any one of a key's payloads, once), in increasing order; nil
// when every key has one.
func (l *ledger) expectedOneOf() []int64 {
	totals, two := []int64{0}, false
	for _, in := range l.intentList() {
		two = two || len(in.variants) > 1
		totals = addEither(totals, in.variants)
	}
	if !two {
		return nil
	}
	slices.Sort(totals)
	return totals
}

// addEither is every total reached by adding one of variants to one of
// totals, each once.
func addEither(totals, variants []int64) []int64 {
	var next []int64
	for _, t := range totals {
		for _, v := range variants {
			if !slices.Contains(next, t+v) {
				next = append(next, t+v)
			}
		}
	}
	return next
}

// expected is what the intents add up to, each at its first amount.
func (l *ledger) expected() int64 {
	var sum int64
	for _, in := range l.intents {
		sum += in.amount
	}
	return sum
}
