package handlers

import (
	"context"
	"database/sql"
	"time"
)

// shortKeyTTL is how long this server keeps a key: shorter than the time a
// client may still retry (a mobile app back online, a retry queue, a
// person pressing the button again an hour later).
const shortKeyTTL = time.Minute

// APIKeyShortTTL is APIIdempotencyKey line for line (the same table, lock,
// recovery points and saved responses) except for one constant: it forgets
// a key after shortKeyTTL instead of d.KeyTTL.
//
// Everything works inside that minute. A retry after it finds no key, is
// taken for a new request and charged again (with the same reference, so a
// provider that still remembers it deduplicates the charge, but the
// payment is recorded and the account credited a second time). The key's
// lifetime must outlast the client's retry horizon: Stripe prunes a key
// only once it is at least 24 hours old, and the draft asks a server to
// publish its expiry policy.
func APIKeyShortTTL(ctx context.Context, d Deps, r APIRequest) APIResponse {
	if r.Key == "" {
		// The draft: 400 when an endpoint that requires the key gets none.
		return problem(statusMissingKey, "Idempotency-Key required", "POST /payments needs an Idempotency-Key header")
	}
	fp, ref, now := Fingerprint(r), reference(r), d.Now()
	lock := stamp(now) // our locked_at; it also tells our lock from a later taker's

	// Phase 1: claim the key.
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return serverError(d, "begin", err)
	}
	defer tx.Rollback()
	// The bug: keys expire after shortKeyTTL, whatever d.KeyTTL says. An
	// expired key counts as absent, and its request is charged again.
	if _, err := tx.ExecContext(ctx,
		`DELETE FROM idempotency_keys WHERE tenant = ? AND idem_key = ? AND created_at <= ?`,
		r.Tenant, r.Key, stamp(now.Add(-shortKeyTTL))); err != nil {
		return serverError(d, "expire key", err)
	}
	res, err := tx.ExecContext(ctx,
		`INSERT INTO idempotency_keys (tenant, idem_key, fingerprint, recovery_point, locked_at, created_at)
		 VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, idem_key) DO NOTHING`,
		r.Tenant, r.Key, fp, pointStarted, lock, lock)
	if err != nil {
		return serverError(d, "claim key", err)
	}
	point := pointStarted
	if n, _ := res.RowsAffected(); n == 1 {
		// A new key. An unknown account is a final answer: saved, so a
		// retry gets the same 404 even if the account appears meanwhile
		// (the key names this attempt, and it was refused; a new attempt
		// takes a new key). Stripe saves results the same way, once the
		// endpoint has started to execute.
		ok, err := accountExists(ctx, tx, r.Account)
		if err != nil {
			return serverError(d, "read account", err)
		}
		if !ok {
			resp := problem(statusNoAccount, "Account not found", "no account "+r.Account)
			if _, err := tx.ExecContext(ctx,
				`UPDATE idempotency_keys SET recovery_point = ?, locked_at = NULL, response_status = ?, response_body = ?
				 WHERE tenant = ? AND idem_key = ?`,
				pointFinished, resp.Status, resp.Body, r.Tenant, r.Key); err != nil {
				return serverError(d, "save response", err)
			}
			if err := tx.Commit(); err != nil {
				return serverError(d, "commit", err)
			}
			return resp
		}
	} else {
		var savedFP string
		var status sql.NullInt64
		var body sql.NullString
		err := tx.QueryRowContext(ctx,
			`SELECT fingerprint, recovery_point, response_status, response_body FROM idempotency_keys
			 WHERE tenant = ? AND idem_key = ?`, r.Tenant, r.Key).Scan(&savedFP, &point, &status, &body)
		switch {
		case err != nil:
			return serverError(d, "read key", err)
		case savedFP != fp:
			// The draft: 422 for a key reused with another payload. Stripe
			// answers an error of type idempotency_error. Nothing saved.
			return problem(statusKeyReused, "Idempotency-Key reused",
				"this key was used for another request: send the same request, or use a new key")
		case point == pointFinished:
			d.Log("repeat of %s/%s: replaying the saved %d", r.Tenant, r.Key, status.Int64)
			return APIResponse{Status: int(status.Int64), Body: body.String, Replayed: true}
		}
		// Not finished. Take the lock if it is free (released after a
		// gateway failure) or stale (its server died); otherwise the first
		// request is still running: 409, as the draft says and Stripe does.
		// Nothing saved: the client retries the same request later.
		res, err := tx.ExecContext(ctx,
			`UPDATE idempotency_keys SET locked_at = ?
			 WHERE tenant = ? AND idem_key = ? AND (locked_at IS NULL OR locked_at <= ?)`,
			lock, r.Tenant, r.Key, stamp(now.Add(-lockTimeout)))
		if err != nil {
			return serverError(d, "lock key", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return problem(statusInFlight, "Request in progress",
				"a request with this Idempotency-Key is in progress: retry later")
		}
		d.Log("%s/%s taken over at recovery point %s", r.Tenant, r.Key, point)
	}
	if err := tx.Commit(); err != nil {
		return serverError(d, "commit", err)
	}

	// Phase 2: the charge, outside any transaction. A second request with
	// this key arriving now finds it locked.
	d.Point(Yield)
	if point == pointStarted {
		d.Point(BeforeEffect)
		if err := d.Gateway.Charge(ctx, r.Account, r.Amount, ref); err != nil {
			// Not final: nothing says the charge happened, and a retry may
			// succeed. Release the lock (only if still ours) and save
			// nothing, so the retry runs this phase again, with the same
			// reference. (Stripe saves even its 500s; a server that saves
			// this one would tell the retry "failed" for ever.)
			d.DB.ExecContext(ctx,
				`UPDATE idempotency_keys SET locked_at = NULL WHERE tenant = ? AND idem_key = ? AND locked_at = ?`,
				r.Tenant, r.Key, lock)
			d.Log("charge %s/%s: %v", r.Tenant, r.Key, err)
			return problem(statusGatewayDown, "Payment provider failed", "the payment provider did not confirm the charge: retry with the same key")
		}
		d.Point(AfterEffect)
		res, err := d.DB.ExecContext(ctx,
			`UPDATE idempotency_keys SET recovery_point = ? WHERE tenant = ? AND idem_key = ? AND locked_at = ?`,
			pointCharged, r.Tenant, r.Key, lock)
		if err != nil {
			return serverError(d, "record charge", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// We were too slow and another request took the key over; it
			// charges with the same reference and finishes.
			return problem(statusInFlight, "Request in progress", "another request with this Idempotency-Key took over")
		}
	}

	// Phase 3: record the payment, credit the account and save the
	// response, all or nothing; the lock is the fence (a request that was
	// taken over writes nothing).
	tx, err = d.DB.BeginTx(ctx, nil)
	if err != nil {
		return serverError(d, "begin", err)
	}
	defer tx.Rollback()
	p, err := recordPayment(ctx, tx, d, r, ref)
	if err != nil {
		return serverError(d, "record payment", err)
	}
	resp := created(p)
	res, err = tx.ExecContext(ctx,
		`UPDATE idempotency_keys SET recovery_point = ?, locked_at = NULL, response_status = ?, response_body = ?
		 WHERE tenant = ? AND idem_key = ? AND locked_at = ?`,
		pointFinished, resp.Status, resp.Body, r.Tenant, r.Key, lock)
	if err != nil {
		return serverError(d, "save response", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return problem(statusInFlight, "Request in progress", "another request with this Idempotency-Key took over")
	}
	if err := tx.Commit(); err != nil {
		return serverError(d, "commit", err)
	}
	return resp
}
