package webtest

// FixedNaive is the naive handler made safe: a key per tenant and
// operation, inserted in the credit's transaction.
const FixedNaive = `package handler

import (
	"context"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = ` + "`CREATE TABLE processed (tenant TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (tenant, key));`" + `

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, "INSERT INTO processed (tenant, key) VALUES (?, ?) ON CONFLICT DO NOTHING", m.Tenant, m.Key)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account); err != nil {
		return err
	}
	return tx.Commit()
}
`
