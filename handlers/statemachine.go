package handlers

import (
	"context"
	"fmt"
	"time"
)

// StateMachine lets the order's state decide: only the UPDATE that moves
// the order from CREATED to PAID credits the account, in the same
// transaction. A duplicate finds the order PAID already and changes nothing.
//
// Guarantees at most one credit per order, whatever the timing, with no
// extra table. Weaknesses: 0 updated rows means "already paid" or "not
// payable" (shipped, cancelled, missing), and the handler cannot tell them
// apart without reading the row. The WHERE clause matches the order id
// only, not the tenant, so two tenants whose orders share an id collide:
// paying one marks the other PAID too, and the second payment is dropped.
func StateMachine(ctx context.Context, d Deps, m Message) error {
	d.Point(Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	// A payment moves the order from CREATED to PAID, a refund from PAID
	// to REFUNDED. A refund that arrives before its payment finds the
	// order CREATED, and is dropped below like a duplicate.
	from, to := "CREATED", "PAID"
	if m.Kind == KindRefund {
		from, to = "PAID", "REFUNDED"
	}
	d.Point(BeforeEffect)
	res, err := tx.ExecContext(ctx,
		`UPDATE orders SET status = ?, paid_at = ? WHERE id = ? AND status = ?`,
		to, d.Now().Format(time.RFC3339), m.OrderID, from)
	if err != nil {
		return fmt.Errorf("update order %s: %w", m.OrderID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("rows affected: %w", err)
	}
	if n == 0 {
		// A duplicate or an order in another state: both end here, and
		// both must be acked, or the broker redelivers for ever.
		d.Log("order %s is not %s (already done, another state, or missing): ack", m.OrderID, from)
		return nil
	}
	if err := credit(ctx, tx, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	d.Point(AfterEffect)
	return nil
}
