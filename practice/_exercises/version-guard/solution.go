// Solution: the account row keeps the version of its state, and the
// UPDATE compares in its WHERE clause, in one statement: a repeat (the
// same version) and a stale message (an older one) update no row and are
// acked, since the newer state already includes them.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Absolute: the handler writes the balance a message states, so the lab
// judges it by each account's final balance.
const Absolute = true

const Schema = `
ALTER TABLE accounts ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
`

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	d.Point(handlers.BeforeEffect)
	res, err := d.DB.ExecContext(ctx,
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
		d.Log("version %d of %s is not newer than the stored one: ack", m.Version, m.Account)
		return nil
	}
	d.Point(handlers.AfterEffect)
	return nil
}
