// Package tryapi is the API side of the lab, live: a payments endpoint
// people curl (POST /api/v1/ledgers/{ledger}/payments), served by
// handlers.APIIdempotencyKey on an in-memory SQLite database of its own
// per ledger, and the pages that explain it (/try-api) and show a
// ledger's payments and key store as they change (/try-api/{ledger}).
//
// A ledger is any short name a person picks: made by its first payment,
// dropped after an idle period, at most Config.MaxLedgers at once. Its
// name is the tenant of its requests. Accounts are made by the first
// payment to them, so that curling works out of the box.
package tryapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/web/page"
)

// Config is what the live endpoint needs.
type Config struct {
	// MaxLedgers bounds the ledgers alive at once (0: 200); past it a
	// payment to a new name gets 503 with Retry-After.
	MaxLedgers int
	// Idle is how long a ledger lives after its last payment request
	// (0: an hour). Reading it does not count.
	Idle time.Duration
	// Now is the clock of idle periods; nil means time.Now. The handler
	// itself always runs on the real clock: this is the live endpoint,
	// not the deterministic engine.
	Now func() time.Time
}

// TryAPI is the live endpoint and its pages.
type TryAPI struct {
	Shell  *page.Shell
	hub    *hub
	handle handlers.APIFunc
	logs   *requestLogs     // each ledger's requests, as answered
	now    func() time.Time // Config.Now
}

// New builds the live endpoint on the shell.
func New(s *page.Shell, cfg Config) *TryAPI {
	if cfg.MaxLedgers <= 0 {
		cfg.MaxLedgers = DefaultMaxLedgers
	}
	if cfg.Idle <= 0 {
		cfg.Idle = DefaultIdle
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &TryAPI{Shell: s, hub: newHub(cfg.MaxLedgers, cfg.Idle, cfg.Now), handle: apiHandler().Handle,
		logs: newRequestLogs(cfg.MaxLedgers, cfg.Idle), now: cfg.Now}
}

// Close drops every ledger.
func (a *TryAPI) Close() { a.hub.close() }

// Problem is an error answer, RFC 9457's application/problem+json, with
// the fields (or headers) at fault when a request is not valid.
type Problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail,omitempty"`
	Errors []FieldError `json:"errors,omitempty"`
	// RetryAfter, in seconds, becomes the Retry-After header.
	RetryAfter int `json:"-"`
}

// The problem types this endpoint answers, its own and the handler's:
// each a row of the answers on the /try-api page (answerRows), in both
// languages.
const (
	typeInvalid     = "/try-api#invalid-request"
	typeTooLarge    = "/try-api#body-too-large"
	typeMediaType   = "/try-api#unsupported-media-type"
	typeBusy        = "/try-api#ledgers-full"
	typeLedgerFull  = "/try-api#ledger-full"
	typeNotFound    = "/try-api#not-found"
	typeCrossOrigin = "/try-api#cross-origin"
	typeMethod      = "/try-api#method-not-allowed"
	typeThrottled   = "/try-api#too-many-requests"
	typeServerError = "/try-api#server-error"
	// The handler's own (linkProblem).
	typeKeyRequired   = "/try-api#key-required"
	typeNoAccount     = "/try-api#account-not-found"
	typeInProgress    = "/try-api#in-progress"
	typeKeyReused     = "/try-api#key-reused"
	typeGatewayFailed = "/try-api#gateway-failed"
)

// WriteProblem writes p as application/problem+json.
func WriteProblem(w http.ResponseWriter, p Problem) {
	b, _ := json.Marshal(p)
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	if p.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
	w.WriteHeader(p.Status)
	w.Write(append(b, '\n'))
}

// invalid is the 400 for a request with fields that are not valid.
func invalid(detail string, errs ...FieldError) Problem {
	return Problem{Type: typeInvalid, Title: "Invalid request", Status: http.StatusBadRequest, Detail: detail, Errors: errs}
}

