// Exercise: guard the state transition with the tenant.
//
// Only the UPDATE that moves an order from CREATED to PAID credits the
// account. But orders are keyed by (tenant, id), and this UPDATE names
// the id alone: acme's pay-1 also marks globex's pay-1 as PAID, and
// globex's payment is then acked as a duplicate and never credited.
package handler

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(handlers.BeforeEffect)
	res, err := tx.ExecContext(ctx,
		`UPDATE orders SET status = 'PAID', paid_at = ? WHERE id = ? AND status = 'CREATED'`,
		d.Now().Format(time.RFC3339), m.OrderID)
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
		d.Log("order %s is not CREATED (already paid, shipped or missing): ack", m.OrderID)
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

// execer is what *sql.DB and *sql.Tx have in common.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// credit adds amount to the account. An UPDATE that matches no row is no
// error to SQL, so the row count is checked: nothing credited is a failure.
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
