package web

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
)

// newInternalServer is the real server, with its parts open to the test.
func newInternalServer(tb testing.TB, cfg Config) (*server, http.Handler) {
	tb.Helper()
	s, err := newServer(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return s, s.routes()
}

// The cache serves the very bytes a fresh replay makes, for every kind of
// lab page, and computes each only once.
func TestCachedPagesAreByteIdenticalToFreshOnes(t *testing.T) {
	cached, ch := newInternalServer(t, Config{})
	_, fresh := newInternalServer(t, Config{CacheBytes: -1})
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
		want := get(t, fresh, c.target, c.headers...)
		first := get(t, ch, c.target, c.headers...)
		again := get(t, ch, c.target, c.headers...)
		for i, got := range []response{first, again} {
			if got.status != want.status || got.body != want.body {
				t.Errorf("%s %v (request %d): status %d, %d bytes; fresh: status %d, %d bytes", c.target, c.headers, i+1,
					got.status, len(got.body), want.status, len(want.body))
			}
			for _, h := range []string{"Content-Type", "HX-Push-Url", "Cache-Control"} {
				if got.header.Get(h) != want.header.Get(h) {
					t.Errorf("%s %v: %s %q, fresh %q", c.target, c.headers, h, got.header.Get(h), want.header.Get(h))
				}
			}
		}
	}
	// Seven pages replayed (the unknown preset fails before any replay),
	// each once, though each was asked for twice.
	computed, pages, _ := cached.CacheStats()
	if computed != 7 {
		t.Errorf("%d computations for 7 distinct pages asked twice each", computed)
	}
	if pages != 7 {
		t.Errorf("the cache holds %d pages, want 7", pages)
	}
}

