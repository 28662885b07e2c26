// Exercise: look for the repeat on every delivery, not only on the ones
// the broker flags as redelivered.
//
// The flag is set when the broker hands out a message it handed out
// before. A producer's retry, or an outbox relay publishing a row again,
// is a new message to the broker and arrives with the flag false.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE processed (
    message_key TEXT PRIMARY KEY
);
`

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	if m.Redelivered {
		var seen int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM processed WHERE message_key = ?`, m.Key).Scan(&seen)
		if err != nil {
			return fmt.Errorf("look up %s: %w", m.Key, err)
		}
		if seen > 0 {
			d.Log("redelivered and already processed: ack")
			return nil
		}
	}
	d.Point(handlers.BeforeEffect)
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO processed (message_key) VALUES (?) ON CONFLICT DO NOTHING`, m.Key); err != nil {
		return fmt.Errorf("record %s: %w", m.Key, err)
	}
	res, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account)
	if err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("credit %s: %d rows, nothing credited (%v)", m.Account, n, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	d.Point(handlers.AfterEffect)
	return nil
}
