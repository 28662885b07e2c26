// Exercise: keep the operation's identity longer than the inbox.
//
// A cleanup job deletes inbox rows older than the retention window
// (the rows' created_at). A copy that comes later, a DLQ replay on Monday
// or a producer's late retry, finds no row, looks new and is credited a
// second time.
package handler

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE inbox (
    tenant       TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    response     TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (tenant, operation_id)
);
CREATE TABLE quarantine (
    tenant       TEXT    NOT NULL,
    operation_id TEXT    NOT NULL,
    payload_hash TEXT    NOT NULL,
    saved_hash   TEXT    NOT NULL,
    amount       INTEGER NOT NULL,
    transport_id TEXT    NOT NULL,
    received_at  TEXT    NOT NULL,
    count        INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (tenant, operation_id, payload_hash)
);
`

// payloadHash is the hex SHA-256 of the business fields in a fixed order
// (a canonical form: the same request always hashes the same), transport
// fields left out: a redelivery or a DLQ replay has new ones.
func payloadHash(m handlers.Message) string {
	canonical := fmt.Sprintf("account=%s\namount=%d\norder=%s\n", m.Account, m.Amount, m.OrderID)
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:])
}

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	hash := payloadHash(m)
	var savedHash, response string
	err := d.DB.QueryRowContext(ctx,
		`SELECT payload_hash, response FROM inbox WHERE tenant = ? AND operation_id = ?`,
		m.Tenant, m.Key).Scan(&savedHash, &response)
	switch {
	case err == nil && savedHash == hash:
		d.Log("repeat of %s/%s: replaying saved response %q", m.Tenant, m.Key, response)
		return nil
	case err == nil:
		// Same operation id, different content: neither a repeat nor a new
		// operation. Keep the evidence and ack; a nack would only loop. A
		// redelivery of the same conflicting message counts on its row
		// instead of adding one: one conflict, one row for a person to resolve.
		_, err = d.DB.ExecContext(ctx,
			`INSERT INTO quarantine (tenant, operation_id, payload_hash, saved_hash, amount, transport_id, received_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (tenant, operation_id, payload_hash) DO UPDATE SET count = quarantine.count + 1`,
			m.Tenant, m.Key, hash, savedHash, m.Amount, m.TransportID, d.Now().Format(time.RFC3339))
		if err != nil {
			return fmt.Errorf("quarantine: %w", err)
		}
		d.Log("conflict on %s/%s: payload differs from the saved one, quarantined", m.Tenant, m.Key)
		return nil
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("read inbox: %w", err)
	}

	// Not seen yet, as far as this read can tell: a racing duplicate may
	// be right here too. The primary key on (tenant, operation_id) decides.
	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(handlers.BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO inbox (tenant, operation_id, payload_hash, response, created_at) VALUES (?, ?, ?, ?, ?)`,
		m.Tenant, m.Key, hash, fmt.Sprintf("credited %d to %s", m.Amount, m.Account),
		d.Now().Format(time.RFC3339))
	if handlers.IsUniqueViolation(err, "inbox_pkey", "inbox.tenant, inbox.operation_id") {
		// The racing duplicate committed first. Nack: the redelivery reads
		// its row and compares the hashes, like any repeat.
		return fmt.Errorf("inbox %s/%s written concurrently: %w", m.Tenant, m.Key, err)
	}
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
