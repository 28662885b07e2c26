package handlers

import (
	"context"
	"fmt"
)

// Naive credits the account every time a message arrives.
//
// Guarantees nothing: a redelivery after a crash before the ack, a producer
// retry or a concurrent duplicate each credit the top-up once more.
func Naive(ctx context.Context, d Deps, m Message) error {
	d.Point(BeforeEffect)
	if err := credit(ctx, d.DB, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	d.Point(AfterEffect)
	return nil
}
