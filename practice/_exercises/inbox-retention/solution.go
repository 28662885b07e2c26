// A solution: the inbox keeps the saved responses, and the cleanup job
// may delete them after the retention window. The identity of each
// operation and its payload hash go to a narrow table of their own, which
// nothing deletes: repeats and conflicts are decided there, however late
// the copy comes.
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

// operations is a few dozen bytes a row, kept past the replay horizon
// (here: for ever); inbox holds the bulky responses, cleaned up by
// created_at.
const Schema = `
CREATE TABLE operations (
    tenant       TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    PRIMARY KEY (tenant, operation_id)
);
CREATE TABLE inbox (
    tenant       TEXT NOT NULL,
    operation_id TEXT NOT NULL,
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

// payloadHash is the hex SHA-256 of the business fields in a fixed order,
// transport fields left out.
func payloadHash(m handlers.Message) string {
	canonical := fmt.Sprintf("account=%s\namount=%d\norder=%s\n", m.Account, m.Amount, m.OrderID)
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:])
}

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	hash := payloadHash(m)
	// The identity decides; the response comes along while it is kept.
	var savedHash string
	var response sql.NullString
	err := d.DB.QueryRowContext(ctx,
		`SELECT o.payload_hash, i.response
		 FROM operations o
		 LEFT JOIN inbox i ON i.tenant = o.tenant AND i.operation_id = o.operation_id
		 WHERE o.tenant = ? AND o.operation_id = ?`,
		m.Tenant, m.Key).Scan(&savedHash, &response)
	switch {
	case err == nil && savedHash == hash && response.Valid:
		d.Log("repeat of %s/%s: replaying saved response %q", m.Tenant, m.Key, response.String)
		return nil
	case err == nil && savedHash == hash:
		// Older than the inbox's retention: the answer is gone, the
		// operation is not. Still a repeat: ack, credit nothing.
		d.Log("repeat of %s/%s after its response was cleaned up: ack", m.Tenant, m.Key)
		return nil
	case err == nil:
		// Same operation id, different content: keep the evidence, ack.
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
		return fmt.Errorf("read operations: %w", err)
	}

	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(handlers.BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO operations (tenant, operation_id, payload_hash) VALUES (?, ?, ?)`,
		m.Tenant, m.Key, hash)
	if handlers.IsUniqueViolation(err, "operations_pkey", "operations.tenant, operations.operation_id") {
		// A racing copy committed first: nack, and the redelivery
		// compares hashes like any repeat.
		return fmt.Errorf("operation %s/%s written concurrently: %w", m.Tenant, m.Key, err)
	}
	if err != nil {
		return fmt.Errorf("insert operation: %w", err)
	}
	// All three in one transaction: the identity, the response, the credit.
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
