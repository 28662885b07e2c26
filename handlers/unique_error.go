package handlers

import (
	"context"
	"fmt"
)

// UniqueError is Unique with one mistake: it treats the duplicate-key error
// as a failure and returns it.
//
// The credit still happens at most once. But the duplicate is nacked, the
// broker redelivers it, the insert hits the same constraint again, and so
// on until the broker gives up and moves it to the dead-letter queue: a
// poison message that burns retries and raises alerts for a message that
// was handled correctly the first time.
func UniqueError(ctx context.Context, d Deps, m Message) error {
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
	if IsUniqueViolation(err, "uq_transactions_idempotency_key", "transactions.idempotency_key") {
		// The bug: a duplicate is the expected outcome, not an error.
		// Nothing will ever make this insert succeed.
		return fmt.Errorf("duplicate key %s: %w", m.Key, err)
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