// CrossOrigin is the problem for a request another site's page made a
// browser send: the lab refuses it as it refuses every cross-site post.
func CrossOrigin(w http.ResponseWriter, r *http.Request) {
	WriteProblem(w, Problem{Type: typeCrossOrigin, Title: "Forbidden", Status: http.StatusForbidden,
		Detail: "a page of another site may not send payments here; send them from curl, a program, or this lab's own pages"})
}

// NotFound is the problem for an address under /api/v1 nothing lives at.
func NotFound(w http.ResponseWriter, r *http.Request) {
	WriteProblem(w, Problem{Type: typeNotFound, Title: "Not found", Status: http.StatusNotFound,
		Detail: "nothing lives at " + page.InputExcerpt(r.URL.Path) + "; the endpoint is /api/v1/ledgers/{ledger}/payments"})
}

// OldPayments answers the payments address the endpoint had before its
// ledgers were called so (/api/v1/sandboxes/{ledger}/payments, when
// "sandbox" also named the child that runs handler files): 308 to the
// same ledger's address now, query and all. A 308 keeps the method and
// the body, so a saved curl -L still pays, once, with the same key.
func OldPayments(w http.ResponseWriter, r *http.Request) {
	to := paymentsPrefix + chi.URLParam(r, "ledger") + paymentsSuffix
	if r.URL.RawQuery != "" {
		to += "?" + r.URL.RawQuery
	}
	w.Header().Set("Location", to)
	w.WriteHeader(http.StatusPermanentRedirect)
}

// MethodNotAllowed is the problem for a method an /api/v1 address does not take.
func MethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "GET, POST")
	WriteProblem(w, Problem{Type: typeMethod, Title: "Method not allowed", Status: http.StatusMethodNotAllowed,
		Detail: page.InputExcerpt(r.Method) + " is not allowed here: POST makes a payment, GET lists the ledger"})
}

// Throttled is the problem for a client past the payments' throttle.
func Throttled(w http.ResponseWriter, secs int) {
	WriteProblem(w, Problem{Type: typeThrottled, Title: "Too many requests", Status: http.StatusTooManyRequests,
		Detail: fmt.Sprintf("your address has sent too many payments in a short time: wait %d s", secs), RetryAfter: secs})
}

// ledgerParam is the {ledger} of the address, or the problem with it.
func ledgerParam(r *http.Request) (string, *Problem) {
	name := chi.URLParam(r, "ledger")
	if !ledgerName().MatchString(name) {
		p := invalid("the ledger name is not valid", FieldError{Field: "ledger", In: "path",
			Detail: "a ledger name is 1 to 40 lowercase letters, digits or '-', such as \"my-ledger\""})
		return "", &p
	}
	return name, nil
}

// Pay is POST /api/v1/ledgers/{ledger}/payments: the body is
// {"account": "acc-1", "amount": 1000}, the Idempotency-Key header names
// the attempt, and Lab-Gateway-Delay (a Go duration, at most 5s) makes
// the payment provider slow, so that a second request can meet the
// first in flight.
func (a *TryAPI) Pay(w http.ResponseWriter, r *http.Request) {
	p, resp := a.pay(w, r)
	if p != nil {
		a.record(r, p.Status, false)
		WriteProblem(w, *p)
		return
	}
	a.record(r, resp.Status, resp.Replayed)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "application/json")
	if resp.Status >= 400 {
		h.Set("Content-Type", "application/problem+json")
	}
	if resp.Replayed {
		h.Set("Idempotent-Replayed", "true")
	}
	if resp.Status == http.StatusConflict {
		// The key's first request is still running (its gateway call
		// takes at most MaxDelay): a client may retry in a second.
		h.Set("Retry-After", "1")
	}
	w.WriteHeader(resp.Status)
	io.WriteString(w, resp.Body)
}

