// Exercise: release and finish the claim only while it is still yours.
//
// A gateway call can outlive the processing TTL. The claim expires, a
// second worker takes the key, charges and writes "done"; then the slow
// worker's DEL deletes that "done", and the next copy charges again.
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
