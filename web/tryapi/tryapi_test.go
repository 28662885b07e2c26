package tryapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/static"
	"github.com/idempotency-lab/lab/web/page"
)

// newTestAPI is the endpoint and its pages on a router laid out as the
// server's web/routes.go lays them out (without the server's throttles and
// cross-origin check, which the web package tests).
func newTestAPI(tb testing.TB, cfg Config) (*TryAPI, http.Handler) {
	tb.Helper()
	assets, err := page.NewAssets(static.FS, false)
	if err != nil {
		tb.Fatal(err)
	}
	a := New(page.NewShell(page.MustCatalog(Catalog()), assets, slog.New(slog.DiscardHandler), -1), cfg)
	tb.Cleanup(a.Close)
	r := chi.NewRouter()
	r.Route("/api/v1", func(r chi.Router) {
		r.NotFound(NotFound)
		r.MethodNotAllowed(MethodNotAllowed)
		r.Post("/ledgers/{ledger}/payments", a.Pay)
		r.Get("/ledgers/{ledger}/payments", a.List)
		r.HandleFunc("/sandboxes/{ledger}/payments", OldPayments)
	})
	r.Get("/try-api", a.Shell.Handle(a.Index))
	r.Get("/try-api/{ledger}", a.Shell.Handle(a.LedgerPage))
	r.Get("/try-api/{ledger}/state", a.Shell.Handle(a.State))
	return a, r
}

type answer struct {
	status int
	header http.Header
	body   string
}

// payment is a POST of body to ledger's payments with key ("" for none)
// and more headers as name, value pairs.
func payment(ledger, key, body string, headers ...string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/api/v1/ledgers/"+ledger+"/payments", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return r
}

func serve(h http.Handler, r *http.Request) answer {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return answer{w.Code, w.Result().Header, w.Body.String()}
}

func ledgerOf(tb testing.TB, h http.Handler, ledger string) Ledger {
	tb.Helper()
	a := serve(h, httptest.NewRequest(http.MethodGet, "/api/v1/ledgers/"+ledger+"/payments", nil))
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" {
		tb.Fatalf("GET ledger: %d %s\n%s", a.status, a.header.Get("Content-Type"), a.body)
	}
	var l Ledger
	if err := json.Unmarshal([]byte(a.body), &l); err != nil {
		tb.Fatalf("ledger: %v\n%s", err, a.body)
	}
	return l
}

const body1 = `{"account": "acc-1", "amount": 1000}`

