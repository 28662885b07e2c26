package handlers

import (
	"context"
	"fmt"
)

// SetNXNoRelease is SetNX without the DEL when the gateway fails.
//
// It fails on the first gateway error: the message is nacked, but the key
// stays "processing". The redelivery finds the key and is acked without
// charging, so nothing is left for the broker to retry: the charge is lost
// although nothing crashed.
func SetNXNoRelease(ctx context.Context, d Deps, m Message) error {
	redisKey := "idem:" + m.Key
	d.Point(Yield)
	ok, err := d.Redis.SetNX(ctx, redisKey, "processing", d.ProcessingTTL).Result()
	if err != nil {
		return fmt.Errorf("setnx %s: %w", redisKey, err)
	}
	if !ok {
		d.Log("key %s is in progress or done: ack without charging", m.Key)
		return nil
	}

	d.Point(BeforeEffect)
	if err := d.Gateway.Charge(ctx, m.Account, m.Amount, m.Key); err != nil {
		// The bug: the key stays "processing", so the redelivery this
		// error asks for will be skipped as a duplicate.
		return fmt.Errorf("charge %s: %w", m.Account, err)
	}
	d.Point(AfterEffect)

	// The charge already happened: a nack here would charge twice.
	_ = d.Redis.Set(ctx, redisKey, "done", d.DoneTTL).Err()
	return nil
}
