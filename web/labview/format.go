package labview

import (
	"errors"
	"go/format"
	"go/scanner"
	"net/http"
	"strings"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web/page"
)

// FormatCode is go/format.Source over a handler file, bounded as the
// editor is (sandbox.MaxSourceBytes) and with Windows line ends made
// plain first. A file that does not parse is a 422 naming the first
// error's line (Error.CodeLine); one over the bound a 413. go/format only
// parses and prints: nothing in the file runs and no import is read, so
// it needs no sandbox. It is the one formatter of every editor: the lab's
// (POST /lab/format, and the lab's form without JavaScript) and a coding
// exercise's (its form without JavaScript; with it, POST /lab/format).
func FormatCode(code string) (string, *page.Error) {
	code = strings.ReplaceAll(code, "\r\n", "\n")
	if len(code) > sandbox.MaxSourceBytes {
		return "", &page.Error{Status: http.StatusRequestEntityTooLarge, Key: "fmt.toolarge", Args: []any{len(code), sandbox.MaxSourceBytes}}
	}
	out, err := format.Source([]byte(code))
	if err == nil {
		return string(out), nil
	}
	e := &page.Error{Status: http.StatusUnprocessableEntity, Key: "fmt.syntax0", Args: []any{page.Bilingual{EN: err.Error(), RU: err.Error()}}}
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		e.Key, e.Args, e.CodeLine = "fmt.syntax", []any{list[0].Pos.Line, list[0].Msg}, list[0].Pos.Line
	}
	return "", e
}