// TestPaymentAnswers: the answers in the order the cheat-sheet gives
// them: 201, its replay byte for byte, 422 for the key with another body,
// 400 without a key; and the ledger that results.
func TestPaymentAnswers(t *testing.T) {
	_, h := newTestAPI(t, Config{})
	first := serve(h, payment("demo", "key-1", body1))
	if first.status != http.StatusCreated || first.header.Get("Content-Type") != "application/json" || first.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v\n%s", first.status, first.header, first.body)
	}
	var p struct {
		ID, Account, Status string
		Amount              int64
	}
	if err := json.Unmarshal([]byte(first.body), &p); err != nil || p.ID != "pay_1" || p.Account != "acc-1" || p.Amount != 1000 || p.Status != "succeeded" {
		t.Fatalf("first: %+v %v\n%s", p, err, first.body)
	}
	for i := range 2 {
		again := serve(h, payment("demo", "key-1", body1))
		if again.status != first.status || again.body != first.body || again.header.Get("Idempotent-Replayed") != "true" ||
			again.header.Get("Content-Type") != first.header.Get("Content-Type") {
			t.Fatalf("replay %d: %d %v\n%q\nwant %q", i, again.status, again.header, again.body, first.body)
		}
	}
	// The same values with other bytes are another request (the
	// fingerprint is the body as sent).
	for _, body := range []string{`{"account": "acc-1", "amount": 5000}`, `{"account":"acc-1","amount":1000}`} {
		if a := serve(h, payment("demo", "key-1", body)); a.status != http.StatusUnprocessableEntity ||
			a.header.Get("Content-Type") != "application/problem+json" || !strings.Contains(a.body, `"status":422`) {
			t.Errorf("%s: %d %v\n%s", body, a.status, a.header, a.body)
		}
	}
	if a := serve(h, payment("demo", "", body1)); a.status != http.StatusBadRequest ||
		a.header.Get("Content-Type") != "application/problem+json" || !strings.Contains(a.body, "Idempotency-Key") {
		t.Errorf("no key: %d %v\n%s", a.status, a.header, a.body)
	} else if p := problemOf(t, a, http.StatusBadRequest); p.Type != "/try-api#key-required" ||
		len(p.Errors) != 1 || p.Errors[0].Field != "Idempotency-Key" || p.Errors[0].In != "header" {
		// The missing key is named in errors, as the endpoint's other
		// 400s name what is wrong.
		t.Errorf("no key: %+v", p)
	}
	// A second payment to another account makes the account.
	if a := serve(h, payment("demo", "key-2", `{"account": "acc-2", "amount": 250}`)); a.status != http.StatusCreated {
		t.Errorf("key-2: %d\n%s", a.status, a.body)
	}
	l := ledgerOf(t, h, "demo")
	if !l.Active || len(l.Payments) != 2 || len(l.Keys) != 2 || len(l.Accounts) != 2 || len(l.Charges) != 2 {
		t.Fatalf("ledger: %+v", l)
	}
	if l.Accounts[0] != (AccountRow{"acc-1", 1000}) || l.Accounts[1] != (AccountRow{"acc-2", 250}) {
		t.Errorf("accounts: %+v", l.Accounts)
	}
	k := l.Keys[0]
	if k.Key != "key-1" || len(k.Fingerprint) != 12 || k.RecoveryPoint != "finished" || k.Locked || k.ResponseStatus == nil || *k.ResponseStatus != 201 {
		t.Errorf("key-1: %+v", k)
	}
	if l.Payments[0].Reference != "demo/key-1" || l.Charges[0].Calls != 1 {
		t.Errorf("payment %+v, charge %+v", l.Payments[0], l.Charges[0])
	}
	// Ledgers are tenants of their own: the same key elsewhere is
	// another payment.
	if a := serve(h, payment("other", "key-1", body1)); a.status != http.StatusCreated || a.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("other ledger: %d %v", a.status, a.header)
	}
}

// problemOf decodes a problem+json answer, failing unless it is one with
// status.
func problemOf(tb testing.TB, a answer, status int) Problem {
	tb.Helper()
	if a.status != status || a.header.Get("Content-Type") != "application/problem+json" {
		tb.Fatalf("got %d %s, want %d problem+json\n%s", a.status, a.header.Get("Content-Type"), status, a.body)
	}
	var p Problem
	if err := json.Unmarshal([]byte(a.body), &p); err != nil {
		tb.Fatalf("%v\n%s", err, a.body)
	}
	if p.Status != status || p.Type == "" || p.Title == "" || p.Detail == "" {
		tb.Errorf("incomplete problem: %s", a.body)
	}
	return p
}

