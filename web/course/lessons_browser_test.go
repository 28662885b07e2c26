package course_test

// Browser tests of the lessons, with the helpers of web/webtest.

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserLessonDiagramAndTryIt reads a lesson with a diagram, sees it
// drawn, and follows a claim's "Try it in the lab" to the playground, which
// opens on the claim's preset with the claim's handlers and agrees with
// the verdicts the claim states.
func TestBrowserLessonDiagramAndTryIt(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "open a lesson with a diagram", chromedp.Navigate(b.Base+"/lessons/duplicates?lang=en"),
		chromedp.WaitVisible(chromedp.CSS(".lesson-body figure.diagram svg")))
	if n := webtest.Eval[int](t, ctx, shownDiagrams+`.filter(n => n !== 1).length`); n != 0 {
		t.Errorf("%d diagrams do not show exactly one drawing", n)
	}
	if text := webtest.TextOfSel(t, ctx, ".lesson-body figure.diagram .diagram-light svg"); !strings.Contains(text, "Worker 1") {
		t.Errorf("the drawn diagram lacks its participants: %q", text)
	}
	webtest.ScreenshotWhen(t, ctx, "lesson-desktop", 1440, 1000, false, ".lesson-body figure.diagram svg")
	webtest.ScreenshotWhen(t, ctx, "lesson-phone", 360, 780, true, ".lesson-body figure.diagram svg")
	// On a phone the drawing shrinks to the column instead of running off it.
	if over := webtest.Eval[int](t, ctx, `[...document.querySelectorAll(".lesson-body figure.diagram svg")].filter(s =>
		s.getBoundingClientRect().width > s.closest("figure").clientWidth + 0.5).length`); over != 0 {
		t.Errorf("%d diagram drawings are wider than their figure at 360 px", over)
	}
	webtest.Do(t, ctx, "back to the desktop", chromedp.EmulateViewport(1440, 1000))

	const claim = `aside.claim[data-preset="producer-retry"]`
	stated := webtest.Eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('`+claim+` .claim-verdicts li')].map(
		li => [li.querySelector(".claim-handler").textContent, li.querySelector(".verdict").className.replace("verdict verdict-", "")]))`)
	if len(stated) == 0 {
		t.Fatal("the lesson has no producer-retry claim")
	}
	webtest.Do(t, ctx, "try it in the lab", chromedp.Click(chromedp.CSS(claim+" a.try-it")),
		chromedp.WaitVisible(chromedp.CSS("article.card")))
	loc, err := url.Parse(webtest.Location(t, ctx))
	if err != nil {
		t.Fatal(err)
	}
	if loc.Path != "/lab" || loc.Query().Get("preset") != "producer-retry" {
		t.Errorf("landed on %s, want /lab?preset=producer-retry", loc)
	}
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range presets {
		if p.Name == "producer-retry" {
			if got := webtest.TextOfSel(t, ctx, "#story-title"); got != p.Script.Title {
				t.Errorf("the lab shows %q, want the preset's title %q", got, p.Script.Title)
			}
		}
	}
	// The lab shows every handler the claim names, and may show more: the
	// ones the preset's story is about (its handlers: header).
	got := webtest.Verdicts(t, ctx)
	if len(got) < len(stated) {
		t.Errorf("the lab shows handlers %v, the claim names %v", got, stated)
	}
	for handler, verdict := range stated {
		if v, _, _ := strings.Cut(got[handler], " "); v != verdict {
			t.Errorf("%s: the lab says %q, the lesson %q", handler, got[handler], verdict)
		}
	}
	b.NoConsoleErrors()
}

// TestBrowserLessonsSearch types in the search box: with htmx the results
// change in place and the address follows; without JavaScript the form is
// an ordinary GET.
func TestBrowserLessonsSearch(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(true, js)
			webtest.Do(t, ctx, "open the lessons", chromedp.Navigate(b.Base+"/lessons?lang=en"),
				chromedp.WaitVisible(chromedp.ID("lesson-list")))
			if js {
				webtest.MarkPage(t, ctx)
				webtest.Do(t, ctx, "type a query", chromedp.SendKeys(chromedp.ID("lesson-q"), "grey zone"),
					chromedp.WaitVisible(chromedp.CSS("#hit-list mark")))
				if !webtest.PageKept(t, ctx) {
					t.Error("the page reloaded: htmx should swap the results only")
				}
				webtest.Poll(t, ctx, "the address follows the query", `location.search === "?q=grey+zone"`)
			} else {
				webtest.Do(t, ctx, "search", chromedp.SetValue(chromedp.ID("lesson-q"), "grey zone"),
					chromedp.Submit(chromedp.ID("lesson-q")), chromedp.WaitVisible(chromedp.CSS("#hit-list mark")))
				if loc := webtest.Location(t, ctx); !strings.HasSuffix(loc, "/lessons?q=grey+zone") {
					t.Errorf("address %q", loc)
				}
			}
			if got := webtest.TextOfSel(t, ctx, "#search-status"); !strings.Contains(got, "grey zone") {
				t.Errorf("status = %q", got)
			}
			webtest.Do(t, ctx, "open a hit", chromedp.Click(chromedp.CSS("#hit-list .hit-headings a")),
				chromedp.WaitVisible(chromedp.ID("lesson-title")))
			if loc := webtest.Location(t, ctx); !strings.HasSuffix(loc, "/lessons/setnx#the-grey-zone-a-worker-dies-mid-call") {
				t.Errorf("the hit led to %q", loc)
			}
			b.NoConsoleErrors()
		})
	}
}

// shownDiagrams is, for each diagram of the page, how many of its drawings
// (one per theme) are displayed.
const shownDiagrams = `[...document.querySelectorAll(".lesson-body figure.diagram")].map(f =>
	[...f.querySelectorAll("svg")].filter(s => s.getBoundingClientRect().width > 0).length)`

// shownTheme is the theme of the first diagram's displayed drawing.
const shownTheme = `(f => ["light", "dark"].find(th => getComputedStyle(f.querySelector(".diagram-" + th)).display !== "none"))(
	document.querySelector(".lesson-body figure.diagram"))`

// TestBrowserLessonTheme switches the theme with the header's toggle: the
// highlighted code and the diagrams follow it, not only the system's.
func TestBrowserLessonTheme(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "open a lesson", chromedp.Navigate(b.Base+"/lessons/statemachine?lang=ru"),
		chromedp.WaitVisible(chromedp.CSS(".lesson-body figure.diagram svg")))
	codeBG := `getComputedStyle(document.querySelector(".lesson-body pre.chroma")).backgroundColor`
	if got := webtest.Eval[string](t, ctx, codeBG); got != "rgb(247, 247, 247)" {
		t.Errorf("code background in the light theme = %s", got)
	}
	if got := webtest.Eval[string](t, ctx, shownTheme); got != "light" {
		t.Errorf("the diagram shows its %q drawing in the light theme", got)
	}
	for _, want := range []string{"light", "dark"} {
		webtest.Do(t, ctx, "theme toggle", chromedp.Click(chromedp.ID("theme-toggle")))
		if got := webtest.Eval[string](t, ctx, `document.documentElement.dataset.theme || ""`); got != want {
			t.Fatalf("theme = %q, want %q", got, want)
		}
		if got := webtest.Eval[string](t, ctx, shownTheme); got != want {
			t.Errorf("theme %s: the diagram shows its %q drawing", want, got)
		}
	}
	if got := webtest.Eval[string](t, ctx, codeBG); got != "rgb(13, 17, 23)" {
		t.Errorf("code background in the dark theme = %s", got)
	}
	if n := webtest.Eval[int](t, ctx, shownDiagrams+`.filter(n => n !== 1).length`); n != 0 {
		t.Errorf("dark theme: %d diagrams do not show exactly one drawing", n)
	}
	webtest.ScreenshotWhen(t, ctx, "lesson-dark-ru", 1440, 1000, false, ".lesson-body figure.diagram .diagram-dark svg")
	webtest.Do(t, ctx, "back to auto", chromedp.Click(chromedp.ID("theme-toggle")))
	b.NoConsoleErrors()
}

// TestBrowserLessonsScreenshots saves the table of contents at desktop and
// phone width, and a lesson without JavaScript.
func TestBrowserLessonsScreenshots(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "open the lessons", chromedp.Navigate(b.Base+"/lessons?lang=en"), chromedp.WaitVisible(chromedp.ID("lesson-list")))
	webtest.ScreenshotWhen(t, ctx, "lessons-desktop", 1440, 1000, false, "#lesson-list")
	webtest.ScreenshotWhen(t, ctx, "lessons-phone", 360, 780, true, "#lesson-list")
	webtest.Do(t, ctx, "Russian search", chromedp.Navigate(b.Base+"/lessons?lang=ru&q="+url.QueryEscape("ключ")),
		chromedp.WaitVisible(chromedp.ID("hit-list")))
	webtest.ScreenshotWhen(t, ctx, "lessons-search-ru", 1440, 900, false, "#hit-list")

	plain := b.Tab(true, false)
	webtest.Do(t, plain, "a lesson without JavaScript", chromedp.Navigate(b.Base+"/lessons/inbox?lang=en"),
		chromedp.WaitVisible(chromedp.ID("lesson-title")))
	// The diagram is there without JavaScript, as a drawing, not its source.
	if n := webtest.Eval[[]int](t, plain, shownDiagrams); len(n) != 1 || n[0] != 1 {
		t.Errorf("without JavaScript, drawings shown per diagram: %v, want [1]", n)
	}
	if text := webtest.Eval[string](t, plain, `document.querySelector(".lesson-body").innerText`); strings.Contains(text, "flowchart TD") || strings.Contains(text, "-->") {
		t.Error("without JavaScript the lesson shows a diagram's source")
	}
	webtest.ScreenshotWhen(t, plain, "lesson-no-js-phone", 360, 780, true, "#lesson-title")
	b.NoConsoleErrors()

	// Last: the browser logs the 404 itself as a failed load.
	webtest.Do(t, ctx, "an unknown lesson", chromedp.Navigate(b.Base+"/lessons/nope?lang=en"), chromedp.WaitVisible(chromedp.CSS(".lesson-missing")))
	webtest.ScreenshotWhen(t, ctx, "lessons-404-phone", 360, 780, true, ".lesson-missing")
}
