package web_test

import (
	"bytes"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// countedSandbox is a sandbox whose children are this test binary,
// started through a shell script that first appends a line to a file: the
// file's lines are the children started, whatever the page shows.
func countedSandbox(t *testing.T) (*sandbox.Runner, func() int) {
	t.Helper()
	dir := t.TempDir()
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(dir, "children")
	script := filepath.Join(dir, "child.sh")
	body := "#!/bin/sh\necho child >> '" + count + "'\nexec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	// The directory is the test's own: the child, as whoever the sandbox
	// makes it, must reach the script and append to the count.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(count, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(count, 0o666); err != nil {
		t.Fatal(err)
	}
	children := func() int {
		b, err := os.ReadFile(count)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Count(b, []byte("\n"))
	}
	// No child waits ahead (Warm -1): each starts with its request, so the
	// count moves only when a file runs.
	return sandbox.NewRunner([]string{script}, sandbox.Limits{Warm: -1}), children
}

// crossSiteServer is the whole lab with a counted sandbox and a progress
// database, so that every GET that runs a file (the lab, the presenter
// view, the checker, a grade) is there.
func crossSiteServer(t *testing.T) (http.Handler, func() int) {
	t.Helper()
	bank, store := webtest.OpenProgress(t, "")
	runner, children := countedSandbox(t)
	h, err := web.NewServer(web.Config{Practice: store, Bank: bank, Now: webtest.NewClock().Now, Sandbox: runner})
	if err != nil {
		t.Fatal(err)
	}
	return h, children
}

