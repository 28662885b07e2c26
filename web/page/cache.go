package page

// The replay cache. A page of the lab is a pure function of its request:
// the script, the handlers and the step travel in the address, and the
// replay is deterministic. So the finished response (status, headers and
// the gzip-compressed body) can be kept and served again to everyone who
// asks for the same thing: 300 students re-fetching the page their
// instructor just stepped to cost one replay, not 300.
//
// Three pieces: pageCache, an LRU bounded by bytes; flights, which makes
// concurrent identical requests compute once (and stops the work when
// every one of them has gone); and captureWriter, which lets an ordinary
// handler write its response into memory so it can be cached.

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// defaultCacheBytes is the cache's size when the configuration gives none.
const defaultCacheBytes = 64 << 20

// cachedPage is one finished response.
type cachedPage struct {
	status int
	header http.Header // what the handler set, less Set-Cookie
	gz     []byte      // the body, gzip-compressed
	size   int         // the body's length uncompressed
	etag   string      // a strong validator of the uncompressed body
}

// cost is what the page holds in memory, roughly: its compressed body,
// its headers and the bookkeeping around it.
func (p *cachedPage) cost(key string) int64 {
	n := len(p.gz) + len(key) + 256
	for k, vs := range p.header {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	return int64(n)
}

// pageCache is a least-recently-used cache of pages, bounded by the bytes
// they hold. It is safe for concurrent use.
type pageCache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	order *list.List // front: most recently used; values are *cacheEntry
	byKey map[string]*list.Element
}

type cacheEntry struct {
	key  string
	page *cachedPage
	cost int64
}

func newPageCache(maxBytes int64) *pageCache {
	return &pageCache{max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *pageCache) get(key string) *cachedPage {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.byKey[key]
	if el == nil {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).page
}

// put stores a page, evicting the least recently used ones until it fits.
// A page larger than a quarter of the cache is not kept: it would push out
// many others.
func (c *pageCache) put(key string, p *cachedPage) {
	cost := p.cost(key)
	if cost > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.byKey[key]; el != nil {
		c.used -= el.Value.(*cacheEntry).cost
		c.order.Remove(el)
		delete(c.byKey, key)
	}
	for c.used+cost > c.max && c.order.Len() > 0 {
		old := c.order.Back()
		e := old.Value.(*cacheEntry)
		c.used -= e.cost
		c.order.Remove(old)
		delete(c.byKey, e.key)
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, page: p, cost: cost})
	c.used += cost
}

// stats reports the pages held and their bytes.
func (c *pageCache) stats() (pages int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.used
}

// flights runs one computation per key at a time and hands its result to
// every request that asked for that key meanwhile (golang.org/x/sync's
// singleflight does the same, but cannot stop a computation that nobody
// waits for any more). The computation runs with a context that ends when
// the last request waiting for it has gone, so an abandoned replay stops
// within one delivery.
type flights struct {
	mu    sync.Mutex
	calls map[string]*flight
	// started counts computations begun, for tests.
	started int
}

type flight struct {
	done    chan struct{}
	page    *cachedPage
	err     error
	waiters int
	cancel  context.CancelFunc
	stopped bool // cancelled: everyone waiting left
}

func newFlights() *flights { return &flights{calls: map[string]*flight{}} }

// do returns fn's result for key, computing it once however many requests
// ask at the same time. A request whose own context ends stops waiting;
// when none is left, fn's context is cancelled.
func (g *flights) do(ctx context.Context, key string, fn func(context.Context) (*cachedPage, error)) (*cachedPage, error) {
	g.mu.Lock()
	f := g.calls[key]
	if f == nil || f.stopped {
		// A computation everybody left is still winding down: start afresh
		// rather than share its cancellation.
		// The computation belongs to nobody in particular: it keeps the
		// values of the first request's context (none are read) but not its
		// cancellation, which is counted below instead.
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight{done: make(chan struct{}), cancel: cancel}
		g.calls[key] = f
		g.started++
		go func() {
			defer func() {
				if p := recover(); p != nil {
					f.err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
				}
				g.mu.Lock()
				if g.calls[key] == f {
					delete(g.calls, key)
				}
				g.mu.Unlock()
				cancel()
				close(f.done)
			}()
			f.page, f.err = fn(fctx)
		}()
	}
	f.waiters++
	g.mu.Unlock()

	select {
	case <-f.done:
		return f.page, f.err
	case <-ctx.Done():
		g.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			f.stopped = true
			f.cancel()
		}
		g.mu.Unlock()
		return nil, ctx.Err()
	}
}

// captureWriter is an http.ResponseWriter that keeps the response in
// memory.
type captureWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newCaptureWriter() *captureWriter { return &captureWriter{header: http.Header{}} }

