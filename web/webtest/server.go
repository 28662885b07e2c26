// Package webtest is the harness the lab's web tests share: the real
// server over httptest, requests and what they answer, a fixed clock,
// a progress database, and a real headless Chromium driven by chromedp.
// Only tests import it, and call it by these names, so that a test reads
// the same wherever it lives; the server's own external tests reach its
// internals through web/export_test.go.
package webtest

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
)

// Main is a web test package's TestMain: the test binary is a sandbox
// child when a server starts one, as `lab sandbox-child` is the lab's,
// and the throwaway PostgreSQL and Redis a test started stop at the end.
func Main(m *testing.M) {
	if sandbox.IsChild() {
		os.Exit(sandbox.Child())
	}
	code := m.Run()
	servers.Stop() // the throwaway PostgreSQL and Redis, if a test started them
	os.Exit(code)
}

// NewServer is the real server over the real presets and handlers:
// the engine is fast enough that there is nothing to fake.
func NewServer(tb testing.TB) http.Handler {
	tb.Helper()
	h, err := web.NewServer(web.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// NewCodeServer is a test server with a sandbox: its children are this
// test binary (see Main).
func NewCodeServer(tb testing.TB, lim sandbox.Limits) http.Handler {
	tb.Helper()
	h, err := web.NewServer(web.Config{Sandbox: sandbox.NewRunner([]string{os.Args[0]}, lim)})
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// Response is what the server answered.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// Request sends one request to h; headers come in name, value pairs.
func Request(tb testing.TB, h http.Handler, method, target string, form url.Values, headers ...string) Response {
	tb.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return Response{rec.Code, rec.Header(), rec.Body.String()}
}

// Get is a GET of target.
func Get(tb testing.TB, h http.Handler, target string, headers ...string) Response {
	tb.Helper()
	return Request(tb, h, http.MethodGet, target, nil, headers...)
}

// Post is a form POSTed to target.
func Post(tb testing.TB, h http.Handler, target string, form url.Values) Response {
	tb.Helper()
	return Request(tb, h, http.MethodPost, target, form)
}

// Follow posts a form, checks the 303 and returns the page it leads to.
func Follow(tb testing.TB, h http.Handler, target string, form url.Values) (string, Response) {
	tb.Helper()
	r := Post(tb, h, target, form)
	if r.Status != http.StatusSeeOther {
		tb.Fatalf("POST %s %v: status %d, want 303\n%s", target, form, r.Status, Excerpt(r.Body))
	}
	loc := r.Header.Get("Location")
	if !strings.HasPrefix(loc, "/lab") {
		tb.Fatalf("POST %s: Location %q, want a /lab address", target, loc)
	}
	page := Get(tb, h, loc)
	if page.Status != http.StatusOK {
		tb.Fatalf("GET %s: status %d\n%s", loc, page.Status, Excerpt(page.Body))
	}
	return loc, page
}

// Excerpt is the part of an error page worth printing in a failure.
func Excerpt(body string) string {
	if i := strings.Index(body, `<main`); i >= 0 {
		body = body[i:]
	}
	if len(body) > 1500 {
		body = body[:1500] + "…"
	}
	return body
}

var cardVerdict = regexp.MustCompile(`<article class="[^"]*" id="card-([a-z-]+)" data-handler="[a-z-]+" data-verdict="([a-z-]+)"`)

// Cards maps each card's handler to its verdict.
func Cards(body string) map[string]string {
	out := map[string]string{}
	for _, m := range cardVerdict.FindAllStringSubmatch(body, -1) {
		out[m[1]] = m[2]
	}
	return out
}

var balance = regexp.MustCompile(`id="card-([a-z-]+)"(?s:.*?)data-balance>([^<]*)<`)

// Balances maps each card's handler to its balance.
func Balances(body string) map[string]string {
	out := map[string]string{}
	for _, m := range balance.FindAllStringSubmatch(body, -1) {
		out[m[1]] = m[2]
	}
	return out
}

var scriptArea = regexp.MustCompile(`(?s)<textarea id="script"[^>]*>(.*?)</textarea>`)

// ScriptOf returns the text of the page's script editor, unescaped.
func ScriptOf(tb testing.TB, body string) string {
	tb.Helper()
	m := scriptArea.FindStringSubmatch(body)
	if m == nil {
		tb.Fatalf("no script editor on the page\n%s", Excerpt(body))
	}
	return HTMLUnescape(m[1])
}

// HTMLUnescape undoes the escapes templ writes.
func HTMLUnescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&amp;", "&").Replace(s)
}

// NoMissingKeys fails when a page shows a catalog key instead of words.
func NoMissingKeys(tb testing.TB, target, body string) {
	tb.Helper()
	if i := strings.Index(body, "⟦"); i >= 0 {
		tb.Errorf("%s: missing catalog key near %q", target, body[i:min(len(body), i+60)])
	}
}

// MustPreset is the built-in preset called name.
func MustPreset(tb testing.TB, name string) sim.Preset {
	tb.Helper()
	presets, err := sim.Presets()
	if err != nil {
		tb.Fatal(err)
	}
	p, err := sim.FindPreset(presets, name)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// Between is the text of s between the first start and the end after it.
func Between(s, start, end string) string {
	_, after, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, end)
	return v
}

// MustPresets is every built-in preset.
func MustPresets(t *testing.T) []sim.Preset {
	ps, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// MatrixCellOf returns the verdict and the settled balance the grid shows
// for a preset on a handler, and the cell's link.
func MatrixCellOf(t *testing.T, body, preset, handler string) (verdict, settled, href string) {
	t.Helper()
	row := regexp.MustCompile(`(?s)<tr data-preset="` + regexp.QuoteMeta(preset) + `">.*?</tr>`).FindString(body)
	if row == "" {
		t.Fatalf("no row for %s", preset)
	}
	m := regexp.MustCompile(`(?s)<td class="[^"]*" data-handler="` + regexp.QuoteMeta(handler) +
		`" data-verdict="([^"]+)">\s*<a href="([^"]+)".*?<span data-settled>([^<]*)</span>`).FindStringSubmatch(row)
	if m == nil {
		t.Fatalf("no cell for %s × %s in\n%s", preset, handler, row)
	}
	return m[1], m[3], html.UnescapeString(m[2])
}

// CardVerdicts reads each card's handler and verdict from a lab page.
func CardVerdicts(body string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(body, `<article class="card`)[1:] {
		h := Between(part, `data-handler="`, `"`)
		out[h] = Between(part, `data-verdict="`, `"`)
	}
	return out
}
