package handlers

import (
	"context"
	"fmt"
	"time"
)

const markerSchema = `
CREATE TABLE processed (
    idempotency_key TEXT PRIMARY KEY,
    processed_at    TEXT NOT NULL
);
`

// MarkerFirst commits a "processed" marker for the key, and then credits
// the account in a second, separate commit.
//
// Duplicates and races are stopped by the primary key on the marker. It
// fails on a crash between the two commits: the marker says the key is
// done, so every redelivery is acked as a duplicate, and the top-up is lost
// for good (at-most-once).
func MarkerFirst(ctx context.Context, d Deps, m Message) error {
	d.Point(Yield)
	_, err := d.DB.ExecContext(ctx,
		`INSERT INTO processed (idempotency_key, processed_at) VALUES (?, ?)`,
		m.Key, d.Now().Format(time.RFC3339))
	if IsUniqueViolation(err, "processed_pkey", "processed.idempotency_key") {
		d.Log("duplicate key %s: marker exists, ack", m.Key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert marker: %w", err)
	}

	// The marker is committed; the credit is not. Nothing ties them
	// together from here on.
	d.Point(BeforeEffect)
	if err := credit(ctx, d.DB, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	d.Point(AfterEffect)
	return nil
}
