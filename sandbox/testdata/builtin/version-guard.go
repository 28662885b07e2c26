// A copy of the built-in handler version-guard (handlers/version_guard.go, VersionGuard) as a handler file.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Absolute: it writes the balance a message states.
const Absolute = true

// Schema is the built-in's versionSchema.
const Schema = `
ALTER TABLE accounts ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
`

// Handle, as VersionGuard, writes the balance the message states, as AbsoluteUpdate
// does, but only when the message is newer than what the account holds:
// the row keeps the version of the state it was last set to, and the
// UPDATE's WHERE compares them, in one statement.
//
// A repeat (the same version) and a stale message (an older one) update
// no row and are acked: the newer state already covers them. This needs
// the producer to number the states of each account in order, and it
// fits state that replaces itself (a balance, a status, a profile), not
// changes that add up, where skipping an older message loses it.
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
		// Not newer, or no such account: only a read tells them apart.
		var stored int64
		err := d.DB.QueryRowContext(ctx, `SELECT version FROM accounts WHERE id = ?`, m.Account).Scan(&stored)
		if err != nil {
			return fmt.Errorf("account %s: %w: nothing credited", m.Account, err)
		}
		d.Log("version %d of %s is not newer than the stored %d: ack", m.Version, m.Account, stored)
		return nil
	}
	d.Point(handlers.AfterEffect)
	return nil
}
