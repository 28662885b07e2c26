// Exercise: release the claim only when the charge definitely failed.
//
// The handler deletes its Redis claim on every gateway error, so that the
// redelivery can charge. That is right when the gateway refused the
// request, and wrong when the call timed out after the money had moved:
// the redelivery then charges the customer a second time.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

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
		d.Redis.Del(ctx, redisKey)
		return fmt.Errorf("charge %s: %w", m.Account, err)
	}
	d.Point(handlers.AfterEffect)

	// The charge happened: ack, whatever this SET returns.
	_ = d.Redis.Set(ctx, redisKey, "done", d.DoneTTL).Err()
	return nil
}
