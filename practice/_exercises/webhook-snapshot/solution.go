// Solution: keep the record of applied payments for the log, and let the
// snapshot write only when its version is newer than the one the account
// holds, in the UPDATE's own WHERE clause. An older event, late or
// resent, updates no row and is acked: the newer state already includes
// it. (With a real provider, re-fetching the object and acting on its
// current state does the same job without a version in the event.)
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
ALTER TABLE accounts ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
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
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO applied_payments (tenant, payment_id) VALUES (?, ?) ON CONFLICT DO NOTHING`,
		m.Tenant, m.Key); err != nil {
		return fmt.Errorf("record payment: %w", err)
	}
	res, err := tx.ExecContext(ctx,
		`UPDATE accounts SET balance = ?, version = ? WHERE id = ? AND version < ?`,
		m.Balance, m.Version, m.Account, m.Version)
	if err != nil {
		return fmt.Errorf("set balance of %s: %w", m.Account, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("rows affected: %w", err)
	}
	if n == 0 {
		d.Log("event for %s/%s is version %d, not newer than the account's: 200, nothing written (delivery %s)",
			m.Tenant, m.Key, m.Version, m.TransportID)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	d.Point(handlers.AfterEffect)
	return nil
}
