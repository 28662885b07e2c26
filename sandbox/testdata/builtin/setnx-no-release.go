// A copy of the built-in handler setnx-no-release (handlers/setnx_no_release.go, SetNXNoRelease) as a handler file.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Handle, as SetNXNoRelease, is SetNX without the DEL when the gateway fails.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	redisKey := "idem:" + m.Key
	d.Point(handlers.Yield)
	ok, err := d.Redis.SetNX(ctx, redisKey, "processing", d.ProcessingTTL).Result()
	if err != nil {
		return fmt.Errorf("setnx %s: %w", redisKey, err)
	}
	if !ok {
		d.Log("key %s is in progress or done: ack without charging", m.Key)
		return nil
	}

	d.Point(handlers.BeforeEffect)
	if err := d.Gateway.Charge(ctx, m.Account, m.Amount, m.Key); err != nil {
		// The bug: the key stays "processing", so the redelivery this
		// error asks for will be skipped as a duplicate.
		return fmt.Errorf("charge %s: %w", m.Account, err)
	}
	d.Point(handlers.AfterEffect)

	// The charge already happened: a nack here would charge twice.
	_ = d.Redis.Set(ctx, redisKey, "done", d.DoneTTL).Err()
	return nil
}
