// Package charge is an example of a message handler checked with the
// idempotency lab's labtest kit: Credit is the bug every lesson starts
// with, CreditOnce the fix.
package charge

import (
	"context"

	"github.com/idempotency-lab/lab/handlers"
)

// Credit adds the message's amount to the account: a redelivered message
// credits again.
func Credit(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.BeforeEffect)
	if _, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	d.Point(handlers.AfterEffect) // a named crash point: the credit is durable
	return nil
}

// CreditOnceSchema is the table CreditOnce keeps its keys in: one row per
// tenant and key, with the payload's amount to tell a repeat from a change.
const CreditOnceSchema = `
CREATE TABLE credited (
    tenant TEXT    NOT NULL,
    key    TEXT    NOT NULL,
    amount INTEGER NOT NULL,
    PRIMARY KEY (tenant, key)
);
CREATE TABLE quarantine (
    tenant TEXT    NOT NULL,
    key    TEXT    NOT NULL,
    amount INTEGER NOT NULL,
    count  INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (tenant, key, amount)
);
`

// CreditOnce records the key and credits in one transaction: a repeat
// finds the key and acks; the same key with another amount goes to
// quarantine for a person to look at.
func CreditOnce(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	d.Point(handlers.BeforeEffect)
	res, err := tx.ExecContext(ctx, `INSERT INTO credited (tenant, key, amount) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		m.Tenant, m.Key, m.Amount)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var amount int64
		if err := tx.QueryRowContext(ctx, `SELECT amount FROM credited WHERE tenant = ? AND key = ?`, m.Tenant, m.Key).Scan(&amount); err != nil {
			return err
		}
		if amount != m.Amount {
			// The same key with another payload: keep it for a person.
			if _, err := tx.ExecContext(ctx, `INSERT INTO quarantine (tenant, key, amount) VALUES (?, ?, ?)
				ON CONFLICT DO UPDATE SET count = count + 1`, m.Tenant, m.Key, m.Amount); err != nil {
				return err
			}
		}
		return tx.Commit() // a repeat: ack
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	d.Point(handlers.AfterEffect)
	return nil
}
