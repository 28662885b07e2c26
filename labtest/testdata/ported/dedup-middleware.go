// dedup-middleware is a message deduplicator written as middleware
// around a plain handler, as messaging libraries offer one: before the
// wrapped handler runs, it records the message's key in Redis with SET NX
// and a time to live (the deduplication window, done-ttl), and drops a
// message whose key is already there. The key is the message's key
// alone, the tenant left out, and the mark comes before the work.
//
// What its design predicts: a worker that dies between the mark and the
// credit leaves a mark with no credit, and the redelivery is dropped
// (lost) unless it comes after the window; a producer's retry after the
// window credits again (duplicate); another tenant's message with the
// same key is dropped (lost); another payload under the key is dropped
// without a trace (silent conflict).
package handler

import (
	"context"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

type next func(ctx context.Context, d handlers.Deps, m handlers.Message) error

// deduplicate drops a message seen within the window, else marks it and
// runs h.
func deduplicate(window time.Duration, h next) next {
	return func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		first, err := d.Redis.SetNX(ctx, "dedup:"+m.Key, 1, window).Result()
		if err != nil {
			return err
		}
		if !first {
			d.Log("dropped %s: seen within %s", m.Key, window)
			return nil
		}
		return h(ctx, d, m)
	}
}

func credit(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.BeforeEffect)
	_, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account)
	return err
}

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	return deduplicate(d.DoneTTL, credit)(ctx, d, m)
}
