// Package course is the lessons' pages: the table of contents with its
// search, and one lesson; the lessons package is the content and its
// renderer.
package course

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/web/page"
)

// The lessons: the course's table of contents with a search over titles and
// headings at /lessons, and one lesson at /lessons/{slug}. The course is
// rendered once when the server starts (lessons.Load); with Config.Dev it
// is read from disk again on every request, so an edit shows on reload.

// MaxQueryRunes bounds a search: the box allows no more, so a longer one
// came from a hand-made URL.
const MaxQueryRunes = 100

// CodeCSSPath is the address of the stylesheet for highlighted code.
const CodeCSSPath = "/lessons/code.css"

// Course is the lessons' part of the lab: its pages read the course, the
// code stylesheet and, once the practice section provides it, the
// reader's progress per topic.
type Course struct {
	Shell   *page.Shell
	course  func() (*lessons.Course, error)
	codeCSS []byte
	codeSum string
	// progress is nil until the practice section fills it in; the pages
	// then show no progress bars.
	progress Progress
	// editor: the lab runs handler files (Config.Editor).
	editor bool
}

// Progress returns, for the reader of r, the percent of each topic's
// practice questions they have answered (practice.Progress.Topic(slug)
// .AnsweredPercent()), keyed by lesson slug. ok is false when there is
// nothing to show, for a reader without a profile for instance; an error
// is logged and the pages show no bars rather than fail.
type Progress func(r *http.Request) (percent map[string]int, ok bool, err error)

// courseLoadError is a course that does not load in dev mode: the page
// lists the problems so the author can fix them and reload.
type courseLoadError struct{ err error }

func (e *courseLoadError) Error() string { return "lessons: " + e.err.Error() }

// Config says where the course comes from.
type Config struct {
	// Course is the course to show; nil means the one embedded in the
	// binary, or with Dev the files under Dir, read again on every request.
	Course *lessons.Course
	Dev    bool
	Dir    string // default "lessons", relative to the working directory
	// Progress gives the reader's progress per topic; nil shows no bars.
	Progress Progress
	// Editor: the lab runs a person's handler files (it has a sandbox),
	// so a lesson's "Open in the editor" links lead somewhere; without
	// it the pages hide them (lessons.css, .no-editor).
	Editor bool
}

// New builds the lessons' part on the shell.
func New(shell *page.Shell, cfg Config) (*Course, error) {
	css, err := lessons.CodeCSS(lessons.LightStyle, lessons.DarkStyle)
	if err != nil {
		return nil, err
	}
	l := &Course{Shell: shell, codeCSS: []byte(themedCodeCSS(css)), progress: cfg.Progress, editor: cfg.Editor}
	l.codeSum = page.ContentHash(l.codeCSS)
	switch {
	case cfg.Course != nil:
		course := cfg.Course
		l.course = func() (*lessons.Course, error) { return course, nil }
	case cfg.Dev:
		dir := cfg.Dir
		if dir == "" {
			dir = "lessons"
		}
		files := os.DirFS(dir)
		l.course = func() (*lessons.Course, error) {
			c, err := lessons.Load(files)
			if err != nil {
				return nil, &courseLoadError{err}
			}
			return c, nil
		}
	default:
		course, err := lessons.Load(lessons.Embedded())
		if err != nil {
			return nil, err
		}
		l.course = func() (*lessons.Course, error) { return course, nil }
	}
	return l, nil
}

// themedCodeCSS makes chroma's stylesheet follow the page's theme toggle as
// well as the system's: CodeCSS puts the dark rules under
// prefers-color-scheme only, so they are scoped there to pages not forced
// light, and repeated for pages forced dark. Paper gets the light style.
func themedCodeCSS(css string) string {
	const media = "@media screen and (prefers-color-scheme: dark) {"
	before, rest, ok := strings.Cut(css, media)
	if !ok {
		return css
	}
	end := strings.LastIndex(rest, "}")
	if end < 0 {
		return css
	}
	darkRules, after := rest[:end], rest[end+1:]
	scope := func(prefix string) string {
		var b strings.Builder
		for _, line := range strings.Split(darkRules, "\n") {
			sel, body, ok := strings.Cut(line, "{")
			if !ok || strings.HasPrefix(strings.TrimSpace(line), "/*") {
				if strings.TrimSpace(line) != "" {
					b.WriteString(line + "\n")
				}
				continue
			}
			var sels []string
			for _, s := range strings.Split(sel, ",") {
				sels = append(sels, prefix+" "+strings.TrimSpace(s))
			}
			b.WriteString(strings.Join(sels, ", ") + " {" + body + "\n")
		}
		return b.String()
	}
	return before +
		media + "\n" + scope(`:root:not([data-theme="light"])`) + "}\n" +
		"@media screen {\n/* the page's theme toggle set to dark */\n" + scope(`:root[data-theme="dark"]`) + "}\n" +
		after
}

