// Exercise: an activity that charges a card.
//
// Think of this handler as an activity in a durable-execution engine: the
// engine (here the broker) runs it until it reports success, and retries
// it when its worker dies before reporting, even if the charge went
// through. The payment provider deduplicates charges on the reference it
// is given, so a retry is harmless if it sends the same reference as the
// attempt before. This handler builds the reference from the delivery
// (m.TransportID and m.Delivery, like an activity's attempt number),
// which changes on every attempt: the provider sees a new charge each
// time. Send a reference that every attempt of the same payment shares.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	reference := fmt.Sprintf("%s#%d", m.TransportID, m.Delivery)
	d.Point(handlers.BeforeEffect)
	if err := d.Gateway.Charge(ctx, m.Account, m.Amount, reference); err != nil {
		// A timeout may hide a charge that went through: report failure
		// and let the retry find out, with the provider's help.
		return fmt.Errorf("charge %s (reference %s): %w", m.Account, reference, err)
	}
	d.Point(handlers.AfterEffect)
	d.Log("charged %s for %s (reference %s)", m.Account, m.Key, reference)
	return nil
}
