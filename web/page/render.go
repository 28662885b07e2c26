package page

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/a-h/templ"
)

// Render writes a component with a status. It renders into a buffer first,
// so a failure halfway gives a clean error page, not half a page.
func (s *Shell) Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) error {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil
		}
		s.Log.Error("render", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return nil
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
	return nil
}

// Text is the catalog in the language this request reads.
func (s *Shell) Text(r *http.Request) Text {
	l, _ := PickLang(r)
	return Text{lang: l, m: s.messages}
}

// Stream writes a component as it renders, for a page whose parts take
// time (the checker's table, one search a row): the component flushes
// what it has (templ.Flush) and the reader sees it at once, without
// JavaScript. The status is 200 from the first byte, so a failure halfway
// must be shown by the component itself; a reader who leaves cancels the
// request's context, which stops the work the component is waiting on.
func (s *Shell) Stream(w http.ResponseWriter, r *http.Request, c templ.Component) error {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if err := c.Render(r.Context(), w); err != nil && !errors.Is(err, context.Canceled) {
		s.Log.Error("stream", "path", r.URL.Path, "err", err)
	}
	return nil
}
