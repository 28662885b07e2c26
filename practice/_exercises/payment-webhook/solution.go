// A solution: record the payment first, in the transaction of the credit.
// The primary key on (tenant, payment_id) lets exactly one copy of a
// payment through, whichever event or resend brings it; every other copy
// loses on the insert and is judged by the row it lost to: the same
// payload is a repeat (200, nothing credited), another payload is a
// conflict (quarantined for a person, and 200 as well: a webhook sender
// resends on any other status, so a 422 would only bring the conflict
// back on every retry). The delivery's own id goes to the log.
package handler

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE received_payments (
    tenant       TEXT NOT NULL,
    payment_id   TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    delivery_id  TEXT NOT NULL, -- the first delivery's id, for the log
    received_at  TEXT NOT NULL,
    PRIMARY KEY (tenant, payment_id)
);
CREATE TABLE quarantine (
    tenant       TEXT    NOT NULL,
    payment_id   TEXT    NOT NULL,
    payload_hash TEXT    NOT NULL,
    saved_hash   TEXT    NOT NULL,
    amount       INTEGER NOT NULL,
    transport_id TEXT    NOT NULL,
    received_at  TEXT    NOT NULL,
    count        INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (tenant, payment_id, payload_hash)
);
`

// payloadHash is the hex SHA-256 of the payment's business fields in a
// fixed order: never of the raw body, whose key order and whitespace may
// change between resends.
func payloadHash(m handlers.Message) string {
	canonical := fmt.Sprintf("account=%s\namount=%d\norder=%s\n", m.Account, m.Amount, m.OrderID)
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:])
}

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	hash := payloadHash(m)
	now := d.Now().Format(time.RFC3339)
	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(handlers.BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO received_payments (tenant, payment_id, payload_hash, delivery_id, received_at) VALUES (?, ?, ?, ?, ?)`,
		m.Tenant, m.Key, hash, m.TransportID, now)
	if handlers.IsUniqueViolation(err, "received_payments_pkey", "received_payments.tenant, received_payments.payment_id") {
		tx.Rollback()
		return seenBefore(ctx, d, m, hash, now)
	}
	if err != nil {
		return fmt.Errorf("record payment: %w", err) // 500: the provider retries
	}
	if err := credit(ctx, tx, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	d.Point(handlers.AfterEffect)
	return nil // 200 OK
}

// seenBefore answers a payment that is recorded already, by the row it
// lost to.
func seenBefore(ctx context.Context, d handlers.Deps, m handlers.Message, hash, now string) error {
	var saved string
	err := d.DB.QueryRowContext(ctx,
		`SELECT payload_hash FROM received_payments WHERE tenant = ? AND payment_id = ?`,
		m.Tenant, m.Key).Scan(&saved)
	if err != nil {
		return fmt.Errorf("read payment: %w", err)
	}
	if saved == hash {
		d.Log("payment %s/%s again (delivery %s): 200, nothing credited", m.Tenant, m.Key, m.TransportID)
		return nil
	}
	// The same payment with another payload: keep the evidence, one row
	// per conflicting payload, counting its resends.
	_, err = d.DB.ExecContext(ctx,
		`INSERT INTO quarantine (tenant, payment_id, payload_hash, saved_hash, amount, transport_id, received_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?)
		 ON CONFLICT (tenant, payment_id, payload_hash) DO UPDATE SET count = quarantine.count + 1`,
		m.Tenant, m.Key, hash, saved, m.Amount, m.TransportID, now)
	if err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	d.Log("payment %s/%s came back with another payload (delivery %s): quarantined, 200", m.Tenant, m.Key, m.TransportID)
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
