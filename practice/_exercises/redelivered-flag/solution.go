// Solution: the INSERT of the key decides, on every delivery. Whether
// the broker flags the message or not, a key that is already recorded
// inserts no row, and the copy is acked without a credit. The flag is
// left for the log, where it belongs.
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

	d.Point(handlers.BeforeEffect)
	res, err := tx.ExecContext(ctx,
		`INSERT INTO processed (message_key) VALUES (?) ON CONFLICT DO NOTHING`, m.Key)
	if err != nil {
		return fmt.Errorf("record %s: %w", m.Key, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("rows affected: %w", err)
	} else if n == 0 {
		d.Log("key %s already processed (redelivered=%v): ack", m.Key, m.Redelivered)
		return nil
	}
	res, err = tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account)
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
