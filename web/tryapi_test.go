package web_test

import (
	"encoding/json"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
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
func apiPost(h http.Handler, addr, sandbox, key, body string, headers ...string) webtest.Response {
	req := httptest.NewRequest(http.MethodPost, "/api/v1/ledgers/"+sandbox+"/payments", strings.NewReader(body))
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return webtest.Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
}

const tryBody = `{"account": "acc-1", "amount": 1000}`

// TestTryAPIRoutes: the live endpoint through the whole server: curl's
// posts (no browser headers) and the lab's own pages' go through, another
// site's are refused as every post is; its pages are linked from the
// navigation, in both languages; under /api/v1 errors are problem+json.
func TestTryAPIRoutes(t *testing.T) {
	h := webtest.NewServer(t)
	if r := apiPost(h, "192.0.2.1:1000", "demo", "key-1", tryBody); r.Status != http.StatusCreated || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("curl: %d %v\n%s", r.Status, r.Header, r.Body)
	}
	again := apiPost(h, "192.0.2.1:1000", "demo", "key-1", tryBody)
	if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay: %d %v", again.Status, again.Header)
	}
	if r := apiPost(h, "192.0.2.1:1000", "demo", "key-2", tryBody, "Sec-Fetch-Site", "same-origin"); r.Status != http.StatusCreated {
		t.Errorf("same-origin browser: %d\n%s", r.Status, r.Body)
	}
	for name, headers := range map[string][]string{
		"Origin of another site":     {"Origin", "http://evil.example"},
		"Sec-Fetch-Site: cross-site": {"Sec-Fetch-Site", "cross-site"},
	} {
		// The API's 403 is problem+json too, linking its explanation.
		if r := apiPost(h, "192.0.2.1:1000", "demo", "key-3", tryBody, headers...); r.Status != http.StatusForbidden ||
			r.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(r.Body, `"type":"/try-api#cross-origin"`) {
			t.Errorf("%s: %d %s, want a 403 problem\n%s", name, r.Status, r.Header.Get("Content-Type"), webtest.Excerpt(r.Body))
		}
	}
	r := webtest.Get(t, h, "/api/v1/ledgers/demo/payments")
	var l struct {
		Payments []json.RawMessage `json:"payments"`
	}
	if err := json.Unmarshal([]byte(r.Body), &l); r.Status != 200 || err != nil || len(l.Payments) != 2 {
		t.Errorf("list: %d %v\n%s", r.Status, err, r.Body)
	}
	for target, status := range map[string]int{"/api/v1/nothing": 404, "/api/v1/ledgers/demo": 404} {
		if r := webtest.Get(t, h, target); r.Status != status || r.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s", target, r.Status, r.Header.Get("Content-Type"))
		}
	}
	if r := webtest.Request(t, h, http.MethodPut, "/api/v1/ledgers/demo/payments", nil); r.Status != 405 || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("PUT: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	// The address from before the ledgers were called so: 308 to the new
	// one, which keeps the method and the body (tryapi.OldPayments).
	if r := webtest.Request(t, h, http.MethodPost, "/api/v1/sandboxes/demo/payments", nil); r.Status != http.StatusPermanentRedirect || r.Header.Get("Location") != "/api/v1/ledgers/demo/payments" {
		t.Errorf("old address: %d to %q", r.Status, r.Header.Get("Location"))
	}
	for _, lang := range []string{"en", "ru"} {
		for _, target := range []string{"/lab?lang=" + lang, "/try-api?lang=" + lang, "/try-api/demo?lang=" + lang, "/try-api/demo/state?lang=" + lang} {
			r := webtest.Get(t, h, target)
			if r.Status != 200 {
				t.Errorf("%s: %d", target, r.Status)
			}
			webtest.NoMissingKeys(t, target, r.Body)
			if !strings.HasPrefix(target, "/try-api/demo/state") && !strings.Contains(r.Body, `href="/try-api"`) {
				t.Errorf("%s: no link to /try-api in the navigation", target)
			}
		}
	}
	if r := webtest.Get(t, h, "/try-api/demo?lang=ru"); !strings.Contains(html.UnescapeString(r.Body), "Леджер demo") || !strings.Contains(r.Body, `data-payment="pay_2"`) {
		t.Errorf("the ledger page in Russian:\n%s", webtest.Excerpt(r.Body))
	}
}

// TestPaymentsAreThrottled: past the burst, a client address gets a 429
// problem+json with Retry-After; another address does not; after the
// wait the first goes on.
func TestPaymentsAreThrottled(t *testing.T) {
	clock := webtest.NewClock()
	h, err := web.NewServer(web.Config{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range web.PaymentsBurst {
		if r := apiPost(h, "198.51.100.7:5000", "loop", "k-"+strconv.Itoa(i), tryBody); r.Status != http.StatusCreated {
			t.Fatalf("payment %d: %d\n%s", i+1, r.Status, r.Body)
		}
	}
	r := apiPost(h, "198.51.100.7:5001", "loop", "k-next", tryBody)
	const secs = "1" // a token comes back every half second
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != secs || r.Header.Get("Content-Type") != "application/problem+json" ||
		!strings.Contains(r.Body, `"status":429`) {
		t.Fatalf("past the burst: %d %v\n%s", r.Status, r.Header, r.Body)
	}
	if r := apiPost(h, "198.51.100.8:5000", "loop", "k-other", tryBody); r.Status != http.StatusCreated {
		t.Errorf("another address: %d", r.Status)
	}
	clock.Advance(time.Second)
	if r := apiPost(h, "198.51.100.7:5000", "loop", "k-next", tryBody); r.Status != http.StatusCreated {
		t.Errorf("after Retry-After: %d\n%s", r.Status, r.Body)
	}
}

// TestSandboxLimitsFromConfig: MaxLedgers reaches the endpoint.
func TestSandboxLimitsFromConfig(t *testing.T) {
	h, err := web.NewServer(web.Config{MaxLedgers: 1, LedgerIdle: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if r := apiPost(h, "192.0.2.1:1", "first", "k", tryBody); r.Status != http.StatusCreated {
		t.Fatalf("first: %d", r.Status)
	}
	if r := apiPost(h, "192.0.2.1:1", "second", "k", tryBody); r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("second: %d %v", r.Status, r.Header)
	}
}
