package page

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// Error is a failure the reader caused or can fix: a status, a
// message from the catalog and, for a script that did not parse, the
// script itself so the error page can offer it back for editing.
type Error struct {
	Status int
	Key    string // catalog key of the message
	Args   []any  // the first, when a string, is the reader's input: quoted as an excerpt (boundArgs)
	Script string // the text that failed to parse, if any
	Back   string // the lab address to return to, if known
	// RetryAfter, in seconds, tells the reader when to try again (503, 429).
	RetryAfter int
	// Title is the catalog key of the page's heading, when the kind of
	// error names itself; see titleKey for the defaults.
	Title string
	// Code is a handler file that did not compile or run, offered back
	// for editing with its name, the line at fault and the lab state
	// (a query) to run it in.
	Code, CodeName, CodeState string
	CodeLine                  int
}

// TitleKey is the catalog key of the error page's heading: what kind of
// problem it is. In order: the error's own title; a title that comes with
// its message (KEY.title in the catalog); for a script that did not parse,
// "The script has an error"; for any other 400, a value that is not valid
// (err.title.invalid); else the status's heading (err.title.STATUS).
func (e *Error) TitleKey(t Text) string {
	if e.Title != "" {
		return e.Title
	}
	if t.Has(e.Key + ".title") {
		return e.Key + ".title"
	}
	return e.DefaultTitle()
}

// DefaultTitle is titleKey without the catalog's per-message titles.
func (e *Error) DefaultTitle() string {
	switch {
	case e.Title != "":
		return e.Title
	case e.Status == http.StatusBadRequest && e.Script != "":
		return "err.title.script"
	case e.Status == http.StatusBadRequest:
		return "err.title.invalid"
	}
	return fmt.Sprintf("err.title.%d", e.Status)
}

func (e *Error) Error() string {
	return fmt.Sprintf("%d %s %v", e.Status, e.Key, e.Args)
}

func BadRequest(key string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Key: key, Args: args}
}

// NotFound is the answer for an address nothing lives at.
func NotFound(path string) *Error {
	return &Error{Status: http.StatusNotFound, Key: "err.notfound", Args: []any{path}}
}

// HandlerFunc is an HTTP handler that returns its failure instead of
// writing it; handle turns the failure into a page.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Handle wraps a HandlerFunc: a *page.Error becomes an error page with its
// status, any other error a 500 page that reveals nothing and is logged.
// For an htmx request the error goes into the lab's message area instead
// of replacing the lab, and the address bar stays where it was.
func (s *Shell) Handle(h HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.RenderError(w, r, err)
		}
	}
}

func (s *Shell) RenderError(w http.ResponseWriter, r *http.Request, err error) {
	var he *Error
	if !errors.As(err, &he) {
		s.Log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		he = &Error{Status: http.StatusInternalServerError, Key: "err.internal"}
	}
	t := s.Text(r)
	v := ErrorView{
		Status: he.Status,
		Title:  t.S(he.TitleKey(t)),
		Script: he.Script,
		Code:   he.Code, CodeName: he.CodeName, CodeState: he.CodeState, CodeLine: he.CodeLine,
		EditorSrc: s.Assets.URL(EditorScript),
		Back:      he.Back,
		Message:   t.F(he.Key, BoundArgs(he.Args)...), // the reader's input quoted as an excerpt, once
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if he.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(he.RetryAfter))
	}
	if IsPartial(r) {
		h.Set("HX-Retarget", "#flash")
		h.Set("HX-Reswap", "innerHTML")
		h.Set("HX-Push-Url", "false")
		s.Render(w, r, he.Status, ErrorFlash(t, v))
		return
	}
	// The language links would repeat a long bad address: they go to the lab instead.
	s.Render(w, r, he.Status, ErrorPage(ShortLangs(s.PageFor(t, r, v.Title+" · "+t.S("app.name")), "/lab"), v))
}

// IsPartial reports whether htmx asked for the lab region only. A history
// restore or a full-page request gets the whole page.
func IsPartial(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Request-Type") == "partial" &&
		r.Header.Get("HX-History-Restore-Request") != "true"
}