func (a *TryAPI) pay(w http.ResponseWriter, r *http.Request) (*Problem, handlers.APIResponse) {
	name, p := ledgerParam(r)
	if p != nil {
		return p, handlers.APIResponse{}
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return &Problem{Type: typeMediaType, Title: "Unsupported media type", Status: http.StatusUnsupportedMediaType,
			Detail: "the body must be JSON: send Content-Type: application/json",
			Errors: []FieldError{{Field: "Content-Type", In: "header", Detail: "must be application/json, not " + quoteOrNothing(r.Header.Get("Content-Type"))}}}, handlers.APIResponse{}
	}
	var errs []FieldError
	var delay time.Duration
	if v := r.Header.Get("Lab-Gateway-Delay"); v != "" {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			errs = append(errs, FieldError{Field: "Lab-Gateway-Delay", In: "header", Detail: "must be a Go duration such as 2s or 1500ms, at most 5s; not " + quoteOrNothing(v)})
		case d < 0 || d > MaxDelay:
			errs = append(errs, FieldError{Field: "Lab-Gateway-Delay", In: "header", Detail: "must be from 0s to at most 5s; not " + quoteOrNothing(v)})
		default:
			delay = d
		}
	}
	// The key: one header, an RFC 8941 string or a bare token (ParseKey).
	header, key := r.Header.Values("Idempotency-Key"), ""
	switch {
	case len(header) > 1:
		errs = append(errs, FieldError{Field: "Idempotency-Key", In: "header",
			Detail: fmt.Sprintf("sent %d times: send the header once, with one key", len(header))})
	case len(header) == 1:
		k, problem := ParseKey(header[0])
		if problem != "" {
			errs = append(errs, FieldError{Field: "Idempotency-Key", In: "header", Detail: "not a valid key: " + problem})
		}
		key = k
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return &Problem{Type: typeTooLarge, Title: "Body too large", Status: http.StatusRequestEntityTooLarge,
			Detail: fmt.Sprintf("a payment's body may have at most %d bytes", MaxBody)}, handlers.APIResponse{}
	case err != nil:
		p := invalid("the body could not be read: " + err.Error())
		return &p, handlers.APIResponse{}
	}
	pay, bodyErrs := DecodePayment(body)
	errs = append(bodyErrs, errs...)
	if errs != nil {
		p := invalid("the request is not valid: see errors", errs...)
		return &p, handlers.APIResponse{}
	}

	sb, release, err := a.hub.acquire(name, true)
	var full *errFull
	switch {
	case errors.As(err, &full):
		return &Problem{Type: typeBusy, Title: "Every ledger is in use", Status: http.StatusServiceUnavailable, RetryAfter: full.retryAfter,
			Detail: fmt.Sprintf("the server keeps at most %d ledgers and none has been idle long enough to go: retry in %d s", a.hub.max, full.retryAfter)}, handlers.APIResponse{}
	case err != nil:
		a.Shell.Log.Error("open ledger", "ledger", name, "err", err)
		return &Problem{Type: typeServerError, Title: "Internal Server Error", Status: http.StatusInternalServerError, Detail: "the ledger could not be opened"}, handlers.APIResponse{}
	}
	defer release()
	if p := a.room(r.Context(), sb, key, pay.Account); p != nil {
		return p, handlers.APIResponse{}
	}
	req := handlers.APIRequest{Tenant: name, Key: key, Header: strings.Join(header, ", "), Method: r.Method, Path: r.URL.Path, Body: body,
		Account: pay.Account, Amount: pay.Amount}
	log := a.Shell.Log.With("ledger", name)
	d := handlers.Deps{DB: sb.db, Gateway: sb.gateway, Now: time.Now, KeyTTL: 24 * time.Hour,
		Point: func(string) {},
		Log:   func(format string, args ...any) { log.Debug(fmt.Sprintf(format, args...)) }}
	return nil, linkProblem(a.handle(withCall(r.Context(), delay), d, req))
}

