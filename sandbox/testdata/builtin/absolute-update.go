// A copy of the built-in handler absolute-update (handlers/absolute_update.go, AbsoluteUpdate) as a handler file.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Absolute: it writes the balance a message states.
const Absolute = true

// Handle, as AbsoluteUpdate, writes state, not a change: the message says what the
// account's balance is after the operation, and the handler sets it.
//
// Setting a value twice leaves it as setting it once, so a plain repeat
// is harmless without any marker: the update is idempotent. It is not
// order-safe. A message delivered late, after a newer one, sets the
// balance back to an older state, and whatever happened in between is
// lost.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	d.Point(handlers.BeforeEffect)
	res, err := d.DB.ExecContext(ctx,
		`UPDATE accounts SET balance = ? WHERE id = ?`, m.Balance, m.Account)
	if err != nil {
		return fmt.Errorf("set balance of %s: %w", m.Account, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("rows affected: %w", err)
	}
	if n != 1 {
		return fmt.Errorf("account %s: %d rows updated, want 1: nothing credited", m.Account, n)
	}
	d.Point(handlers.AfterEffect)
	return nil
}
