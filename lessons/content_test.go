package lessons

// The content tests compile the real course, embedded as the binary ships
// it: every lesson loads (Load already refuses unknown presets, handlers,
// verdicts and declarations, and a lesson without its other language), and
// every claim a lesson makes is run on the engine. Text and engine cannot
// disagree.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idempotency-lab/lab/brokers"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
	"golang.org/x/tools/txtar"
)

// course loads the embedded course once for all content tests.
var course = sync.OnceValues(func() (*Course, error) { return Load(Embedded()) })

func mustCourse(tb testing.TB) *Course {
	tb.Helper()
	c, err := course()
	if err != nil {
		tb.Fatalf("the embedded course does not load:\n%v", err)
	}
	return c
}

func allLessons(c *Course) []*Lesson {
	var all []*Lesson
	for _, lang := range Langs() {
		all = append(all, c.Lessons(lang)...)
	}
	return all
}

// TestCourseHasEightTopics: the issue asks for eight topics, each in both
// languages.
func TestCourseHasEightTopics(t *testing.T) {
	c := mustCourse(t)
	for _, lang := range Langs() {
		if n := len(c.Lessons(lang)); n < 8 {
			t.Errorf("%d lessons in %s, want at least 8", n, lang)
		}
	}
}

func TestContentLoads(t *testing.T) {
	c := mustCourse(t)
	for _, l := range allLessons(c) {
		if l.HTML == "" || l.Title == "" || l.Summary == "" {
			t.Errorf("%s: empty title, summary or body", l.Source)
		}
	}
}

func TestContentLanguagesAgree(t *testing.T) {
	c := mustCourse(t)
	for _, en := range c.Lessons(English) {
		ru, ok := c.Lesson(en.Slug, Russian)
		if !ok {
			t.Errorf("%s: no Russian version", en.Source)
			continue
		}
		if ru.Order != en.Order || !slices.Equal(ru.Presets, en.Presets) {
			t.Errorf("%s and %s differ: order %d/%d, presets %v/%v", en.Source, ru.Source, en.Order, ru.Order, en.Presets, ru.Presets)
		}
	}
	if len(c.Lessons(English)) != len(c.Lessons(Russian)) {
		t.Errorf("%d English lessons, %d Russian", len(c.Lessons(English)), len(c.Lessons(Russian)))
	}
}

// TestContentNamesExist checks every preset and handler a lesson names
// against the engine's own lists.
func TestContentNamesExist(t *testing.T) {
	c := mustCourse(t)
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	apiPresets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	known := func(p string) bool {
		_, err := sim.FindPreset(append(slices.Clip(presets), apiPresets...), p)
		return err == nil
	}
	for _, l := range allLessons(c) {
		for _, p := range l.Presets {
			if !known(p) {
				t.Errorf("%s: front matter names unknown preset %q", l.Source, p)
			}
		}
		for _, cl := range l.Claims {
			if cl.API {
				// An API claim: an API preset, run by API handlers.
				p, err := sim.FindPreset(apiPresets, cl.Preset)
				if err != nil {
					t.Errorf("%s:%d: claim names unknown API preset %q", l.Source, cl.Line, cl.Preset)
					continue
				}
				if _, err := sim.HandlersFor(p.Script, cl.Handlers()); err != nil {
					t.Errorf("%s:%d: %v", l.Source, cl.Line, err)
				}
				continue
			}
			if !known(cl.Preset) {
				t.Errorf("%s:%d: claim names unknown preset %q", l.Source, cl.Line, cl.Preset)
			}
			if _, err := sim.Handlers(cl.Handlers()); err != nil {
				t.Errorf("%s:%d: %v", l.Source, cl.Line, err)
			}
		}
		for _, ll := range l.LabLinks {
			if !known(ll.Preset) {
				t.Errorf("%s:%d: lab link names unknown preset %q", l.Source, ll.Line, ll.Preset)
			}
			if _, err := sim.Handlers(ll.Handlers); err != nil {
				t.Errorf("%s:%d: %v", l.Source, ll.Line, err)
			}
		}
	}
}

