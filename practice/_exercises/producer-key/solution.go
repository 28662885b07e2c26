// A solution: the row is keyed on m.Key, the idempotency key the producer
// chose when the intent was born. Every copy of the intent carries it: a
// redelivery, a producer retry, a DLQ replay.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// The transport id is kept for tracing only: it names one delivery, not
// the operation, so nothing unique is built on it.
const Schema = `
CREATE TABLE operations (
    idempotency_key TEXT    PRIMARY KEY,
    transport_id    TEXT    NOT NULL,
    account         TEXT    NOT NULL,
    amount          INTEGER NOT NULL
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
		`INSERT INTO operations (idempotency_key, transport_id, account, amount) VALUES (?, ?, ?, ?)`,
		m.Key, m.TransportID, m.Account, m.Amount)
	if handlers.IsUniqueViolation(err, "operations_pkey", "operations.idempotency_key") {
		// Same intent, whatever transport id it came under: ack.
		d.Log("key %s already processed (now as %s): ack", m.Key, m.TransportID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert operation: %w", err)
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
