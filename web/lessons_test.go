package web_test

import (
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/course"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/webtest"
)

func mustCourse(tb testing.TB) *lessons.Course {
	tb.Helper()
	c, err := lessons.Load(lessons.Embedded())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestLessonsIndex(t *testing.T) {
	h := webtest.NewServer(t)
	course := mustCourse(t)
	for _, lang := range lessons.Langs() {
		t.Run(lang, func(t *testing.T) {
			target := "/lessons?lang=" + lang
			r := webtest.Get(t, h, target)
			if r.Status != 200 {
				t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
			}
			if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			webtest.NoMissingKeys(t, target, r.Body)
			if !strings.Contains(r.Body, `<html lang="`+lang+`"`) {
				t.Errorf("the page is not in %s", lang)
			}
			ls := course.Lessons(lang)
			files, err := fs.Glob(lessons.Embedded(), "content/*."+lang+".md")
			if err != nil {
				t.Fatal(err)
			}
			// Every lesson file of the language, and more than the first eleven.
			if len(ls) != len(files) || len(ls) <= 11 {
				t.Fatalf("%d lessons in %s, want one per file (%d)", len(ls), lang, len(files))
			}
			last := -1
			for _, l := range ls {
				link := `href="/lessons/` + l.Slug + `"`
				i := strings.Index(r.Body, link)
				if i < 0 {
					t.Errorf("no link to %s", l.Slug)
					continue
				}
				if i < last {
					t.Errorf("%s is out of course order", l.Slug)
				}
				last = i
				for _, want := range []string{htmlEscape(l.Title), htmlEscape(l.Summary)} {
					if !strings.Contains(r.Body, want) {
						t.Errorf("%s: the list lacks %q", l.Slug, want)
					}
				}
			}
			minutes := map[string]string{"en": "7 min read", "ru": "6 мин чтения"}[lang] // lesson 1
			if !strings.Contains(r.Body, minutes) {
				t.Errorf("no reading time %q", minutes)
			}
			for _, want := range []string{
				`<form method="get" action="/lessons" role="search"`, `name="q"`,
				`hreflang="en"`, `hreflang="ru"`,
				`<a href="/lessons" aria-current="page">`,
				`/lessons/code.css?v=`, `/static/lessons.css?v=`,
			} {
				if !strings.Contains(r.Body, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			if strings.Contains(r.Body, "<progress") {
				t.Error("progress bars without a practice store")
			}
			if strings.Contains(r.Body, "mermaid") {
				t.Error("the list loads mermaid")
			}
		})
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func TestLessonsSearch(t *testing.T) {
	h := webtest.NewServer(t)
	tests := []struct {
		name, target string
		in, out      []string
	}{
		{"a title", "/lessons?lang=en&q=unique",
			[]string{`id="hit-list"`, `<a href="/lessons/unique">The <mark>UNIQUE</mark> constraint</a>`, "match “unique”", `value="unique"`},
			[]string{`id="lesson-list"`}},
		{"a heading", "/lessons?lang=en&q=grey+zone",
			[]string{`<a href="/lessons/setnx#the-grey-zone-a-worker-dies-mid-call">The <mark>grey</mark> <mark>zone</mark>: a worker dies mid-call</a>`,
				"One title or heading matches “grey zone”."},
			nil},
		{"Russian, any case, ё as е", "/lessons?lang=ru&q=" + url.QueryEscape("КЛЮЧ"),
			[]string{`href="/lessons/keys"`, "<mark>ключ</mark>"}, nil},
		{"nothing found lists every lesson", "/lessons?lang=en&q=zebra",
			[]string{"No title or heading contains “zebra”.", `id="lesson-list"`, `href="/lessons/cost"`},
			[]string{`id="hit-list"`}},
		{"blank is the whole list", "/lessons?lang=en&q=+++",
			[]string{`id="lesson-list"`}, []string{`id="hit-list"`, "No title"}},
		{"user text is escaped", "/lessons?lang=en&q=" + url.QueryEscape(`<script>alert(1)</script>`),
			[]string{"&lt;script&gt;alert(1)&lt;/script&gt;"}, []string{"<script>alert(1)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Get(t, h, tc.target)
			if r.Status != 200 {
				t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, tc.target, r.Body)
			for _, s := range tc.in {
				if !strings.Contains(r.Body, s) {
					t.Errorf("page lacks %q", s)
				}
			}
			for _, s := range tc.out {
				if strings.Contains(r.Body, s) {
					t.Errorf("page has %q", s)
				}
			}
		})
	}
}

func TestLessonsSearchWithHTMX(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/lessons?lang=en&q=gotcha", "HX-Request", "true", "HX-Request-Type", "partial")
	if r.Status != 200 {
		t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if strings.Contains(r.Body, "<html") || strings.Contains(r.Body, `role="search"`) {
		t.Error("htmx got the whole page, want the results only")
	}
	if !strings.Contains(r.Body, `id="search-status"`) || !strings.Contains(r.Body, "<mark>gotcha</mark>") {
		t.Errorf("the results lack the status or the hits:\n%s", webtest.Excerpt(r.Body))
	}
	if got := r.Header.Get("HX-Replace-Url"); got != "/lessons?q=gotcha" {
		t.Errorf("HX-Replace-Url = %q, want the address of these results", got)
	}
	if v := r.Header.Get("Vary"); !strings.Contains(v, "HX-Request") {
		t.Errorf("Vary = %q", v)
	}
	// A history restore gets the whole page.
	full := webtest.Get(t, h, "/lessons?q=gotcha", "HX-Request", "true", "HX-Request-Type", "partial", "HX-History-Restore-Request", "true")
	if !strings.Contains(full.Body, "<html") {
		t.Error("a history restore got a fragment")
	}
}

func TestLessonsSearchBadInput(t *testing.T) {
	h := webtest.NewServer(t)
	tests := []struct{ name, target, want string }{
		{"too long", "/lessons?lang=en&q=" + strings.Repeat("a", course.MaxQueryRunes+1), "at most 100 characters long; this one has 101"},
		{"too long in Russian", "/lessons?lang=ru&q=" + url.QueryEscape(strings.Repeat("я", course.MaxQueryRunes+5)), "не длиннее 100 символов, а в этом 105"},
		{"not UTF-8", "/lessons?lang=en&q=%ff%fe", "not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Get(t, h, tc.target)
			if r.Status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400\n%s", r.Status, webtest.Excerpt(r.Body))
			}
			if !strings.Contains(r.Body, tc.want) {
				t.Errorf("the error page lacks %q\n%s", tc.want, webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, tc.target, r.Body)
		})
	}
	// With htmx the message goes into the page's message area.
	r := webtest.Get(t, h, "/lessons?q="+strings.Repeat("a", 200), "HX-Request", "true", "HX-Request-Type", "partial")
	if r.Status != http.StatusBadRequest || r.Header.Get("HX-Retarget") != "#flash" {
		t.Errorf("htmx: status %d, HX-Retarget %q", r.Status, r.Header.Get("HX-Retarget"))
	}
}

var (
	tocHref  = regexp.MustCompile(`<nav class="toc"(?s:.*?)</nav>`)
	hrefHash = regexp.MustCompile(`href="#([^"]+)"`)
)

func TestLessonPages(t *testing.T) {
	h := webtest.NewServer(t)
	lc := mustCourse(t)
	for _, lang := range lessons.Langs() {
		ls := lc.Lessons(lang)
		for i, l := range ls {
			target := "/lessons/" + l.Slug + "?lang=" + lang
			t.Run(lang+"/"+l.Slug, func(t *testing.T) {
				r := webtest.Get(t, h, target)
				if r.Status != 200 {
					t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
				}
				webtest.NoMissingKeys(t, target, r.Body)
				want := []string{
					`<html lang="` + lang + `"`,
					`<h1 id="lesson-title">` + htmlEscape(l.Title) + `</h1>`,
					course.LabelCodeBlocks(page.NewText(langOf(lang), web.NewCatalog()), string(l.HTML)),
					`hreflang="en"`, `hreflang="ru"`,
					`href="/lessons/` + l.Slug + `?lang=ru"`, `href="/lessons/` + l.Slug + `?lang=en"`,
					`<a href="/lessons" aria-current="true">`,
					`href="/practice?topic=` + l.Slug + `"`,
					`class="try-it"`,
					`/lessons/code.css?v=`,
				}
				if i > 0 {
					want = append(want, `href="/lessons/`+ls[i-1].Slug+`" rel="prev"`)
				} else if strings.Contains(r.Body, `rel="prev"`) {
					t.Error("the first lesson has a previous one")
				}
				if i < len(ls)-1 {
					want = append(want, `href="/lessons/`+ls[i+1].Slug+`" rel="next"`)
				} else if strings.Contains(r.Body, `rel="next"`) {
					t.Error("the last lesson has a next one")
				}
				for _, s := range want {
					if !strings.Contains(r.Body, s) {
						t.Errorf("page lacks %q", excerptOf(s))
					}
				}
				// Every entry of the table of contents points at a heading.
				toc := tocHref.FindString(r.Body)
				links := hrefHash.FindAllStringSubmatch(toc, -1)
				if len(links) != len(l.Headings) {
					t.Errorf("table of contents has %d entries, the lesson %d headings", len(links), len(l.Headings))
				}
				for _, m := range links {
					if !strings.Contains(r.Body, ` id="`+m[1]+`"`) {
						t.Errorf("table of contents links #%s, which is not on the page", m[1])
					}
				}
				// Diagrams are inline SVG, drawn ahead of time: no script,
				// no mermaid anywhere in the page.
				if strings.Contains(r.Body, "mermaid") {
					t.Error("the page mentions mermaid: a script, a class or a diagram's source")
				}
				if n := strings.Count(r.Body, `<figure class="diagram" role="img" aria-label="`); n != l.Diagrams {
					t.Errorf("%d diagram figures, the lesson has %d diagrams", n, l.Diagrams)
				}
				if l.Diagrams > 0 && !strings.Contains(r.Body, `<div class="diagram-light"><svg `) {
					t.Error("a diagram without its inline SVG")
				}
			})
		}
	}
}

func excerptOf(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// TestSomeLessonsHaveDiagramsAndSomeDoNot keeps TestLessonPages honest:
// both branches of the diagram check run.
func TestSomeLessonsHaveDiagramsAndSomeDoNot(t *testing.T) {
	with, without := 0, 0
	for _, l := range mustCourse(t).Lessons(lessons.English) {
		if l.Diagrams > 0 {
			with++
		} else {
			without++
		}
	}
	if with == 0 || without == 0 {
		t.Fatalf("%d lessons with diagrams, %d without: the diagram test needs both", with, without)
	}
}

func TestLessonLanguage(t *testing.T) {
	h := webtest.NewServer(t)
	en, ru := "The UNIQUE constraint", "Ограничение UNIQUE"
	r := webtest.Get(t, h, "/lessons/unique?lang=ru", "Accept-Language", "en")
	if !strings.Contains(r.Body, ru) {
		t.Fatal("?lang=ru: want the Russian lesson")
	}
	var cookie *http.Cookie
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == page.LangCookie {
			cookie = c
		}
	}
	if cookie == nil || cookie.Value != "ru" {
		t.Fatalf("?lang=ru sets no language cookie: %v", r.Header["Set-Cookie"])
	}
	// Remembered: the list and the next lesson are Russian without ?lang=.
	for _, target := range []string{"/lessons", "/lessons/unique"} {
		if r := webtest.Get(t, h, target, "Accept-Language", "en", "Cookie", cookie.String()); !strings.Contains(r.Body, ru) {
			t.Errorf("%s: the language cookie is not remembered", target)
		}
	}
	// A bad ?lang= is ignored: the browser's language, nothing remembered.
	for _, bad := range []string{"xx", "", "EN-us", "<ru>"} {
		r := webtest.Get(t, h, "/lessons/unique?lang="+url.QueryEscape(bad), "Accept-Language", "en")
		if r.Status != 200 || !strings.Contains(r.Body, en) || !strings.Contains(r.Body, `<html lang="en"`) {
			t.Errorf("?lang=%q: status %d, want the English lesson", bad, r.Status)
		}
		if len(r.Header["Set-Cookie"]) > 0 {
			t.Errorf("?lang=%q sets a cookie", bad)
		}
	}
	if r := webtest.Get(t, h, "/lessons/unique?lang=xx", "Accept-Language", "ru-RU,ru;q=0.9"); !strings.Contains(r.Body, ru) {
		t.Error("a bad ?lang= does not fall back to the browser's language")
	}
}

func TestUnknownLesson(t *testing.T) {
	h := webtest.NewServer(t)
	for _, tc := range []struct{ target, want string }{
		{"/lessons/nope?lang=en", "No lesson is called “nope”."},
		{"/lessons/nope?lang=ru", "Урока «nope» нет."},
		{"/lessons/" + url.PathEscape("<b>x</b>") + "?lang=en", "“&lt;b&gt;x&lt;/b&gt;”"},
		{"/lessons/UNIQUE?lang=en", "“UNIQUE”"},
		{"/lessons/" + strings.Repeat("x", 300) + "?lang=en", strings.Repeat("x", 60) + "…"},
	} {
		r := webtest.Get(t, h, tc.target)
		if r.Status != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", tc.target, r.Status)
			continue
		}
		webtest.NoMissingKeys(t, tc.target, r.Body)
		if !strings.Contains(r.Body, tc.want) {
			t.Errorf("%s: page lacks %q\n%s", tc.target, tc.want, webtest.Excerpt(r.Body))
		}
		if strings.Count(r.Body, `<li class="lesson-item">`) != len(mustCourse(t).Lessons("en")) || !strings.Contains(r.Body, `href="/lessons/unique"`) {
			t.Errorf("%s: the 404 page does not list the lessons", tc.target)
		}
		if strings.Contains(r.Body, "<b>x</b>") {
			t.Errorf("%s: the slug is not escaped", tc.target)
		}
	}
	if r := webtest.Get(t, h, "/lessons/"); r.Status != http.StatusMovedPermanently || r.Header.Get("Location") != "/lessons" {
		t.Errorf("/lessons/: %d to %q, want 301 to /lessons", r.Status, r.Header.Get("Location"))
	}
	if r := webtest.Get(t, h, "/lessons/unique/more"); r.Status != http.StatusNotFound {
		t.Errorf("/lessons/unique/more: status %d, want 404", r.Status)
	}
	for _, target := range []string{"/lessons", "/lessons/unique"} {
		if r := webtest.Post(t, h, target, url.Values{}); r.Status != http.StatusMethodNotAllowed {
			t.Errorf("POST %s: status %d, want 405", target, r.Status)
		}
		if r := webtest.Request(t, h, http.MethodHead, target, nil); r.Status != 200 {
			t.Errorf("HEAD %s: status %d", target, r.Status)
		}
	}
}

func TestCodeCSS(t *testing.T) {
	h := webtest.NewServer(t)
	page := webtest.Get(t, h, "/lessons/unique")
	m := regexp.MustCompile(`href="(/lessons/code\.css\?v=([0-9a-f]+))"`).FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatal("the lesson does not link a versioned code.css")
	}
	r := webtest.Get(t, h, m[1])
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/css") {
		t.Fatalf("code.css: status %d, Content-Type %q", r.Status, r.Header.Get("Content-Type"))
	}
	if !strings.Contains(r.Header.Get("Cache-Control"), "immutable") || r.Header.Get("ETag") != `"`+m[2]+`"` {
		t.Errorf("versioned code.css: Cache-Control %q, ETag %q", r.Header.Get("Cache-Control"), r.Header.Get("ETag"))
	}
	if r := webtest.Get(t, h, "/lessons/code.css"); r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("unversioned code.css: Cache-Control %q", r.Header.Get("Cache-Control"))
	}
	if r := webtest.Get(t, h, "/lessons/code.css", "If-None-Match", `"`+m[2]+`"`); r.Status != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", r.Status)
	}
	for _, want := range []string{
		".chroma .k {", // the light style
		`@media screen and (prefers-color-scheme: dark)`, // the system's dark
		`:root:not([data-theme="light"]) .chroma .k {`,   // ... unless the page is forced light
		`:root[data-theme="dark"] .chroma .k {`,          // the toggle's dark
	} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("code.css lacks %q", want)
		}
	}
	if strings.Count(r.Body, "{") != strings.Count(r.Body, "}") {
		t.Error("code.css has unbalanced braces")
	}
}

