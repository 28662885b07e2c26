package handlers

import (
	"context"
	"database/sql"
	"errors"
)

// Saved responses under (tenant, key), with the request's fingerprint.
const savedResponsesSchema = `
CREATE TABLE saved_responses (
    tenant      TEXT    NOT NULL,
    idem_key    TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    status      INTEGER NOT NULL,
    body        TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    PRIMARY KEY (tenant, idem_key)
);
`

// APIKeyNoLock looks the key up, and saves the response only at the end,
// with the payment.
//
// Handles a retry that comes after the first request finished: replayed,
// and a changed body is refused with 422. It fails when the retry comes
// while the first request is still running (the client timed out and
// retried at once): nothing marks the key as taken, both requests miss it,
// both charge and both record a payment. The one that saves second keeps
// the first's saved response and still returns its own. A crash after the
// charge saves nothing either: the retry charges again, with the same
// reference (only a deduplicating provider spares the customer), and
// records one payment.
func APIKeyNoLock(ctx context.Context, d Deps, r APIRequest) APIResponse {
	if r.Key == "" {
		return problem(statusMissingKey, "Idempotency-Key required", "POST /payments needs an Idempotency-Key header")
	}
	fp, ref, now := Fingerprint(r), reference(r), d.Now()
	var savedFP, body string
	var status int
	err := d.DB.QueryRowContext(ctx,
		`SELECT fingerprint, status, body FROM saved_responses WHERE tenant = ? AND idem_key = ? AND created_at > ?`,
		r.Tenant, r.Key, stamp(now.Add(-d.KeyTTL))).Scan(&savedFP, &status, &body)
	switch {
	case err == nil && savedFP != fp:
		return problem(statusKeyReused, "Idempotency-Key reused",
			"this key was used for another request: send the same request, or use a new key")
	case err == nil:
		d.Log("repeat of %s/%s: replaying the saved %d", r.Tenant, r.Key, status)
		return APIResponse{Status: status, Body: body, Replayed: true}
	case !errors.Is(err, sql.ErrNoRows):
		return serverError(d, "read key", err)
	}

	// The race window: a second request with the same key may have passed
	// the same lookup and be right here too.
	d.Point(Yield)
	ok, err := accountExists(ctx, d.DB, r.Account)
	if err != nil {
		return serverError(d, "read account", err)
	}
	if !ok {
		return problem(statusNoAccount, "Account not found", "no account "+r.Account) // not saved
	}
	d.Point(BeforeEffect)
	if err := d.Gateway.Charge(ctx, r.Account, r.Amount, ref); err != nil {
		d.Log("charge %s/%s: %v", r.Tenant, r.Key, err)
		return problem(statusGatewayDown, "Payment provider failed", "the payment provider did not confirm the charge: retry with the same key")
	}
	d.Point(AfterEffect)

	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return serverError(d, "begin", err)
	}
	defer tx.Rollback()
	p, err := recordPayment(ctx, tx, d, r, ref)
	if err != nil {
		return serverError(d, "record payment", err)
	}
	resp := created(p)
	// Saved over an expired row, but never over a live one.
	_, err = tx.ExecContext(ctx,
		`INSERT INTO saved_responses (tenant, idem_key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)
		 ON CONFLICT (tenant, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
		 body = excluded.body, created_at = excluded.created_at WHERE saved_responses.created_at <= ?`,
		r.Tenant, r.Key, fp, resp.Status, resp.Body, stamp(now), stamp(now.Add(-d.KeyTTL)))
	if err != nil {
		return serverError(d, "save response", err)
	}
	if err := tx.Commit(); err != nil {
		return serverError(d, "commit", err)
	}
	return resp
}
