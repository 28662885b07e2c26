// panics-deep credits through two helpers, and panics on a payload it
// cannot read (an amount over 12000): a handler that crashes for real,
// deep in its own calls, besides the crashes the search simulates.
package handler

import (
	"context"

	"github.com/idempotency-lab/lab/handlers"
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	return credit(ctx, d, m)
}

func credit(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	return apply(ctx, d, m.Account, check(m.Amount))
}

func check(amount int64) int64 {
	if amount > 12000 {
		var limits map[string]int64
		limits["over"] = amount // a nil map: a real panic
	}
	return amount
}

func apply(ctx context.Context, d handlers.Deps, account string, amount int64) error {
	d.Point(handlers.BeforeEffect)
	_, err := d.DB.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, account)
	d.Point(handlers.AfterEffect)
	return err
}
