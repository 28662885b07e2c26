package course_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/webtest"
)

// openEditor is a lesson's "Open in the editor" link, as the page has it.
var openEditor = regexp.MustCompile(`<a class="try-it open-editor" href="([^"]+)" data-handler="([a-z-]+)" data-preset="([a-z-]+)">([^<]+)</a>`)

var codeArea = regexp.MustCompile(`(?s)<textarea id="code"[^>]*>(.*?)</textarea>`)

// codeOf is the text of the lab's handler editor, unescaped.
func codeOf(tb testing.TB, body string) string {
	tb.Helper()
	m := codeArea.FindStringSubmatch(body)
	if m == nil {
		tb.Fatalf("no handler editor on the page\n%s", webtest.Excerpt(body))
	}
	return webtest.HTMLUnescape(m[1])
}

// TestLessonOpensTheEditor: every lesson page, in both languages, has an
// "Open in the editor" link under each handler it quotes (a plain link,
// in the page's language), and following one gives the lab on the
// lesson's scenario with the handler's whole file in the editor, open,
// run in the sandbox beside the compiled handler: at the end of the
// story the two settle to the same verdict and balance.
func TestLessonOpensTheEditor(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	course, err := lessons.Load(lessons.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	apiPresets, err := sim.APIPresets() // lesson 9's API handler opens on one
	if err != nil {
		t.Fatal(err)
	}
	presets = append(presets, apiPresets...)
	texts := map[string]string{lessons.English: "Open in the editor", lessons.Russian: "Открыть в редакторе"}
	followed := map[string]bool{}
	n := 0
	for _, lang := range lessons.Langs() {
		for _, l := range course.Lessons(lang) {
			r := webtest.Get(t, h, "/lessons/"+l.Slug+"?lang="+lang)
			if r.Status != 200 {
				t.Fatalf("/lessons/%s?lang=%s: status %d", l.Slug, lang, r.Status)
			}
			found := openEditor.FindAllStringSubmatch(r.Body, -1)
			if len(found) != len(l.Editors) {
				t.Errorf("/lessons/%s?lang=%s: %d links open the editor, the lesson marks %d fences", l.Slug, lang, len(found), len(l.Editors))
				continue
			}
			for i, m := range found {
				n++
				href, handler, preset, text := webtest.HTMLUnescape(m[1]), m[2], m[3], m[4]
				e := l.Editors[i]
				if href != e.URL || handler != e.Handler || preset != e.Preset || text != texts[lang] {
					t.Errorf("/lessons/%s?lang=%s: link %d is %q (%s on %s, %q); want %s on %s, %q",
						l.Slug, lang, i, href, handler, preset, text, e.Handler, e.Preset, texts[lang])
					continue
				}
				if followed[href] {
					continue
				}
				followed[href] = true
				t.Run(handler+"/"+preset, func(t *testing.T) { followEditorLink(t, h, presets, href, handler, preset) })
			}
		}
	}
	if n == 0 {
		t.Fatal("no lesson page links the editor")
	}
	t.Logf("%d links on the lesson pages, %d followed", n, len(followed))
}

// followEditorLink opens an editor link, then the same address at the end
// of its story, and checks what the lab shows.
func followEditorLink(t *testing.T, h http.Handler, presets []sim.Preset, href, handler, preset string) {
	want, err := sandbox.Builtin(handler)
	if err != nil {
		t.Fatal(err)
	}
	r := webtest.Get(t, h, href)
	if r.Status != 200 {
		t.Fatalf("GET %s: status %d\n%s", href, r.Status, webtest.Excerpt(r.Body))
	}
	if got := codeOf(t, r.Body); got != want {
		t.Errorf("the editor holds\n%s\nwant the handler file of %s", got, handler)
	}
	if !regexp.MustCompile(`<details\s+class="editor"\s+id="editor-box"\s+open`).MatchString(r.Body) {
		t.Errorf("the editor is closed:\n%s", webtest.Excerpt(r.Body))
	}
	p, err := sim.FindPreset(presets, preset)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Body, `id="story-title"`) || !strings.Contains(r.Body, html.EscapeString(p.Script.Title)) {
		t.Errorf("the lab does not show the scenario %q", p.Script.Title)
	}
	c := webtest.Cards(r.Body)
	if _, ok := c["yours"]; !ok {
		t.Fatalf("no card for the file; cards %v", c)
	}
	if _, ok := c[handler]; !ok {
		t.Fatalf("no card for the compiled %s; cards %v", handler, c)
	}

	// At the end of the story the file settles as the compiled handler.
	path, query, _ := strings.Cut(href, "?")
	v, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	l, err := link.Parse(v)
	if err != nil {
		t.Fatal(err)
	}
	l.Step, l.HasStep = len(p.Script.Steps), true
	end := webtest.Get(t, h, l.String())
	if path != link.Path || end.Status != 200 {
		t.Fatalf("GET %s: status %d\n%s", l.String(), end.Status, webtest.Excerpt(end.Body))
	}
	c, b := webtest.Cards(end.Body), webtest.Balances(end.Body)
	if c["yours"] == "" || c["yours"] != c[handler] || b["yours"] != b[handler] {
		t.Errorf("at step %s the file says %s %s, the compiled %s %s %s", strconv.Itoa(l.Step), c["yours"], b["yours"], handler, c[handler], b[handler])
	}
}

// A lab without a sandbox runs no handler file, so its lesson pages hide
// "Open in the editor" (the body is .no-editor, which lessons.css hides
// the links in); with one they show them.
func TestLessonEditorLinksNeedTheSandbox(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      http.Handler
		div    string
		hidden bool
	}{
		{"without a sandbox", webtest.NewServer(t), `<div class="lesson-body no-editor">`, true},
		{"with a sandbox", webtest.NewCodeServer(t, sandbox.Limits{}), `<div class="lesson-body">`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, lang := range lessons.Langs() {
				r := webtest.Get(t, tc.h, "/lessons/unique?lang="+lang)
				if r.Status != 200 || !strings.Contains(r.Body, tc.div) {
					t.Errorf("%s: status %d, want the body as %s\n%s", lang, r.Status, tc.div, webtest.Excerpt(r.Body))
				}
			}
		})
	}
	css := webtest.Get(t, webtest.NewServer(t), "/static/lessons.css")
	if !strings.Contains(css.Body, ".lesson-body.no-editor .source-action { display: none; }") {
		t.Error("lessons.css does not hide the editor's links in a .no-editor body")
	}
}