// TestContentSourcesResolve re-reads every declaration a source fence
// quotes from handlers/.
func TestContentSourcesResolve(t *testing.T) {
	c := mustCourse(t)
	b := newBuilder(nil, nil, handlers.Source)
	n := 0
	for _, l := range allLessons(c) {
		for _, q := range l.quotes {
			n++
			s, err := b.quote(q.file, q.decl)
			if err != nil {
				t.Errorf("%s:%d: %v", l.Source, q.line, err)
				continue
			}
			if !strings.Contains(string(l.HTML), fmt.Sprintf(`data-file="%s" data-decl="%s"`, q.file, q.decl)) || s.code == "" {
				t.Errorf("%s:%d: %s %s is not in the page", l.Source, q.line, q.file, q.decl)
			}
		}
	}
	t.Logf("%d source references", n)
}

// TestContentClaimsHold runs the preset of every claim on the claimed
// handlers and compares the verdicts.
func TestContentClaimsHold(t *testing.T) {
	for _, p := range claimProblems(t, mustCourse(t)) {
		t.Error(p)
	}
}

// TestClaimProblemsCatchesAWrongClaim makes sure the check above can fail,
// on a broker preset and on an API one (whose verdicts include
// wrong-status).
func TestClaimProblemsCatchesAWrongClaim(t *testing.T) {
	for _, file := range []string{"testdata/wrong-claim.txtar", "testdata/wrong-api-claim.txtar"} {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fsys, err := txtar.FS(a)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Load(fsys)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(claimProblems(t, c), "\n")
		want := strings.TrimSpace(string(a.Comment))
		if got != want {
			t.Errorf("%s: claim problems:\n%s\nwant:\n%s", file, got, want)
		}
	}
}

// TestAPIClaim: a claim on an API preset is parsed as one, and its box
// sends the reader to the live API and names the command that runs it,
// never to the lab's pages, which do not show API scripts yet.
func TestAPIClaim(t *testing.T) {
	a, err := txtar.ParseFile("testdata/wrong-api-claim.txtar")
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := txtar.FS(a)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lang string
		want []string
	}{
		{English, []string{
			`<aside class="claim claim-api" data-preset="api-lost-response">`,
			`<span class="claim-title">Lost response</span> <code class="claim-preset">api-lost-response</code>`,
			`<span class="verdict verdict-wrong-status">wrong-status</span>`,
			`<a class="try-it" href="/try-api">Try the live API</a>`,
			`<code>lab run api-lost-response --handlers api-naive,api-idempotency-key</code>`,
		}},
		{Russian, []string{
			`<span class="claim-title">Потерянный ответ</span>`,
			`<span class="verdict verdict-duplicate">дубль</span>`,
			`<a class="try-it" href="/try-api">Попробовать живой API</a>`,
			`<code>lab run api-reused-key --handlers api-key-no-fingerprint,api-idempotency-key</code>`,
		}},
	} {
		l := mustLesson(t, c, "a", tc.lang)
		if len(l.Claims) == 0 || !l.Claims[0].API || l.Claims[0].Preset != "api-lost-response" {
			t.Fatalf("%s: claims %+v, want an API claim on api-lost-response first", tc.lang, l.Claims)
		}
		html := string(l.HTML)
		for _, w := range tc.want {
			if !strings.Contains(html, w) {
				t.Errorf("%s API claim box lacks\n%s\nin:\n%s", tc.lang, w, html)
			}
		}
		// The lab shows API presets: the box opens the lab at the story's
		// end, on the claim's handlers, as a broker claim's does.
		if !strings.Contains(html, `<a class="try-it" href="/lab?preset=api-lost-response&amp;handlers=api-naive,api-idempotency-key&amp;step=`) {
			t.Errorf("%s: the API claim box does not open the lab:\n%s", tc.lang, html)
		}
	}
}

