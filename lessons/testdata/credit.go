package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema: one row per tenant and payment, with the amount it was credited.
const Schema = `
CREATE TABLE credited (
    tenant TEXT    NOT NULL,
    key    TEXT    NOT NULL,
    amount INTEGER NOT NULL,
    PRIMARY KEY (tenant, key)
);`

// Handle records the payment and credits it in one transaction. A repeat
// finds the row and is acked; the same key with another amount is set
// aside for a person.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx,
		`INSERT INTO credited (tenant, key, amount) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		m.Tenant, m.Key, m.Amount)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		var amount int64
		err := tx.QueryRowContext(ctx,
			`SELECT amount FROM credited WHERE tenant = ? AND key = ?`, m.Tenant, m.Key).Scan(&amount)
		if err != nil {
			return err
		}
		if amount != m.Amount {
			d.Quarantine(fmt.Sprintf("payment %s: %d credited, now %d", m.Key, amount, m.Amount))
		}
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx,
		`UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	return tx.Commit()
}
