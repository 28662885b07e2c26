package page

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/idempotency-lab/lab/script"
)

// Small pieces the parts' forms and views share.

type Option struct {
	Value, Label string
	Selected     bool
}

type Field struct{ Name, Value string }

// MaxFormBytes bounds a POST body: a full script (script.MaxScriptBytes) as
// form text, URL-escaped, and the state fields around it.
const MaxFormBytes = 4*script.MaxScriptBytes + 16<<10

// ReadForm parses a POST body within maxFormBytes.
func ReadForm(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxFormBytes)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Key: "err.toolarge", Args: []any{MaxFormBytes >> 10}}
		}
		return nil, BadRequest("err.form")
	}
	return r.PostForm, nil
}

// Pct is a CSS declaration placing something at a percentage; the number
// is ours, never the reader's, so it is safe as CSS.
func Pct(property string, v float64) templ.SafeCSS {
	return templ.SafeCSS(property + ":" + strconv.FormatFloat(min(max(v, 0), 100), 'f', 2, 64) + "%")
}

// Absolute makes a path Absolute for the address the reader used, so the
// permalink can be copied as it stands.
func Absolute(r *http.Request, path string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if host == "" || strings.ContainsAny(host, "/\\ ") {
		return path
	}
	return scheme + "://" + host + path
}
