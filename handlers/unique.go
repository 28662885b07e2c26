package handlers

import (
	"context"
	"fmt"
)

const uniqueSchema = `
CREATE TABLE transactions (
    id              INTEGER PRIMARY KEY,
    idempotency_key TEXT    NOT NULL,
    account         TEXT    NOT NULL,
    amount          INTEGER NOT NULL,
    CONSTRAINT uq_transactions_idempotency_key UNIQUE (idempotency_key)
);
`

// Unique lets the database decide: the transaction row and the credit are
// written in one transaction, and the UNIQUE constraint on idempotency_key
// rejects the second insert of the same key.
//
// Guarantees at most one credit per key, whatever the timing. Weaknesses:
// the key alone is unique, so two tenants that use the same operation id
// collide and the second one's top-up is dropped; and a repeat with a
// changed amount is acked as if it were the original (a silent conflict).
func Unique(ctx context.Context, d Deps, m Message) error {
	d.Point(Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO transactions (idempotency_key, account, amount) VALUES (?, ?, ?)`,
		m.Key, m.Account, m.Amount)
	// The violation we expect is of the key's constraint (its name for
	// PostgreSQL, its columns for SQLite); any other is an error.
	if IsUniqueViolation(err, "uq_transactions_idempotency_key", "transactions.idempotency_key") {
		// Not a failure: this key was processed before. Ack it, or the
		// broker will redeliver it for ever.
		d.Log("duplicate key %s: already processed, ack", m.Key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert transaction: %w", err)
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