// ServeCodeCSS answers the code stylesheet: cached for a year when the
// address names the current hash, as static files are.
func (l *Course) ServeCodeCSS(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("ETag", `"`+l.codeSum+`"`)
	if r.URL.Query().Get("v") == l.codeSum {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, "code.css", time.Time{}, bytes.NewReader(l.codeCSS))
	return nil
}

// SetProgress replaces where the lessons' progress bars come from.
func (l *Course) SetProgress(p Progress) { l.progress = p }

// LessonTitle is the title of the lesson with a slug, in lang, or the
// slug when the course does not load or has no such lesson.
func (l *Course) LessonTitle(lang, slug string) string {
	if c, err := l.course(); err == nil {
		if les, ok := c.Lesson(slug, lang); ok {
			return les.Title
		}
	}
	return slug
}

func (l *Course) codeCSSURL() string { return CodeCSSPath + "?v=" + l.codeSum }

// loadCourse returns the course, or the dev-mode page that lists why it
// does not load.
func (s *Course) loadCourse(w http.ResponseWriter, r *http.Request) (*lessons.Course, bool, error) {
	c, err := s.course()
	var le *courseLoadError
	if errors.As(err, &le) {
		s.Shell.Log.Error("lessons do not load", "err", le.err)
		t := s.Shell.Text(r)
		v := courseErrorView{T: t, Problems: strings.Split(strings.TrimSpace(le.err.Error()), "\n")}
		p := s.lessonsPageFor(t, r, t.S("les.broken.title"))
		w.Header().Set("Cache-Control", "no-store")
		return nil, false, s.Shell.Render(w, r, http.StatusInternalServerError, courseErrorPage(p, v))
	}
	if err != nil {
		return nil, false, err
	}
	return c, true, nil
}

// Index is the table of contents, or the search results for ?q=.
// For htmx (the search box as one types) it answers the results only.
func (s *Course) Index(w http.ResponseWriter, r *http.Request) error {
	query := strings.TrimSpace(r.URL.Query().Get("q"))
	if n := utf8.RuneCountInString(query); n > MaxQueryRunes {
		return page.BadRequest("les.err.query", n, MaxQueryRunes)
	}
	if !utf8.ValidString(query) {
		return page.BadRequest("les.err.utf8")
	}
	course, ok, err := s.loadCourse(w, r)
	if !ok {
		return err
	}
	t := s.Shell.Text(r)
	v := s.lessonsIndexView(t, r, course, query)
	h := w.Header()
	h.Set("Vary", "HX-Request, HX-Request-Type, Accept-Language, Cookie")
	h.Set("Cache-Control", "no-cache")
	if page.IsPartial(r) {
		h.Set("HX-Replace-Url", v.URL)
		return s.Shell.Render(w, r, http.StatusOK, lessonsFragment(v))
	}
	return s.Shell.Render(w, r, http.StatusOK, lessonsIndexPage(s.lessonsPageFor(t, r, v.PageTitle), v))
}

// Lesson is one Lesson in the reader's language; an unknown slug is a 404
// page that lists the lessons there are.
func (s *Course) Lesson(w http.ResponseWriter, r *http.Request) error {
	course, ok, err := s.loadCourse(w, r)
	if !ok {
		return err
	}
	t := s.Shell.Text(r)
	slug := chi.URLParam(r, "slug")
	if u, err := url.PathUnescape(slug); err == nil {
		slug = u // chi gives the escaped form when the path had escapes
	}
	l, found := course.Lesson(slug, t.Lang())
	if !found {
		v := s.lessonsIndexView(t, r, course, "")
		v.Missing = clipText(slug, 60)
		v.PageTitle = t.S("les.missing.title") + " · " + t.S("app.name")
		w.Header().Set("Cache-Control", "no-store")
		return s.Shell.Render(w, r, http.StatusNotFound, lessonMissingPage(s.lessonsPageFor(t, r, v.PageTitle), v))
	}
	// The page is made from the course, the address (the slug, and the
	// query the language links repeat), the language (?lang=, the
	// language cookie or Accept-Language: CacheKey reads them as
	// PickLang does) and the reader's progress on this lesson, which the
	// profile cookie leads to. The key holds that progress itself, not
	// the cookie: readers at the same percent share a page, and an answer
	// given since is never hidden behind an older page.
	progress := progressFor(t, s.readProgress(r), l.Slug)
	return s.Shell.ServeCached(w, r, page.CacheKey(r, "lesson", l.Slug, l.Lang, progressKey(progress)), func(w http.ResponseWriter, r *http.Request) error {
		v := s.lessonView(t, course, l, progress)
		h := w.Header()
		h.Set("Vary", "Accept-Language, Cookie")
		h.Set("Cache-Control", "no-cache")
		return s.Shell.Render(w, r, http.StatusOK, lessonPage(s.lessonsPageFor(t, r, v.PageTitle), v))
	})
}

