// A solution: the claim knows its owner, and only its owner releases it
// or turns it into "done".
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// The claim's value is a token only this attempt has. These two scripts run
// inside Redis, atomically: GET and DEL (or SET) with no other command in
// between, so a key that changed hands after the GET cannot be touched.
const (
	// releaseIfOwner deletes the claim only while it is still ours.
	releaseIfOwner = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`
	// finishUnlessTaken writes "done" for ARGV[2] milliseconds over our
	// claim, or over no key at all (our claim expired and nobody took it),
	// but never over another worker's claim or its "done".
	finishUnlessTaken = `local v = redis.call('GET', KEYS[1]) if v == ARGV[1] or not v then redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2]) return 1 end return 0`
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	redisKey := "idem:" + m.Key
	// Unique per attempt. In production, a random UUID; the lab derives
	// it from the delivery so that every run is the same.
	token := fmt.Sprintf("%s#%d", m.TransportID, m.Delivery)
	d.Point(handlers.Yield)
	ok, err := d.Redis.SetNX(ctx, redisKey, token, d.ProcessingTTL).Result()
	if err != nil {
		return fmt.Errorf("setnx %s: %w", redisKey, err)
	}
	if !ok {
		d.Log("key %s is in progress or done: ack without charging", m.Key)
		return nil
	}

	d.Point(handlers.BeforeEffect)
	if err := d.Gateway.Charge(ctx, m.Account, m.Amount, m.Key); err != nil {
		// Release the claim if it is still ours, so that the redelivery
		// can try again; if it expired and another worker holds the key,
		// leave that worker's claim (or its "done") alone.
		d.Redis.Eval(ctx, releaseIfOwner, []string{redisKey}, token)
		return fmt.Errorf("charge %s: %w", m.Account, err)
	}
	d.Point(handlers.AfterEffect)

	// The charge happened: ack whatever this returns. If another worker
	// holds the key now, it writes "done" itself when it finishes.
	n, _ := d.Redis.Eval(ctx, finishUnlessTaken, []string{redisKey}, token, d.DoneTTL.Milliseconds()).Int()
	if n == 0 {
		d.Log("key %s was taken over during the charge: left to the worker that holds it", m.Key)
	}
	return nil
}
