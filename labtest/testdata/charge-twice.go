// charge-twice credits whatever it is given: a redelivery credits again.
package handler

import (
	"context"

	"github.com/idempotency-lab/lab/handlers"
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	_, err := d.DB.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account)
	return err
}