func TestLessonsStaticFiles(t *testing.T) {
	h := webtest.NewServer(t)
	page := webtest.Get(t, h, "/lessons/duplicates")
	for _, name := range []string{"lessons.css"} {
		m := regexp.MustCompile(`"(/static/` + regexp.QuoteMeta(name) + `\?v=[0-9a-f]+)"`).FindStringSubmatch(page.Body)
		if m == nil {
			t.Errorf("the lesson does not load %s", name)
			continue
		}
		if r := webtest.Get(t, h, m[1]); r.Status != 200 || len(r.Body) == 0 || !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: status %d, %d bytes, Cache-Control %q", name, r.Status, len(r.Body), r.Header.Get("Cache-Control"))
		}
	}
	// Mermaid draws the diagrams at build time (make diagrams): the lab
	// serves neither it nor a script to start it.
	if strings.Contains(page.Body, "mermaid") {
		t.Error("the lesson loads mermaid")
	}
	for _, gone := range []string{"/static/vendor/mermaid-12.3.0.min.js", "/static/lessons.js"} {
		if r := webtest.Get(t, h, gone); r.Status != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", gone, r.Status)
		}
	}
}

// Without JavaScript a lesson with a diagram shows the drawing, in both
// themes' palettes, named for assistive technology; never its source.
func TestLessonDiagramWithoutJavaScript(t *testing.T) {
	h := webtest.NewServer(t)
	for _, c := range []struct{ url, label, text, source string }{
		{"/lessons/duplicates?lang=en", "Crash before the ack: one message, two charges", "Worker 1", "participant W1"},
		{"/lessons/duplicates?lang=ru", "Падение до ack: одно сообщение, два списания", "Воркер 1", "participant W1"},
		{"/lessons/statemachine?lang=en", "Order states and the events that move them", "CANCELLED", "direction LR"},
	} {
		body := webtest.Get(t, h, c.url).Body
		start := strings.Index(body, `<figure class="diagram" role="img" aria-label="`+c.label+`">`)
		if start < 0 {
			t.Errorf("%s: no diagram figure named %q", c.url, c.label)
			continue
		}
		end := strings.Index(body[start:], "</figure>")
		if end < 0 {
			t.Fatalf("%s: the figure is not closed", c.url)
		}
		fig := body[start : start+end]
		for _, theme := range []string{"light", "dark"} {
			if !strings.Contains(fig, `<div class="diagram-`+theme+`"><svg `) {
				t.Errorf("%s: no %s SVG in the figure", c.url, theme)
			}
		}
		if !strings.Contains(fig, c.text) {
			t.Errorf("%s: the SVG does not say %q", c.url, c.text)
		}
		for _, bad := range []string{c.source, `class="mermaid`, "accTitle", "--&gt;", "-&gt;&gt;"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: the page contains %q, from the diagram's source", c.url, bad)
			}
		}
		for _, bad := range []string{"<foreignObject", "<script", " onload="} {
			if strings.Contains(fig, bad) {
				t.Errorf("%s: the diagram contains %q", c.url, bad)
			}
		}
	}
}

