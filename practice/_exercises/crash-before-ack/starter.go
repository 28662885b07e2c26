// Exercise: make this handler survive a crash before the ack.
//
// It credits the account on every delivery. When the worker dies after
// the credit and before its ack, the broker delivers the same message
// again, and the account is credited a second time.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.BeforeEffect)
	if err := credit(ctx, d.DB, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
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