// crossSiteHeaders are what a browser sends when another site's page
// makes it fetch a lab address: an <img> or a link on evil.example, a
// fetch from there, a sibling site.
var crossSiteHeaders = []struct {
	name    string
	headers []string
}{
	{"an <img> on another site", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Dest", "image"}},
	{"a link on another site", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate"}},
	{"a fetch from another site", []string{"Sec-Fetch-Site", "cross-site", "Origin", "http://evil.example"}},
	{"a sibling site", []string{"Sec-Fetch-Site", "same-site", "Origin", "http://evil.example.com"}},
	{"an older browser: a foreign Origin only", []string{"Origin", "http://evil.example"}},
	{"htmx from another site", []string{"Sec-Fetch-Site", "cross-site", "HX-Request", "true"}},
}

// TestCrossSiteGetsRunNothing: an address that would run a visitor's
// handler file (the lab or the presenter view with code=, a check of a
// file, a practice result with c= that grades it), opened by another
// site's page, gets the lab's 403 page in the reader's language, and no
// sandbox child starts. Opened from the lab's own pages, typed into the
// address bar or fetched by curl, the same address runs as before.
func TestCrossSiteGetsRunNothing(t *testing.T) {
	h, children := crossSiteServer(t)
	file := link.Pack(webtest.FixedNaive)
	bank := webtest.MustBank(t)
	q, ok := bank.Question("code-crash-before-ack")
	if !ok {
		t.Fatal("no exercise code-crash-before-ack")
	}
	// The grade's address is the one the answer's POST leads to (that
	// POST runs a child of its own, before the count below starts).
	answer := webtest.Post(t, h, "/practice/q/"+q.ID, url.Values{"code": {q.Code.Solution()}})
	grade := answer.Header.Get("Location")
	if answer.Status != http.StatusSeeOther || !strings.Contains(grade, "c=") {
		t.Fatalf("answer: status %d to %q, want 303 to a result with c=\n%s", answer.Status, grade, webtest.Excerpt(answer.Body))
	}

	targets := []struct {
		name, target, ran string // ran: what the page shows when the file ran
		counted           bool   // the page runs a child each time it is built
	}{
		{"the lab", "/lab?preset=crash-before-ack&step=4&code=" + file, `id="card-yours"`, true},
		{"the presenter view", "/present?preset=crash-before-ack&step=4&code=" + file, `yours`, true},
		{"a check of a file", "/check/code?code=" + file, `yours`, true},
		// A result page shows a grade, or (once grades are kept, not made
		// again per GET) says how to get one: either way, its page.
		{"a grade", grade, `data-question="` + q.ID + `"`, false},
		{"a grade of a raw file", "/practice/q/" + q.ID + "/result?code=" + url.QueryEscape(q.Code.Solution()), `data-question="` + q.ID + `"`, false},
	}
	before := children()
	for _, tc := range targets {
		for _, a := range crossSiteHeaders {
			r := webtest.Get(t, h, tc.target, append([]string{"Accept-Language", "ru"}, a.headers...)...)
			if r.Status != http.StatusForbidden {
				t.Errorf("%s, %s: status %d, want 403\n%s", tc.name, a.name, r.Status, webtest.Excerpt(r.Body))
				continue
			}
			body := html.UnescapeString(r.Body)
			if !strings.Contains(body, "Запрос отклонён") || !strings.Contains(body, "страница другого сайта") || strings.Contains(r.Body, tc.ran) {
				t.Errorf("%s, %s: not the lab's Russian refusal, or the file ran\n%s", tc.name, a.name, webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, tc.target, r.Body)
		}
	}
	if n := children() - before; n != 0 {
		t.Fatalf("cross-site GETs started %d sandbox children, want none", n)
	}
	// In English too.
	if r := webtest.Get(t, h, targets[0].target, "Sec-Fetch-Site", "cross-site"); r.Status != http.StatusForbidden || !strings.Contains(html.UnescapeString(r.Body), "a page of another site opened it, so the lab ran nothing") {
		t.Errorf("the English refusal: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}

	// Inside the lab, from the address bar, from curl: it runs.
	sameSite := []struct {
		name    string
		headers []string
	}{
		{"a link inside the lab", []string{"Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "navigate"}},
		{"htmx inside the lab", []string{"Sec-Fetch-Site", "same-origin", "Origin", "http://example.com", "HX-Request", "true"}},
		{"typed or bookmarked", []string{"Sec-Fetch-Site", "none"}},
		{"curl", nil},
	}
	for i, tc := range targets {
		b := sameSite[i%len(sameSite)]
		before := children()
		r := webtest.Get(t, h, tc.target, b.headers...)
		if r.Status != http.StatusOK || !strings.Contains(r.Body, tc.ran) {
			t.Errorf("%s, %s: status %d, want the file run (%q)\n%s", tc.name, b.name, r.Status, tc.ran, webtest.Excerpt(r.Body))
		}
		if n := children() - before; tc.counted && n == 0 {
			t.Errorf("%s, %s: no sandbox child started", tc.name, b.name)
		}
	}
	// The same addresses without a file are no run: other sites may link
	// to them as before.
	for _, target := range []string{"/lab?preset=crash-before-ack&step=4", "/present?preset=crash-before-ack", "/practice/q/" + q.ID, "/join?code=ABC234"} {
		if r := webtest.Get(t, h, target, "Sec-Fetch-Site", "cross-site"); r.Status == http.StatusForbidden {
			t.Errorf("GET %s from another site: 403, want the page", target)
		}
	}
}

// TestCrossSiteRunsAreLogged: a refused run is a WARN naming the site,
// never an ERROR.
func TestCrossSiteRunsAreLogged(t *testing.T) {
	logs := &logBuffer{}
	runner, children := countedSandbox(t)
	h, err := web.NewServer(web.Config{Sandbox: runner, Logger: logs.logger()})
	if err != nil {
		t.Fatal(err)
	}
	r := webtest.Get(t, h, "/lab?code="+link.Pack(webtest.FixedNaive), "Origin", "http://evil.example")
	if r.Status != http.StatusForbidden || children() != 0 {
		t.Fatalf("status %d, %d children", r.Status, children())
	}
	log := logs.String()
	if !strings.Contains(log, `level=WARN msg="cross-site run refused"`) || !strings.Contains(log, "origin=http://evil.example") || strings.Contains(log, "level=ERROR") {
		t.Errorf("the refusal is not logged as a warning:\n%s", log)
	}
}
