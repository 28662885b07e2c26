package web

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/idempotency-lab/lab/web/page"
)

// recoverPanics turns a panic in a handler into a 500 page: a bug must not
// take the server down or show a stack trace to a student.
func (s *server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.shell.Log.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				s.shell.RenderError(w, r, fmt.Errorf("panic: %v", p))
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
		s.shell.Log.Log(r.Context(), requestLevel(sw.status), "request", "method", r.Method, "path", page.InputExcerpt(r.URL.Path),
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
		if l, explicit := page.PickLang(r); explicit {
			http.SetCookie(w, page.LangCookieFor(l))
		}
		next.ServeHTTP(w, r)
	})
}

// boundPath answers 404 to a path longer than any of the lab's addresses,
// quoting an excerpt of it, before any page (a room's, a lesson's) echoes
// it whole.
func (s *server) boundPath(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.URL.Path) > page.MaxPathBytes {
			s.shell.RenderError(w, r, page.NotFound(r.URL.Path))
			return
		}
		next.ServeHTTP(w, r)
	})
}
