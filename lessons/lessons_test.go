package lessons

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/cost"
	"github.com/idempotency-lab/lab/sim"
	"github.com/yuin/goldmark/ast"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// mustLoad loads the course at dir (a directory holding content/).
func mustLoad(tb testing.TB, dir string) *Course {
	tb.Helper()
	c, err := Load(os.DirFS(dir))
	if err != nil {
		tb.Fatalf("Load(%s):\n%v", dir, err)
	}
	return c
}

func mustLesson(tb testing.TB, c *Course, slug, lang string) *Lesson {
	tb.Helper()
	l, ok := c.Lesson(slug, lang)
	if !ok {
		tb.Fatalf("no lesson %s/%s", slug, lang)
	}
	return l
}

func TestFixtureCourse(t *testing.T) {
	c := mustLoad(t, "testdata/course")
	for _, lang := range Langs() {
		var slugs []string
		for _, l := range c.Lessons(lang) {
			slugs = append(slugs, l.Slug)
		}
		if !slices.Equal(slugs, []string{"alpha", "beta"}) {
			t.Errorf("Lessons(%s) = %v, want [alpha beta]", lang, slugs)
		}
	}
	if got := c.Lessons("de"); got != nil {
		t.Errorf("Lessons(de) = %v, want nil", got)
	}
	if _, ok := c.Lesson("gamma", English); ok {
		t.Error("Lesson(gamma) found")
	}

	alpha := mustLesson(t, c, "alpha", English)
	beta := mustLesson(t, c, "beta", English)
	if c.Prev(alpha) != nil || c.Next(alpha) != beta || c.Prev(beta) != alpha || c.Next(beta) != nil {
		t.Error("Prev/Next do not walk alpha <-> beta")
	}
	if alpha.Title != "Alpha: the first fixture" || alpha.Order != 1 || alpha.Lang != English ||
		alpha.Summary != "A fixture lesson that uses every fence." || !slices.Equal(alpha.Presets, []string{"crash-before-ack"}) ||
		alpha.Source != "content/01-alpha.en.md" {
		t.Errorf("alpha's front matter: %+v", alpha)
	}
	if alpha.Diagrams != 1 || beta.Diagrams != 0 {
		t.Errorf("Diagrams: alpha %d, beta %d; want 1, 0", alpha.Diagrams, beta.Diagrams)
	}
	if alpha.ReadingMinutes < 1 || beta.ReadingMinutes != 1 {
		t.Errorf("ReadingMinutes: alpha %d, beta %d", alpha.ReadingMinutes, beta.ReadingMinutes)
	}
	wantClaim := Claim{Preset: "crash-before-ack", Line: 18, Verdicts: []HandlerVerdict{
		{"naive", sim.Duplicate}, {"unique", sim.OK},
	}}
	if len(alpha.Claims) != 1 || !claimEqual(alpha.Claims[0], wantClaim) {
		t.Errorf("alpha's claims = %+v, want [%+v]", alpha.Claims, wantClaim)
	}
	wantLinks := []LabLink{{Preset: "crash-before-ack", Handlers: []string{"naive", "unique"}, Line: 24}}
	if !slices.EqualFunc(alpha.LabLinks, wantLinks, labLinkEqual) {
		t.Errorf("alpha's lab links = %+v, want %+v", alpha.LabLinks, wantLinks)
	}
	if want := []LabLink{{Preset: "happy-path", Line: 10}}; !slices.EqualFunc(beta.LabLinks, want, labLinkEqual) {
		t.Errorf("beta's lab links = %+v, want %+v", beta.LabLinks, want)
	}
	wantHeadings := []Heading{
		{2, "duplicates-happen", "Duplicates happen"},
		{3, "the-handler", "The handler"},
		{2, "a-diagram", "A diagram"},
		{2, "plain-code", "Plain code"},
	}
	if !slices.Equal(alpha.Headings, wantHeadings) {
		t.Errorf("alpha's headings = %+v, want %+v", alpha.Headings, wantHeadings)
	}
	ru := mustLesson(t, c, "alpha", Russian)
	if want := (Heading{2, "дубли-случаются", "Дубли случаются"}); ru.Headings[0] != want {
		t.Errorf("Russian heading = %+v, want %+v", ru.Headings[0], want)
	}
}

func claimEqual(a, b Claim) bool {
	return a.Preset == b.Preset && a.Line == b.Line && slices.Equal(a.Verdicts, b.Verdicts)
}

func labLinkEqual(a, b LabLink) bool {
	return a.Preset == b.Preset && a.Line == b.Line && slices.Equal(a.Handlers, b.Handlers)
}

