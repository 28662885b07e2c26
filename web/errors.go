package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"
)

// httpError is a failure the reader caused or can fix: a status, a
// message from the catalog and, for a script that did not parse, the
// script itself so the error page can offer it back for editing.
type httpError struct {
	status int
	key    string // catalog key of the message
	args   []any  // the first, when a string, is the reader's input: quoted as an excerpt (boundArgs)
	script string // the text that failed to parse, if any
	back   string // the lab address to return to, if known
	// retryAfter, in seconds, tells the reader when to try again (503, 429).
	retryAfter int
	// title is the catalog key of the page's heading, when the kind of
	// error names itself; see titleKey for the defaults.
	title string
}

// titleKey is the catalog key of the error page's heading: what kind of
// problem it is. In order: the error's own title; a title that comes with
// its message (KEY.title in the catalog); for a script that did not parse,
// "The script has an error"; for any other 400, a value that is not valid
// (err.title.invalid); else the status's heading (err.title.STATUS).
func (e *httpError) titleKey(t text) string {
	if e.title != "" {
		return e.title
	}
	if _, ok := t.c[e.key+".title"]; ok {
		return e.key + ".title"
	}
	return e.defaultTitle()
}

// defaultTitle is titleKey without the catalog's per-message titles.
func (e *httpError) defaultTitle() string {
	switch {
	case e.title != "":
		return e.title
	case e.status == http.StatusBadRequest && e.script != "":
		return "err.title.script"
	case e.status == http.StatusBadRequest:
		return "err.title.invalid"
	}
	return fmt.Sprintf("err.title.%d", e.status)
}

func (e *httpError) Error() string {
	return fmt.Sprintf("%d %s %v", e.status, e.key, e.args)
}

func badRequest(key string, args ...any) *httpError {
	return &httpError{status: http.StatusBadRequest, key: key, args: args}
}

// notFound is the answer for an address nothing lives at.
func notFound(path string) *httpError {
	return &httpError{status: http.StatusNotFound, key: "err.notfound", args: []any{path}}
}

// handlerFunc is an HTTP handler that returns its failure instead of
// writing it; handle turns the failure into a page.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle wraps a handlerFunc: an *httpError becomes an error page with its
// status, any other error a 500 page that reveals nothing and is logged.
// For an htmx request the error goes into the lab's message area instead
// of replacing the lab, and the address bar stays where it was.
func (s *server) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.renderError(w, r, err)
		}
	}
}

func (s *server) renderError(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	if !errors.As(err, &he) {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		he = &httpError{status: http.StatusInternalServerError, key: "err.internal"}
	}
	t := s.text(r)
	v := errorView{
		Status:  he.status,
		Title:   t.S(he.titleKey(t)),
		Script:  he.script,
		Back:    he.back,
		Message: t.F(he.key, boundArgs(he.args)...), // the reader's input quoted as an excerpt, once
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if he.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(he.retryAfter))
	}
	if isPartial(r) {
		h.Set("HX-Retarget", "#flash")
		h.Set("HX-Reswap", "innerHTML")
		h.Set("HX-Push-Url", "false")
		s.render(w, r, he.status, errorFlash(t, v))
		return
	}
	// The language links would repeat a long bad address: they go to the lab instead.
	s.render(w, r, he.status, errorPage(shortLangs(s.pageFor(t, r, v.Title+" · "+t.S("app.name")), "/lab"), v))
}

// isPartial reports whether htmx asked for the lab region only. A history
// restore or a full-page request gets the whole page.
func isPartial(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Request-Type") == "partial" &&
		r.Header.Get("HX-History-Restore-Request") != "true"
}

// recoverPanics turns a panic in a handler into a 500 page: a bug must not
// take the server down or show a stack trace to a student.
func (s *server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				s.renderError(w, r, fmt.Errorf("panic: %v", p))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// statusWriter remembers the status a handler wrote, for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes a flush on: the compression middleware wraps this writer and
// flushes through it, and a room's event stream needs each event sent now.
func (w *statusWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

// logRequests logs one line per request, at the level of its status (see
// requestLevel).
func (s *server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		s.log.Log(r.Context(), requestLevel(sw.status), "request", "method", r.Method, "path", inputExcerpt(r.URL.Path),
			"status", sw.status, "ms", float64(time.Since(start).Microseconds())/1000, "htmx", r.Header.Get("HX-Request") == "true")
	})
}

// requestLevel is the level a request's line is logged at. ERROR means
// the lab is at fault and someone should look: a 500 (a bug, a broken
// file). Everything the lab answers as designed is not an error: a 503 or
// a 429 (a room full, no room left, every replay slot busy) is a WARN,
// worth noticing when it recurs (a limit may be too low); a 4xx is the
// reader's mistake and an INFO. A failed write to the progress database
// is a 503 that is the lab's fault: its handler logs the cause at ERROR
// itself (see notSaved).
func requestLevel(status int) slog.Level {
	switch {
	case status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests:
		return slog.LevelWarn
	case status >= 500:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// securityHeaders keeps every byte the page uses on this server and tells
// the browser so: no inline script, no framing, no guessing of types.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "+
			"img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// rememberLang stores an explicit ?lang= choice in a cookie.
func rememberLang(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l, explicit := pickLang(r); explicit {
			http.SetCookie(w, langCookieFor(l))
		}
		next.ServeHTTP(w, r)
	})
}