// progressKey is the part of a lesson's cache key that its progress bar
// makes: "none" without a bar, else the percent shown.
func progressKey(p *progressView) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(p.Percent)
}

// lessonsPageFor is the page frame with the lessons' stylesheets. A
// lesson's diagrams are inline SVG in its HTML: no script draws them.
func (s *Course) lessonsPageFor(t page.Text, r *http.Request, title string) page.View {
	p := s.Shell.PageFor(t, r, title)
	p.Styles = append(p.Styles, s.Shell.Assets.URL("lessons.css"), s.codeCSSURL())
	return p
}

// ---------- View models ----------

type lessonsIndexView struct {
	T         page.Text
	PageTitle string
	URL       string // canonical address of this view
	Query     string
	Status    string // what the search found, in words
	Groups    []hitGroup
	Lessons   []lessonItem
	Missing   string // the slug asked for, on the 404 page
}

// Searched reports whether the view shows search results.
func (v lessonsIndexView) Searched() bool { return v.Query != "" }

type lessonItem struct {
	Order    string // "01"
	Title    string
	Summary  string
	URL      string
	Minutes  string
	Progress *progressView
}

type progressView struct {
	Percent int
	Label   string
}

// hitGroup is one lesson's search hits: its title, if that matched, and
// the headings that matched.
type hitGroup struct {
	Order        string
	Title        []textPart
	URL          string
	TitleMatched bool
	Headings     []hitHeading
}

type hitHeading struct {
	Text []textPart
	URL  string
	Sub  bool // a heading below h2
}

// textPart is a run of text, marked when it matched the search.
type textPart struct {
	Text string
	Mark bool
}

type lessonView struct {
	T         page.Text
	PageTitle string
	Title     string
	Summary   string
	Position  string // "Lesson 3 of 8"
	Minutes   string
	Progress  *progressView
	Body      templ.Component
	TOC       []tocItem
	Prev      *pagerLink
	Next      *pagerLink
	Practice  string
	// NoEditor hides the body's "Open in the editor" links: the lab
	// cannot run handler files (Config.Editor).
	NoEditor bool
}

type tocItem struct {
	Text, URL string
	Sub       bool
}

type pagerLink struct {
	URL, Title, Label string
}

type courseErrorView struct {
	T        page.Text
	Problems []string
}

func (s *Course) lessonsIndexView(t page.Text, r *http.Request, course *lessons.Course, query string) lessonsIndexView {
	v := lessonsIndexView{T: t, Query: query, URL: "/lessons"}
	v.PageTitle = t.S("les.heading") + " · " + t.S("app.name")
	progress := s.readProgress(r)
	all := course.Lessons(t.Lang())
	for _, l := range all {
		v.Lessons = append(v.Lessons, lessonItem{
			Order:    fmt.Sprintf("%02d", l.Order),
			Title:    l.Title,
			Summary:  l.Summary,
			URL:      lessonURL(l.Slug),
			Minutes:  t.F("les.minutes", l.ReadingMinutes),
			Progress: progressFor(t, progress, l.Slug),
		})
	}
	if query == "" {
		return v
	}
	v.URL = "/lessons?" + url.Values{"q": {query}}.Encode()
	v.PageTitle = t.F("les.search.title", query) + " · " + v.PageTitle
	words := strings.Fields(lessons.Fold(query))
	order := map[string]int{}
	for _, l := range all {
		order[l.Slug] = l.Order
	}
	hits := course.Search(t.Lang(), query)
	for _, h := range hits {
		if len(v.Groups) == 0 || v.Groups[len(v.Groups)-1].URL != lessonURL(h.Slug) {
			v.Groups = append(v.Groups, hitGroup{
				Order: fmt.Sprintf("%02d", order[h.Slug]),
				Title: highlightWords(h.Title, words),
				URL:   lessonURL(h.Slug),
			})
		}
		g := &v.Groups[len(v.Groups)-1]
		if h.Anchor == "" {
			g.TitleMatched = true
			continue
		}
		g.Headings = append(g.Headings, hitHeading{
			Text: highlightWords(h.Text, words),
			URL:  lessonURL(h.Slug) + "#" + h.Anchor,
			Sub:  h.Level > 2,
		})
	}
	switch len(hits) {
	case 0:
		v.Status = t.F("les.search.none", query)
	case 1:
		v.Status = t.F("les.search.one", query)
	default:
		v.Status = t.F("les.search.many", len(hits), len(v.Groups), query)
	}
	return v
}