// handlerTypes are the problem types of the handler's own answers, by
// status: the handler runs in the engine too, where there is no page to
// link, and answers about:blank; here each links to its explanation.
var handlerTypes = map[int]string{
	http.StatusBadRequest:          typeKeyRequired,
	http.StatusNotFound:            typeNoAccount,
	http.StatusConflict:            typeInProgress,
	http.StatusUnprocessableEntity: typeKeyReused,
	http.StatusInternalServerError: typeServerError,
	http.StatusBadGateway:          typeGatewayFailed,
}

// linkProblem gives a handler's problem answer (type about:blank) the
// type of its explanation on /try-api; any other answer is as it was.
// The saved answer a repeat gets is rewritten the same way, so a replay
// stays byte for byte the first answer.
func linkProblem(resp handlers.APIResponse) handlers.APIResponse {
	t, ok := handlerTypes[resp.Status]
	if !ok {
		return resp
	}
	var p handlers.Problem
	dec := json.NewDecoder(strings.NewReader(resp.Body))
	dec.DisallowUnknownFields()
	if dec.Decode(&p) != nil || p.Type != "about:blank" {
		return resp
	}
	out := Problem{Type: t, Title: p.Title, Status: p.Status, Detail: p.Detail}
	if resp.Status == http.StatusBadRequest {
		// The handler's one 400 is a missing key: name it as the
		// endpoint's own 400s name what is wrong.
		out.Errors = []FieldError{{Field: "Idempotency-Key", In: "header",
			Detail: `missing: send a key with every payment, such as Idempotency-Key: "key-1"`}}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return resp
	}
	resp.Body = string(b)
	return resp
}

