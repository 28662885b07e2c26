// Exercise: webhook events that carry a snapshot.
//
// Each event states the account's balance after its payment (m.Balance)
// and the payment's place among the account's payments (m.Version); m.Key
// is the payment's id, the same in every resend. This handler records each
// payment it applied, so a resend of an applied event changes nothing,
// and writes the balance the event states. But the provider does not
// deliver in order: an event whose first delivery failed comes back after
// a newer one, it is the first copy the handler sees, and its older
// balance overwrites the newer one. The key does not help with order.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Absolute: the handler writes the balance an event states, so the lab
// judges it by each account's final balance.
const Absolute = true

const Schema = `
CREATE TABLE applied_payments (
    tenant     TEXT NOT NULL,
    payment_id TEXT NOT NULL,
    PRIMARY KEY (tenant, payment_id)
);
`

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(handlers.BeforeEffect)
	res, err := tx.ExecContext(ctx,
		`INSERT INTO applied_payments (tenant, payment_id) VALUES (?, ?) ON CONFLICT DO NOTHING`,
		m.Tenant, m.Key)
	if err != nil {
		return fmt.Errorf("record payment: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("rows affected: %w", err)
	} else if n == 0 {
		d.Log("payment %s/%s applied before (delivery %s): 200", m.Tenant, m.Key, m.TransportID)
		return tx.Commit()
	}
	res, err = tx.ExecContext(ctx,
		`UPDATE accounts SET balance = ? WHERE id = ?`, m.Balance, m.Account)
	if err != nil {
		return fmt.Errorf("set balance of %s: %w", m.Account, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("account %s: %d rows updated (%v)", m.Account, n, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	d.Point(handlers.AfterEffect)
	return nil
}
