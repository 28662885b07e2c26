package lessons

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
)

// Every source fence marked editor=PRESET has a handler file, that file
// copies the very function the fence quotes, the page links the lab with
// that file and that preset, and the file, interpreted in the sandbox,
// settles the preset exactly as the compiled handler does: the verdict,
// the balances, what was settled and expected. The lesson, the handler
// and the editor's file cannot drift apart.
func TestContentEditorFilesRunAsTheHandler(t *testing.T) {
	c := mustCourse(t)
	type run struct{ handler, preset string }
	runs := map[run][]string{} // the fences (file:line) that open it
	n := 0
	for _, l := range allLessons(c) {
		for _, e := range l.Editors {
			n++
			where := fmt.Sprintf("%s:%d", l.Source, e.Line)
			want, err := sandbox.Builtin(e.Handler)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			if e.Code != want {
				t.Errorf("%s: the link carries a file that is not sandbox.Builtin(%q)", where, e.Handler)
			}
			if file, fn, ok := sandbox.BuiltinOrigin(e.Code); !ok || file != e.File || fn != e.Decl {
				t.Errorf("%s: the fence quotes %s %s, its handler file copies %s %s (ok %v)", where, e.File, e.Decl, file, fn, ok)
			}
			checkEditorURL(t, where, e)
			if !strings.Contains(string(l.HTML), `href="`+html.EscapeString(e.URL)+`"`) {
				t.Errorf("%s: the page has no link to %s", where, e.URL)
			}
			k := run{e.Handler, e.Preset}
			runs[k] = append(runs[k], where)
		}
	}
	if n == 0 {
		t.Fatal("no source fence is marked editor=")
	}
	keys := make([]run, 0, len(runs))
	for k := range runs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b run) int { return strings.Compare(a.handler+" "+a.preset, b.handler+" "+b.preset) })
	for _, k := range keys {
		t.Run(k.handler+"/"+k.preset, func(t *testing.T) {
			want, got := runBoth(t, k.handler, k.preset)
			if got.Verdict != want.Verdict || got.Balance != want.Balance || got.Settled != want.Settled || got.Expected != want.Expected {
				t.Errorf("%v: the editor's file settles %s to %s (balance %d, settled %d of %d); the compiled handler to %s (%d, %d of %d)",
					runs[k], k.preset, got.Verdict, got.Balance, got.Settled, got.Expected, want.Verdict, want.Balance, want.Settled, want.Expected)
			}
		})
	}
	t.Logf("%d fences open the editor, %d runs", n, len(keys))
}

// checkEditorURL reads the link back as the lab will: /lab, the fence's
// preset, its file in code=, the compiled handler among those shown.
func checkEditorURL(t *testing.T, where string, e EditorLink) {
	t.Helper()
	path, query, _ := strings.Cut(e.URL, "?")
	v, err := url.ParseQuery(query)
	if path != link.Path || err != nil {
		t.Errorf("%s: %q is not a lab address (%v)", where, e.URL, err)
		return
	}
	got, err := link.Parse(v)
	if err != nil {
		t.Errorf("%s: %s: %v", where, e.URL, err)
		return
	}
	if got.Preset != e.Preset || got.Code != e.Code || !slices.Contains(got.Handlers, e.Handler) || got.Name != "" || got.HasStep {
		t.Errorf("%s: %s reads back as preset %q, handlers %v, name %q, step %v, the file %v; want %s, %s among the handlers, the file",
			where, e.URL, got.Preset, got.Handlers, got.Name, got.HasStep, got.Code == e.Code, e.Preset, e.Handler)
	}
}

// runBoth runs preset on the compiled handler and on its handler file
// interpreted in this process (sandbox.Load: what the lab's child does).
func runBoth(t *testing.T, handler, preset string) (compiled, interpreted sim.Result) {
	t.Helper()
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	apiPresets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	p, err := sim.FindPreset(append(presets, apiPresets...), preset)
	if err != nil {
		t.Fatal(err)
	}
	src, err := sandbox.Builtin(handler)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sandbox.Parse(src)
	if err != nil {
		t.Fatalf("the handler file of %s does not parse: %v", handler, err)
	}
	info, err := loadQuietly(f)
	if err != nil {
		t.Fatalf("the handler file of %s does not load: %v", handler, err)
	}
	info.Name = "yours"
	ctx := context.Background()
	want, err := sim.Execute(ctx, p.Script, sim.Options{Handlers: []string{handler}})
	if err != nil {
		t.Fatalf("%s on the compiled %s: %v", preset, handler, err)
	}
	got, err := sim.Execute(ctx, p.Script, sim.Options{Custom: []handlers.Info{info}})
	if err != nil {
		t.Fatalf("%s on the handler file of %s: %v", preset, handler, err)
	}
	return want.Results[0], got.Results[0]
}

// loadQuietly is sandbox.LoadHandler with os.Stderr, where the
// interpreter writes a line each time a crash point's panic unwinds
// through interpreted code, pointed at /dev/null.
func loadQuietly(f *sandbox.File) (handlers.Info, error) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return handlers.Info{}, err
	}
	defer null.Close()
	saved := os.Stderr
	os.Stderr = null
	defer func() { os.Stderr = saved }()
	return sandbox.LoadHandler(f)
}

