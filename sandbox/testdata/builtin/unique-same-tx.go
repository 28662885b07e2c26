// A copy of the built-in handler unique-same-tx (handlers/unique_same_tx.go, UniqueSameTx) as a handler file.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema is the built-in's uniqueSameTxSchema.
const Schema = `
CREATE TABLE transactions (
    id              INTEGER PRIMARY KEY,
    idempotency_key TEXT    NOT NULL,
    account         TEXT    NOT NULL,
    amount          INTEGER NOT NULL,
    repeats         INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT uq_transactions_idempotency_key UNIQUE (idempotency_key)
);
`

// Handle, as UniqueSameTx, goes on using the transaction after the
// duplicate-key error, to count the repeat: SQLite lets it, PostgreSQL has
// aborted it (25P02) and the repeat loops into the dead-letter queue.
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
		// The bug: this transaction has just had an error. SQLite lets
		// it go on; on PostgreSQL it is aborted, this UPDATE fails with
		// 25P02, and even a COMMIT would only roll it back.
		if _, err := tx.ExecContext(ctx,
			`UPDATE transactions SET repeats = repeats + 1 WHERE idempotency_key = ?`, m.Key); err != nil {
			return fmt.Errorf("count repeat of %s: %w", m.Key, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("commit repeat of %s: %w", m.Key, err)
		}
		d.Log("duplicate key %s: repeat counted, ack", m.Key)
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
