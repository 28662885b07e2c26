package playground

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// formatAnswer is POST /lab/format's JSON: the formatted file, or what
// stopped the formatter (in the reader's language) and its line.
type formatAnswer struct {
	Code    string `json:"code,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message,omitempty"`
}

// Format is POST /lab/format, the editor's Format button when JavaScript
// runs: code= (a handler file) through go/format, answered as JSON.
// 200 {"code"}: the formatted file (the same text when it was already
// formatted); 422 {"line", "message"}: the file does not parse; 413: the
// file is over sandbox.MaxSourceBytes, the editor's own limit (or the form
// over page.MaxFormBytes); 400: the form has no code=. go/format only
// parses and prints: nothing in the file runs and no import is read, so
// it needs no sandbox.
func (s *Playground) Format(w http.ResponseWriter, r *http.Request) error {
	t := s.Shell.Text(r)
	answer := func(status int, a formatAnswer) error {
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		return json.NewEncoder(w).Encode(a)
	}
	fail := func(e *page.Error) error {
		return answer(e.Status, formatAnswer{Line: e.CodeLine, Message: t.F(e.Key, page.BoundArgs(e.Args)...)})
	}
	f, err := page.ReadForm(w, r)
	var pe *page.Error
	if errors.As(err, &pe) {
		return fail(pe)
	} else if err != nil {
		return err
	}
	code, ok := f["code"]
	if !ok {
		return fail(page.BadRequest("fmt.nocode"))
	}
	out, fe := labview.FormatCode(code[0])
	if fe != nil {
		return fail(fe)
	}
	return answer(http.StatusOK, formatAnswer{Code: out})
}
