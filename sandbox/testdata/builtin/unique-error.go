// A copy of the built-in handler unique-error (handlers/unique_error.go, UniqueError) as a handler file.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema is the built-in's uniqueSchema.
const Schema = `
CREATE TABLE transactions (
    id              INTEGER PRIMARY KEY,
    idempotency_key TEXT    NOT NULL,
    account         TEXT    NOT NULL,
    amount          INTEGER NOT NULL,
    CONSTRAINT uq_transactions_idempotency_key UNIQUE (idempotency_key)
);
`

// Handle, as UniqueError, is Unique with one mistake: it treats the duplicate-key error
// as a failure and returns it.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(handlers.BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO transactions (idempotency_key, account, amount) VALUES (?, ?, ?)`,
		m.Key, m.Account, m.Amount)
	if handlers.IsUniqueViolation(err, "uq_transactions_idempotency_key", "transactions.idempotency_key") {
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
