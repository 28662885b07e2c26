package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// newInternalServer is the real server, with its parts open to the test.
func newInternalServer(tb testing.TB, cfg web.Config) (*web.Server, http.Handler) {
	tb.Helper()
	s, err := web.InternalServer(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return s, s.Routes()
}

// The cache serves the very bytes a fresh replay makes, for every kind of
// lab page, and computes each only once.
func TestCachedPagesAreByteIdenticalToFreshOnes(t *testing.T) {
	cached, ch := newInternalServer(t, web.Config{})
	_, fresh := newInternalServer(t, web.Config{CacheBytes: -1})
	pl := "/lab?s=" + link.Pack("publish p amount=5\ndeliver crash=before-ack\nredeliver\ndeliver\n")
	cases := []struct {
		target  string
		headers []string
	}{
		{"/lab?preset=crash-before-ack", nil},
		{"/lab?preset=crash-before-ack&step=2", nil},
		{"/lab?preset=crash-before-ack", []string{"Accept-Language", "ru"}},
		{"/lab?preset=crash-before-ack&lang=ru", nil},
		{"/lab?preset=crash-before-ack", []string{"HX-Request", "true", "HX-Request-Type", "partial"}},
		{pl + "&handlers=all", nil},
		{"/present/crash-before-ack?step=3", nil},
		{"/lab?preset=nope", nil}, // an error page is never replayed; it must still be right
	}
	for _, c := range cases {
		want := webtest.Get(t, fresh, c.target, c.headers...)
		first := webtest.Get(t, ch, c.target, c.headers...)
		again := webtest.Get(t, ch, c.target, c.headers...)
		for i, got := range []webtest.Response{first, again} {
			if got.Status != want.Status || got.Body != want.Body {
				t.Errorf("%s %v (request %d): status %d, %d bytes; fresh: status %d, %d bytes", c.target, c.headers, i+1,
					got.Status, len(got.Body), want.Status, len(want.Body))
			}
			for _, h := range []string{"Content-Type", "HX-Push-Url", "Cache-Control"} {
				if got.Header.Get(h) != want.Header.Get(h) {
					t.Errorf("%s %v: %s %q, fresh %q", c.target, c.headers, h, got.Header.Get(h), want.Header.Get(h))
				}
			}
		}
	}
	// Seven pages replayed (the unknown preset fails before any replay),
	// each once, though each was asked for twice.
	computed, pages, _ := cached.Shell().CacheStats()
	if computed != 7 {
		t.Errorf("%d computations for 7 distinct pages asked twice each", computed)
	}
	if pages != 7 {
		t.Errorf("the cache holds %d pages, want 7", pages)
	}
}

// Many readers asking for the same page at once cost one replay.
func TestConcurrentIdenticalRequestsReplayOnce(t *testing.T) {
	s, h := newInternalServer(t, web.Config{})
	const readers = 24
	bodies := make([]string, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bodies[i] = webtest.Get(t, h, "/lab?preset=concurrent-duplicates&handlers=all").Body
		}()
	}
	wg.Wait()
	if computed, _, _ := s.Shell().CacheStats(); computed != 1 {
		t.Errorf("%d replays for %d identical requests, want 1", computed, readers)
	}
	for i, b := range bodies {
		if b != bodies[0] || !strings.Contains(b, "<html") {
			t.Fatalf("reader %d got a different or broken page (%d bytes)", i, len(b))
		}
	}
}