// TestBadRequestsAreProblems: each bad input gets a 4xx problem+json that
// names the field or header at fault, never a 500; and none makes a
// ledger.
func TestBadRequestsAreProblems(t *testing.T) {
	a, h := newTestAPI(t, Config{})
	huge := `{"account": "acc-1", "amount": 1000, "note": "` + strings.Repeat("x", MaxBody) + `"}`
	for _, c := range []struct {
		name   string
		req    *http.Request
		status int
		field  string // the first error's field; "" for none
		in     string
	}{
		{"not JSON", payment("demo", "k", `{"account": "acc-1", "amount": `), 400, "", "body"},
		{"syntax", payment("demo", "k", `{account: 1}`), 400, "", "body"},
		{"empty", payment("demo", "k", ``), 400, "", "body"},
		{"null", payment("demo", "k", `null`), 400, "", "body"},
		{"array", payment("demo", "k", `[1000]`), 400, "", "body"},
		{"two objects", payment("demo", "k", body1+body1), 400, "", "body"},
		{"unknown member", payment("demo", "k", `{"account": "acc-1", "amount": 1000, "currency": "EUR"}`), 400, "currency", "body"},
		{"member in capitals", payment("demo", "k", `{"Account": "acc-1", "amount": 1000}`), 400, "Account", "body"},
		{"no account", payment("demo", "k", `{"amount": 1000}`), 400, "account", "body"},
		{"account a number", payment("demo", "k", `{"account": 7, "amount": 1000}`), 400, "account", "body"},
		{"account null", payment("demo", "k", `{"account": null, "amount": 1000}`), 400, "account", "body"},
		{"account pattern", payment("demo", "k", `{"account": "acc 1; drop", "amount": 1000}`), 400, "account", "body"},
		{"account too long", payment("demo", "k", `{"account": "`+strings.Repeat("a", 41)+`", "amount": 1000}`), 400, "account", "body"},
		{"no amount", payment("demo", "k", `{"account": "acc-1"}`), 400, "amount", "body"},
		{"zero", payment("demo", "k", `{"account": "acc-1", "amount": 0}`), 400, "amount", "body"},
		{"negative", payment("demo", "k", `{"account": "acc-1", "amount": -5}`), 400, "amount", "body"},
		{"over the limit", payment("demo", "k", `{"account": "acc-1", "amount": 100000001}`), 400, "amount", "body"},
		{"past int64", payment("demo", "k", `{"account": "acc-1", "amount": 99999999999999999999999}`), 400, "amount", "body"},
		{"fraction", payment("demo", "k", `{"account": "acc-1", "amount": 10.5}`), 400, "amount", "body"},
		{"exponent", payment("demo", "k", `{"account": "acc-1", "amount": 1e3}`), 400, "amount", "body"},
		{"amount a string", payment("demo", "k", `{"account": "acc-1", "amount": "1000"}`), 400, "amount", "body"},
		{"too large", payment("demo", "k", huge), 413, "", ""},
		{"form", payment("demo", "k", body1, "Content-Type", "application/x-www-form-urlencoded"), 415, "Content-Type", "header"},
		{"text/plain", payment("demo", "k", body1, "Content-Type", "text/plain"), 415, "Content-Type", "header"},
		{"no content type", payment("demo", "k", body1, "Content-Type", ""), 415, "Content-Type", "header"},
		{"delay not a duration", payment("demo", "k", body1, "Lab-Gateway-Delay", "2"), 400, "Lab-Gateway-Delay", "header"},
		{"delay over 5s", payment("demo", "k", body1, "Lab-Gateway-Delay", "5.001s"), 400, "Lab-Gateway-Delay", "header"},
		{"delay negative", payment("demo", "k", body1, "Lab-Gateway-Delay", "-1s"), 400, "Lab-Gateway-Delay", "header"},
		{"key too long", payment("demo", strings.Repeat("k", MaxKeyLen+1), body1), 400, "Idempotency-Key", "header"},
		{"ledger name", payment("Demo_1", "k", body1), 400, "ledger", "path"},
		{"ledger name too long", payment(strings.Repeat("a", 41), "k", body1), 400, "ledger", "path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := problemOf(t, serve(h, c.req), c.status)
			if c.status == 400 && p.Type != typeInvalid {
				t.Errorf("type %q", p.Type)
			}
			if c.in == "" {
				return
			}
			if len(p.Errors) == 0 || p.Errors[0].Field != c.field || p.Errors[0].In != c.in || p.Errors[0].Detail == "" {
				t.Errorf("errors %+v, want the first for %s %q", p.Errors, c.in, c.field)
			}
		})
	}
	if n := a.hub.names(); len(n) != 0 {
		t.Errorf("bad requests made ledgers: %v", n)
	}
	// The limits are named where they apply.
	for body, want := range map[string]string{
		`{"account": "acc-1", "amount": 100000001}`: "100000000",
		huge: "4096",
	} {
		if a := serve(h, payment("demo", "k", body)); !strings.Contains(a.body, want) {
			t.Errorf("%.40s: the answer does not name the limit %s: %s", body, want, a.body)
		}
	}
	if a := serve(h, payment("demo", "k", body1, "Lab-Gateway-Delay", "6s")); !strings.Contains(a.body, "5s") {
		t.Errorf("the delay's answer does not name its limit: %s", a.body)
	}
	// Every problem in one answer: both members missing, and a bad header.
	p := problemOf(t, serve(h, payment("demo", "k", `{}`, "Lab-Gateway-Delay", "soon")), 400)
	var fields []string
	for _, e := range p.Errors {
		fields = append(fields, e.Field)
	}
	if strings.Join(fields, ",") != "account,amount,Lab-Gateway-Delay" {
		t.Errorf("fields %v", fields)
	}
}

