// received-messages is a duplicate detector as the pattern is often
// written: in the transaction that credits, it first inserts the
// message's tenant and key into a table of received messages, and takes
// an error of that INSERT to mean "received before": it compares the
// payload with the one received, sets a changed one aside, and commits.
// Any other error is a failure: the broker delivers the message again.
//
// On SQLite a failed statement fails alone: the transaction goes on, and
// a repeat is acked. On PostgreSQL the duplicate key (23505) aborts the
// whole transaction: the SELECT after it fails (25P02), the repeat is
// nacked and redelivered until the dead-letter queue.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE received_messages (
    tenant      TEXT    NOT NULL,
    message_key TEXT    NOT NULL,
    account     TEXT    NOT NULL,
    amount      INTEGER NOT NULL,
    PRIMARY KEY (tenant, message_key)
);
`

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO received_messages (tenant, message_key, account, amount) VALUES (?, ?, ?, ?)`,
		m.Tenant, m.Key, m.Account, m.Amount); err != nil {
		var account string
		var amount int64
		if err := tx.QueryRowContext(ctx, `SELECT account, amount FROM received_messages WHERE tenant = ? AND message_key = ?`,
			m.Tenant, m.Key).Scan(&account, &amount); err != nil {
			return fmt.Errorf("read the received message %s: %w", m.Key, err)
		}
		if account != m.Account || amount != m.Amount {
			d.Quarantine(fmt.Sprintf("%s came again with another payload", m.Key))
		}
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	return tx.Commit()
}