// flights: waiters share one computation; when every waiter has gone, the
// computation's context is cancelled so the engine stops.
// waitFor polls a condition that another goroutine is about to make true.
// It never measures time: it yields until the condition holds, and fails
// only if it never does within a very large number of tries.
// A client that left stops its replay: the engine sees the request's
// context through the flight.
func TestReplayStopsWhenTheReaderLeaves(t *testing.T) {
	s, _ := newInternalServer(t, web.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st, err := s.Lab().Replayer.ReadState(url.Values{"preset": {"poison-loop"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lab().Replayer.Replay(ctx, st); !errors.Is(err, context.Canceled) {
		t.Errorf("replay with a cancelled context: %v, want context.Canceled", err)
	}
}

// A cached page is sent compressed to those who accept gzip, plain to the
// others, and as 304 to a reader who holds it already.
func TestCachedPageNegotiation(t *testing.T) {
	_, h := newInternalServer(t, web.Config{})
	plain := webtest.Get(t, h, "/lab?preset=happy-path")
	gz := webtest.Get(t, h, "/lab?preset=happy-path", "Accept-Encoding", "gzip")
	if gz.Header.Get("Content-Encoding") != "gzip" || plain.Header.Get("Content-Encoding") != "" {
		t.Fatalf("Content-Encoding: %q with gzip, %q without", gz.Header.Get("Content-Encoding"), plain.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(strings.NewReader(gz.Body))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if string(unzipped) != plain.Body {
		t.Errorf("the gzip body is not the plain body compressed")
	}
	if !strings.Contains(gz.Header.Get("Vary"), "Accept-Encoding") {
		t.Errorf("Vary %q lacks Accept-Encoding", gz.Header.Get("Vary"))
	}
	for _, r := range []webtest.Response{plain, gz} {
		etag := r.Header.Get("ETag")
		if etag == "" {
			t.Fatal("no ETag on a cached page")
		}
		headers := []string{"If-None-Match", etag}
		if r.Header.Get("Content-Encoding") != "" {
			headers = append(headers, "Accept-Encoding", "gzip")
		}
		if again := webtest.Get(t, h, "/lab?preset=happy-path", headers...); again.Status != http.StatusNotModified || again.Body != "" {
			t.Errorf("If-None-Match %s: status %d with %d bytes, want 304 and none", etag, again.Status, len(again.Body))
		}
	}
	if plain.Header.Get("ETag") == gz.Header.Get("ETag") {
		t.Error("the plain and the gzip page share an ETag")
	}
}

// The cache keeps within its bytes, dropping the least recently used.
// Past the replay slots a request waits a little, then hears that the lab
// is busy: 503, Retry-After, a page that says so, and nothing cached.
func TestBusyLabAnswers503(t *testing.T) {
	s, h := newInternalServer(t, web.Config{MaxReplays: 1, ReplayWait: 1})
	release, _ := s.Lab().Replayer.Gate.Acquire(context.Background()) // every slot taken
	for _, lang := range []string{"en", "ru"} {
		r := webtest.Get(t, h, "/lab?preset=happy-path&lang="+lang)
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
			t.Fatalf("busy: status %d, Retry-After %q", r.Status, r.Header.Get("Retry-After"))
		}
		want := map[string]string{"en": "Every replay slot is taken", "ru": "заняты все слоты"}[lang]
		if !strings.Contains(r.Body, want) {
			t.Errorf("busy page (%s) does not say %q:\n%s", lang, want, webtest.Excerpt(r.Body))
		}
	}
	release()
	if r := webtest.Get(t, h, "/lab?preset=happy-path&lang=en"); r.Status != http.StatusOK {
		t.Errorf("after the slot freed: status %d; a busy answer must not be cached", r.Status)
	}
}

// A script whose canonical form outgrows the limit is refused where it
// enters, with 413 and a message, never accepted and then failing later.
func TestCanonicalFormIsCheckedAtTheDoor(t *testing.T) {
	var b strings.Builder
	for range script.MaxSteps {
		// 65 bytes a step as typed, 70 as written canonically
		// ("#en:x" gains a space, "86399s" becomes "23h59m59s").
		fmt.Fprintf(&b, "#en:%s\n#ru:%s\nadvance 86399s\n", strings.Repeat("a", 20), strings.Repeat("b", 20))
	}
	text := b.String()
	sc, err := script.Parse(text)
	if err != nil {
		t.Fatalf("the script itself must parse: %v", err)
	}
	if len(text) > script.MaxScriptBytes || len(sc.String()) <= script.MaxScriptBytes {
		t.Fatalf("test script: %d bytes, canonically %d; want ≤ and > %d", len(text), len(sc.String()), script.MaxScriptBytes)
	}
	_, h := newInternalServer(t, web.Config{})
	for _, c := range []struct {
		method, target string
		form           url.Values
	}{
		{"POST", "/lab/script", url.Values{"script": {text}}},
		{"GET", "/lab?script=" + url.QueryEscape(text), nil},
		{"POST", "/rooms", url.Values{"script": {text}}},
		{"GET", "/present?script=" + url.QueryEscape(text), nil},
	} {
		r := webtest.Request(t, h, c.method, c.target, c.form)
		if r.Status != http.StatusRequestEntityTooLarge || !strings.Contains(r.Body, "standard form") {
			t.Errorf("%s %.40s…: status %d, want 413 naming the standard form\n%s", c.method, c.target, r.Status, webtest.Excerpt(r.Body))
		}
	}
}

// Static files are compressed once, at start, and sent compressed to
// readers who accept it.
func TestStaticFilesArePrecompressed(t *testing.T) {
	s, h := newInternalServer(t, web.Config{})
	for _, name := range []string{"lab.css", "lab.js", "vendor/htmx-4.0.1.min.js"} {
		if !s.Shell().Assets.Compressed(name) {
			t.Errorf("%s has no precompressed form", name)
			continue
		}
		u := s.Shell().Assets.URL(name)
		plain := webtest.Get(t, h, u)
		gz := webtest.Get(t, h, u, "Accept-Encoding", "gzip, br")
		if gz.Header.Get("Content-Encoding") != "gzip" || plain.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: Content-Encoding %q with gzip, %q without", name, gz.Header.Get("Content-Encoding"), plain.Header.Get("Content-Encoding"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader([]byte(gz.Body)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(zr)
		if string(b) != plain.Body {
			t.Errorf("%s: the gzip body is not the file", name)
		}
		if gz.Header.Get("ETag") == plain.Header.Get("ETag") {
			t.Errorf("%s: one ETag for two representations", name)
		}
	}
}

// captureWriter keeps a cookie out of the shared page.
// A script past the delivery budget is answered 422 with the engine's
// words, naming the line where the run ran out, in the reader's language;
// the page offers the script back for editing, and the answer is cached
// like any other, so asking again costs nothing.
func TestOverBudgetScriptIs422NamingTheLine(t *testing.T) {
	s, h := newInternalServer(t, web.Config{Budget: 12})
	// Each message fails ten times while the gateway is down: 20 deliveries.
	script := "max-deliveries: 10\npublish a amount=1\npublish b amount=2\ngateway down\ndrain\n"
	target := "/lab?handlers=setnx&s=" + link.Pack(script)
	for _, c := range []struct{ lang, want string }{
		{"en", "line 5: the run needs more than 12 handler deliveries"},
		{"ru", "строка 5"},
	} {
		r := webtest.Get(t, h, target+"&lang="+c.lang)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, c.want) {
			t.Errorf("%s: status %d, want 422 saying %q\n%s", c.lang, r.Status, c.want, webtest.Excerpt(r.Body))
		}
		if !strings.Contains(r.Body, "gateway down") {
			t.Errorf("%s: the 422 page does not offer the script back", c.lang)
		}
	}
	started, _, _ := s.Shell().CacheStats()
	r := webtest.Get(t, h, target+"&lang=en")
	if now, _, _ := s.Shell().CacheStats(); r.Status != http.StatusUnprocessableEntity || now != started {
		t.Errorf("asking again: status %d, %d new replays; want the cached 422", r.Status, now-started)
	}
	// htmx gets the message in the lab's message area.
	r = webtest.Get(t, h, target, "HX-Request", "true", "HX-Request-Type", "partial")
	if r.Status != http.StatusUnprocessableEntity || r.Header.Get("HX-Retarget") != "#flash" {
		t.Errorf("htmx: status %d, HX-Retarget %q", r.Status, r.Header.Get("HX-Retarget"))
	}
}
