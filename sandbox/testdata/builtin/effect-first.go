// A copy of the built-in handler effect-first (handlers/effect_first.go, EffectFirst) as a handler file.
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

// Handle, as EffectFirst, checks for a marker, credits the account in its own commit,
// and writes the marker afterwards.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	var n int
	err := d.DB.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM processed WHERE idempotency_key = ?`, m.Key).Scan(&n)
	if err != nil {
		return fmt.Errorf("check marker: %w", err)
	}
	if n > 0 {
		d.Log("duplicate key %s: marker exists, ack", m.Key)
		return nil
	}

	// The race window: a second delivery may have passed the check too.
	d.Point(handlers.Yield)
	d.Point(handlers.BeforeEffect)
	if err := credit(ctx, d.DB, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	d.Point(handlers.AfterEffect)

	_, err = d.DB.ExecContext(ctx,
		`INSERT INTO processed (idempotency_key, processed_at) VALUES (?, ?)`,
		m.Key, d.Now().Format(time.RFC3339))
	if handlers.IsUniqueViolation(err, "processed_pkey", "processed.idempotency_key") {
		// Too late to refuse: our credit is already committed. Failing
		// now would only make the broker credit it once more.
		d.Log("key %s: marker written by a concurrent worker, credited twice", m.Key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert marker: %w", err)
	}
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
