// quarantine-rows is an inbox that sets a conflicting message aside in a
// quarantine table of its own, one row per message and no count column:
// in one transaction it records the message's tenant, key and payload
// hash, credits, and commits; a repeat with the same payload is acked,
// one with another payload gets a row in quarantine and is acked. It is
// correct, and must pass: the oracle counts its quarantine's rows.
package handler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE inbox (
    tenant       TEXT NOT NULL,
    message_key  TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    PRIMARY KEY (tenant, message_key)
);
CREATE TABLE quarantine (
    tenant      TEXT NOT NULL,
    message_key TEXT NOT NULL,
    reason      TEXT NOT NULL
);
`

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%d", m.Account, m.Amount)))
	hash := hex.EncodeToString(sum[:])
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO inbox (tenant, message_key, payload_hash) VALUES (?, ?, ?) ON CONFLICT (tenant, message_key) DO NOTHING`,
		m.Tenant, m.Key, hash)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		var saved string
		if err := tx.QueryRowContext(ctx, `SELECT payload_hash FROM inbox WHERE tenant = ? AND message_key = ?`, m.Tenant, m.Key).Scan(&saved); err != nil {
			return err
		}
		if saved != hash {
			if _, err := tx.ExecContext(ctx, `INSERT INTO quarantine (tenant, message_key, reason) VALUES (?, ?, 'another payload under a key already applied')`,
				m.Tenant, m.Key); err != nil {
				return err
			}
		}
		return tx.Commit()
	}
	d.Point(handlers.BeforeEffect)
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	return tx.Commit()
}
