package a11y_test

// Accessibility in a real browser: axe-core (vendored for the tests only,
// scripts/vendor.sh) checks every page of the lab in both themes and both
// languages; and screenshots of the main pages at the four screen sizes the
// lab is made for. The helpers are those of web/webtest.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web/webtest"
)

// a11yPage is one page to check: where it is, what shows once it is ready
// (a CSS selector), and optionally a script that opens its folded parts.
type a11yPage struct {
	name, path, ready, open string
}

// contrastOfVars is a script that reads the colour custom properties of
// the page's root, and gives the WCAG contrast ratio of the first against
// each of the others.
func contrastOfVars(fg string, bgs ...string) string {
	names, _ := json.Marshal(append([]string{fg}, bgs...))
	return `(names => {
		const style = getComputedStyle(document.documentElement);
		const probe = document.createElement("i");
		document.body.append(probe);
		const lum = name => {
			probe.style.color = style.getPropertyValue(name).trim();
			const [r, g, b] = getComputedStyle(probe).color.match(/[0-9.]+/g).slice(0, 3).map(v => {
				v /= 255;
				return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
			});
			return 0.2126 * r + 0.7152 * g + 0.0722 * b;
		};
		const fg = lum(names[0]), out = {};
		for (const bg of names.slice(1)) {
			const l = lum(bg);
			out[bg] = (Math.max(fg, l) + 0.05) / (Math.min(fg, l) + 0.05);
		}
		probe.remove();
		return out;
	})(` + string(names) + `)`
}

