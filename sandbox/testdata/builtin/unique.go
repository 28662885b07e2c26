// A copy of the built-in handler unique (handlers/unique.go, Unique) as a handler file.
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

// Handle, as Unique, lets the database decide: the transaction row and the credit are
// written in one transaction, and the UNIQUE constraint on idempotency_key
// rejects the second insert of the same key.
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
	// The violation we expect is of the key's constraint (its name for
	// PostgreSQL, its columns for SQLite); any other is an error.
	if handlers.IsUniqueViolation(err, "uq_transactions_idempotency_key", "transactions.idempotency_key") {
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
