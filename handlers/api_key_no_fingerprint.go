package handlers

import (
	"context"
	"database/sql"
	"errors"
)

// Saved responses under (tenant, key), and nothing about the request that
// produced them.
const savedResponsesNoFingerprintSchema = `
CREATE TABLE saved_responses (
    tenant     TEXT    NOT NULL,
    idem_key   TEXT    NOT NULL,
    status     INTEGER NOT NULL,
    body       TEXT    NOT NULL,
    created_at TEXT    NOT NULL,
    PRIMARY KEY (tenant, idem_key)
);
`

// APIKeyNoFingerprint saves the response under (tenant, key) and replays it
// for any later request with that key.
//
// A retry of the same request is answered with the saved response and
// charges nothing. But the key is all it compares: a client that reuses a
// key for another payment (another amount, another account) is told "201,
// done" with the first payment's body, and its new payment never happens:
// a silent conflict. The fingerprint (api-key-no-lock) turns it into a 422.
// Like api-key-no-lock, it saves only at the end, so two concurrent
// requests with the key both charge; that is the next handler's lesson.
func APIKeyNoFingerprint(ctx context.Context, d Deps, r APIRequest) APIResponse {
	if r.Key == "" {
		return problem(statusMissingKey, "Idempotency-Key required", "POST /payments needs an Idempotency-Key header")
	}
	ref, now := reference(r), d.Now()
	var body string
	var status int
	err := d.DB.QueryRowContext(ctx,
		`SELECT status, body FROM saved_responses WHERE tenant = ? AND idem_key = ? AND created_at > ?`,
		r.Tenant, r.Key, stamp(now.Add(-d.KeyTTL))).Scan(&status, &body)
	if err == nil {
		// The bug: whatever this request asks for, it gets the answer to
		// the first one.
		d.Log("key %s/%s seen: replaying the saved %d", r.Tenant, r.Key, status)
		return APIResponse{Status: status, Body: body, Replayed: true}
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return serverError(d, "read key", err)
	}

	// A second request with the same key may have passed the same lookup.
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
		`INSERT INTO saved_responses (tenant, idem_key, status, body, created_at) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT (tenant, idem_key) DO UPDATE SET status = excluded.status, body = excluded.body,
		 created_at = excluded.created_at WHERE saved_responses.created_at <= ?`,
		r.Tenant, r.Key, resp.Status, resp.Body, stamp(now), stamp(now.Add(-d.KeyTTL)))
	if err != nil {
		return serverError(d, "save response", err)
	}
	if err := tx.Commit(); err != nil {
		return serverError(d, "commit", err)
	}
	return resp
}