// TestBrowserA11yEveryPage runs axe-core on every page of the lab, in the
// light and the dark theme, in English and in Russian, and fails on every
// serious or critical violation. One tab per theme and language, each a
// browser context of its own with the theme and language remembered.
func TestBrowserA11yEveryPage(t *testing.T) {
	src, err := os.ReadFile(webtest.AxeFile)
	if err != nil {
		t.Fatalf("the vendored axe-core is missing (run scripts/vendor.sh): %v", err)
	}
	// axe.min.js sets window.axe; in a function it keeps its helpers local.
	axe := string(src)
	b, _ := webtest.NewPracticeBrowser(t)

	course, err := lessons.Load(lessons.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	choice := webtest.FindQuestion(t, practice.KindChoice, nil)
	predict := webtest.FindQuestion(t, practice.KindPredict, nil)
	res := webtest.EngineResult(t, predict)
	predictWrong := url.Values{"balance": {practice.FormatMoney(res.Settled + 100)}, "verdict": {string(webtest.OtherVerdict(res.Verdict))}}

	pages := []a11yPage{
		{name: "lab-empty", path: "/lab", ready: "#do-publish"},
		{name: "lab-preset", path: "/lab?preset=crash-before-ack&handlers=all&step=2", ready: `#step-count[data-step="2"]`},
		{name: "lab-source", path: "/lab?preset=crash-after-effect&handlers=effect-first,inbox&step=2", ready: "#card-effect-first .source",
			open: `document.querySelectorAll("article.card details").forEach(d => d.open = true)`},
		{name: "lab-script", path: "/lab?script=" + url.QueryEscape("publish pay-1 amount=10000\ndeliver crash=before-ack\nredeliver\ndeliver"), ready: "article.card"},
		// The picture's controls: every card's worker, broker and (setnx's) gateway are links.
		{name: "lab-picture", path: "/lab?handlers=naive,setnx&script=" + url.QueryEscape("publish pay-1 amount=10000\npublish pay-2 amount=10000\ndeliver crash=before-ack"), ready: "#lane-gateway-setnx"},
		{name: "matrix", path: "/matrix", ready: "#matrix"},
		{name: "check", path: "/check", ready: "#check"},
		{name: "check-naive", path: "/check/naive", ready: "#story-1"},
		{name: "cost", path: "/cost", ready: "#ref-emb-speed"},
		{name: "try-api", path: "/try-api", ready: "#try-name"},
		{name: "try-api-sandbox", path: "/try-api/a11y-box", ready: "#try-keys"},
		{name: "lessons", path: "/lessons", ready: "#lesson-list"},
		{name: "lessons-search", path: "/lessons?q=inbox", ready: "#hit-list"},
	}
	for _, l := range course.Lessons(lessons.English) {
		pages = append(pages, a11yPage{name: "lesson-" + l.Slug, path: "/lessons/" + l.Slug, ready: "#lesson-title"})
	}
	pages = append(pages, []a11yPage{
		{name: "practice", path: "/practice", ready: "#overall"},
		{name: "practice-topic", path: "/practice?topic=" + choice.Topic, ready: "#items"},
		{name: "practice-choice", path: "/practice/q/" + choice.ID, ready: "#answer-form"},
		{name: "practice-choice-result", path: "/practice/q/" + choice.ID + "/result?option=" + webtest.WrongOption(choice), ready: "#result"},
		{name: "practice-predict", path: "/practice/q/" + predict.ID, ready: "#answer-form"},
		{name: "practice-predict-result", path: "/practice/q/" + predict.ID + "/result?" + predictWrong.Encode(), ready: "#result"},
		{name: "practice-review", path: "/practice/review", ready: "main#lab"},
		{name: "practice-interview", path: "/practice/interview?seed=42", ready: "#items"},
		{name: "challenges", path: "/challenges", ready: "main#lab"},
		{name: "lab-challenge", path: "/lab?challenge=naive-twice", ready: "article.card"},
		{name: "lab-challenge-solution", path: "/lab?challenge=naive-twice&solution=1&script=" + url.QueryEscape("publish pay-1 amount=10000\n"), ready: "#ch-solution"},
		{name: "lab-shared-goal", path: "/lab?script=" + url.QueryEscape("goal: handler=setnx verdict=lost steps<=3\npublish pay-1 amount=10000\n"), ready: "#goal-panel"},
		{name: "present-index", path: "/present", ready: ".pi-list"},
		{name: "present-preset", path: "/present/crash-before-ack?step=2", ready: `#step-count[data-step="2"]`},
		{name: "present-source-timeline", path: "/present/crash-before-ack?handlers=naive,inbox&step=3&show=source,timeline", ready: `#step-count[data-step="3"]`},
		{name: "join", path: "/join", ready: "#join-code"},
		{name: "join-problem", path: "/join?code=ZZZ-ZZZ", ready: "#join-problem"},
		{name: "not-found", path: "/no-such-page", ready: ".error-box"},
		{name: "lab-bad-script", path: "/lab?script=" + url.QueryEscape("publish pay-1 amount=1\ndelivr"), ready: ".error-box"},
	}...)

	var failures []string
	for _, theme := range []string{"light", "dark"} {
		for _, lang := range []string{"en", "ru"} {
			t.Run(theme+"-"+lang, func(t *testing.T) {
				ctx := b.Tab(true, true)
				webtest.Do(t, ctx, "remember the language and the theme", chromedp.EmulateViewport(1366, 768),
					chromedp.Navigate(b.Base+"/lab?lang="+lang), chromedp.WaitVisible(chromedp.ID("do-publish")),
					chromedp.Evaluate[chromedp.Void](`localStorage.setItem("lab-theme", "`+theme+`")`))

				// A room of this browser's own: the instructor's page, and the
				// student's page following it.
				webtest.Do(t, ctx, "open a room", chromedp.Navigate(b.Base+"/present/crash-before-ack"), webtest.WaitStep(0),
					chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")))
				code := webtest.Attr(t, ctx, "#room-code", "data-code")
				webtest.Do(t, ctx, "join the room as a student", chromedp.Navigate(b.Base+"/rooms/"+code),
					chromedp.Click(chromedp.ID("join-go")), chromedp.WaitVisible(chromedp.CSS(`#p-live[data-state="live"]`)))

				// axe does not check the focus ring: it must stand out, 3:1,
				// from the page and from the cards it is drawn on.
				t.Run("focus-ring", func(t *testing.T) {
					ratios := webtest.Eval[map[string]float64](t, ctx, contrastOfVars(`--focus`, `--bg`, `--surface`, `--surface-2`))
					for against, r := range ratios {
						if r < 3 {
							t.Errorf("the focus ring has a contrast of %.2f:1 against %s, want 3:1", r, against)
						}
					}
				})
				all := append(pages[:len(pages):len(pages)],
					a11yPage{name: "room-present", path: "/rooms/" + code + "/present", ready: "#room-code"},
					a11yPage{name: "room-student", path: "/rooms/" + code, ready: `#p-live[data-state="live"]`})

				for _, pg := range all {
					t.Run(pg.name, func(t *testing.T) {
						webtest.Do(t, ctx, "open "+pg.path, chromedp.Navigate(b.Base+pg.path), chromedp.WaitVisible(chromedp.CSS(pg.ready)))
						// Wait for the deferred scripts (diagrams are drawn ahead
						// of time: the page has them inline).
						webtest.Poll(t, ctx, "the page settles", `document.readyState === "complete"`)
						if got := webtest.Eval[string](t, ctx, `document.documentElement.lang + " " + (document.documentElement.dataset.theme || "auto")`); got != lang+" "+theme {
							t.Fatalf("the page is %q, want %q", got, lang+" "+theme)
						}
						// Every page says what it is to a search engine, in its language.
						if d := webtest.Eval[string](t, ctx, `(m => m ? m.content.trim() : "")(document.querySelector('meta[name="description"]'))`); d == "" {
							t.Errorf("%s has no meta description", pg.path)
						}
						if pg.open != "" {
							webtest.Do(t, ctx, "unfold", chromedp.Evaluate[chromedp.Void](pg.open))
						}
						for _, v := range webtest.RunAxe(t, ctx, axe) {
							msg := fmt.Sprintf("%s [%s, %s] %s (%s): %s, on %d node(s): %s; %s",
								pg.path, theme, lang, v.ID, v.Impact, v.Help, v.Nodes, strings.Join(v.Targets, " | "), v.Summary)
							t.Error(msg)
							failures = append(failures, fmt.Sprintf("%s %s %s/%s", v.ID, pg.name, theme, lang))
						}
					})
				}
			})
		}
	}
	if len(failures) > 0 {
		t.Logf("%d serious or critical violations in all:\n%s", len(failures), strings.Join(failures, "\n"))
	}
}

// TestBrowserScreenshotsFourSizes saves the main pages at the four sizes
// the lab is made for: a 1080p projector, the common laptops, and a phone.
// screenshotWhen also fails a page that scrolls sideways at a size.
func TestBrowserScreenshotsFourSizes(t *testing.T) {
	b, _ := webtest.NewPracticeBrowser(t)
	ctx := b.Tab(true, true)
	sizes := []struct {
		w, h   int64
		mobile bool
	}{{1920, 1080, false}, {1366, 768, false}, {1280, 720, false}, {390, 844, true}}
	pages := []a11yPage{
		{name: "lab-preset", path: "/lab?preset=crash-before-ack&step=2&lang=en", ready: `#step-count[data-step="2"]`},
		{name: "present-preset", path: "/present/crash-before-ack?step=2&lang=en", ready: `#step-count[data-step="2"]`},
		{name: "lesson-diagram", path: "/lessons/duplicates?lang=en", ready: ".lesson-body svg"},
		{name: "practice-home", path: "/practice?lang=en", ready: "#overall"},
		{name: "matrix", path: "/matrix?lang=en", ready: "#matrix"},
	}
	for _, pg := range pages {
		for _, s := range sizes {
			var opts []chromedp.EmulateViewportOption
			if s.mobile {
				opts = append(opts, chromedp.EmulateMobile)
			}
			// Loaded at its size, as a reader at that size would load it.
			webtest.Do(t, ctx, "open "+pg.path, chromedp.EmulateViewport(s.w, s.h, opts...),
				chromedp.Navigate(b.Base+pg.path), chromedp.WaitVisible(chromedp.CSS(pg.ready)))
			webtest.Poll(t, ctx, "the page settles", `document.readyState === "complete"`)
			webtest.ScreenshotWhen(t, ctx, fmt.Sprintf("%s-%dx%d", pg.name, s.w, s.h), s.w, s.h, s.mobile, pg.ready)
		}
	}
	b.NoConsoleErrors()
	if _, err := os.Stat(filepath.Join(webtest.ArtifactsDir(t), "matrix-390x844.png")); err != nil {
		t.Error(err)
	}
}
