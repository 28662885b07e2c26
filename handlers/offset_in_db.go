package handlers

import (
	"context"
	"fmt"
)

const offsetInDBSchema = `
CREATE TABLE consumer_offsets (
    topic_partition TEXT PRIMARY KEY,
    next_offset     INTEGER NOT NULL
);
`

// OffsetInDB keeps the consumer's position in its own database, in the
// same transaction as the credit, as Kafka's documentation suggests for a
// consumer that writes to an external store: a message at an offset below
// the stored one was applied already and is skipped. When a worker dies
// in the middle of a batch, the broker replays the whole uncommitted
// range, and the stored offset skips every message the dead worker
// finished: no marker table, one row per partition.
//
// The offset names a position in the log, not an operation. A producer's
// retry or an outbox relay's second publish is a new record at a new
// offset and is credited again. And the rule "below the stored offset
// means done" holds only where the partition is consumed in order: on a
// queue with per-message acks a newer message can be handled while an
// older one is out with a worker that dies (other consumers take it, or
// SQS hands it out during the older one's visibility timeout; RabbitMQ
// requeues the older one to its original place where it can, but too
// late), and the handler then skips a message it never applied.
func OffsetInDB(ctx context.Context, d Deps, m Message) error {
	d.Point(Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	var next int64
	err = tx.QueryRowContext(ctx,
		`SELECT COALESCE(MAX(next_offset), 0) FROM consumer_offsets WHERE topic_partition = ?`, m.Partition).Scan(&next)
	if err != nil {
		return fmt.Errorf("read offset of %s: %w", m.Partition, err)
	}
	if m.Offset < next {
		d.Log("offset %d is below the stored %d: already applied, ack", m.Offset, next)
		return nil
	}
	d.Point(BeforeEffect)
	if err := credit(ctx, tx, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	// The position moves in the credit's transaction: both or neither.
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO consumer_offsets (topic_partition, next_offset) VALUES (?, ?)
		 ON CONFLICT (topic_partition) DO UPDATE SET next_offset = excluded.next_offset`,
		m.Partition, m.Offset+1); err != nil {
		return fmt.Errorf("store offset: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	d.Point(AfterEffect)
	return nil
}
