// Solution: the reference names the payment, not the attempt. Every
// attempt of one payment (a retry after a crash, a redelivery after a
// timeout, a producer's resend) carries the same tenant and key, so the
// provider charges the first and answers the rest with success. In
// Temporal the same role is played by the workflow's run id and the
// activity's id, which stay the same across the activity's attempts.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	reference := m.Tenant + "/" + m.Key
	d.Point(handlers.BeforeEffect)
	if err := d.Gateway.Charge(ctx, m.Account, m.Amount, reference); err != nil {
		// A timeout may hide a charge that went through: report failure;
		// the retry sends the same reference, and the provider does not
		// charge it twice.
		return fmt.Errorf("charge %s (reference %s): %w", m.Account, reference, err)
	}
	d.Point(handlers.AfterEffect)
	d.Log("charged %s for %s (reference %s, delivery %s)", m.Account, m.Key, reference, m.TransportID)
	return nil
}
