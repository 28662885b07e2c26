package handlers

import (
	"context"
	"fmt"
)

const brokerKeySchema = `
CREATE TABLE deliveries (
    id           INTEGER PRIMARY KEY,
    transport_id TEXT    NOT NULL,
    account      TEXT    NOT NULL,
    amount       INTEGER NOT NULL,
    CONSTRAINT uq_deliveries_transport_id UNIQUE (transport_id)
);
`

// BrokerKey is Unique keyed on the broker's transport id (here a Kafka-like
// topic/partition/offset) instead of the producer's idempotency key.
//
// A plain redelivery of the same record carries the same offset, so that
// case is caught (a RabbitMQ delivery tag would not even give that: it
// changes on every delivery). But the transport id names a broker record,
// not an operation: a producer retry, a replay from the dead-letter queue
// or a republish is a new record with a new id, and is credited again.
func BrokerKey(ctx context.Context, d Deps, m Message) error {
	d.Point(Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO deliveries (transport_id, account, amount) VALUES (?, ?, ?)`,
		m.TransportID, m.Account, m.Amount)
	if IsUniqueViolation(err, "uq_deliveries_transport_id", "deliveries.transport_id") {
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
	d.Point(AfterEffect)
	return nil
}
