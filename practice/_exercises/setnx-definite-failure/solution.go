// A solution: tell a definite failure from an ambiguous one, and release
// the claim only after a definite one.
package handler

import (
	"context"
	"fmt"
	"strings"

	"github.com/idempotency-lab/lab/handlers"
)

// definite reports whether a charge error proves that no money moved. The
// lab's gateway, when down, refuses the request with "unavailable (503)".
// A real client would look at the provider's documented error codes; any
// error it does not know is treated as ambiguous, the safe default.
func definite(err error) bool {
	return strings.Contains(err.Error(), "unavailable (503)")
}

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
		if definite(err) {
			// Nothing was charged: free the key, so that the redelivery
			// this error asks for can charge.
			d.Redis.Del(ctx, redisKey)
			return fmt.Errorf("charge %s refused: %w", m.Account, err)
		}
		// A timeout: the charge may have happened. Keep the claim, so
		// that no copy charges blindly while it lives, and let a person
		// (or a lookup by the reference m.Key) find out what happened.
		d.Log("charge %s for key %s is unknown: claim kept", m.Account, m.Key)
		return fmt.Errorf("charge %s: outcome unknown: %w", m.Account, err)
	}
	d.Point(handlers.AfterEffect)

	// The charge happened: ack, whatever this SET returns.
	_ = d.Redis.Set(ctx, redisKey, "done", d.DoneTTL).Err()
	return nil
}
