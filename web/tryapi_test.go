package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// apiPost is a payment to the live endpoint from addr, with more headers
// as name, value pairs.
func apiPost(h http.Handler, addr, sandbox, key, body string, headers ...string) response {
	req := httptest.NewRequest(http.MethodPost, "/api/v1/ledgers/"+sandbox+"/payments", strings.NewReader(body))
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

const tryBody = `{"account": "acc-1", "amount": 1000}`

// TestTryAPIRoutes: the live endpoint through the whole server: curl's
// posts (no browser headers) and the lab's own pages' go through, another
// site's are refused as every post is; its pages are linked from the
// navigation, in both languages; under /api/v1 errors are problem+json.
func TestTryAPIRoutes(t *testing.T) {
	h := newTestServer(t)
	if r := apiPost(h, "192.0.2.1:1000", "demo", "key-1", tryBody); r.status != http.StatusCreated || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("curl: %d %v\n%s", r.status, r.header, r.body)
	}
	again := apiPost(h, "192.0.2.1:1000", "demo", "key-1", tryBody)
	if again.status != http.StatusCreated || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay: %d %v", again.status, again.header)
	}
	if r := apiPost(h, "192.0.2.1:1000", "demo", "key-2", tryBody, "Sec-Fetch-Site", "same-origin"); r.status != http.StatusCreated {
		t.Errorf("same-origin browser: %d\n%s", r.status, r.body)
	}
	for name, headers := range map[string][]string{
		"Origin of another site":     {"Origin", "http://evil.example"},
		"Sec-Fetch-Site: cross-site": {"Sec-Fetch-Site", "cross-site"},
	} {
		// The API's 403 is problem+json too, linking its explanation.
		if r := apiPost(h, "192.0.2.1:1000", "demo", "key-3", tryBody, headers...); r.status != http.StatusForbidden ||
			r.header.Get("Content-Type") != "application/problem+json" || !strings.Contains(r.body, `"type":"/try-api#cross-origin"`) {
			t.Errorf("%s: %d %s, want a 403 problem\n%s", name, r.status, r.header.Get("Content-Type"), excerpt(r.body))
		}
	}
	r := get(t, h, "/api/v1/ledgers/demo/payments")
	var l struct {
		Payments []json.RawMessage `json:"payments"`
	}
	if err := json.Unmarshal([]byte(r.body), &l); r.status != 200 || err != nil || len(l.Payments) != 2 {
		t.Errorf("list: %d %v\n%s", r.status, err, r.body)
	}
	for target, status := range map[string]int{"/api/v1/nothing": 404, "/api/v1/ledgers/demo": 404} {
		if r := get(t, h, target); r.status != status || r.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s", target, r.status, r.header.Get("Content-Type"))
		}
	}
	if r := request(t, h, http.MethodPut, "/api/v1/ledgers/demo/payments", nil); r.status != 405 || r.header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("PUT: %d %s", r.status, r.header.Get("Content-Type"))
	}
	// The address from before the ledgers were called so: 308 to the new
	// one, which keeps the method and the body (tryapi.OldPayments).
	if r := request(t, h, http.MethodPost, "/api/v1/sandboxes/demo/payments", nil); r.status != http.StatusPermanentRedirect || r.header.Get("Location") != "/api/v1/ledgers/demo/payments" {
		t.Errorf("old address: %d to %q", r.status, r.header.Get("Location"))
	}
	for _, lang := range []string{"en", "ru"} {
		for _, target := range []string{"/lab?lang=" + lang, "/try-api?lang=" + lang, "/try-api/demo?lang=" + lang, "/try-api/demo/state?lang=" + lang} {
			r := get(t, h, target)
			if r.status != 200 {
				t.Errorf("%s: %d", target, r.status)
			}
			noMissingKeys(t, target, r.body)
			if !strings.HasPrefix(target, "/try-api/demo/state") && !strings.Contains(r.body, `href="/try-api"`) {
				t.Errorf("%s: no link to /try-api in the navigation", target)
			}
		}
	}
	if r := get(t, h, "/try-api/demo?lang=ru"); !strings.Contains(html.UnescapeString(r.body), "Леджер demo") || !strings.Contains(r.body, `data-payment="pay_2"`) {
		t.Errorf("the ledger page in Russian:\n%s", excerpt(r.body))
	}
}

// TestPaymentsAreThrottled: past the burst, a client address gets a 429
// problem+json with Retry-After; another address does not; after the
// wait the first goes on.
func TestPaymentsAreThrottled(t *testing.T) {
	clock := newTestClock()
	h, err := NewServer(Config{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range paymentsBurst {
		if r := apiPost(h, "198.51.100.7:5000", "loop", "k-"+strconv.Itoa(i), tryBody); r.status != http.StatusCreated {
			t.Fatalf("payment %d: %d\n%s", i+1, r.status, r.body)
		}
	}
	r := apiPost(h, "198.51.100.7:5001", "loop", "k-next", tryBody)
	const secs = "1" // a token comes back every half second
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != secs || r.header.Get("Content-Type") != "application/problem+json" ||
		!strings.Contains(r.body, `"status":429`) {
		t.Fatalf("past the burst: %d %v\n%s", r.status, r.header, r.body)
	}
	if r := apiPost(h, "198.51.100.8:5000", "loop", "k-other", tryBody); r.status != http.StatusCreated {
		t.Errorf("another address: %d", r.status)
	}
	clock.advance(time.Second)
	if r := apiPost(h, "198.51.100.7:5000", "loop", "k-next", tryBody); r.status != http.StatusCreated {
		t.Errorf("after Retry-After: %d\n%s", r.status, r.body)
	}
}

// TestSandboxLimitsFromConfig: MaxLedgers reaches the endpoint.
func TestSandboxLimitsFromConfig(t *testing.T) {
	h, err := NewServer(Config{MaxLedgers: 1, LedgerIdle: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if r := apiPost(h, "192.0.2.1:1", "first", "k", tryBody); r.status != http.StatusCreated {
		t.Fatalf("first: %d", r.status)
	}
	if r := apiPost(h, "192.0.2.1:1", "second", "k", tryBody); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("second: %d %v", r.status, r.header)
	}
}
