package playground_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web/webtest"
)

// badlyIndented is fixedNaive's first lines as nobody would type them:
// no tabs, spaces around nothing, two statements on crooked lines.
const badlyIndented = "package handler\nimport (\n\"context\"\n\"github.com/idempotency-lab/lab/handlers\"\n)\nfunc Handle(ctx context.Context,d handlers.Deps,m handlers.Message) error{\nif m.Amount<0{return nil}\n    return nil\n}\n"

// wellIndented is what go/format makes of badlyIndented.
const wellIndented = "package handler\n\nimport (\n\t\"context\"\n\t\"github.com/idempotency-lab/lab/handlers\"\n)\n\nfunc Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {\n\tif m.Amount < 0 {\n\t\treturn nil\n\t}\n\treturn nil\n}\n"

// TestFormatRoute: POST /lab/format is go/format as JSON, with a status
// for each way it can go.
func TestFormatRoute(t *testing.T) {
	h := webtest.NewServer(t) // no sandbox: formatting runs nothing
	for _, c := range []struct {
		name     string
		form     url.Values
		lang     string
		status   int
		code     string // the formatted file, for a 200
		line     int
		message  string // a part of the message, for anything else
		jsonType bool
	}{
		{name: "a badly indented file", form: url.Values{"code": {badlyIndented}}, status: 200, code: wellIndented},
		{name: "a formatted file comes back as it was", form: url.Values{"code": {wellIndented}}, status: 200, code: wellIndented},
		// Windows line ends are made plain first, as the editor's Run does.
		{name: "CRLF line ends", form: url.Values{"code": {strings.ReplaceAll(badlyIndented, "\n", "\r\n")}}, status: 200, code: wellIndented},
		{name: "a syntax error names its line", form: url.Values{"code": {"package handler\n\nfunc Handle( {\n}\n"}}, status: 422, line: 3,
			message: "line 3: syntax error: expected ')', found '{'"},
		{name: "in Russian", form: url.Values{"code": {"package handler\n\nfunc Handle( {\n}\n"}}, lang: "ru", status: 422, line: 3,
			message: "строка 3: синтаксическая ошибка"},
		// The editor's own limit, not the form's: a file the lab would not
		// run is not formatted either.
		{name: "a file over the limit", form: url.Values{"code": {"package handler\n" + strings.Repeat("// x\n", sandbox.MaxSourceBytes/5+1)}}, status: 413,
			message: "the formatter takes at most 16384 bytes"},
		{name: "a form without code", form: url.Values{"state": {"?preset=crash-before-ack"}}, status: 400, message: "The form needs code="},
		// An empty file is a file: go/format has nothing to say about it.
		{name: "an empty file", form: url.Values{"code": {""}}, status: 200, code: ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := "/lab/format"
			if c.lang != "" {
				target += "?lang=" + c.lang
			}
			r := webtest.Post(t, h, target, c.form)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d\n%s", r.Status, c.status, r.Body)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			var got struct {
				Code    string `json:"code"`
				Line    int    `json:"line"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal([]byte(r.Body), &got); err != nil {
				t.Fatalf("%v\n%s", err, r.Body)
			}
			if c.status == 200 {
				if got.Code != c.code || got.Message != "" {
					t.Errorf("got %q (message %q), want %q", got.Code, got.Message, c.code)
				}
				return
			}
			if got.Line != c.line || !strings.Contains(got.Message, c.message) || got.Code != "" {
				t.Errorf("got line %d %q, want line %d and %q", got.Line, got.Message, c.line, c.message)
			}
		})
	}
	// A body over the form limit is refused before it is read, as JSON too.
	big := url.Values{"code": {strings.Repeat("x", 1<<20)}}
	if r := webtest.Post(t, h, "/lab/format", big); r.Status != http.StatusRequestEntityTooLarge || !strings.Contains(r.Header.Get("Content-Type"), "json") {
		t.Errorf("a 1 MiB form: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	// Only POST formats.
	if r := webtest.Get(t, h, "/lab/format"); r.Status != http.StatusMethodNotAllowed {
		t.Errorf("GET /lab/format: %d", r.Status)
	}
}

// TestFormatWithoutJavaScript: the Format button without JavaScript posts
// the editor's form (action=format); the lab comes back with the
// formatted file in its open editor, run nowhere, and the address of the
// state unchanged in the form.
func TestFormatWithoutJavaScript(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	state := "?preset=crash-before-ack&step=4"
	r := webtest.Post(t, h, "/lab/code", url.Values{"code": {badlyIndented}, "state": {state}, "action": {"format"}})
	if r.Status != http.StatusOK {
		t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	for _, want := range []string{`id="card-naive"`, `<details class="editor" id="editor-box" open`, html.EscapeString(wellIndented)} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(r.Body, `id="card-yours"`) {
		t.Error("formatting ran the file")
	}
	// A file that does not parse: the same page, the problem on its line.
	r = webtest.Post(t, h, "/lab/code", url.Values{"code": {"package handler\n\nfunc Handle( {\n}\n"}, "state": {state}, "action": {"format"}})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `<li data-line="3">line 3: syntax error`) || !strings.Contains(r.Body, `id="card-naive"`) {
		t.Errorf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
}

// TestCodeProblemsKeepTheLab (#28, defect 6): a handler file that does
// not parse or compile keeps the lab, its cards and the state, with the
// file in the open editor and each problem listed on its line; the
// address holds the file, so Back and a reload come back to it.
func TestCodeProblemsKeepTheLab(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	state := "?preset=crash-before-ack&step=4"
	first := "tx, err := d.DB.BeginTx(ctx, nil)"
	at := strings.Count(webtest.FixedNaive[:strings.Index(webtest.FixedNaive, first)], "\n") + 1 // the line of first
	for _, c := range []struct {
		name, code string
		line       int
		want       string
		fragment   string
	}{
		// Parse finds it, before anything runs: the address then leads to
		// the editor's section.
		{"a syntax error", strings.Replace(webtest.FixedNaive, first, "return nil nil\n\t"+first, 1), at, "syntax error", "#editor"},
		// Only the interpreter finds it, in the sandbox, when the address
		// is replayed: the address is a run's, as for a good file.
		{"a compile error", strings.Replace(webtest.FixedNaive, first, "undefinedThing()\n\t"+first, 1), at, "does not compile", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := webtest.Post(t, h, "/lab/code", url.Values{"code": {c.code}, "state": {state}, "action": {"run"}})
			loc := r.Header.Get("Location")
			want := link.Lab{Preset: "crash-before-ack", Code: c.code, Step: 4, HasStep: true}.String() + c.fragment
			if r.Status != http.StatusSeeOther || loc != want {
				t.Fatalf("%d %q, want 303 to %q", r.Status, loc, want)
			}
			// The browser keeps the fragment (#editor, the editor's section) to itself.
			page := webtest.Get(t, h, strings.TrimSuffix(loc, "#editor"))
			if page.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d\n%s", page.Status, webtest.Excerpt(page.Body))
			}
			li := webtest.Between(page.Body, `<div class="code-problems" id="code-problems" role="alert">`, `</div>`)
			if !strings.Contains(li, `<li data-line="`+strconv.Itoa(c.line)+`">`) || !strings.Contains(li, c.want) {
				t.Errorf("problems %q, want line %d and %q", li, c.line, c.want)
			}
			for _, want := range []string{`id="card-naive"`, `id="card-inbox"`, `id="step-count" data-step="4"`, `<details class="editor" id="editor-box" open`,
				html.EscapeString(c.code[:60])} {
				if !strings.Contains(page.Body, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			if strings.Contains(page.Body, `id="card-yours"`) || strings.Contains(page.Body, `class="error-box"`) {
				t.Error("a card or an error page for a file that did not pass")
			}
			// The editor's form runs the next try in the same state, without the bad file.
			if !strings.Contains(page.Body, `name="state" value="?preset=crash-before-ack&amp;step=4"`) {
				t.Errorf("the editor's state is not the lab's\n%s", webtest.Between(page.Body, `name="state"`, `>`))
			}
		})
	}
	// An htmx request keeps its message area: the error goes there.
	bad := link.Lab{Preset: "crash-before-ack", Code: "package handler\n", Step: 4, HasStep: true}.String()
	if r := webtest.Get(t, h, bad, "HX-Request", "true", "HX-Request-Type", "partial"); r.Status != 422 || r.Header.Get("HX-Retarget") != "#flash" {
		t.Errorf("htmx: %d %q", r.Status, r.Header.Get("HX-Retarget"))
	}
}