// TestGolden pins the HTML of the fixture lessons, so a change in what the
// web has to style shows up as a diff. Run with -update to accept one.
func TestGolden(t *testing.T) {
	c := mustLoad(t, "testdata/course")
	for _, lang := range Langs() {
		for _, l := range c.Lessons(lang) {
			path := filepath.Join("testdata", "golden", l.Slug+"."+l.Lang+".html")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(l.HTML), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if string(l.HTML) != string(want) {
				t.Errorf("%s differs from %s (run go test -update and review the diff):\n%s", l.Source, path, l.HTML)
			}
		}
	}
}

func TestRawHTMLIsNotPassedThrough(t *testing.T) {
	alpha := mustLesson(t, mustLoad(t, "testdata/course"), "alpha", English)
	html := string(alpha.HTML)
	for _, bad := range []string{"<script", "<b ", "onclick", "<not html>"} {
		if strings.Contains(html, bad) {
			t.Errorf("HTML contains %q:\n%s", bad, html)
		}
	}
	if !strings.Contains(html, "raw HTML omitted") {
		t.Errorf("raw HTML was not replaced by goldmark's marker:\n%s", html)
	}
}

// A mermaid fence becomes its committed SVGs, inline, one per theme, in a
// figure with an accessible name; the page gets no mermaid source.
func TestMermaidFence(t *testing.T) {
	alpha := mustLesson(t, mustLoad(t, "testdata/course"), "alpha", English)
	html := string(alpha.HTML)
	if n := strings.Count(html, `<figure class="diagram" role="img" aria-label="Diagram">`); n != 1 {
		t.Errorf("%d diagram figures named %q, want 1:\n%s", n, "Diagram", html)
	}
	for _, theme := range DiagramThemes {
		if !strings.Contains(html, `<div class="diagram-`+theme+`"><svg `) {
			t.Errorf("no inline SVG for the %s theme:\n%s", theme, html)
		}
	}
	for _, bad := range []string{"mermaid\"", `class="mermaid`, "flowchart LR", "<foreignObject", "alert(1)"} {
		if strings.Contains(html, bad) {
			t.Errorf("HTML contains %q:\n%s", bad, html)
		}
	}
	// The SVG is mermaid's drawing of the fence: its labels are there.
	if !strings.Contains(svgText(html), "ack & done") {
		t.Errorf("the SVG lacks the label %q:\n%s", "ack & done", html)
	}
}

func TestClaimFence(t *testing.T) {
	c := mustLoad(t, "testdata/course")
	for _, tc := range []struct {
		lang string
		want []string
	}{
		{English, []string{
			`<aside class="claim" data-preset="crash-before-ack">`,
			`<span class="claim-label">Scenario</span> <span class="claim-title">Crash before the ack</span> <code class="claim-preset">crash-before-ack</code>`,
			`<li><code class="claim-handler">naive</code> <span class="claim-arrow">→</span> <span class="verdict verdict-duplicate">duplicate</span></li>`,
			`<li><code class="claim-handler">unique</code> <span class="claim-arrow">→</span> <span class="verdict verdict-ok">ok</span></li>`,
			`<a class="try-it" href="/lab?preset=crash-before-ack&amp;handlers=naive,unique,inbox&amp;step=4">Try it in the lab</a>`,
		}},
		{Russian, []string{
			`<span class="claim-label">Сценарий</span> <span class="claim-title">Падение перед ack</span>`,
			`<span class="verdict verdict-duplicate">дубль</span>`,
			`<span class="verdict verdict-ok">верно</span>`,
			`<span class="verdict verdict-poison">зацикливание</span>`,
			`<a class="try-it" href="/lab?preset=crash-before-ack&amp;handlers=naive,unique,unique-error,inbox&amp;step=4">Попробовать в лаборатории</a>`,
		}},
	} {
		html := string(mustLesson(t, c, "alpha", tc.lang).HTML)
		for _, w := range tc.want {
			if !strings.Contains(html, w) {
				t.Errorf("%s claim box lacks\n%s\nin:\n%s", tc.lang, w, html)
			}
		}
	}
}

func TestVerdictLabel(t *testing.T) {
	for _, tc := range []struct {
		v      sim.Verdict
		en, ru string
	}{
		{sim.OK, "ok", "верно"},
		{sim.Duplicate, "duplicate", "дубль"},
		{sim.Lost, "lost", "потеря"},
		{sim.Poison, "poison", "зацикливание"},
		{sim.SilentConflict, "silent-conflict", "тихий конфликт"},
	} {
		if got := VerdictLabel(tc.v, English); got != tc.en {
			t.Errorf("VerdictLabel(%s, en) = %q, want %q", tc.v, got, tc.en)
		}
		if got := VerdictLabel(tc.v, Russian); got != tc.ru {
			t.Errorf("VerdictLabel(%s, ru) = %q, want %q", tc.v, got, tc.ru)
		}
	}
}

