package page

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
)

func TestFlightsShareAndCancel(t *testing.T) {
	g := newFlights()
	release := make(chan struct{})
	var runs int
	var mu sync.Mutex
	fn := func(ctx context.Context) (*cachedPage, error) {
		mu.Lock()
		runs++
		mu.Unlock()
		<-release
		return &cachedPage{status: 200}, nil
	}
	var wg sync.WaitGroup
	pages := make([]*cachedPage, 5)
	for i := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pages[i], _ = g.do(context.Background(), "k", fn)
		}()
	}
	waitFor(t, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.calls["k"] != nil && g.calls["k"].waiters == 5 })
	close(release)
	wg.Wait()
	if runs != 1 {
		t.Errorf("%d runs for 5 waiters", runs)
	}
	for i, p := range pages {
		if p != pages[0] || p == nil {
			t.Errorf("waiter %d got %p, want the shared %p", i, p, pages[0])
		}
	}

	// Abandoned: the only waiter leaves, the work is told to stop.
	stopped := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := g.do(ctx, "slow", func(fctx context.Context) (*cachedPage, error) {
			<-fctx.Done()
			close(stopped)
			return nil, fctx.Err()
		})
		errc <- err
	}()
	waitFor(t, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.calls["slow"] != nil })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("abandoned waiter: %v, want context.Canceled", err)
	}
	<-stopped // the computation saw its context end
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 5_000_000 {
		if cond() {
			return
		}
		runtime.Gosched()
	}
	t.Fatal("condition never became true")
}

func TestAcceptEncoding(t *testing.T) {
	for _, c := range []struct {
		header string
		want   bool
	}{
		{"gzip", true},
		{"gzip, deflate, br", true},
		{"br;q=1.0, gzip;q=0.8", true},
		{"GZIP", true},
		{"x-gzip", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"*", true},
		{"*;q=0", false},
		{"*, gzip;q=0", false},
		{"br", false},
		{"identity", false},
		{"", false},
		{"gzip;q=abc", false},
	} {
		if got := acceptsEncoding([]string{c.header}, "gzip"); got != c.want {
			t.Errorf("Accept-Encoding %q: gzip accepted %v, want %v", c.header, got, c.want)
		}
	}
}

func TestPageCacheEvictsByBytes(t *testing.T) {
	c := newPageCache(8000) // each page also costs its key and 256 bytes
	page := func(n int) *cachedPage { return &cachedPage{status: 200, gz: make([]byte, n)} }
	c.put("a", page(1000))
	c.put("b", page(1000))
	c.put("c", page(1000))
	c.get("a") // a is now the most recent: b goes first, then c
	c.put("d", page(1700))
	c.put("e", page(1700))
	c.put("f", page(1700))
	if c.get("b") != nil || c.get("c") != nil || c.get("a") == nil || c.get("f") == nil {
		t.Errorf("evicted the wrong pages")
	}
	if _, used := c.stats(); used > 8000 {
		t.Errorf("the cache holds %d bytes, over its 8000", used)
	}
	c.put("huge", page(3000)) // over a quarter of the cache: not kept
	if c.get("huge") != nil {
		t.Error("kept a page larger than a quarter of the cache")
	}
}

func TestCapturedPagesDropCookies(t *testing.T) {
	cw := newCaptureWriter()
	http.SetCookie(cw, &http.Cookie{Name: "lab_student", Value: "mine"})
	cw.Write([]byte("hello"))
	p, err := cw.page()
	if err != nil {
		t.Fatal(err)
	}
	if p.header.Get("Set-Cookie") != "" {
		t.Error("a cached page carries a reader's cookie")
	}
	rec := httptest.NewRecorder()
	writePage(rec, httptest.NewRequest("GET", "/", nil), p)
	if rec.Body.String() != "hello" {
		t.Errorf("body %q", rec.Body.String())
	}
}
