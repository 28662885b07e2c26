// A solution: a violation of the key's own constraint is the expected
// answer to a copy, so it is acked. Every other error is still returned,
// so that a real failure is retried.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE transactions (
    id              INTEGER PRIMARY KEY,
    idempotency_key TEXT    NOT NULL,
    account         TEXT    NOT NULL,
    amount          INTEGER NOT NULL,
    CONSTRAINT uq_transactions_idempotency_key UNIQUE (idempotency_key)
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
	_, err = tx.ExecContext(ctx,
		`INSERT INTO transactions (idempotency_key, account, amount) VALUES (?, ?, ?)`,
		m.Key, m.Account, m.Amount)
	// Match exactly the key's constraint, by its name and column: a NOT NULL
	// failure or another unique index is a real error, not a repeat.
	if handlers.IsUniqueViolation(err, "uq_transactions_idempotency_key", "transactions.idempotency_key") {
		// Nothing will ever make this insert succeed, and nothing needs
		// to: the first delivery credited the account. Ack.
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

// execer is what *sql.DB and *sql.Tx have in common.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// credit adds amount to the account. An UPDATE that matches no row is no
// error to SQL, so the row count is checked: nothing credited is a failure.
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