// Many readers asking for the same page at once cost one replay.
func TestConcurrentIdenticalRequestsReplayOnce(t *testing.T) {
	s, h := newInternalServer(t, Config{})
	const readers = 24
	bodies := make([]string, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bodies[i] = get(t, h, "/lab?preset=concurrent-duplicates&handlers=all").body
		}()
	}
	wg.Wait()
	if computed, _, _ := s.CacheStats(); computed != 1 {
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
	s, _ := newInternalServer(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st, err := s.lab.Replayer.ReadState(url.Values{"preset": {"poison-loop"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.lab.Replayer.Replay(ctx, st); !errors.Is(err, context.Canceled) {
		t.Errorf("replay with a cancelled context: %v, want context.Canceled", err)
	}
}

// A cached page is sent compressed to those who accept gzip, plain to the
// others, and as 304 to a reader who holds it already.
func TestCachedPageNegotiation(t *testing.T) {
	_, h := newInternalServer(t, Config{})
	plain := get(t, h, "/lab?preset=happy-path")
	gz := get(t, h, "/lab?preset=happy-path", "Accept-Encoding", "gzip")
	if gz.header.Get("Content-Encoding") != "gzip" || plain.header.Get("Content-Encoding") != "" {
		t.Fatalf("Content-Encoding: %q with gzip, %q without", gz.header.Get("Content-Encoding"), plain.header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(strings.NewReader(gz.body))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if string(unzipped) != plain.body {
		t.Errorf("the gzip body is not the plain body compressed")
	}
	if !strings.Contains(gz.header.Get("Vary"), "Accept-Encoding") {
		t.Errorf("Vary %q lacks Accept-Encoding", gz.header.Get("Vary"))
	}
	for _, r := range []response{plain, gz} {
		etag := r.header.Get("ETag")
		if etag == "" {
			t.Fatal("no ETag on a cached page")
		}
		headers := []string{"If-None-Match", etag}
		if r.header.Get("Content-Encoding") != "" {
			headers = append(headers, "Accept-Encoding", "gzip")
		}
		if again := get(t, h, "/lab?preset=happy-path", headers...); again.status != http.StatusNotModified || again.body != "" {
			t.Errorf("If-None-Match %s: status %d with %d bytes, want 304 and none", etag, again.status, len(again.body))
		}
	}
	if plain.header.Get("ETag") == gz.header.Get("ETag") {
		t.Error("the plain and the gzip page share an ETag")
	}
}

// The cache keeps within its bytes, dropping the least recently used.
// Past the replay slots a request waits a little, then hears that the lab
// is busy: 503, Retry-After, a page that says so, and nothing cached.
func TestBusyLabAnswers503(t *testing.T) {
	s, h := newInternalServer(t, Config{MaxReplays: 1, ReplayWait: 1})
	release, _ := s.lab.Replayer.Gate.Acquire(context.Background()) // every slot taken
	for _, lang := range []string{"en", "ru"} {
		r := get(t, h, "/lab?preset=happy-path&lang="+lang)
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
			t.Fatalf("busy: status %d, Retry-After %q", r.status, r.header.Get("Retry-After"))
		}
		want := map[string]string{"en": "Every replay slot is taken", "ru": "заняты все слоты"}[lang]
		if !strings.Contains(r.body, want) {
			t.Errorf("busy page (%s) does not say %q:\n%s", lang, want, excerpt(r.body))
		}
	}
	release()
	if r := get(t, h, "/lab?preset=happy-path&lang=en"); r.status != http.StatusOK {
		t.Errorf("after the slot freed: status %d; a busy answer must not be cached", r.status)
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
	_, h := newInternalServer(t, Config{})
	for _, c := range []struct {
		method, target string
		form           url.Values
	}{
		{"POST", "/lab/script", url.Values{"script": {text}}},
		{"GET", "/lab?script=" + url.QueryEscape(text), nil},
		{"POST", "/rooms", url.Values{"script": {text}}},
		{"GET", "/present?script=" + url.QueryEscape(text), nil},
	} {
		r := request(t, h, c.method, c.target, c.form)
		if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.body, "standard form") {
			t.Errorf("%s %.40s…: status %d, want 413 naming the standard form\n%s", c.method, c.target, r.status, excerpt(r.body))
		}
	}
}

// Static files are compressed once, at start, and sent compressed to
// readers who accept it.
func TestStaticFilesArePrecompressed(t *testing.T) {
	s, h := newInternalServer(t, Config{})
	for _, name := range []string{"lab.css", "lab.js", "vendor/htmx-4.0.1.min.js"} {
		if !s.Assets.Compressed(name) {
			t.Errorf("%s has no precompressed form", name)
			continue
		}
		u := s.Assets.URL(name)
		plain := get(t, h, u)
		gz := get(t, h, u, "Accept-Encoding", "gzip, br")
		if gz.header.Get("Content-Encoding") != "gzip" || plain.header.Get("Content-Encoding") != "" {
			t.Errorf("%s: Content-Encoding %q with gzip, %q without", name, gz.header.Get("Content-Encoding"), plain.header.Get("Content-Encoding"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader([]byte(gz.body)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(zr)
		if string(b) != plain.body {
			t.Errorf("%s: the gzip body is not the file", name)
		}
		if gz.header.Get("ETag") == plain.header.Get("ETag") {
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
	s, h := newInternalServer(t, Config{Budget: 12})
	// Each message fails ten times while the gateway is down: 20 deliveries.
	script := "max-deliveries: 10\npublish a amount=1\npublish b amount=2\ngateway down\ndrain\n"
	target := "/lab?handlers=setnx&s=" + link.Pack(script)
	for _, c := range []struct{ lang, want string }{
		{"en", "line 5: the run needs more than 12 handler deliveries"},
		{"ru", "строка 5"},
	} {
		r := get(t, h, target+"&lang="+c.lang)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, c.want) {
			t.Errorf("%s: status %d, want 422 saying %q\n%s", c.lang, r.status, c.want, excerpt(r.body))
		}
		if !strings.Contains(r.body, "gateway down") {
			t.Errorf("%s: the 422 page does not offer the script back", c.lang)
		}
	}
	started, _, _ := s.CacheStats()
	r := get(t, h, target+"&lang=en")
	if now, _, _ := s.CacheStats(); r.status != http.StatusUnprocessableEntity || now != started {
		t.Errorf("asking again: status %d, %d new replays; want the cached 422", r.status, now-started)
	}
	// htmx gets the message in the lab's message area.
	r = get(t, h, target, "HX-Request", "true", "HX-Request-Type", "partial")
	if r.status != http.StatusUnprocessableEntity || r.header.Get("HX-Retarget") != "#flash" {
		t.Errorf("htmx: status %d, HX-Retarget %q", r.status, r.header.Get("HX-Retarget"))
	}
}
