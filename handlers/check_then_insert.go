package handlers

import (
	"context"
	"fmt"
)

// Like uniqueSchema, but without the UNIQUE constraint: the index makes the
// lookup fast and does nothing against duplicates.
const checkThenInsertSchema = `
CREATE TABLE transactions (
    id              INTEGER PRIMARY KEY,
    idempotency_key TEXT    NOT NULL,
    account         TEXT    NOT NULL,
    amount          INTEGER NOT NULL
);
CREATE INDEX ix_transactions_idempotency_key ON transactions (idempotency_key);
`

// CheckThenInsert looks the key up first and writes only if it was not
// found.
//
// Handles duplicates that arrive one after the other, including a
// redelivery after a crash (the row and the credit commit together). It
// fails when two deliveries of the same key race: both run the SELECT
// before either has committed, both see nothing, and both credit. Checking
// in the application cannot replace a constraint in the database.
func CheckThenInsert(ctx context.Context, d Deps, m Message) error {
	var n int
	err := d.DB.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM transactions WHERE idempotency_key = ?`, m.Key).Scan(&n)
	if err != nil {
		return fmt.Errorf("check key: %w", err)
	}
	if n > 0 {
		d.Log("duplicate key %s: already processed, ack", m.Key)
		return nil
	}

	// The race window: another worker with the same key may have passed
	// the same check and be standing right here too.
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
