// A copy of the built-in handler broker-key (handlers/broker_key.go, BrokerKey) as a handler file.
package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema is the built-in's brokerKeySchema.
const Schema = `
CREATE TABLE deliveries (
    id           INTEGER PRIMARY KEY,
    transport_id TEXT    NOT NULL,
    account      TEXT    NOT NULL,
    amount       INTEGER NOT NULL,
    CONSTRAINT uq_deliveries_transport_id UNIQUE (transport_id)
);
`

// Handle, as BrokerKey, is Unique keyed on the broker's transport id (here a Kafka-like
// topic/partition/offset) instead of the producer's idempotency key.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(handlers.BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO deliveries (transport_id, account, amount) VALUES (?, ?, ?)`,
		m.TransportID, m.Account, m.Amount)
	if handlers.IsUniqueViolation(err, "uq_deliveries_transport_id", "deliveries.transport_id") {
		d.Log("duplicate delivery %s: already processed, ack", m.TransportID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert delivery: %w", err)
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

// credit is handlers.credit.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

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
