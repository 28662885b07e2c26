package handlers

import (
	"context"
	"time"
)

// shortKeyTTL is how long this server keeps a key: shorter than the time a
// client may still retry (a mobile app back online, a retry queue, a
// person pressing the button again an hour later).
const shortKeyTTL = time.Minute

// APIKeyShortTTL is APIIdempotencyKey itself (the same table, lock,
// recovery points and saved responses) on a server that keeps its keys
// shortKeyTTL instead of d.KeyTTL.
//
// Everything works inside that minute. A retry after it finds no key, is
// taken for a new request and charged again (with the same reference, so a
// provider that still remembers it deduplicates the charge, but the
// payment is recorded and the account credited a second time). The key's
// lifetime must outlast the client's retry horizon: Stripe prunes a key
// only once it is at least 24 hours old, and the draft asks a server to
// publish its expiry policy.
func APIKeyShortTTL(ctx context.Context, d Deps, r APIRequest) APIResponse {
	// The bug: a minute, whatever the clients' retries need.
	d.KeyTTL = shortKeyTTL
	return APIIdempotencyKey(ctx, d, r)
}
