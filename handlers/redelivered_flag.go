package handlers

import (
	"context"
	"fmt"
)

const redeliveredFlagSchema = `
CREATE TABLE processed (
    message_key TEXT PRIMARY KEY
);
`

// RedeliveredFlag trusts the broker's redelivered flag (RabbitMQ's
// basic.deliver redelivered, a delivery count above one elsewhere): only a
// message the broker marks as redelivered is looked up among the
// processed keys, to save a read on the common path.
//
// The flag says "the broker may have handed this message out before". Its
// absence says nothing: a producer's retry, an outbox relay publishing a
// row again, or a replay from the dead-letter queue is a new message to
// the broker, and arrives with the flag false. The flag is a hint for
// logging and metrics, never a defence.
func RedeliveredFlag(ctx context.Context, d Deps, m Message) error {
	d.Point(Yield)
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
	d.Point(BeforeEffect)
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
	d.Point(AfterEffect)
	return nil
}