func (c *captureWriter) Header() http.Header { return c.header }

func (c *captureWriter) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *captureWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(b)
}

// page compresses what was written into a cachedPage.
func (c *captureWriter) page() (*cachedPage, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	h := c.header.Clone()
	h.Del("Set-Cookie") // a cookie is one reader's, never everyone's
	h.Del("Content-Length")
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(c.body.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(c.body.Bytes())
	return &cachedPage{status: c.status, header: h, gz: gz.Bytes(), size: c.body.Len(),
		etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}, nil
}

// writePage sends a cached page: compressed when the reader accepts gzip,
// 304 Not Modified when the reader holds it already.
func writePage(w http.ResponseWriter, r *http.Request, p *cachedPage) {
	h := w.Header()
	for k, vs := range p.header {
		h[k] = append([]string(nil), vs...)
	}
	if v := h.Get("Vary"); v != "" {
		h.Set("Vary", v+", Accept-Encoding")
	} else {
		h.Set("Vary", "Accept-Encoding")
	}
	gz := acceptsEncoding(r.Header.Values("Accept-Encoding"), "gzip")
	etag := p.etag
	if gz {
		// A representation of its own, so a validator of its own.
		etag = strings.TrimSuffix(etag, `"`) + `-gz"`
	}
	if p.status == http.StatusOK {
		h.Set("ETag", etag)
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			h.Del("Content-Type")
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	if gz {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(p.gz)))
		w.WriteHeader(p.status)
		w.Write(p.gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(p.gz))
	if err != nil { // our own bytes: cannot happen
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h.Set("Content-Length", strconv.Itoa(p.size))
	w.WriteHeader(p.status)
	io.Copy(w, zr)
}

// etagMatches implements If-None-Match's weak comparison for a list of
// entity tags or "*".
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// acceptsEncoding reports whether Accept-Encoding headers allow a coding:
// it is listed (or * is) with a q-value above zero. "gzip;q=0" refuses it
// even when * would allow it.
func acceptsEncoding(headers []string, coding string) bool {
	star := false
	for _, h := range headers {
		for _, part := range strings.Split(h, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			q := 1.0
			for _, p := range strings.Split(params, ";") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(p), "q="); ok {
					f, err := strconv.ParseFloat(v, 64)
					if err != nil {
						f = 0
					}
					q = f
				}
			}
			switch name {
			case coding, "x-" + coding:
				return q > 0
			case "*":
				star = q > 0
			}
		}
	}
	return star
}

// CacheKey names a response by everything it is made from. The request's
// own address, language and htmx flavour come first; extra adds what a
// route reads besides (a room's state, a reader's vote). The key is
// hashed, so a long permalink costs 32 bytes in the cache's index.
func CacheKey(r *http.Request, route string, extra ...string) string {
	l, _ := PickLang(r)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%t\x00%s\x00%s\x00%s\x00%t", route, r.Method, r.Host, r.TLS != nil,
		r.URL.Path, r.URL.RawQuery, l, IsPartial(r))
	for _, e := range extra {
		fmt.Fprintf(h, "\x00%s", e)
	}
	return string(h.Sum(nil))
}

// ServeCached answers from the cache, or runs h once for everyone asking
// the same thing now and keeps what it wrote. h must write only what key
// names: any other input would leak from one reader to the next. Failures
// that h returns are rendered as error pages and kept too when they are
// the reader's (4xx): an over-budget script costs its replay once. A busy
// server (503) or a request that went away is not kept.
func (s *Shell) ServeCached(w http.ResponseWriter, r *http.Request, key string, h HandlerFunc) error {
	if s.cache == nil {
		// No cache (--dev, --cache-size 0): nothing to keep, so nothing to
		// capture or compress here; the page is written as it is made.
		err := h(w, r)
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			return nil // the reader has gone: there is nobody to answer
		}
		return err
	}
	if p := s.cache.get(key); p != nil {
		writePage(w, r, p)
		return nil
	}
	p, err := s.flights.do(r.Context(), key, func(ctx context.Context) (*cachedPage, error) {
		cw := newCaptureWriter()
		rr := r.WithContext(ctx)
		if err := h(cw, rr); err != nil {
			if errors.Is(err, context.Canceled) {
				return nil, err
			}
			s.RenderError(cw, rr, err)
		}
		p, err := cw.page()
		if err != nil {
			return nil, err
		}
		if p.status < 500 {
			s.cache.put(key, p)
		}
		return p, nil
	})
	if err != nil {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			return nil // the reader has gone: there is nobody to answer
		}
		return err
	}
	writePage(w, r, p)
	return nil
}