// TestAPIAddressesAnswerProblems: under /api/v1 a wrong address or method
// is a problem too, and GET names a bad ledger.
func TestAPIAddressesAnswerProblems(t *testing.T) {
	_, h := newTestAPI(t, Config{})
	problemOf(t, serve(h, httptest.NewRequest(http.MethodGet, "/api/v1/payments", nil)), 404)
	a := serve(h, httptest.NewRequest(http.MethodDelete, "/api/v1/ledgers/demo/payments", nil))
	problemOf(t, a, 405)
	if a.header.Get("Allow") != "GET, POST" {
		t.Errorf("Allow %q", a.header.Get("Allow"))
	}
	problemOf(t, serve(h, httptest.NewRequest(http.MethodGet, "/api/v1/ledgers/No!/payments", nil)), 400)
	// Reading a ledger that does not exist makes none.
	if l := ledgerOf(t, h, "nobody"); l.Active || len(l.Payments) != 0 || l.Keys == nil {
		t.Errorf("ledger of nobody: %+v", l)
	}
}

// gatewayHook replaces the gateway's wait: each call says it has entered
// and waits for release (or the client's end).
type gatewayHook struct {
	entered chan string // the delay asked for, once inside the call
	release chan struct{}
}

func hookGateway(a *TryAPI) *gatewayHook {
	g := &gatewayHook{entered: make(chan string, 4), release: make(chan struct{})}
	a.hub.wait = func(ctx context.Context, d time.Duration) error {
		g.entered <- d.String()
		select {
		case <-g.release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g
}

// post sends a payment to a real server and reads the answer.
func post(tb testing.TB, ctx context.Context, base, ledger, key, body string, headers ...string) (answer, error) {
	r := payment(ledger, key, body, headers...)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+r.URL.Path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header = r.Header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}, err
}

// TestConcurrentRequestsWithOneKey: while request A is inside the slow
// gateway call, B with the same key gets 409, for real: two HTTP requests
// on one database. Then A gets its 201, and B again gets it replayed.
func TestConcurrentRequestsWithOneKey(t *testing.T) {
	a, h := newTestAPI(t, Config{})
	g := hookGateway(a)
	ts := httptest.NewServer(h)
	defer ts.Close()
	ctx := t.Context()
	const body = `{"account": "acc-2", "amount": 2500}`
	resA := make(chan answer, 1)
	go func() {
		r, err := post(t, ctx, ts.URL, "race", "key-2", body, "Lab-Gateway-Delay", "2s")
		if err != nil {
			t.Error(err)
		}
		resA <- r
	}()
	if d := <-g.entered; d != "2s" {
		t.Fatalf("the gateway waits %s, want the 2s asked for", d)
	}
	l := ledgerOf(t, h, "race")
	if len(l.Keys) != 1 || !l.Keys[0].Locked || l.Keys[0].RecoveryPoint != "started" {
		t.Fatalf("while A is at the gateway: %+v", l.Keys)
	}
	b, err := post(t, ctx, ts.URL, "race", "key-2", body)
	if err != nil {
		t.Fatal(err)
	}
	if p := problemOf(t, b, http.StatusConflict); !strings.Contains(p.Detail, "in progress") || b.header.Get("Retry-After") != "1" {
		t.Errorf("B: Retry-After %q\n%s", b.header.Get("Retry-After"), b.body)
	}
	close(g.release)
	first := <-resA
	if first.status != http.StatusCreated || first.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("A: %d %v\n%s", first.status, first.header, first.body)
	}
	again, err := post(t, ctx, ts.URL, "race", "key-2", body)
	if err != nil {
		t.Fatal(err)
	}
	if again.status != first.status || again.body != first.body || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("B again: %d %v\n%s\nwant %s", again.status, again.header, again.body, first.body)
	}
	l = ledgerOf(t, h, "race")
	if len(l.Payments) != 1 || len(l.Charges) != 1 || l.Charges[0].Calls != 1 || l.Accounts[0].Balance != 2500 || l.Keys[0].Locked {
		t.Errorf("after: %+v", l)
	}
}

