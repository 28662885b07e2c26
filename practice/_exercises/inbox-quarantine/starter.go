// Exercise: add the payload hash and the quarantine to this inbox.
//
// A known (tenant, operation id) is answered with the saved response,
// whatever the message carries now. A producer that reuses a key for
// another amount is told "done" for an amount that was never credited,
// and nobody learns of it.
package handler

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE inbox (
    tenant       TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    response     TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (tenant, operation_id)
);
`

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	var response string
	err = tx.QueryRowContext(ctx,
		`SELECT response FROM inbox WHERE tenant = ? AND operation_id = ?`,
		m.Tenant, m.Key).Scan(&response)
	if err == nil {
		// The bug: nothing checks that this is the same request.
		d.Log("repeat of %s/%s: replaying saved response %q", m.Tenant, m.Key, response)
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read inbox: %w", err)
	}

	d.Point(handlers.BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO inbox (tenant, operation_id, response, created_at) VALUES (?, ?, ?, ?)`,
		m.Tenant, m.Key, fmt.Sprintf("credited %d to %s", m.Amount, m.Account),
		d.Now().Format(time.RFC3339))
	if err != nil {
		return fmt.Errorf("insert inbox: %w", err)
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
