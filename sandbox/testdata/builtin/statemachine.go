// A copy of the built-in handler statemachine (handlers/statemachine.go, StateMachine) as a handler file.
package handler

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

// Handle, as StateMachine, lets the order's state decide: only the UPDATE that moves
// the order from CREATED to PAID credits the account, in the same
// transaction. A duplicate finds the order PAID already and changes nothing.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	// A payment moves the order from CREATED to PAID, a refund from PAID
	// to REFUNDED. A refund that arrives before its payment finds the
	// order CREATED, and is dropped below like a duplicate.
	from, to := "CREATED", "PAID"
	if m.Kind == handlers.KindRefund {
		from, to = "PAID", "REFUNDED"
	}
	d.Point(handlers.BeforeEffect)
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
	d.Point(handlers.AfterEffect)
	return nil
}

// credit is handlers.credit.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func credit(ctx context.Context, db execer, account string, amount int64) error {
	res, err := db.ExecContext(ctx,
		`UPDATE accounts SET balance = balance + ? WHERE id = ?`, amount, account)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("account %s: %d rows updated, want 1: nothing credited", account, n)
	}
	return nil
}