// TestHangUpStopsTheWait: a client that hangs up during Lab-Gateway-Delay
// stops the provider's wait (the real one, a 5 s timer), nothing is
// charged, and the key's lock is released, so the retry goes through at
// once instead of meeting a 409.
func TestHangUpStopsTheWait(t *testing.T) {
	a, h := newTestAPI(t, Config{})
	entered, waited := make(chan struct{}, 1), make(chan error, 1)
	a.hub.wait = func(ctx context.Context, d time.Duration) error {
		entered <- struct{}{}
		err := sleepCtx(ctx, d)
		waited <- err
		return err
	}
	var served sync.WaitGroup
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		defer served.Done()
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	ctx, hangUp := context.WithCancel(t.Context())
	gone := make(chan error, 1)
	go func() {
		_, err := post(t, ctx, ts.URL, "hang", "key-1", body1, "Lab-Gateway-Delay", "5s")
		gone <- err
	}()
	<-entered
	hangUp()
	select {
	case err := <-waited:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the wait ended with %v, want context.Canceled", err)
		}
	case <-time.After(4 * time.Second): // a safety net: the timer is 5 s
		t.Fatal("the wait did not stop when the client hung up")
	}
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Errorf("client: %v", err)
	}
	served.Wait() // the handler has finished with the request
	l := ledgerOf(t, h, "hang")
	if len(l.Keys) != 1 || l.Keys[0].Locked || l.Keys[0].RecoveryPoint != "started" || len(l.Payments) != 0 || len(l.Charges) != 0 {
		t.Fatalf("after the hang-up: %+v", l)
	}
	retry, err := post(t, t.Context(), ts.URL, "hang", "key-1", body1)
	if err != nil || retry.status != http.StatusCreated {
		t.Fatalf("retry: %d %v\n%s", retry.status, err, retry.body)
	}
	if l := ledgerOf(t, h, "hang"); len(l.Payments) != 1 || len(l.Charges) != 1 || l.Accounts[0].Balance != 1000 {
		t.Errorf("after the retry: %+v", l)
	}
}

