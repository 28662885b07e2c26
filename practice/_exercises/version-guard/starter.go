// Exercise: make an absolute update order-safe.
//
// Each message states the account's balance after its operation
// (m.Balance) and the operation's place among the account's operations
// (m.Version). This handler writes the balance it is given, so a repeat
// that comes right away is harmless; a message that comes late, after a
// newer one, sets the balance back. Keep the version of the state each
// account was last set to, and let only a newer message write.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Absolute: the handler writes the balance a message states, so the lab
// judges it by each account's final balance.
const Absolute = true

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	d.Point(handlers.BeforeEffect)
	res, err := d.DB.ExecContext(ctx,
		`UPDATE accounts SET balance = ? WHERE id = ?`, m.Balance, m.Account)
	if err != nil {
		return fmt.Errorf("set balance of %s: %w", m.Account, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("account %s: %d rows updated, nothing credited (%v)", m.Account, n, err)
	}
	d.Point(handlers.AfterEffect)
	return nil
}
