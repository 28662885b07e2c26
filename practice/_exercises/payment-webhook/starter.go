// Exercise: the payment webhook from the interview question.
//
// A payment provider posts events about payments. Key the posting on the
// payment, not on the event: m.Key is the id of the payment the event is
// about (the same in every resend and in every other event about that
// payment), m.Tenant is the tenant it belongs to (the merchant whose
// provider account sent it), and m.Account is the account to credit.
// m.TransportID names this delivery: log it, do not key on it. The
// provider resends until it gets a 200 OK: here, until Handle returns
// nil. This first attempt answers a payment it has seen with an error (a
// 409), so the provider never stops resending, and it cannot tell a
// repeat from a payment that comes back with another amount.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE received_payments (
    tenant     TEXT    NOT NULL,
    payment_id TEXT    NOT NULL,
    amount     INTEGER NOT NULL,
    PRIMARY KEY (tenant, payment_id)
);
`

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	var n int
	err := d.DB.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM received_payments WHERE tenant = ? AND payment_id = ?`,
		m.Tenant, m.Key).Scan(&n)
	if err != nil {
		return fmt.Errorf("look up payment: %w", err)
	}
	if n > 0 {
		return fmt.Errorf("409: payment %s/%s already received", m.Tenant, m.Key)
	}

	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(handlers.BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO received_payments (tenant, payment_id, amount) VALUES (?, ?, ?)`,
		m.Tenant, m.Key, m.Amount)
	if err != nil {
		return fmt.Errorf("record payment: %w", err)
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