// TestLedgerLimitAndIdle: past MaxLedgers a new name gets 503 with
// Retry-After (the time until the first one may go); once a ledger has
// been idle for Idle it is dropped, with its data, and the new name gets
// its place. Reading does not keep a ledger alive.
func TestLedgerLimitAndIdle(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	a, h := newTestAPI(t, Config{MaxLedgers: 2, Idle: 10 * time.Minute, Now: clock})

	for _, name := range []string{"one", "two"} {
		if r := serve(h, payment(name, "k", body1)); r.status != http.StatusCreated {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
		advance(time.Minute)
	}
	full := serve(h, payment("three", "k", body1))
	p := problemOf(t, full, http.StatusServiceUnavailable)
	if ra := full.header.Get("Retry-After"); ra != "480" { // "one" was last used 8 min ago
		t.Errorf("Retry-After %q, want 480\n%s", ra, full.body)
	}
	if !strings.Contains(p.Detail, "at most 2") {
		t.Errorf("detail: %s", p.Detail)
	}
	// Payments to an existing ledger still go through.
	if r := serve(h, payment("two", "k2", body1)); r.status != http.StatusCreated {
		t.Errorf("two: %d", r.status)
	}
	advance(8 * time.Minute) // "one" has been idle 10 min; reading it does not count
	if l := ledgerOf(t, h, "one"); l.Active {
		t.Errorf("one is still there after 10 idle minutes: %+v", l)
	}
	if r := serve(h, payment("three", "k", body1)); r.status != http.StatusCreated {
		t.Fatalf("three: %d %s", r.status, r.body)
	}
	if got := strings.Join(a.hub.names(), ","); got != "three,two" {
		t.Errorf("ledgers %s, want three,two", got)
	}
	// "one" comes back empty: the same key is a new payment.
	advance(10 * time.Minute)
	if r := serve(h, payment("one", "k", body1)); r.status != http.StatusCreated || r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("one again: %d %v", r.status, r.header)
	}
}

// TestLedgerFull: a ledger holds at most maxAccounts accounts; the next
// new one is refused with 507, an existing one still paid.
func TestLedgerFull(t *testing.T) {
	_, h := newTestAPI(t, Config{})
	for i := range maxAccounts {
		body := `{"account": "acc-` + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + `-` + strconv.Itoa(i) + `", "amount": 1}`
		if r := serve(h, payment("full", "k-"+strconv.Itoa(i), body)); r.status != http.StatusCreated {
			t.Fatalf("%d: %d %s", i, r.status, r.body)
		}
	}
	p := problemOf(t, serve(h, payment("full", "k-new", `{"account": "one-more", "amount": 1}`)), http.StatusInsufficientStorage)
	if !strings.Contains(p.Detail, "100 accounts") {
		t.Errorf("detail: %s", p.Detail)
	}
	if r := serve(h, payment("full", "k-old", `{"account": "acc-a-0", "amount": 1}`)); r.status != http.StatusCreated {
		t.Errorf("existing account: %d %s", r.status, r.body)
	}
}

