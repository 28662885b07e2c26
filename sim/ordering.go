package sim

import (
	"fmt"
	"slices"
	"strings"
)

// intentKey names an operation: its tenant and its id.
type intentKey struct{ tenant, op string }

// TakeOp moves the oldest ready message of an operation in flight, as
// Take does for the oldest of all; nil when none of it is ready.
func (b *Broker) TakeOp(op string) *Message {
	for i, m := range b.Ready {
		if m.Op == op {
			b.Ready = append(b.Ready[:i:i], b.Ready[i+1:]...)
			m.Deliveries++
			b.InFlight = append(b.InFlight, m)
			b.lease(m)
			return m
		}
	}
	return nil
}

// version gives a new intent its place among its account's operations,
// and the balance the producer expects after it.
func (w *world) version(in *intent) {
	if w.versions == nil {
		w.versions, w.totals = map[string]int64{}, map[string]int64{}
	}
	w.versions[in.account]++
	w.totals[in.account] += in.amount
	in.version, in.balance = w.versions[in.account], w.totals[in.account]
}

// accountVerdict judges a handler that writes absolute state by what it
// leaves: each account's balance against the sum of its intents. A newer
// state makes an older one needless, so the operations are not counted
// one by one.
func (w *world) accountVerdict() (Verdict, string, bool, error) {
	// Each account's right balances: its intents' amounts added up,
	// where a key that carries two payloads may add either.
	want := map[string][]int64{}
	for _, in := range w.intentList() {
		totals := want[in.account]
		if totals == nil {
			totals = []int64{0}
		}
		want[in.account] = addEither(totals, in.variants)
	}
	rows, err := w.db.Query(`SELECT id, balance FROM accounts ORDER BY id`)
	if err != nil {
		return "", "", false, err
	}
	defer rows.Close()
	var over, under []string
	for rows.Next() {
		var id string
		var got int64
		if err := rows.Scan(&id, &got); err != nil {
			return "", "", false, err
		}
		ok := want[id]
		if ok == nil {
			ok = []int64{0}
		}
		switch {
		case slices.Contains(ok, got):
		case got > slices.Max(ok):
			over = append(over, fmt.Sprintf("account %s holds %d, its operations add up to %s", id, got, amounts(ok)))
		default:
			under = append(under, fmt.Sprintf("account %s holds %d, its operations add up to %s", id, got, amounts(ok)))
		}
	}
	if err := rows.Err(); err != nil {
		return "", "", false, err
	}
	if len(over) > 0 {
		return Duplicate, strings.Join(append(over, under...), "; "), true, nil
	}
	if len(under) > 0 {
		return Lost, strings.Join(under, "; "), true, nil
	}
	return "", "", false, nil
}
