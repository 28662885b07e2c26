// received-ids is a duplicate-message detector in the shape of a
// transactional messaging framework's: a detector function, called in
// the consumer's transaction, inserts (consumer, tenant, message key,
// payload hash) into a table of received messages and reports a
// duplicate when the INSERT hits the primary key. For a duplicate the
// consumer reads the stored hash, sets a changed payload aside, and
// commits; otherwise it credits and commits.
//
// On SQLite the failed INSERT fails alone and the transaction goes on:
// it passes. On PostgreSQL the duplicate key (23505) aborts the
// transaction: the SELECT after it fails, the repeat is nacked and
// redelivered until the dead-letter queue (poison).
package handler

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE received_messages (
    consumer_id  TEXT NOT NULL,
    tenant       TEXT NOT NULL,
    message_id   TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    PRIMARY KEY (consumer_id, tenant, message_id)
);
`

const consumer = "payments-consumer"

func payloadHash(m handlers.Message) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%d", m.Account, m.Amount)))
	return hex.EncodeToString(sum[:])
}

// isDuplicate records the message as received, in tx, and says whether
// it was received before.
func isDuplicate(ctx context.Context, tx *sql.Tx, m handlers.Message) (bool, error) {
	_, err := tx.ExecContext(ctx, `INSERT INTO received_messages (consumer_id, tenant, message_id, payload_hash) VALUES (?, ?, ?, ?)`,
		consumer, m.Tenant, m.Key, payloadHash(m))
	if handlers.IsUniqueViolation(err, "received_messages_pkey", "received_messages.consumer_id, received_messages.tenant, received_messages.message_id") {
		return true, nil
	}
	return false, err
}

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	dup, err := isDuplicate(ctx, tx, m)
	if err != nil {
		return err
	}
	if dup {
		var stored string
		if err := tx.QueryRowContext(ctx, `SELECT payload_hash FROM received_messages WHERE consumer_id = ? AND tenant = ? AND message_id = ?`,
			consumer, m.Tenant, m.Key).Scan(&stored); err != nil {
			return fmt.Errorf("read the received message %s: %w", m.Key, err)
		}
		if stored != payloadHash(m) {
			d.Quarantine(fmt.Sprintf("%s came again with another payload", m.Key))
		}
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	return tx.Commit()
}
