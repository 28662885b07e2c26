package web_test

import (
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The second round of #28's smaller items (item 8, feature 10 and 13)
// over HTTP; their browser tests are in web/playground/item8_round2_browser_test.go.

// logStatuses is a sandbox's request log as /try-api/NAME/state shows
// it: each row's status, newest first, as the page lists them.
func logStatuses(t *testing.T, h http.Handler, sandbox string) []int {
	t.Helper()
	r := webtest.Get(t, h, "/try-api/"+sandbox+"/state")
	if r.Status != http.StatusOK {
		t.Fatalf("state: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	start := strings.Index(r.Body, `id="try-log"`)
	end := strings.Index(r.Body, `id="try-keys-title"`)
	if start < 0 || end < start {
		t.Fatalf("no request log in the state:\n%s", webtest.Excerpt(r.Body))
	}
	var out []int
	for _, m := range regexp.MustCompile(`<tr data-seq="\d+" data-status="(\d+)"`).FindAllStringSubmatch(r.Body[start:end], -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// TestRequestLogHasEveryAnswer (#28, feature 13): every answer the API
// gives for a sandbox's name is in its request log, newest first, the
// ones the server gives before the API's handler is reached too: the
// cross-origin 403 (refused before routing), the 405 of a method the
// payments address does not take and the throttle's 429. They were
// missing: only the handler's own answers were logged.
func TestRequestLogHasEveryAnswer(t *testing.T) {
	clock := webtest.NewClock()
	h, err := web.NewServer(web.Config{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	const box, addr = "every-answer", "198.51.100.20:4000"
	steps := []struct {
		what   string
		send   func() webtest.Response
		status int
	}{
		{"a payment", func() webtest.Response { return apiPost(h, addr, box, "k-1", tryBody) }, http.StatusCreated},
		{"its replay", func() webtest.Response { return apiPost(h, addr, box, "k-1", tryBody) }, http.StatusCreated},
		{"no key", func() webtest.Response { return apiPost(h, addr, box, "", tryBody) }, http.StatusBadRequest},
		{"the key with another amount", func() webtest.Response {
			return apiPost(h, addr, box, "k-1", `{"account": "acc-1", "amount": 5000}`)
		}, http.StatusUnprocessableEntity},
		{"another site's page", func() webtest.Response {
			return apiPost(h, addr, box, "k-2", tryBody, "Sec-Fetch-Site", "cross-site")
		}, http.StatusForbidden},
		{"PUT", func() webtest.Response {
			return webtest.Request(t, h, http.MethodPut, "/api/v1/ledgers/"+box+"/payments", nil)
		}, http.StatusMethodNotAllowed},
	}
	for _, s := range steps {
		if r := s.send(); r.Status != s.status {
			t.Fatalf("%s: %d, want %d\n%s", s.what, r.Status, s.status, webtest.Excerpt(r.Body))
		}
	}
	if r := apiPost(h, addr, box, "k-2", tryBody, "Origin", "http://evil.example"); r.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("cross-origin 403 is %s, want problem+json", r.Header.Get("Content-Type"))
	}
	// Past the throttle's burst: the 429 is logged as the others.
	var throttled webtest.Response
	for i := range web.PaymentsBurst + 1 {
		throttled = apiPost(h, addr, box, "burst-"+strconv.Itoa(i), tryBody)
		if throttled.Status == http.StatusTooManyRequests {
			break
		}
	}
	if throttled.Status != http.StatusTooManyRequests {
		t.Fatalf("no 429 past the burst of %d: %d", web.PaymentsBurst, throttled.Status)
	}
	got := logStatuses(t, h, box)
	if len(got) == 0 || got[0] != http.StatusTooManyRequests {
		t.Fatalf("the newest entry is not the 429: %v", got[:min(len(got), 5)])
	}
	// The log keeps the newest MaxLogEntries: the burst pushed the first
	// answers out, so look at the oldest steps with a fresh address and
	// a fresh sandbox, one of each, the throttle aside.
	const box2, addr2 = "every-answer-2", "198.51.100.21:4000"
	sends := []func() webtest.Response{
		func() webtest.Response { return apiPost(h, addr2, box2, "k-1", tryBody) },
		func() webtest.Response { return apiPost(h, addr2, box2, "", tryBody) },
		func() webtest.Response { return apiPost(h, addr2, box2, "k-1", `{"account": "acc-1", "amount": 5000}`) },
		func() webtest.Response {
			return apiPost(h, addr2, box2, "k-2", tryBody, "Sec-Fetch-Site", "cross-site")
		},
		func() webtest.Response {
			return apiPost(h, addr2, box2, "k-2", tryBody, "Origin", "http://evil.example")
		},
		func() webtest.Response {
			return webtest.Request(t, h, http.MethodPut, "/api/v1/ledgers/"+box2+"/payments", nil)
		},
	}
	var want2 []int
	for _, send := range sends {
		want2 = append([]int{send().Status}, want2...)
	}
	if got := logStatuses(t, h, box2); !equalInts(got, want2) {
		t.Errorf("log of %s, newest first: %v, want %v", box2, got, want2)
	}
	if !equalInts(want2, []int{405, 403, 403, 422, 400, 201}) {
		t.Errorf("the answers themselves: %v", want2)
	}
	// Another sandbox's name, or an address that is not a payments
	// address, is in no log.
	if r := webtest.Request(t, h, http.MethodPut, "/api/v1/ledgers/"+box2, nil); r.Status == http.StatusOK {
		t.Errorf("PUT on the sandbox itself: %d", r.Status)
	}
	if got := logStatuses(t, h, box2); len(got) != len(want2) {
		t.Errorf("an address that is not payments' was logged: %v", got)
	}
	if got := logStatuses(t, h, "every-answer-3"); len(got) != 0 {
		t.Errorf("a sandbox nobody called has a log: %v", got)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPracticeFormatWithoutJS (#28, feature 10): a coding exercise's
// Format without JavaScript posts the form with action=format; the page
// comes back with the file as go/format prints it (the lab's formatter,
// labview.FormatCode), nothing run and no try counted; a file that does
// not parse comes back as it was, 422, with the error listed at its line;
// an action the editor does not have is a 400 that says which it has.
func TestPracticeFormatWithoutJS(t *testing.T) {
	bank, store := webtest.OpenProgress(t, "")
	h, err := web.NewServer(web.Config{Practice: store, Bank: bank})
	if err != nil {
		t.Fatal(err)
	}
	const target = "/practice/q/code-crash-before-ack"
	page := webtest.Get(t, h, target)
	if page.Status != http.StatusOK || !strings.Contains(page.Body, `value="format"`) || !strings.Contains(page.Body, `data-format="/lab/format"`) {
		t.Fatalf("the exercise's editor has no Format: %d\n%s", page.Status, webtest.Excerpt(page.Body))
	}
	ugly := "package handler\nimport \"context\"\nfunc   f( ctx context.Context ) error {\nreturn nil}\n"
	r := webtest.Request(t, h, http.MethodPost, target, url.Values{"code": {ugly}, "action": {"format"}}, "Sec-Fetch-Site", "same-origin")
	want := "package handler\n\nimport \"context\"\n\nfunc f(ctx context.Context) error {\n\treturn nil\n}\n"
	if r.Status != http.StatusOK || !strings.Contains(r.Body, htmlEscape(want)) {
		t.Errorf("formatted: %d, want the file as go/format prints it\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	for _, lang := range []string{"en", "ru"} {
		bad := webtest.Request(t, h, http.MethodPost, target+"?lang="+lang, url.Values{"code": {"package handler\n\nfunc f( {\n"}, "action": {"format"}}, "Sec-Fetch-Site", "same-origin")
		line := map[string]string{"en": "line 3: syntax error", "ru": "строка 3: синтаксическая ошибка"}[lang]
		if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, `<li data-line="3">`+line) {
			t.Errorf("%s: a file that does not parse: %d\n%s", lang, bad.Status, webtest.Excerpt(bad.Body))
		}
		webtest.NoMissingKeys(t, target+" format "+lang, bad.Body)
	}
	if r := webtest.Request(t, h, http.MethodPost, target, url.Values{"code": {ugly}, "action": {"<b>run</b>"}}, "Sec-Fetch-Site", "same-origin"); r.Status != http.StatusBadRequest ||
		!strings.Contains(r.Body, "&lt;b&gt;run&lt;/b&gt;") {
		t.Errorf("an unknown action: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
}
