package handlers

import (
	"context"
	"fmt"
	"time"
)

// EffectFirst checks for a marker, credits the account in its own commit,
// and writes the marker afterwards.
//
// Handles duplicates that arrive after the marker was written. It fails on
// a crash between the credit and the marker: nothing records that the
// credit happened, so the redelivery credits it again (at-least-once). It
// is also racy like CheckThenInsert: two deliveries that both pass the
// check both credit, and the primary key only notices at the marker, when
// the money has already moved twice.
func EffectFirst(ctx context.Context, d Deps, m Message) error {
	var n int
	err := d.DB.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM processed WHERE idempotency_key = ?`, m.Key).Scan(&n)
	if err != nil {
		return fmt.Errorf("check marker: %w", err)
	}
	if n > 0 {
		d.Log("duplicate key %s: marker exists, ack", m.Key)
		return nil
	}

	// The race window: a second delivery may have passed the check too.
	d.Point(Yield)
	d.Point(BeforeEffect)
	if err := credit(ctx, d.DB, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	d.Point(AfterEffect)

	_, err = d.DB.ExecContext(ctx,
		`INSERT INTO processed (idempotency_key, processed_at) VALUES (?, ?)`,
		m.Key, d.Now().Format(time.RFC3339))
	if IsUniqueViolation(err, "processed_pkey", "processed.idempotency_key") {
		// Too late to refuse: our credit is already committed. Failing
		// now would only make the broker credit it once more.
		d.Log("key %s: marker written by a concurrent worker, credited twice", m.Key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert marker: %w", err)
	}
	return nil
}