// TestPages: /try-api in both languages with a fresh name and the
// cheat-sheet; the form goes to the ledger's page or says why the name
// is not one; the ledger's page and its fragment show its tables, and
// the cheat-sheet has this server's address and the ledger's name.
func TestPages(t *testing.T) {
	_, h := newTestAPI(t, Config{})
	get := func(target string, headers ...string) answer {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.Host = "lab.example:8080"
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
		return serve(h, r)
	}
	for lang, want := range map[string]string{"en": "Try the API with curl", "ru": "Попробуйте API через curl"} {
		a := get("/try-api?lang=" + lang)
		// The cheat-sheet's commands use the name the form offers.
		name := regexp.MustCompile(`value="(sbx-[a-z0-9]+)"`).FindStringSubmatch(a.body)
		if a.status != 200 || !strings.Contains(a.body, want) || strings.Contains(a.body, "⟦") || name == nil ||
			!strings.Contains(a.body, "http://lab.example:8080/api/v1/ledgers/"+name[1]+"/payments") {
			t.Errorf("%s: %d\n%s", lang, a.status, a.body)
		}
	}
	if a := get("/try-api?ledger=my-box&lang=ru"); a.status != http.StatusSeeOther || a.header.Get("Location") != "/try-api/my-box?lang=ru" {
		t.Errorf("form: %d %v", a.status, a.header)
	}
	if a := get("/try-api?ledger=My+Box"); a.status != http.StatusBadRequest || !strings.Contains(a.body, `id="try-problem"`) || !strings.Contains(a.body, "My Box") {
		t.Errorf("bad name: %d\n%s", a.status, a.body)
	}
	if a := get("/try-api/Bad_Name"); a.status != http.StatusBadRequest || !strings.Contains(a.body, "Bad_Name") {
		t.Errorf("bad name page: %d\n%s", a.status, a.body)
	}
	a := get("/try-api/box-1")
	for _, want := range []string{`id="try-inactive"`, `hx-get="/try-api/box-1/state?lang=en"`, `hx-trigger="every 2s"`,
		"http://lab.example:8080/api/v1/ledgers/box-1/payments", "Idempotency-Key: key-1", "Lab-Gateway-Delay: 5s", `href="/try-api" aria-current="true"`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("ledger page lacks %s", want)
		}
	}
	if a.status != 200 || a.header.Get("Cache-Control") != "no-store" {
		t.Errorf("ledger page: %d %v", a.status, a.header)
	}
	serve(h, payment("box-1", "key-1", body1))
	frag := get("/try-api/box-1/state", "Accept-Language", "ru")
	for _, want := range []string{`data-key="key-1"`, `data-payment="pay_1"`, `data-account="acc-1"`, "10.00", "finished", "Хранилище ключей"} {
		if !strings.Contains(frag.body, want) {
			t.Errorf("fragment lacks %s\n%s", want, frag.body)
		}
	}
	if strings.Contains(frag.body, "<html") || strings.Contains(frag.body, "try-inactive") {
		t.Errorf("the fragment is a whole page or says inactive:\n%s", frag.body)
	}
	// A Host that is not a plain name is not copied into shell commands.
	r := httptest.NewRequest(http.MethodGet, "/try-api/box-1", nil)
	r.Host = "evil.example';rm -rf ~;'"
	if a := serve(h, r); strings.Contains(a.body, "rm -rf") || !strings.Contains(a.body, "http://localhost:8080/api/v1/ledgers/box-1/payments") {
		t.Errorf("odd host:\n%s", a.body)
	}
}

// TestOldPaymentsAddress: the payments address from before the ledgers
// were called so answers 308 to the ledger's address now, for every
// method, with the query; following it pays once, as the same key.
func TestOldPaymentsAddress(t *testing.T) {
	_, h := newTestAPI(t, Config{})
	for _, c := range []struct {
		method, target, want string
	}{
		{http.MethodPost, "/api/v1/sandboxes/demo/payments", "/api/v1/ledgers/demo/payments"},
		{http.MethodGet, "/api/v1/sandboxes/demo/payments?x=1", "/api/v1/ledgers/demo/payments?x=1"},
		// A name that is not valid goes along: the new address says why.
		{http.MethodDelete, "/api/v1/sandboxes/No!/payments", "/api/v1/ledgers/No!/payments"},
	} {
		a := serve(h, httptest.NewRequest(c.method, c.target, nil))
		if a.status != http.StatusPermanentRedirect || a.header.Get("Location") != c.want {
			t.Errorf("%s %s: %d to %q, want 308 to %q", c.method, c.target, a.status, a.header.Get("Location"), c.want)
		}
	}
	const body = `{"account": "acc-1", "amount": 1000}`
	first := serve(h, payment("demo", "k-1", body))
	r := payment("demo", "k-1", body)
	r.URL.Path = "/api/v1/sandboxes/demo/payments"
	moved := serve(h, r)
	// The client follows with the same method, body and key (curl -L):
	// a replay of the first payment, not a second one.
	follow := payment("demo", "k-1", body)
	follow.URL.Path = moved.header.Get("Location")
	again := serve(h, follow)
	if first.status != http.StatusCreated || moved.status != http.StatusPermanentRedirect ||
		again.status != http.StatusCreated || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("pay, old address, follow: %d, %d, %d %v", first.status, moved.status, again.status, again.header)
	}
	if l := ledgerOf(t, h, "demo"); len(l.Payments) != 1 {
		t.Errorf("payments after following the 308: %d, want 1", len(l.Payments))
	}
}
