// A copy of the built-in handler marker-first (handlers/marker_first.go, MarkerFirst) as a handler file.
package handler

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema is the built-in's markerSchema.
const Schema = `
CREATE TABLE processed (
    idempotency_key TEXT PRIMARY KEY,
    processed_at    TEXT NOT NULL
);
`

// Handle, as MarkerFirst, commits a "processed" marker for the key, and then credits
// the account in a second, separate commit.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	_, err := d.DB.ExecContext(ctx,
		`INSERT INTO processed (idempotency_key, processed_at) VALUES (?, ?)`,
		m.Key, d.Now().Format(time.RFC3339))
	if handlers.IsUniqueViolation(err, "processed_pkey", "processed.idempotency_key") {
		d.Log("duplicate key %s: marker exists, ack", m.Key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert marker: %w", err)
	}

	// The marker is committed; the credit is not. Nothing ties them
	// together from here on.
	d.Point(handlers.BeforeEffect)
	if err := credit(ctx, d.DB, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
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
