// A copy of the built-in handler redelivered-flag (handlers/redelivered_flag.go, RedeliveredFlag) as a handler file.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema is the built-in's redeliveredFlagSchema.
const Schema = `
CREATE TABLE processed (
    message_key TEXT PRIMARY KEY
);
`

// Handle, as RedeliveredFlag, trusts the broker's redelivered flag (RabbitMQ's
// basic.deliver redelivered, a delivery count above one elsewhere): only a
// message the broker marks as redelivered is looked up among the
// processed keys, to save a read on the common path.
//
// The flag says "the broker may have handed this message out before". Its
// absence says nothing: a producer's retry, an outbox relay publishing a
// row again, or a replay from the dead-letter queue is a new message to
// the broker, and arrives with the flag false. The flag is a hint for
// logging and metrics, never a defence.
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
	// The mistake: not redelivered, so "it must be the first copy".
	d.Point(handlers.BeforeEffect)
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO processed (message_key) VALUES (?) ON CONFLICT DO NOTHING`, m.Key); err != nil {
		return fmt.Errorf("record %s: %w", m.Key, err)
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
