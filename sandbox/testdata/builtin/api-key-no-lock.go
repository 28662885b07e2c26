// A copy of the built-in handler api-key-no-lock (handlers/api_key_no_lock.go, APIKeyNoLock) as a handler file.
package handler

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema is the built-in's paymentsSchema + savedResponsesSchema.
const Schema = `
CREATE TABLE payments (
    id         INTEGER PRIMARY KEY,
    tenant     TEXT    NOT NULL,
    account    TEXT    NOT NULL,
    amount     INTEGER NOT NULL,
    reference  TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);

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

// Handle, as APIKeyNoLock, looks the key up, and saves the response only at the end,
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
func Handle(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse {
	if r.Key == "" {
		return problem(statusMissingKey, "Idempotency-Key required", "POST /payments needs an Idempotency-Key header")
	}
	fp, ref, now := handlers.Fingerprint(r), reference(r), d.Now()
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
		return handlers.APIResponse{Status: status, Body: body, Replayed: true}
	case !errors.Is(err, sql.ErrNoRows):
		return serverError(d, "read key", err)
	}

	// The race window: a second request with the same key may have passed
	// the same lookup and be right here too.
	d.Point(handlers.Yield)
	ok, err := accountExists(ctx, d.DB, r.Account)
	if err != nil {
		return serverError(d, "read account", err)
	}
	if !ok {
		return problem(statusNoAccount, "Account not found", "no account "+r.Account) // not saved
	}
	d.Point(handlers.BeforeEffect)
	if err := d.Gateway.Charge(ctx, r.Account, r.Amount, ref); err != nil {
		d.Log("charge %s/%s: %v", r.Tenant, r.Key, err)
		return problem(statusGatewayDown, "handlers.Payment provider failed", "the payment provider did not confirm the charge: retry with the same key")
	}
	d.Point(handlers.AfterEffect)

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

// The statuses besides 201, as handlers/api.go names them.
const (
	statusMissingKey  = 400 // no Idempotency-Key
	statusNoAccount   = 404 // the account does not exist
	statusInFlight    = 409 // the key's first request is still running
	statusKeyReused   = 422 // the key was used for another request
	statusGatewayDown = 502 // the payment provider failed
	statusServerError = 500 // our own database failed
)

// problem is handlers.problem: an error response, RFC 9457's
// application/problem+json.
func problem(status int, title, detail string) handlers.APIResponse {
	b, _ := json.Marshal(handlers.Problem{Type: "about:blank", Title: title, Status: status, Detail: detail})
	return handlers.APIResponse{Status: status, Body: string(b)}
}

// created is handlers.created: the 201 for a payment.
func created(p handlers.Payment) handlers.APIResponse {
	b, _ := json.Marshal(p)
	return handlers.APIResponse{Status: 201, Body: string(b)}
}

// reference is handlers.reference: what the gateway is told for a
// request's charge, the same for every retry of the request.
func reference(r handlers.APIRequest) string {
	return r.Tenant + "/" + r.Key
}

// stamp is handlers.stamp: a time as fixed-width UTC text.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}

// queryer is what *sql.DB and *sql.Tx have in common for reading.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// accountExists is handlers.accountExists.
func accountExists(ctx context.Context, db queryer, account string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts WHERE id = ?`, account).Scan(&n)
	return n > 0, err
}

// recordPayment is handlers.recordPayment: the payment row and the
// credit, inside the caller's transaction.
func recordPayment(ctx context.Context, tx *sql.Tx, d handlers.Deps, r handlers.APIRequest, ref string) (handlers.Payment, error) {
	var id int64
	err := tx.QueryRowContext(ctx,
		`INSERT INTO payments (tenant, account, amount, reference, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
		r.Tenant, r.Account, r.Amount, ref, stamp(d.Now())).Scan(&id)
	if err != nil {
		return handlers.Payment{}, fmt.Errorf("insert payment: %w", err)
	}
	if err := credit(ctx, tx, r.Account, r.Amount); err != nil {
		return handlers.Payment{}, fmt.Errorf("credit %s: %w", r.Account, err)
	}
	return handlers.Payment{ID: fmt.Sprintf("pay_%d", id), Account: r.Account, Amount: r.Amount, Status: "succeeded"}, nil
}

// serverError is handlers.serverError: a 500, never saved.
func serverError(d handlers.Deps, what string, err error) handlers.APIResponse {
	d.Log("%s: %v", what, err)
	return problem(statusServerError, "Internal Server Error", what+" failed")
}

// credit is handlers.credit.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func credit(ctx context.Context, db execer, account string, amount int64) error {
	res, err := db.ExecContext(ctx,
		`UPDATE accounts SET balance = balance + ? WHERE id = ?`, amount, account)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("account %s: %d rows updated, want 1: nothing credited", account, n)
	}
	return nil
}