// Every source fence that quotes a built-in handler's function (a
// message handler's or an API handler's) is marked editor=, in both
// languages alike: each handler a lesson shows can be opened in the
// editor. (An API handler's completer is not a handler: a handler file
// has no completer, and its fence is not marked.)
func TestContentHandlerFencesOpenTheEditor(t *testing.T) {
	c := mustCourse(t)
	isHandler := map[string]bool{}
	for _, h := range handlers.List() {
		isHandler[h.File+" "+h.Func] = true
	}
	for _, h := range handlers.APIList() {
		isHandler[h.File+" "+h.Func] = true
	}
	for _, l := range allLessons(c) {
		for _, q := range l.quotes {
			if isHandler[q.file+" "+q.decl] && q.editor == "" {
				t.Errorf("%s:%d: the fence quotes the handler %s %s but is not marked editor=PRESET", l.Source, q.line, q.file, q.decl)
			}
		}
	}
	for _, en := range c.Lessons(English) {
		ru, _ := c.Lesson(en.Slug, Russian)
		if ru == nil {
			continue
		}
		key := func(es []EditorLink) []string {
			var out []string
			for _, e := range es {
				out = append(out, e.Handler+" on "+e.Preset)
			}
			return out
		}
		if a, b := key(en.Editors), key(ru.Editors); !slices.Equal(a, b) {
			t.Errorf("%s opens the editor with %v, %s with %v", en.Source, a, ru.Source, b)
		}
	}
}

// The fixture's marked fence renders the link under the code, in both
// languages, as a plain link (no script) that opens the lab: the
// preset, the file, the quoted handler and then the handlers the preset
// declares (crash-before-ack's naive and inbox).
func TestEditorLinkRendered(t *testing.T) {
	c := mustLoad(t, "testdata/course")
	code, err := sandbox.Builtin("unique")
	if err != nil {
		t.Fatal(err)
	}
	href := html.EscapeString(link.Lab{Preset: "crash-before-ack", Code: code, Handlers: []string{"unique", "naive", "inbox"}}.String())
	for _, tc := range []struct{ lang, text, note string }{
		{English, "Open in the editor", "the lab on the scenario <code>crash-before-ack</code>, with this handler as a file you can change and run"},
		{Russian, "Открыть в редакторе", "лаборатория на сценарии <code>crash-before-ack</code>, а этот обработчик — файлом, который можно менять и запускать"},
	} {
		l := mustLesson(t, c, "alpha", tc.lang)
		want := `</code></pre><p class="source-action"><a class="try-it open-editor" href="` + href +
			`" data-handler="unique" data-preset="crash-before-ack">` + tc.text + `</a> <span class="source-action-note">` + tc.note + "</span></p>\n</figure>"
		if !strings.Contains(string(l.HTML), want) {
			t.Errorf("%s: the source fence lacks\n%s\nin:\n%s", tc.lang, want, l.HTML)
		}
		if len(l.Editors) != 1 || l.Editors[0].Handler != "unique" || l.Editors[0].Line != map[string]int{English: 29, Russian: 26}[tc.lang] {
			t.Errorf("%s: Editors = %+v", tc.lang, l.Editors)
		}
	}
}

// A wrong editor= stops the lesson from loading, with the line and what
// to write instead.
func TestEditorAttributeErrors(t *testing.T) {
	for _, tc := range []struct{ name, fence, want string }{
		{"an unknown attribute", "```source colour=red\nunique.go Unique\n```", `unknown attribute "colour=red"`},
		{"no preset", "```source editor=\nunique.go Unique\n```", "editor= names the scenario"},
		{"twice", "```source editor=crash-before-ack editor=poison-loop\nunique.go Unique\n```", "editor= given twice"},
		{"an unknown preset", "```source editor=no-such-preset\nunique.go Unique\n```", `unknown preset "no-such-preset"`},
		{"a message handler on an API preset", "```source editor=api-lost-response\nunique.go Unique\n```", "is an API preset (a script of HTTP requests); unique is a message handler"},
		{"not a handler", "```source editor=crash-before-ack\nunique.go uniqueSchema\n```", "unique.go uniqueSchema is not a handler's function"},
		{"an API handler on a broker preset", "```source editor=crash-before-ack\napi_idempotency_key.go APIIdempotencyKey\n```", "is a broker preset; api-idempotency-key is an API handler"},
		{"a completer", "```source editor=api-abandoned-key\napi_complete.go APIIdempotencyKeyComplete\n```", "api_complete.go APIIdempotencyKeyComplete is not a handler's function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fstest.MapFS{}
			for _, lang := range Langs() {
				fs["content/01-x."+lang+".md"] = &fstest.MapFile{Data: []byte("---\ntitle: X\nslug: x\norder: 1\nlang: " + lang +
					"\nsummary: \"A lesson.\"\npresets: []\n---\n\nText.\n\n" + tc.fence + "\n")}
			}
			_, err := Load(fs)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "content/01-x.en.md:12") {
				t.Errorf("Load: %v; want %q at content/01-x.en.md:12", err, tc.want)
			}
		})
	}
}
