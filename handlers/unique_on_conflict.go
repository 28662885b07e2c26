package handlers

import (
	"context"
	"fmt"
)

// UniqueOnConflict is Unique without the error: the corrected form of
// unique-same-tx, not an anti-pattern.
//
// INSERT ... ON CONFLICT DO NOTHING (SQLite 3.24 and PostgreSQL 9.5 both
// have it) turns a duplicate key into an insert of no rows instead of an
// error, and RowsAffected says which happened: 1, the key is new and the
// credit follows in the same transaction; 0, a repeat, acked. No statement
// fails on a repeat, so the transaction is never aborted and the handler
// behaves the same on both databases. The weaknesses of Unique remain: the
// key alone is unique (tenants collide), and a repeat with a changed
// amount is acked as if it were the original.
func UniqueOnConflict(ctx context.Context, d Deps, m Message) error {
	d.Point(Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(BeforeEffect)
	res, err := tx.ExecContext(ctx,
		`INSERT INTO transactions (idempotency_key, account, amount) VALUES (?, ?, ?)
		 ON CONFLICT (idempotency_key) DO NOTHING`,
		m.Key, m.Account, m.Amount)
	if err != nil {
		return fmt.Errorf("insert transaction: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("insert transaction: %w", err)
	}
	if n == 0 {
		// The key is there already: a repeat, not a failure. Nothing
		// was written; ack.
		d.Log("key %s already processed, ack", m.Key)
		return nil
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
