package handlers

import (
	"context"
	"fmt"
)

// SetNX guards a call to an external payment gateway with a Redis key: SET
// NX claims the operation ("processing"), and once the charge succeeded the
// key is overwritten with "done" for DoneTTL. A gateway error releases the
// key so that the redelivery can try again.
//
// Guarantees one charge per key while the key lives, also for racing
// duplicates (SET NX is atomic). It fails in the grey zone: the Redis key
// and the charge are not one transaction. A worker that dies between SET NX
// and the end of the charge leaves the key "processing" until
// ProcessingTTL expires; every redelivery in that time is acked without
// charging, so the customer may never be charged (at-most-once). A worker
// that dies after the charge but before SET done leaves "processing" too:
// a redelivery after ProcessingTTL charges a second time. And once DoneTTL
// has expired, a late redelivery finds no key and charges again.
//
// Two more limits (setnx_token.go, SetNXToken, shows what helps):
//
//   - An error from the gateway is not proof that nothing was charged. A
//     timeout may come after the charge took effect; releasing the key then
//     lets the redelivery charge a second time. No Redis key can fix that:
//     only a provider that deduplicates on the reference it is given (here
//     m.Key, the idempotency key) turns the retry into a no-op.
//   - The claim is not owned. Once ProcessingTTL runs out in the middle of
//     a slow gateway call, another worker may claim the key; this worker's
//     DEL (on a failure) or SET done then deletes or overwrites a key that
//     is no longer its own, and the next duplicate finds the door open.
func SetNX(ctx context.Context, d Deps, m Message) error {
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
		// Release the claim. Otherwise the redelivery would find the key,
		// be skipped, and the customer would never be charged. (Whatever
		// the key holds now: after ProcessingTTL it may be another
		// worker's claim, or its "done".)
		d.Redis.Del(ctx, redisKey)
		return fmt.Errorf("charge %s: %w", m.Account, err)
	}
	d.Point(AfterEffect)

	// The charge already happened. Returning an error here would nack the
	// message and the redelivery, finding the key released or expired,
	// would charge a second time. If this SET fails, the "processing" key
	// still blocks duplicates until ProcessingTTL runs out.
	_ = d.Redis.Set(ctx, redisKey, "done", d.DoneTTL).Err()
	return nil
}
