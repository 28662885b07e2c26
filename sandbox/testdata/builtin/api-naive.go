// A copy of the built-in handler api-naive (handlers/api_naive.go, APINaive) as a handler file.
package handler

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema is the built-in's paymentsSchema.
const Schema = `
CREATE TABLE payments (
    id         INTEGER PRIMARY KEY,
    tenant     TEXT    NOT NULL,
    account    TEXT    NOT NULL,
    amount     INTEGER NOT NULL,
    reference  TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);
`

// Handle, as APINaive, charges and records a payment for every request. It ignores the
// Idempotency-Key (a request without one is served too) and gives the
// gateway no reference.
//
// Guarantees nothing: a client that times out and retries, a double click,
// a proxy that resends, each is one more charge and one more payment.
func Handle(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse {
	ok, err := accountExists(ctx, d.DB, r.Account)
	if err != nil {
		return serverError(d, "read account", err)
	}
	if !ok {
		return problem(statusNoAccount, "Account not found", "no account "+r.Account)
	}

	d.Point(handlers.BeforeEffect)
	// No reference: the provider cannot tell a retry from a new payment.
	if err := d.Gateway.Charge(ctx, r.Account, r.Amount, ""); err != nil {
		d.Log("charge %s: %v", r.Account, err)
		return problem(statusGatewayDown, "handlers.Payment provider failed", "the payment provider did not confirm the charge")
	}
	d.Point(handlers.AfterEffect)

	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return serverError(d, "begin", err)
	}
	defer tx.Rollback()
	p, err := recordPayment(ctx, tx, d, r, "")
	if err != nil {
		return serverError(d, "record payment", err)
	}
	if err := tx.Commit(); err != nil {
		return serverError(d, "commit", err)
	}
	return created(p)
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
