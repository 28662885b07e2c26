package handlers

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// The API side. Besides consumers of a broker, the lab teaches the
// synchronous side of the topic: a payments API whose client sends an
// Idempotency-Key header (the IETF draft "The Idempotency-Key HTTP Header
// Field"; Stripe's API), times out, and retries. An API handler serves one
// request: it sees the APIRequest and the Deps of the server process, and
// returns the APIResponse the client gets (if the response reaches it).
//
// The same handler runs in the engine, where the client is an actor of a
// script, and behind the lab's live endpoint that people curl.

// APIRequest is one POST /payments as the server receives it.
type APIRequest struct {
	// Tenant is the caller, as its credentials say: keys are scoped to it.
	Tenant string
	// Key is the Idempotency-Key header's key, parsed: the draft makes
	// the header an RFC 8941 string ("pay-1"), and Stripe's clients send
	// a bare token (pay-1); both are the key pay-1. "" when the request
	// has no key.
	Key string
	// Header is the Idempotency-Key header as the client sent it, quotes
	// and escapes included. Key is what names the attempt: a server that
	// keys by Header takes "pay-1" and pay-1 for two payments.
	Header string
	// Method and Path are the request line; Body is its JSON body as
	// sent. A fingerprint covers all three: the same key with another
	// body is a different request.
	Method, Path string
	Body         []byte
	// Account and Amount are the body's fields, parsed and validated.
	Account string
	Amount  int64 // minor units
}

// APIResponse is what the server answers: a status and a JSON body.
type APIResponse struct {
	Status int
	Body   string
	// Replayed: the response is a saved one, sent again for a repeat of
	// its request (the Idempotent-Replayed header).
	Replayed bool
}

// APIFunc is the signature every API handler has.
type APIFunc func(ctx context.Context, d Deps, r APIRequest) APIResponse

// Fingerprint identifies a request's content: the method, the path and
// the body's bytes, hashed. Equal fingerprints, same request. (The body
// is compared as sent; a client that re-encodes its JSON differently on
// a retry would be told it sent another request: send the same bytes.)
func Fingerprint(r APIRequest) string {
	h := sha256.New()
	h.Write([]byte(r.Method + " " + r.Path + "\n"))
	h.Write(r.Body)
	return hex.EncodeToString(h.Sum(nil))
}

// Payment is the body of a 201: the payment the request made.
type Payment struct {
	ID      string `json:"id"`
	Account string `json:"account"`
	Amount  int64  `json:"amount"`
	Status  string `json:"status"`
}

// Problem is an error body, RFC 9457's application/problem+json.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// problem builds an error response.
func problem(status int, title, detail string) APIResponse {
	b, _ := json.Marshal(Problem{Type: "about:blank", Title: title, Status: status, Detail: detail})
	return APIResponse{Status: status, Body: string(b)}
}

// created builds the 201 for a payment.
func created(p Payment) APIResponse {
	b, _ := json.Marshal(p)
	return APIResponse{Status: http.StatusCreated, Body: string(b)}
}

// APIInfo describes an API handler for the lab, as Info does a consumer.
type APIInfo struct {
	Name    string // as used in scripts, URLs and the CLI
	Summary string // one line: what it guarantees or how it fails
	Schema  string // the tables the handler needs, besides accounts and orders
	File    string // the source file, for the lab to show
	Func    string // the function's name in that file
	Handle  APIFunc
	// Complete, when set, is the server's completer (api_complete.go),
	// which the complete step runs.
	Complete APICompleteFunc
}

