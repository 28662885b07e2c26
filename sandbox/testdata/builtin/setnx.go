// A copy of the built-in handler setnx (handlers/setnx.go, SetNX) as a handler file.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Handle, as SetNX, guards a call to an external payment gateway with a Redis key: SET
// NX claims the operation ("processing"), and once the charge succeeded the
// key is overwritten with "done" for DoneTTL. A gateway error releases the
// key so that the redelivery can try again.
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
		// Release the claim. Otherwise the redelivery would find the key,
		// be skipped, and the customer would never be charged. (Whatever
		// the key holds now: after ProcessingTTL it may be another
		// worker's claim, or its "done".)
		d.Redis.Del(ctx, redisKey)
		return fmt.Errorf("charge %s: %w", m.Account, err)
	}
	d.Point(handlers.AfterEffect)

	// The charge already happened. Returning an error here would nack the
	// message and the redelivery, finding the key released or expired,
	// would charge a second time. If this SET fails, the "processing" key
	// still blocks duplicates until ProcessingTTL runs out.
	_ = d.Redis.Set(ctx, redisKey, "done", d.DoneTTL).Err()
	return nil
}
