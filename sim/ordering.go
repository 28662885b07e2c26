package sim

import (
	"fmt"
	"slices"
	"strings"
)

// Ordering. A broker keeps order within a partition at best, and a
// requeue, a retry or a second consumer is enough to deliver an older
// message after a newer one.
//
//	publish ref-1 amount=100 kind=refund order=pay-1
//	deliver pay-2
//
// A refund takes money back for an order paid before (its amount counts
// negative). deliver OP hands out the oldest ready message of that
// operation instead of the oldest of all. Every message carries a version
// (the n-th operation on its account) and the account's balance after it
// as the producer sees it, for handlers that write absolute state.

// Message kinds (Step.Kind, Message.Kind).
const (
	KindPayment = "payment"
	KindRefund  = "refund"
)

// kind reads publish's kind= and order= options.
func (p *parser) kind(n int, st *Step, opts map[string]string) error {
	k, hasKind := opts["kind"]
	order, hasOrder := opts["order"]
	switch {
	case hasKind && k != KindPayment && k != KindRefund:
		return errf(n, "kind=%s: unknown message kind; valid kinds: payment, refund (with order=)", "kind=%s: неизвестный вид сообщения; допустимые: payment, refund (с order=)", k)
	case k == KindRefund && !hasOrder:
		return errf(n, "kind=refund needs order=OP, the paid order it refunds, as in: publish ref-1 amount=100 kind=refund order=pay-1",
			"kind=refund: нужен order=ОПЕРАЦИЯ — оплаченный заказ, который возвращают, например: publish ref-1 amount=100 kind=refund order=pay-1")
	case k == KindRefund && opts["account"] != "":
		return errf(n, "kind=refund takes no account=: a refund goes back to the account of the order it refunds", "kind=refund без account=: возврат идёт на счёт возвращаемого заказа")
	case hasOrder && k != KindRefund:
		return errf(n, "order= belongs to kind=refund: a payment is its own order", "order= задаётся только с kind=refund: платёж сам является заказом")
	case !hasOrder:
		return nil
	}
	if err := checkID(n, "order", order); err != nil {
		return err
	}
	if p.intents[intentKey{st.Tenant, order}] != published || p.refunds[intentKey{st.Tenant, order}] {
		return errf(n, "order=%s: no payment %s of tenant %s has been published before this refund", "order=%s: платёж %s тенанта %s не публиковался до этого возврата", order, order, st.Tenant)
	}
	if p.refunds == nil {
		p.refunds = map[intentKey]bool{}
	}
	p.refunds[intentKey{st.Tenant, st.Op}] = true
	st.Kind, st.Order = KindRefund, order
	return nil
}

// anyTenant says whether an operation of that id was published by any
// tenant.
func (p *parser) anyTenant(op string) bool {
	for ik := range p.intents {
		if ik.op == op {
			return true
		}
	}
	return false
}

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