// TestSiteNav checks the header's sections on pages of each kind.
func TestSiteNav(t *testing.T) {
	h := webtest.NewServer(t)
	for _, tc := range []struct{ target, current, value string }{
		{"/lab", "/lab", "page"},
		{"/lab?preset=crash-before-ack", "/lab", "page"},
		{"/lessons", "/lessons", "page"},
		{"/lessons/inbox", "/lessons", "true"},
		{"/lessons/nope", "/lessons", "true"},
		{"/cost", "/cost", "page"},
	} {
		r := webtest.Get(t, h, tc.target)
		nav := regexp.MustCompile(`(?s)<nav class="site-nav".*?</nav>`).FindString(r.Body)
		if nav == "" {
			t.Errorf("%s: no site navigation", tc.target)
			continue
		}
		// The checker and the cost lab were missing (#28, item 8).
		for _, section := range []string{"/lab", "/lessons", "/practice", "/present", "/check", "/cost"} {
			if !strings.Contains(nav, `href="`+section+`"`) {
				t.Errorf("%s: the navigation lacks %s", tc.target, section)
			}
		}
		if got := strings.Count(nav, "aria-current"); got != 1 {
			t.Errorf("%s: %d sections marked current, want 1", tc.target, got)
		}
		if !strings.Contains(nav, `href="`+tc.current+`" aria-current="`+tc.value+`"`) {
			t.Errorf("%s: %s is not marked aria-current=%s\n%s", tc.target, tc.current, tc.value, nav)
		}
	}
}

