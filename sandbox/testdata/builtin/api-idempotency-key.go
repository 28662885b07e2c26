// A copy of the built-in handler api-idempotency-key (handlers/api_idempotency_key.go, APIIdempotencyKey) as a handler file.
package handler

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema is the built-in's paymentsSchema + idempotencyKeysSchema.
const Schema = `
CREATE TABLE payments (
    id         INTEGER PRIMARY KEY,
    tenant     TEXT    NOT NULL,
    account    TEXT    NOT NULL,
    amount     INTEGER NOT NULL,
    reference  TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);

CREATE TABLE idempotency_keys (
    tenant          TEXT    NOT NULL,
    idem_key        TEXT    NOT NULL,
    fingerprint     TEXT    NOT NULL,
    recovery_point  TEXT    NOT NULL,
    locked_at       TEXT,
    created_at      TEXT    NOT NULL,
    response_status INTEGER,
    response_body   TEXT,
    request_body    TEXT,
    PRIMARY KEY (tenant, idem_key)
);
`

// The recovery points, in order. Each is written by the transaction that
// ends its phase, so after a crash the row says where to resume.
const (
	pointStarted  = "started"  // key claimed; the charge may or may not have happened
	pointCharged  = "charged"  // the gateway accepted the charge
	pointFinished = "finished" // payment recorded, final response saved
)

// lockTimeout: a key locked longer ago than this belongs to a request whose
// server died (a live one finishes in seconds), and another request with
// the same key may take it over and resume.
const lockTimeout = time.Minute

// Handle, as APIIdempotencyKey, serves POST /payments with an Idempotency-Key, as the
// IETF draft "The Idempotency-Key HTTP Header Field" describes and Stripe
// does, in atomic phases with recovery points (brandur, "Implementing
// Stripe-like Idempotency Keys in Postgres").
//
// The key is scoped to the tenant and bound to the request's fingerprint.
// Three short transactions, with the gateway call between the first two:
// claim the key (lock it), charge, mark it charged, then record the payment
// and save the response together. A retry after a crash anywhere resumes
// from the recovery point: a charge the row says happened is skipped; one
// it cannot vouch for is sent again with the same reference, which the
// provider deduplicates. That last step is the limit: with a provider that
// does not deduplicate by reference, a crash right after the charge and
// before "charged" is written still charges twice on the retry.
//
// What is saved and replayed: the 201, and the 404 for an unknown account,
// both final. What is not: 400 (no key to save under), 422 and 409 (they
// are about the key, not answers to the request; Stripe, too, saves
// nothing for a request that conflicts with one still running), 502 (the
// provider failed: the retry should try again) and 500 (our database
// failed: the lock stays until it is stale, then a retry resumes from the
// recovery point).
//
// Keys live d.KeyTTL; a retry later than that is a new request.
func Handle(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse {
	if r.Key == "" {
		// The draft: 400 when an endpoint that requires the key gets none.
		return problem(statusMissingKey, "Idempotency-Key required", "POST /payments needs an Idempotency-Key header")
	}
	fp, ref, now := handlers.Fingerprint(r), reference(r), d.Now()
	lock := stamp(now) // our locked_at; it also tells our lock from a later taker's

	// Phase 1: claim the key.
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return serverError(d, "begin", err)
	}
	defer tx.Rollback()
	// An expired key counts as absent. (A real server also sweeps them in
	// the background; this delete only makes room for the new claim.)
	if _, err := tx.ExecContext(ctx,
		`DELETE FROM idempotency_keys WHERE tenant = ? AND idem_key = ? AND created_at <= ?`,
		r.Tenant, r.Key, stamp(now.Add(-d.KeyTTL))); err != nil {
		return serverError(d, "expire key", err)
	}
	res, err := tx.ExecContext(ctx,
		`INSERT INTO idempotency_keys (tenant, idem_key, fingerprint, recovery_point, locked_at, created_at, request_body)
		 VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, idem_key) DO NOTHING`,
		r.Tenant, r.Key, fp, pointStarted, lock, lock, string(r.Body))
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
			return handlers.APIResponse{Status: int(status.Int64), Body: body.String, Replayed: true}
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
	d.Point(handlers.Yield)
	if point == pointStarted {
		d.Point(handlers.BeforeEffect)
		if err := d.Gateway.Charge(ctx, r.Account, r.Amount, ref); err != nil {
			// Not final: the provider may be back in a second, and a
			// timeout does not even say whether it charged. Save nothing
			// and release the lock (only if still ours): the retry runs
			// this phase again, with the same reference. Saving this 502
			// would answer "failed" to every retry for the key's lifetime.
			// (Stripe, by its docs, saves even its own 500s once a request
			// has begun to execute; here the failure is the provider's,
			// before anything was recorded.)
			d.DB.ExecContext(ctx,
				`UPDATE idempotency_keys SET locked_at = NULL WHERE tenant = ? AND idem_key = ? AND locked_at = ?`,
				r.Tenant, r.Key, lock)
			d.Log("charge %s/%s: %v", r.Tenant, r.Key, err)
			return problem(statusGatewayDown, "handlers.Payment provider failed", "the payment provider did not confirm the charge: retry with the same key")
		}
		d.Point(handlers.AfterEffect)
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
