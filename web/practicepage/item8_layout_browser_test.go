package practicepage_test

// Browser tests for the layout defects of #28, item 8: a coding
// exercise's task and results table on a phone, and the presenter's poll
// controls on a laptop's first screen.

import (
	"fmt"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserExerciseOnAPhone (#28, item 8): at 390 px a coding
// exercise's task is a paragraph in body text under a short heading (it
// was the page's heading, ~28 px bold, filling the first screen), so the
// editor's label is on the first screen; after a wrong file the results
// table shows each scenario's name on one line, the table scrolling in
// its own box rather than widening the page. Without JavaScript, so the
// form posts and the results come as a page of their own.
func TestBrowserExerciseOnAPhone(t *testing.T) {
	bank, store := webtest.OpenProgress(t, "")
	b := webtest.NewBrowserWith(t, web.Config{Practice: store, Bank: bank, Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	q, ok := bank.Question("code-crash-before-ack")
	if !ok {
		t.Fatal("no exercise code-crash-before-ack")
	}
	for _, lang := range []string{"en", "ru"} {
		t.Run(lang, func(t *testing.T) {
			ctx := b.Tab(true, false)
			webtest.Do(t, ctx, "a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
				chromedp.Navigate(b.Base+"/practice/q/"+q.ID+"?lang="+lang), chromedp.WaitReady(chromedp.CSS("textarea.code-input")))
			type task struct {
				Tag, Heading  string
				Size, Weight  float64
				HeadingBottom float64
				LabelTop      float64
				Screen        float64
			}
			got := webtest.Eval[task](t, ctx, `(() => { const p = document.getElementById("prompt"), h = document.querySelector("main h1"), s = getComputedStyle(p);
				return {Tag: p.tagName, Heading: h.textContent.trim(), Size: parseFloat(s.fontSize), Weight: parseFloat(s.fontWeight),
					HeadingBottom: h.getBoundingClientRect().bottom, LabelTop: document.querySelector("form.code-form label").getBoundingClientRect().top,
					Screen: innerHeight}; })()`)
			if got.Tag != "P" || got.Size > 18 || got.Weight >= 600 {
				t.Errorf("the task is a %s of %.0f px at weight %.0f: want a paragraph in body text", got.Tag, got.Size, got.Weight)
			}
			if len([]rune(got.Heading)) > 40 || got.Heading == q.Text.In(lang) {
				t.Errorf("the heading is %q: want a short one, not the task", got.Heading)
			}
			if got.LabelTop >= got.Screen {
				t.Errorf("the editor's label starts at %.0f px, below the %.0f px screen", got.LabelTop, got.Screen)
			}
			// A wrong file (the starter) fails scenarios: the table lists them.
			webtest.Do(t, ctx, "check the starter", chromedp.Click(chromedp.CSS("form.code-form button[type=submit]")),
				chromedp.WaitReady(chromedp.CSS("#code-presets")))
			type table struct {
				Rows, Wrapped     int
				PageWide, Screen  int
				BoxWide, BoxRight float64
			}
			tb := webtest.Eval[table](t, ctx, `(() => { const rows = [...document.querySelectorAll("#code-presets tbody th code")];
				const box = document.getElementById("code-presets").parentElement;
				return {Rows: rows.length, Wrapped: rows.filter(c => c.getClientRects().length > 1 || c.scrollWidth > c.parentElement.clientWidth + 1).length,
					PageWide: document.documentElement.scrollWidth, Screen: document.documentElement.clientWidth,
					BoxWide: box.scrollWidth, BoxRight: box.getBoundingClientRect().right}; })()`)
			if tb.Rows == 0 {
				t.Fatal("no scenario rows")
			}
			if tb.Wrapped > 0 {
				t.Errorf("%d of %d scenario names are broken over lines or clipped", tb.Wrapped, tb.Rows)
			}
			if tb.PageWide > tb.Screen || tb.BoxRight > float64(tb.Screen) {
				t.Errorf("the page is %d px wide, the table's box ends at %.0f px, on a %d px screen", tb.PageWide, tb.BoxRight, tb.Screen)
			}
		})
	}
	b.NoConsoleErrors()
}

// TestBrowserPollControlsOnFirstScreen (#28, item 8): a presenter who
// opens a room on a laptop sees the poll's controls (what to ask, for
// which handler, and "Open the poll") on the first screen, without
// scrolling: they were below the fold at 1280×720 and 1366×768.
func TestBrowserPollControlsOnFirstScreen(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, size := range [][2]int64{{1280, 720}, {1366, 768}} {
		for _, lang := range []string{"en", "ru"} {
			t.Run(fmt.Sprintf("%dx%d %s", size[0], size[1], lang), func(t *testing.T) {
				ctx := b.Tab(true, true)
				webtest.Do(t, ctx, "open a room", chromedp.EmulateViewport(size[0], size[1]),
					chromedp.Navigate(b.Base+"/present/crash-before-ack?handlers=naive,inbox&step=3&lang="+lang), webtest.WaitStep(3),
					chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")), webtest.WaitStep(3),
					chromedp.WaitVisible(chromedp.ID("open-poll")))
				// The room's page as it first loads, scrolled to the top.
				here := webtest.Eval[string](t, ctx, `location.href`)
				webtest.Do(t, ctx, "open the room's address again", chromedp.Navigate(here), webtest.WaitStep(3), chromedp.WaitVisible(chromedp.ID("open-poll")))
				for _, id := range []string{"poll-kind", "poll-handler", "open-poll"} {
					r := webtest.Eval[[]float64](t, ctx, `(() => { const r = document.getElementById("`+id+`").getBoundingClientRect();
						return [r.left, r.top, r.right, r.bottom, innerWidth, innerHeight]; })()`)
					if r[0] < 0 || r[1] < 0 || r[2] > r[4] || r[3] > r[5] {
						t.Errorf("#%s is at (%.0f, %.0f)–(%.0f, %.0f), outside the %.0f×%.0f viewport", id, r[0], r[1], r[2], r[3], r[4], r[5])
					}
				}
			})
		}
	}
	b.NoConsoleErrors()
}