func (s *Course) lessonView(t page.Text, course *lessons.Course, l *lessons.Lesson, progress *progressView) lessonView {
	total := len(course.Lessons(l.Lang))
	v := lessonView{
		T:         t,
		PageTitle: l.Title + " · " + t.S("les.heading") + " · " + t.S("app.name"),
		Title:     l.Title,
		Summary:   l.Summary,
		Position:  t.F("les.position", l.Order, total),
		Minutes:   t.F("les.minutes", l.ReadingMinutes),
		Progress:  progress,
		// The course renders its own HTML and escapes everything the
		// Markdown says; nothing in it comes from the request.
		Body:     templ.Raw(LabelCodeBlocks(t, string(l.HTML))),
		Practice: "/practice?" + url.Values{"topic": {l.Slug}}.Encode(),
		NoEditor: !s.editor,
	}
	for _, h := range l.Headings {
		if h.Level > 3 {
			continue
		}
		v.TOC = append(v.TOC, tocItem{Text: h.Text, URL: "#" + h.ID, Sub: h.Level > 2})
	}
	if p := course.Prev(l); p != nil {
		v.Prev = &pagerLink{URL: lessonURL(p.Slug), Title: p.Title, Label: t.S("les.prev")}
	}
	if n := course.Next(l); n != nil {
		v.Next = &pagerLink{URL: lessonURL(n.Slug), Title: n.Title, Label: t.S("les.next")}
	}
	return v
}

func lessonURL(slug string) string { return "/lessons/" + url.PathEscape(slug) }

// readProgress asks the practice section for the reader's progress; a
// failure costs the bars, not the page.
func (s *Course) readProgress(r *http.Request) map[string]int {
	if s.progress == nil {
		return nil
	}
	pct, ok, err := s.progress(r)
	if err != nil {
		s.Shell.Log.Error("practice progress", "path", r.URL.Path, "err", err)
		return nil
	}
	if !ok {
		return nil
	}
	if pct == nil {
		pct = map[string]int{}
	}
	return pct
}

func progressFor(t page.Text, progress map[string]int, slug string) *progressView {
	if progress == nil {
		return nil
	}
	p := min(max(progress[slug], 0), 100)
	return &progressView{Percent: p, Label: t.F("les.progress", p)}
}

// ---------- Search highlighting ----------

// highlightWords splits s into runs, marking every occurrence of any of
// words (already folded).
func highlightWords(s string, words []string) []textPart {
	runes := []rune(s)
	folded := []rune(lessons.Fold(s))
	if len(folded) != len(runes) {
		return []textPart{{Text: s}}
	}
	marked := make([]bool, len(runes))
	for _, w := range words {
		wr := []rune(w)
		if len(wr) == 0 {
			continue
		}
		for i := 0; i+len(wr) <= len(folded); i++ {
			if string(folded[i:i+len(wr)]) == w {
				for j := i; j < i+len(wr); j++ {
					marked[j] = true
				}
			}
		}
	}
	var parts []textPart
	for i := 0; i < len(runes); {
		j := i
		for j < len(runes) && marked[j] == marked[i] {
			j++
		}
		parts = append(parts, textPart{Text: string(runes[i:j]), Mark: marked[i]})
		i = j
	}
	return parts
}

// clipText shortens s to at most n runes, for echoing a hand-made URL back.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// chromaPre is the opening of a highlighted code block as the course
// renders it.
const chromaPre = `<pre class="chroma">`

// LabelCodeBlocks makes each scrollable code block of a lesson a named,
// keyboard-focusable region (WCAG 2.1.1, 4.1.2): Chrome already focuses a
// scroller, and a screen reader then announces a box without a name.
func LabelCodeBlocks(t page.Text, body string) string {
	var b strings.Builder
	for n := 1; ; n++ {
		before, after, ok := strings.Cut(body, chromaPre)
		if !ok {
			b.WriteString(body)
			return b.String()
		}
		b.WriteString(before)
		b.WriteString(`<pre class="chroma" tabindex="0" role="region" aria-label="`)
		b.WriteString(html.EscapeString(t.F("les.code", n)))
		b.WriteString(`">`)
		body = after
	}
}