// claimProblems runs every claim of c and describes each verdict the
// engine disagrees with. An API claim runs its API preset on the API
// handlers it names.
func claimProblems(tb testing.TB, c *Course) []string {
	tb.Helper()
	presets, err := sim.Presets()
	if err != nil {
		tb.Fatal(err)
	}
	apiPresets, err := sim.APIPresets()
	if err != nil {
		tb.Fatal(err)
	}
	var problems []string
	runs := map[string]*sim.Run{} // by preset and handlers: both languages claim the same
	for _, l := range allLessons(c) {
		for _, cl := range l.Claims {
			if cl.Engine == "real" {
				continue // TestRealEngineClaims runs them on PostgreSQL and Redis
			}
			where := fmt.Sprintf("%s:%d", l.Source, cl.Line)
			key := cl.Preset + "?" + strings.Join(cl.Handlers(), ",") + "@" + cl.Broker
			run, ok := runs[key]
			if !ok {
				list := presets
				if cl.API {
					list = apiPresets
				}
				p, err := sim.FindPreset(list, cl.Preset)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", where, err))
					continue
				}
				s := p.Script
				if cl.Broker != "" {
					// A claim about a broker holds under its profile (TestBrokerClaims
					// runs it on the real one too).
					if s, err = brokers.WithProfile(s, cl.Broker); err != nil {
						problems = append(problems, fmt.Sprintf("%s: %v", where, err))
						continue
					}
				}
				run, err = sim.Execute(context.Background(), s, sim.Options{Handlers: cl.Handlers()})
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: running %s: %v", where, cl.Preset, err))
					continue
				}
				runs[key] = run
			}
			for _, hv := range cl.Verdicts {
				i := slices.IndexFunc(run.Results, func(r sim.Result) bool { return r.Handler == hv.Handler })
				if i < 0 {
					problems = append(problems, fmt.Sprintf("%s: the run of %s has no result for %s", where, cl.Preset, hv.Handler))
					continue
				}
				if r := run.Results[i]; r.Verdict != hv.Verdict {
					problems = append(problems, fmt.Sprintf("%s: the lesson claims %s is %s on %s, the engine says %s (%s)",
						where, hv.Handler, hv.Verdict, cl.Preset, r.Verdict, r.Reason))
				}
			}
		}
	}
	tb.Logf("%d distinct runs checked", len(runs))
	return problems
}

// TestContentHasTryIt: every lesson opens the lab at least once, through a
// claim box or a lab: link.
func TestContentHasTryIt(t *testing.T) {
	c := mustCourse(t)
	for _, l := range allLessons(c) {
		if len(l.Claims) == 0 && len(l.LabLinks) == 0 {
			t.Errorf("%s: no claim and no lab: link, so no \"Try it\" button", l.Source)
		}
	}
}

// TestContentPresetsListed: the front matter lists every preset the lesson
// opens, so a page can show them all from Lesson.Presets. An API claim
// opens no lab page (the lab does not show API scripts yet), and its
// preset may not be listed: Load refuses it there.
func TestContentPresetsListed(t *testing.T) {
	c := mustCourse(t)
	for _, l := range allLessons(c) {
		for _, cl := range l.Claims {
			if !cl.API && !slices.Contains(l.Presets, cl.Preset) {
				t.Errorf("%s:%d: claim on %s, which the front matter's presets do not list", l.Source, cl.Line, cl.Preset)
			}
		}
		for _, ll := range l.LabLinks {
			if !slices.Contains(l.Presets, ll.Preset) {
				t.Errorf("%s:%d: lab link to %s, which the front matter's presets do not list", l.Source, ll.Line, ll.Preset)
			}
		}
	}
}

// TestContentLinksResolve: a link to /lessons/SLUG#anchor (or #anchor)
// points at a lesson, and a heading in it, that exist in the same language.
func TestContentLinksResolve(t *testing.T) {
	c := mustCourse(t)
	for _, l := range allLessons(c) {
		for _, pl := range l.links {
			target, ok := c.Lesson(pl.Slug, l.Lang)
			if !ok {
				t.Errorf("%s:%d: link to lesson %q, which does not exist", l.Source, pl.Line, pl.Slug)
				continue
			}
			if pl.Anchor != "" && !slices.ContainsFunc(target.Headings, func(h Heading) bool { return h.ID == pl.Anchor }) {
				t.Errorf("%s:%d: link to %s#%s, which has no such heading", l.Source, pl.Line, target.Source, pl.Anchor)
			}
		}
	}
}

// TestDiskMatchesEmbedded: lab --dev passes os.DirFS("lessons") to Load;
// it must read the same course as the embedded one.
func TestDiskMatchesEmbedded(t *testing.T) {
	disk := mustLoad(t, ".")
	emb := mustCourse(t)
	for _, lang := range Langs() {
		d, e := disk.Lessons(lang), emb.Lessons(lang)
		if len(d) != len(e) {
			t.Fatalf("%s: %d lessons on disk, %d embedded", lang, len(d), len(e))
		}
		for i := range d {
			if d[i].Source != e[i].Source || d[i].HTML != e[i].HTML {
				t.Errorf("%s on disk differs from the embedded copy", d[i].Source)
			}
		}
	}
}