func TestLessonProgressBars(t *testing.T) {
	s, err := web.InternalServer(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s.Course().SetProgress(func(r *http.Request) (map[string]int, bool, error) {
		if r.Header.Get("Cookie") == "" {
			return nil, false, nil // a reader with no profile yet
		}
		if r.Header.Get("Cookie") == "broken=1" {
			return nil, false, errors.New("the database is gone")
		}
		return map[string]int{"unique": 40, "inbox": 250}, true, nil
	})
	h := s.Routes()
	r := webtest.Get(t, h, "/lessons?lang=en", "Cookie", "profile=1")
	for _, want := range []string{
		`<progress max="100" value="40" aria-label="40% of the questions answered">`,
		`<progress max="100" value="100"`, // clamped
		`<progress max="100" value="0"`,   // a topic without answers
	} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	if n := strings.Count(r.Body, "<progress"); n != len(mustCourse(t).Lessons("en")) {
		t.Errorf("%d progress bars, want one per lesson", n)
	}
	if r := webtest.Get(t, h, "/lessons/unique?lang=ru", "Cookie", "profile=1"); !strings.Contains(r.Body, "Отвечено вопросов: 40%") {
		t.Error("the lesson shows no progress")
	}
	for _, cookie := range []string{"", "broken=1"} {
		r := webtest.Get(t, h, "/lessons", "Cookie", cookie)
		if r.Status != 200 || strings.Contains(r.Body, "<progress") {
			t.Errorf("cookie %q: status %d, progress bars shown: %v", cookie, r.Status, strings.Contains(r.Body, "<progress"))
		}
	}
}

// TestLessonsDevMode reads the course from disk on every request: an edit
// shows on reload, and a broken course is a page listing the problems.
func TestLessonsDevMode(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join("..", "lessons", "testdata", "course"), dir)
	h, err := web.NewServer(web.Config{Dev: true, StaticDir: filepath.Join("..", "static"), LessonsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if r := webtest.Get(t, h, "/lessons/alpha?lang=en"); r.Status != 200 || !strings.Contains(r.Body, "Alpha") {
		t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	beta := filepath.Join(dir, "content", "02-beta.en.md")
	text, err := os.ReadFile(beta)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(text), `title: "Beta"`, `title: "Beta, edited"`, 1)
	writeFile(t, beta, edited)
	if r := webtest.Get(t, h, "/lessons/beta?lang=en"); !strings.Contains(r.Body, "Beta, edited") {
		t.Error("an edit does not show on reload")
	}
	writeFile(t, beta, strings.Replace(edited, "order: 2", "order: two", 1))
	for _, target := range []string{"/lessons/beta?lang=en", "/lessons?lang=en"} {
		r := webtest.Get(t, h, target)
		if r.Status != http.StatusInternalServerError {
			t.Errorf("%s with a broken course: status %d, want 500", target, r.Status)
		}
		for _, want := range []string{"The course does not load", "02-beta.en.md", `class="course-problems"`} {
			if !strings.Contains(r.Body, want) {
				t.Errorf("%s: the error page lacks %q\n%s", target, want, webtest.Excerpt(r.Body))
			}
		}
	}
	writeFile(t, beta, edited)
	if r := webtest.Get(t, h, "/lessons/beta?lang=en"); r.Status != 200 {
		t.Errorf("after the fix: status %d", r.Status)
	}
}

func TestLessonsConfigCourse(t *testing.T) {
	c, err := lessons.Load(os.DirFS(filepath.Join("..", "lessons", "testdata", "course")))
	if err != nil {
		t.Fatal(err)
	}
	h, err := web.NewServer(web.Config{Course: c})
	if err != nil {
		t.Fatal(err)
	}
	r := webtest.Get(t, h, "/lessons?lang=en")
	if !strings.Contains(r.Body, `href="/lessons/alpha"`) || strings.Contains(r.Body, `href="/lessons/unique"`) {
		t.Errorf("Config.Course is not the course shown\n%s", webtest.Excerpt(r.Body))
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