// room makes the payment's account if it is new and checks the ledger's
// limits: a new key past maxKeys, or a new account past maxAccounts, is
// refused with 507 (use another ledger). The counts may run over by the
// requests that check at once, which is bounded by the throttle.
func (a *TryAPI) room(ctx context.Context, sb *ledger, key, account string) *Problem {
	full := func(what string, n int) *Problem {
		return &Problem{Type: typeLedgerFull, Title: "Ledger full", Status: http.StatusInsufficientStorage,
			Detail: fmt.Sprintf("this ledger holds at most %d %s: pick another ledger name", n, what)}
	}
	var keys, accounts, known int
	err := sb.db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM idempotency_keys),
		(SELECT COUNT(*) FROM accounts),
		(SELECT COUNT(*) FROM idempotency_keys WHERE tenant = ? AND idem_key = ?) + 2 * (SELECT COUNT(*) FROM accounts WHERE id = ?)`,
		sb.name, key, account).Scan(&keys, &accounts, &known)
	if err != nil {
		return a.dbProblem(ctx, "count rows", err)
	}
	knownKey, knownAccount := known&1 == 1, known&2 == 2
	switch {
	case key != "" && !knownKey && keys >= maxKeys:
		return full("idempotency keys", maxKeys)
	case !knownAccount && accounts >= maxAccounts:
		return full("accounts", maxAccounts)
	case !knownAccount:
		// Made on first use, so curling works out of the box (the handler
		// answers 404 for an account that does not exist).
		if _, err := sb.db.ExecContext(ctx, `INSERT INTO accounts (id) VALUES (?) ON CONFLICT (id) DO NOTHING`, account); err != nil {
			return a.dbProblem(ctx, "create account", err)
		}
	}
	return nil
}

// dbProblem is the answer when the ledger's database fails: a client
// that hung up is no one's fault; anything else is logged.
func (a *TryAPI) dbProblem(ctx context.Context, what string, err error) *Problem {
	if ctx.Err() == nil {
		a.Shell.Log.Error("ledger database", "what", what, "err", err)
	}
	return &Problem{Type: typeServerError, Title: "Internal Server Error", Status: http.StatusInternalServerError, Detail: what + " failed"}
}

func quoteOrNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return strconv.Quote(page.InputExcerpt(s))
}

// Ledger is what GET /api/v1/ledgers/{ledger}/payments answers: the
// ledger's tables and its provider's charges.
type Ledger struct {
	Name string `json:"ledger"`
	// Active: the ledger exists (a payment made it and it has not been
	// idle long enough to go); an inactive one has empty tables.
	Active   bool         `json:"active"`
	Accounts []AccountRow `json:"accounts"`
	Payments []PaymentRow `json:"payments"`
	Keys     []KeyRow     `json:"idempotency_keys"`
	Charges  []charge     `json:"gateway_charges"`
}

type AccountRow struct {
	ID      string `json:"id"`
	Balance int64  `json:"balance"`
}

type PaymentRow struct {
	ID        string `json:"id"`
	Account   string `json:"account"`
	Amount    int64  `json:"amount"`
	Reference string `json:"reference"`
	CreatedAt string `json:"created_at"`
}

type KeyRow struct {
	Key            string `json:"key"`
	Fingerprint    string `json:"fingerprint"` // its first 12 hex digits
	RecoveryPoint  string `json:"recovery_point"`
	Locked         bool   `json:"locked"`
	ResponseStatus *int   `json:"response_status"` // null until there is a final answer
	CreatedAt      string `json:"created_at"`
}

// ledger reads the ledger called name. It does not make one, nor count as its use.
func (a *TryAPI) ledger(ctx context.Context, name string) (Ledger, error) {
	l := Ledger{Name: name, Accounts: []AccountRow{}, Payments: []PaymentRow{}, Keys: []KeyRow{}, Charges: []charge{}}
	sb, release, err := a.hub.acquire(name, false)
	if err != nil || sb == nil {
		return l, err
	}
	defer release()
	l.Active = true
	l.Charges = sb.gateway.list()
	if l.Charges == nil {
		l.Charges = []charge{}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// One transaction: the three tables as of one moment.
	tx, err := sb.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return l, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, balance FROM accounts ORDER BY id`)
	if err != nil {
		return l, err
	}
	for rows.Next() {
		var r AccountRow
		if err := rows.Scan(&r.ID, &r.Balance); err != nil {
			rows.Close()
			return l, err
		}
		l.Accounts = append(l.Accounts, r)
	}
	rows.Close()
	rows, err = tx.QueryContext(ctx, `SELECT id, account, amount, reference, created_at FROM payments ORDER BY id`)
	if err != nil {
		return l, err
	}
	for rows.Next() {
		var r PaymentRow
		var id int64
		if err := rows.Scan(&id, &r.Account, &r.Amount, &r.Reference, &r.CreatedAt); err != nil {
			rows.Close()
			return l, err
		}
		r.ID = fmt.Sprintf("pay_%d", id)
		l.Payments = append(l.Payments, r)
	}
	rows.Close()
	rows, err = tx.QueryContext(ctx, `SELECT idem_key, fingerprint, recovery_point, locked_at IS NOT NULL, response_status, created_at
		FROM idempotency_keys ORDER BY created_at, idem_key`)
	if err != nil {
		return l, err
	}
	defer rows.Close()
	for rows.Next() {
		var r KeyRow
		var status sql.NullInt64
		if err := rows.Scan(&r.Key, &r.Fingerprint, &r.RecoveryPoint, &r.Locked, &status, &r.CreatedAt); err != nil {
			return l, err
		}
		r.Fingerprint = r.Fingerprint[:min(12, len(r.Fingerprint))]
		if status.Valid {
			s := int(status.Int64)
			r.ResponseStatus = &s
		}
		l.Keys = append(l.Keys, r)
	}
	return l, rows.Err()
}

// List is GET /api/v1/ledgers/{ledger}/payments: the ledger as JSON.
func (a *TryAPI) List(w http.ResponseWriter, r *http.Request) {
	name, p := ledgerParam(r)
	if p != nil {
		WriteProblem(w, *p)
		return
	}
	l, err := a.ledger(r.Context(), name)
	if err != nil {
		p := a.dbProblem(r.Context(), "read the ledger", err)
		a.record(r, p.Status, false)
		WriteProblem(w, *p)
		return
	}
	a.record(r, http.StatusOK, false)
	b, _ := json.MarshalIndent(l, "", "  ")
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.Write(append(b, '\n'))
}
