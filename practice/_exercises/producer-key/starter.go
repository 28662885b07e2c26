// Exercise: deduplicate on the key the producer chose, not on the
// broker's transport id.
//
// A producer retry and a DLQ replay carry the same intent under a new
// transport id, so this handler takes each of them for a new top-up.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE deliveries (
    transport_id TEXT    PRIMARY KEY,
    account      TEXT    NOT NULL,
    amount       INTEGER NOT NULL
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
		`INSERT INTO deliveries (transport_id, account, amount) VALUES (?, ?, ?)`,
		m.TransportID, m.Account, m.Amount)
	if handlers.IsUniqueViolation(err, "deliveries_pkey", "deliveries.transport_id") {
		d.Log("delivery %s seen before: ack", m.TransportID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert delivery: %w", err)
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
