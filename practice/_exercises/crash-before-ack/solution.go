// A solution: remember the producer's key in the same transaction as the
// credit, and let the primary key turn away a second delivery.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// One row per processed key. The primary key, not a SELECT, decides.
const Schema = `
CREATE TABLE processed (
    idempotency_key TEXT PRIMARY KEY
);
`

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() // a crash before the commit undoes both writes

	d.Point(handlers.BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO processed (idempotency_key) VALUES (?)`, m.Key)
	if handlers.IsUniqueViolation(err, "processed_pkey", "processed.idempotency_key") {
		// The first delivery committed its credit: this is its copy.
		// Ack it; an error would only bring it back.
		d.Log("key %s already processed: ack", m.Key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert key: %w", err)
	}
	if err := credit(ctx, tx, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	// The key and the credit become durable together, or not at all.
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
