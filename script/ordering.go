package script

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
		return errf(n, "script.kind-unknown", k)
	case k == KindRefund && !hasOrder:
		return errf(n, "script.refund-order-missing")
	case k == KindRefund && opts["account"] != "":
		return errf(n, "script.refund-account")
	case hasOrder && k != KindRefund:
		return errf(n, "script.order-without-refund")
	case !hasOrder:
		return nil
	}
	if err := checkID(n, "order", order); err != nil {
		return err
	}
	if p.intents[intentKey{st.Tenant, order}] != published || p.refunds[intentKey{st.Tenant, order}] {
		return errf(n, "script.refund-order-unpublished", order, order, st.Tenant)
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
