// Exercise: a provider failure saved as the key's answer.
//
// This API handler saves every answer it gives under the tenant and the
// Idempotency-Key, with the request's fingerprint, and replays it for a
// repeat: a 201, and also the 502 it answers when the provider refuses
// the charge (Stripe's API v1 saves its errors too). A retry after the
// provider is back then gets the saved 502 again, however long the client
// backs off, and the payment never happens. Save nothing for the 502.
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

const Schema = `
CREATE TABLE payments (
    id      INTEGER PRIMARY KEY,
    tenant  TEXT    NOT NULL,
    account TEXT    NOT NULL,
    amount  INTEGER NOT NULL
);
CREATE TABLE saved_responses (
    tenant      TEXT    NOT NULL,
    idem_key    TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    status      INTEGER NOT NULL,
    body        TEXT    NOT NULL,
    saved_at    TEXT    NOT NULL,
    PRIMARY KEY (tenant, idem_key)
);
`

func Handle(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse {
	if r.Key == "" {
		return problem(400, "Idempotency-Key required")
	}
	fp := handlers.Fingerprint(r)
	var saved, body string
	var status int
	err := d.DB.QueryRowContext(ctx,
		`SELECT fingerprint, status, body FROM saved_responses WHERE tenant = ? AND idem_key = ? AND saved_at > ?`,
		r.Tenant, r.Key, stamp(d.Now().Add(-d.KeyTTL))).Scan(&saved, &status, &body)
	if err == nil && saved != fp {
		return problem(422, "Idempotency-Key reused for another request")
	}
	if err == nil {
		return handlers.APIResponse{Status: status, Body: body, Replayed: true}
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return problem(500, "read key failed")
	}
	return charge(ctx, d, r, fp)
}

// charge charges at the gateway, then records the payment, credits the
// account and saves the 201, with the fingerprint, in one transaction.
func charge(ctx context.Context, d handlers.Deps, r handlers.APIRequest, fp string) handlers.APIResponse {
	var n int
	if err := d.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts WHERE id = ?`, r.Account).Scan(&n); err != nil {
		return problem(500, "read account failed")
	}
	if n == 0 {
		return problem(404, "Account not found") // not saved
	}
	d.Point(handlers.BeforeEffect)
	if err := d.Gateway.Charge(ctx, r.Account, r.Amount, r.Tenant+"/"+r.Key); err != nil {
		resp := problem(502, "Payment provider failed")
		if _, err := d.DB.ExecContext(ctx,
			`INSERT INTO saved_responses (tenant, idem_key, fingerprint, status, body, saved_at) VALUES (?, ?, ?, ?, ?, ?)
			 ON CONFLICT (tenant, idem_key) DO NOTHING`,
			r.Tenant, r.Key, fp, resp.Status, resp.Body, stamp(d.Now())); err != nil {
			return problem(500, "save response failed")
		}
		return resp
	}
	d.Point(handlers.AfterEffect)

	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return problem(500, "begin failed")
	}
	defer tx.Rollback()
	var id int64
	err = tx.QueryRowContext(ctx,
		`INSERT INTO payments (tenant, account, amount) VALUES (?, ?, ?) RETURNING id`,
		r.Tenant, r.Account, r.Amount).Scan(&id)
	if err != nil {
		return problem(500, "insert payment failed")
	}
	if _, err := tx.ExecContext(ctx,
		`UPDATE accounts SET balance = balance + ? WHERE id = ?`, r.Amount, r.Account); err != nil {
		return problem(500, "credit failed")
	}
	b, _ := json.Marshal(handlers.Payment{ID: fmt.Sprintf("pay_%d", id), Account: r.Account, Amount: r.Amount, Status: "succeeded"})
	resp := handlers.APIResponse{Status: 201, Body: string(b)}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO saved_responses (tenant, idem_key, fingerprint, status, body, saved_at) VALUES (?, ?, ?, ?, ?, ?)
		 ON CONFLICT (tenant, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
		 body = excluded.body, saved_at = excluded.saved_at WHERE saved_responses.saved_at <= ?`,
		r.Tenant, r.Key, fp, resp.Status, resp.Body, stamp(d.Now()), stamp(d.Now().Add(-d.KeyTTL))); err != nil {
		return problem(500, "save response failed")
	}
	if err := tx.Commit(); err != nil {
		return problem(500, "commit failed")
	}
	return resp
}

// problem is an error answer, RFC 9457's problem+json.
func problem(status int, title string) handlers.APIResponse {
	b, _ := json.Marshal(handlers.Problem{Type: "about:blank", Title: title, Status: status})
	return handlers.APIResponse{Status: status, Body: string(b)}
}

// stamp is a time as fixed-width UTC text, so that stamps compare as text
// in time order. A saved answer is kept for d.KeyTTL: after that the key
// is free, and a request with it is a new one.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}