func TestSourceFence(t *testing.T) {
	html := string(mustLesson(t, mustLoad(t, "testdata/course"), "alpha", English).HTML)
	for _, w := range []string{
		`<figure class="source" data-file="unique.go" data-decl="Unique">`,
		`<figcaption class="source-caption"><code class="source-file">handlers/unique.go</code> <span class="source-note">highlighted: where the lab can stop the worker</span></figcaption>`,
		`<pre class="chroma"><code>`,
		`<span class="nf">Unique</span>`, // the declaration, highlighted
		`<span class="c1">// Unique `,    // with its doc comment
		`<span class="line hl">`,         // the crash points
		`<span class="ln">26</span>`,     // numbered as in the file
		`IsUniqueViolation`,              // its body
		`</code></pre>`,                  // closed (TestEditorLinkRendered: then the editor's link, then </figure>)
	} {
		if !strings.Contains(html, w) {
			t.Errorf("source fence lacks %s in:\n%s", w, html)
		}
	}
	if strings.Contains(html, "uniqueSchema =") {
		t.Error("source fence quoted more than the declaration")
	}
}

func TestQuote(t *testing.T) {
	b := newBuilder(nil, nil, func(file string) (string, error) {
		if file != "x.go" {
			return "", os.ErrNotExist
		}
		return `package x

// T is a type.
type T struct{}

// M is a method.
func (t *T) M() {}

// The points.
const (
	// A is one.
	A = "a"
	B = "b"
)

func F() {}
`, nil
	})
	for _, tc := range []struct {
		decl, want string
		first      int
	}{
		{"T", "// T is a type.\ntype T struct{}", 3},
		{"T.M", "// M is a method.\nfunc (t *T) M() {}", 6},
		{"B", "// The points.\nconst (\n\t// A is one.\n\tA = \"a\"\n\tB = \"b\"\n)", 9},
		{"F", "func F() {}", 16},
	} {
		s, err := b.quote("x.go", tc.decl)
		if err != nil || s.code != tc.want || s.first != tc.first {
			t.Errorf("quote(x.go, %s) = %q (line %d), %v; want %q (line %d)", tc.decl, s.code, s.first, err, tc.want, tc.first)
		}
	}
	if _, err := b.quote("x.go", "M"); err == nil || !strings.Contains(err.Error(), "it declares: T, T.M, A, B, F") {
		t.Errorf("quote(x.go, M) error = %v, want the list of declarations", err)
	}
}

func TestLabLinks(t *testing.T) {
	c := mustLoad(t, "testdata/course")
	for _, tc := range []struct{ slug, lang, want string }{
		{"alpha", English, `<a href="/lab?preset=crash-before-ack&amp;handlers=naive,unique,inbox" class="try-it">Watch it happen</a>`},
		{"beta", Russian, `<a href="/lab?preset=happy-path" class="try-it">ссылка в лабораторию</a>`},
	} {
		if html := string(mustLesson(t, c, tc.slug, tc.lang).HTML); !strings.Contains(html, tc.want) {
			t.Errorf("%s/%s lacks %s in:\n%s", tc.slug, tc.lang, tc.want, html)
		}
	}
	if got := LabURL("a b", []string{"x", "y"}); got != "/lab?preset=a+b&handlers=x,y" {
		t.Errorf("LabURL = %q", got)
	}
}

func TestHeadingAnchors(t *testing.T) {
	c := mustLoad(t, "testdata/course")
	for _, tc := range []struct{ slug, lang, want string }{
		{"alpha", English, `<h2 id="duplicates-happen">Duplicates happen <a href="#duplicates-happen" title="Link to this section" class="anchor">#</a></h2>`},
		{"alpha", English, `<h3 id="the-handler">The handler <a href="#the-handler" title="Link to this section" class="anchor">#</a></h3>`},
		{"beta", Russian, `<h2 id="конец">Конец <a href="#%D0%BA%D0%BE%D0%BD%D0%B5%D1%86" title="Ссылка на этот раздел" class="anchor">#</a></h2>`},
	} {
		if html := string(mustLesson(t, c, tc.slug, tc.lang).HTML); !strings.Contains(html, tc.want) {
			t.Errorf("%s/%s lacks %s in:\n%s", tc.slug, tc.lang, tc.want, html)
		}
	}
}

