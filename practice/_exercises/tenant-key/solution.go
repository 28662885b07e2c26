// A solution: the identity of an operation is (tenant, idempotency key),
// and the constraint says so.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// The tenant comes first in the constraint: its index then also serves
// the lookups of one tenant's operations.
const Schema = `
CREATE TABLE transactions (
    id              INTEGER PRIMARY KEY,
    tenant          TEXT    NOT NULL,
    idempotency_key TEXT    NOT NULL,
    account         TEXT    NOT NULL,
    amount          INTEGER NOT NULL,
    CONSTRAINT uq_transactions_tenant_key UNIQUE (tenant, idempotency_key)
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
		`INSERT INTO transactions (tenant, idempotency_key, account, amount) VALUES (?, ?, ?, ?)`,
		m.Tenant, m.Key, m.Account, m.Amount)
	// The violation is now of the composite constraint: its name for
	// PostgreSQL, both columns as SQLite reports them.
	if handlers.IsUniqueViolation(err, "uq_transactions_tenant_key", "transactions.tenant, transactions.idempotency_key") {
		d.Log("duplicate key %s/%s: already processed, ack", m.Tenant, m.Key)
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