// APIList returns every API handler: the right one first, then the naive
// one and the three that each get one thing wrong.
func APIList() []APIInfo {
	return []APIInfo{
		{Name: "api-idempotency-key", Summary: "Idempotency-Key done right: tenant-scoped key, fingerprint, in-flight lock, recovery points, saved responses replayed",
			Schema: paymentsSchema + idempotencyKeysSchema, File: "api_idempotency_key.go", Func: "APIIdempotencyKey", Handle: APIIdempotencyKey,
			Complete: APIIdempotencyKeyComplete},
		{Name: "api-naive", Summary: "ignores the Idempotency-Key: every request charges",
			Schema: paymentsSchema, File: "api_naive.go", Func: "APINaive", Handle: APINaive},
		{Name: "api-key-no-fingerprint", Summary: "replays the saved response for any request with the key, even with another amount: a silent conflict",
			Schema: paymentsSchema + savedResponsesNoFingerprintSchema, File: "api_key_no_fingerprint.go", Func: "APIKeyNoFingerprint", Handle: APIKeyNoFingerprint},
		{Name: "api-key-no-lock", Summary: "key and fingerprint, but saved only at the end: two concurrent requests both charge",
			Schema: paymentsSchema + savedResponsesSchema, File: "api_key_no_lock.go", Func: "APIKeyNoLock", Handle: APIKeyNoLock},
		{Name: "api-key-short-ttl", Summary: "the right design, but keys are forgotten after a minute: a later retry charges again",
			Schema: paymentsSchema + idempotencyKeysSchema, File: "api_key_short_ttl.go", Func: "APIKeyShortTTL", Handle: APIKeyShortTTL},
	}
}

// The effect is the same in every API handler, so that they differ only in
// how they guard it: check that the account exists (404, nothing charged,
// if not), charge at the gateway, then one transaction that records the
// payment and credits the account.
const paymentsSchema = `
CREATE TABLE payments (
    id         INTEGER PRIMARY KEY,
    tenant     TEXT    NOT NULL,
    account    TEXT    NOT NULL,
    amount     INTEGER NOT NULL,
    reference  TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);
`

// Statuses the API handlers answer besides 201, RFC 9110's names.
const (
	statusMissingKey  = http.StatusBadRequest          // 400: no Idempotency-Key
	statusNoAccount   = http.StatusNotFound            // 404: the account does not exist
	statusInFlight    = http.StatusConflict            // 409: the key's first request is still running
	statusKeyReused   = http.StatusUnprocessableEntity // 422: the key was used for another request
	statusGatewayDown = http.StatusBadGateway          // 502: the payment provider failed
	statusServerError = http.StatusInternalServerError // 500: our own database failed
)

// reference is what the gateway is told for a request's charge: derived
// from the tenant and the key, so that every retry of the request sends the
// same one, and two tenants' equal keys are different payments.
func reference(r APIRequest) string {
	return r.Tenant + "/" + r.Key
}

// stamp writes a time as fixed-width UTC text, so that two stamps compare
// as text in time order, on SQLite and PostgreSQL alike.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}

// queryer is what *sql.DB and *sql.Tx have in common for reading.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// accountExists checks the account before anything is charged: a payment
// to an account that does not exist is refused, not charged and then
// stuck at the credit.
func accountExists(ctx context.Context, db queryer, account string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts WHERE id = ?`, account).Scan(&n)
	return n > 0, err
}

// recordPayment is the database half of the effect, inside the caller's
// transaction: the payment row, and the credit to the account's balance.
func recordPayment(ctx context.Context, tx *sql.Tx, d Deps, r APIRequest, ref string) (Payment, error) {
	var id int64
	err := tx.QueryRowContext(ctx,
		`INSERT INTO payments (tenant, account, amount, reference, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
		r.Tenant, r.Account, r.Amount, ref, stamp(d.Now())).Scan(&id)
	if err != nil {
		return Payment{}, fmt.Errorf("insert payment: %w", err)
	}
	if err := credit(ctx, tx, r.Account, r.Amount); err != nil {
		return Payment{}, fmt.Errorf("credit %s: %w", r.Account, err)
	}
	return Payment{ID: fmt.Sprintf("pay_%d", id), Account: r.Account, Amount: r.Amount, Status: "succeeded"}, nil
}

// serverError is the answer when our own database fails: a 500, never
// saved (see api_idempotency_key.go for why).
func serverError(d Deps, what string, err error) APIResponse {
	d.Log("%s: %v", what, err)
	return problem(statusServerError, "Internal Server Error", what+" failed")
}