func TestHeadingIDs(t *testing.T) {
	ids := newHeadingIDs()
	for _, tc := range []struct{ in, want string }{
		{"Hello, World!", "hello-world"},
		{"Hello World", "hello-world-1"},
		{"  `UPDATE … WHERE status` and RowsAffected ", "update-where-status-and-rowsaffected"},
		{"Ключ: (tenant_id, operation_id)", "ключ-tenant-id-operation-id"},
		{"ЁЖ 23505", "ёж-23505"},
		{"!!!", "section"},
		{"!?", "section-1"},
	} {
		if got := string(ids.Generate([]byte(tc.in), ast.KindHeading)); got != tc.want {
			t.Errorf("Generate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSearch(t *testing.T) {
	c := mustLoad(t, "testdata/course")
	for _, tc := range []struct {
		lang, query string
		want        []Hit
	}{
		{English, "ALPHA", []Hit{{Slug: "alpha", Title: "Alpha: the first fixture", Text: "Alpha: the first fixture"}}},
		{English, "  happen dupl ", []Hit{{Slug: "alpha", Title: "Alpha: the first fixture", Anchor: "duplicates-happen", Text: "Duplicates happen", Level: 2}}},
		{English, "the", []Hit{
			{Slug: "alpha", Title: "Alpha: the first fixture", Text: "Alpha: the first fixture"},
			{Slug: "alpha", Title: "Alpha: the first fixture", Anchor: "the-handler", Text: "The handler", Level: 3},
			{Slug: "beta", Title: "Beta", Anchor: "the-end", Text: "The end", Level: 2},
		}},
		{Russian, "ДУБЛИ", []Hit{{Slug: "alpha", Title: "Альфа: первая учебная фикстура", Anchor: "дубли-случаются", Text: "Дубли случаются", Level: 2}}},
		{Russian, "учёбная", []Hit{{Slug: "alpha", Title: "Альфа: первая учебная фикстура", Text: "Альфа: первая учебная фикстура"}}},
		{Russian, "duplicates", nil},
		{English, "   ", nil},
		{"de", "alpha", nil},
	} {
		if got := c.Search(tc.lang, tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("Search(%s, %q) = %+v, want %+v", tc.lang, tc.query, got, tc.want)
		}
	}
}

// TestLoadErrors loads each testdata/errors/*.txtar as a course: its
// comment lists the texts the error must contain, one per line.
func TestLoadErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/errors/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no error fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			fsys, err := txtar.FS(a)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Load(fsys)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			for _, want := range strings.Split(strings.TrimSpace(string(a.Comment)), "\n") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
		})
	}
}

func TestCodeCSS(t *testing.T) {
	css, err := CodeCSS(LightStyle, DarkStyle)
	if err != nil {
		t.Fatal(err)
	}
	light, dark, ok := strings.Cut(css, "@media screen and (prefers-color-scheme: dark) {")
	if !ok {
		t.Fatalf("no dark block in:\n%s", css)
	}
	for _, w := range []string{".chroma {", ".chroma .k {", ".chroma .hl {", ".chroma .ln {"} {
		if !strings.Contains(light, w) || !strings.Contains(dark, w) {
			t.Errorf("%q missing from the light or the dark rules:\n%s", w, css)
		}
	}
	// github sets a background on .err, github-dark does not: the dark block
	// must take it away rather than inherit the light one.
	if !strings.Contains(dark, ".chroma .err { background-color: transparent;") {
		t.Errorf("the dark block does not reset what only the light style sets:\n%s", dark)
	}
	if strings.Contains(css, ".bg") {
		t.Errorf("CSS has chroma's standalone .bg rule:\n%s", css)
	}
	if _, err := CodeCSS("no-such-style", DarkStyle); err == nil {
		t.Error("CodeCSS accepted an unknown style")
	}
}

// TestMeasuredFences: lesson 8's measured fences are charts of the
// committed reference run, captioned with where it ran, in both languages.
func TestMeasuredFences(t *testing.T) {
	for _, lang := range []string{"en", "ru"} {
		l := mustLesson(t, mustLoad(t, "."), "cost", lang)
		html := string(l.HTML)
		for _, id := range []string{"calls", "storage", "keyfill", "keysize", "retention"} {
			if !strings.Contains(html, `<figure class="measured" id="measured-`+id+`">`) {
				t.Errorf("%s: no measured figure %s", lang, id)
			}
		}
		if n := strings.Count(html, `<svg class="cost-chart"`); n != 5 {
			t.Errorf("%s: %d charts, want 5", lang, n)
		}
		ref, err := cost.Reference()
		if err != nil {
			t.Fatal(err)
		}
		// The date is the committed run's: make cost-reference remakes it.
		want := map[string]string{"en": "Measured " + ref.Date + " on linux/amd64", "ru": "Измерено " + ref.Date + " на linux/amd64"}[lang]
		if !strings.Contains(html, want) {
			t.Errorf("%s: no caption saying where it ran", lang)
		}
	}
}
