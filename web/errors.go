package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"
)

// httpError is a failure the reader caused or can fix: a status, a
// message from the catalog and, for a script that did not parse, the
// script itself so the error page can offer it back for editing.
type httpError struct {
	status int
	key    string // catalog key of the message
	args   []any
	script string // the text that failed to parse, if any
	back   string // the lab address to return to, if known
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
		Title:   t.S(fmt.Sprintf("err.title.%d", he.status)),
		Script:  he.script,
		Back:    he.back,
		Message: t.F(he.key, he.args...),
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if isPartial(r) {
		h.Set("HX-Retarget", "#flash")
		h.Set("HX-Reswap", "innerHTML")
		h.Set("HX-Push-Url", "false")
		s.render(w, r, he.status, errorFlash(t, v))
		return
	}
	s.render(w, r, he.status, errorPage(s.pageFor(t, r, v.Title+" · "+t.S("app.name")), v))
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

func (s *server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		level := slog.LevelInfo
		if sw.status >= 500 {
			level = slog.LevelError
		}
		s.log.Log(r.Context(), level, "request", "method", r.Method, "path", r.URL.Path,
			"status", sw.status, "ms", float64(time.Since(start).Microseconds())/1000, "htmx", r.Header.Get("HX-Request") == "true")
	})
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
