package playground_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserStepThroughPreset is the classroom flow: load the
// crash-before-ack preset, step through it, see naive credit twice while
// inbox credits once, rewind with the slider, and share the permalink.
func TestBrowserStepThroughPreset(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(false, js)
			webtest.Do(t, ctx, "load the preset", chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&step=0"), webtest.WaitStep(0))
			if js {
				webtest.MarkPage(t, ctx)
			}
			for step := 1; step <= 4; step++ {
				if js && step == 1 {
					// A presenter's remote sends the arrow keys.
					webtest.Do(t, ctx, "arrow key to step 1", chromedp.KeyEvent(kb.ArrowRight), webtest.WaitStep(1))
					continue
				}
				webtest.Do(t, ctx, fmt.Sprintf("next to step %d", step), chromedp.Click(chromedp.ID("step-next")), webtest.WaitStep(step))
				got := webtest.Verdicts(t, ctx)
				switch step {
				case 1:
					webtest.WantCard(t, got, "naive", "ok 0.00")
					webtest.WantCard(t, got, "inbox", "ok 0.00")
				case 2:
					// Credited once so far, but the in-flight message will
					// come back: naive already settles to a duplicate.
					webtest.WantCard(t, got, "naive", "duplicate 100.00")
					webtest.WantCard(t, got, "inbox", "ok 100.00")
				case 4:
					webtest.WantCard(t, got, "naive", "duplicate 200.00")
					for _, h := range []string{"inbox", "unique", "setnx", "statemachine"} {
						webtest.WantCard(t, got, h, "ok 100.00")
					}
				}
			}
			if js {
				if !webtest.PageKept(t, ctx) {
					t.Error("the page reloaded on a step: htmx should swap the lab region only")
				}
				// A preset opens at step 0, so its end needs step=.
				if loc := webtest.Location(t, ctx); !strings.Contains(loc, "preset=crash-before-ack") || !strings.Contains(loc, "step=4") {
					t.Errorf("address bar after stepping to the end = %q, want the preset at its end (step=4)", loc)
				}
			}
			if js {
				// The browser's Back button restores the previous step.
				webtest.Do(t, ctx, "browser back", chromedp.NavigateBack(), webtest.WaitStep(3))
				webtest.Do(t, ctx, "browser forward", chromedp.NavigateForward(), webtest.WaitStep(4))
			}
			narration := webtest.TextOfSel(t, ctx, "#narration")
			if !strings.Contains(narration, "naive") {
				t.Errorf("narration at step 4 = %q, want the preset's own words", narration)
			}

			// Rewind with the slider: keys with JavaScript, the Show
			// button without.
			if js {
				webtest.Do(t, ctx, "rewind with the slider",
					chromedp.Focus(chromedp.ID("step-slider")),
					chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft),
					webtest.WaitStep(1))
			} else {
				webtest.Do(t, ctx, "rewind with the slider",
					chromedp.SetAttributeValue(chromedp.ID("step-slider"), "value", "1"),
					chromedp.Click(chromedp.CSS("#slider-form button[type=submit]")),
					webtest.WaitStep(1))
			}
			if js && !webtest.PageKept(t, ctx) {
				t.Error("the page reloaded on the slider")
			}
			rewound := webtest.Verdicts(t, ctx)
			webtest.WantCard(t, rewound, "naive", "ok 0.00")
			if loc := webtest.Location(t, ctx); !strings.Contains(loc, "step=1") {
				t.Errorf("address bar after rewinding = %q, want step=1 in it", loc)
			}
			if js {
				webtest.Screenshot(t, ctx, "lab-desktop-step1", 1440, 1000, false)
			}

			shared := webtest.OpenPermalink(t, b, ctx, js, 1)
			if fmt.Sprint(shared) != fmt.Sprint(rewound) {
				t.Errorf("permalink in a fresh browser shows %v, want %v", shared, rewound)
			}
			b.NoConsoleErrors()
		})
	}
}

// TestBrowserBuildWithControls is the newcomer's flow on an empty lab:
// publish, deliver with a crash before the ack, redeliver, deliver.
func TestBrowserBuildWithControls(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(false, js)
			webtest.Do(t, ctx, "open the empty lab", chromedp.Navigate(b.Base+"/"), chromedp.WaitVisible(chromedp.ID("do-publish")))
			if js {
				webtest.MarkPage(t, ctx)
			}
			for i, button := range []string{"do-publish", "do-crash-before-ack", "do-redeliver", "do-deliver"} {
				webtest.Do(t, ctx, "press "+button, webtest.ClickID(button), webtest.WaitStep(i+1))
			}
			got := webtest.Verdicts(t, ctx)
			webtest.WantCard(t, got, "naive", "duplicate 200.00")
			webtest.WantCard(t, got, "inbox", "ok 100.00")
			if js && !webtest.PageKept(t, ctx) {
				t.Error("the page reloaded on a step control")
			}

			// Publishing pay-1 again is an error the page explains: in the
			// message area with JavaScript, on an error page without.
			before := webtest.Location(t, ctx)
			webtest.Do(t, ctx, "publish pay-1 twice",
				chromedp.SetValue(chromedp.ID("publish-op"), "pay-1"),
				chromedp.Click(chromedp.ID("do-publish")))
			if js {
				webtest.Do(t, ctx, "the error shows", chromedp.WaitVisible(chromedp.CSS("#flash .flash-box")))
				if msg := webtest.TextOfSel(t, ctx, "#flash"); !strings.Contains(msg, "already published") {
					t.Errorf("flash = %q", msg)
				}
				if loc := webtest.Location(t, ctx); loc != before {
					t.Errorf("an error moved the address bar from %q to %q", before, loc)
				}
				webtest.Do(t, ctx, "the lab stays", webtest.WaitStep(4))
				// The next good step clears the message.
				webtest.Do(t, ctx, "advance the clock", chromedp.Click(chromedp.ID("do-advance")), webtest.WaitStep(5),
					chromedp.WaitNotPresent(chromedp.CSS("#flash .flash-box")))
				webtest.Do(t, ctx, "undo it", chromedp.Click(chromedp.ID("do-undo")), webtest.WaitStep(4))
			} else {
				webtest.Do(t, ctx, "the error page shows", chromedp.WaitVisible(chromedp.CSS(".error-box")))
				if msg := webtest.TextOfSel(t, ctx, ".error-msg"); !strings.Contains(msg, "already published") {
					t.Errorf("error page says %q", msg)
				}
				webtest.Do(t, ctx, "back to the lab", chromedp.Click(chromedp.CSS(".error-links a")), webtest.WaitStep(4))
			}
			if loc := webtest.Location(t, ctx); !strings.Contains(loc, "/lab?s=") {
				t.Errorf("address bar = %q, want a /lab?s= permalink", loc)
			}
			script := webtest.TextOfSel(t, ctx, "#script")
			for _, line := range []string{"publish pay-1 amount=10000", "deliver crash=before-ack", "redeliver", "deliver"} {
				if !strings.Contains(script, line) {
					t.Errorf("script editor lacks %q:\n%s", line, script)
				}
			}
			if js {
				webtest.Screenshot(t, ctx, "lab-desktop", 1440, 1000, false)
				webtest.Screenshot(t, ctx, "lab-phone", 360, 780, true)
				webtest.Do(t, ctx, "dark theme", chromedp.EmulateViewport(1440, 1000), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
					_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
						Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}, {Name: "prefers-reduced-motion", Value: "reduce"}}})
					return err
				}))
				webtest.Screenshot(t, ctx, "lab-desktop-dark", 1440, 1000, false)
			}

			webtest.Do(t, ctx, "undo", chromedp.Click(chromedp.ID("do-undo")), webtest.WaitStep(3),
				chromedp.WaitReady(chromedp.CSS(`#step-count[data-total="3"]`)))
			got = webtest.Verdicts(t, ctx)
			shared := webtest.OpenPermalink(t, b, ctx, js, 3)
			if fmt.Sprint(shared) != fmt.Sprint(got) {
				t.Errorf("permalink in a fresh browser shows %v, want %v", shared, got)
			}
			b.NoConsoleErrors()
		})
	}
}

// TestBrowserThemeAndLanguage switches the theme and the language.
func TestBrowserThemeAndLanguage(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "open", chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&step=1"), webtest.WaitStep(1))
	for _, want := range []string{"light", "dark", ""} {
		webtest.Do(t, ctx, "theme toggle", chromedp.Click(chromedp.ID("theme-toggle")))
		got, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[string](`document.documentElement.dataset.theme || ""`))
		if err != nil || got != want {
			t.Errorf("theme after a click = %q (%v), want %q", got, err, want)
		}
	}
	webtest.Do(t, ctx, "a card's timeline link unfolds its diagram",
		chromedp.Click(chromedp.CSS("#card-inbox .tl-link a")),
		chromedp.WaitVisible(chromedp.CSS("#timeline-inbox[open] svg.tl")))
	webtest.Do(t, ctx, "switch to Russian", chromedp.Click(chromedp.CSS(`.langs a[lang="ru"]`)),
		chromedp.WaitReady(chromedp.CSS(`html[lang="ru"]`)), webtest.WaitStep(1))
	if got := webtest.TextOfSel(t, ctx, "#step-count"); !strings.Contains(got, "Шаг 1 из 4") {
		t.Errorf("step count in Russian = %q", got)
	}
	if got := webtest.TextOfSel(t, ctx, "#narration"); !strings.Contains(got, "Продюсер публикует") {
		t.Errorf("narration in Russian = %q", got)
	}
	// The choice is remembered: the next page is Russian without ?lang=.
	webtest.Do(t, ctx, "next", chromedp.Click(chromedp.ID("step-next")), webtest.WaitStep(2))
	webtest.Do(t, ctx, "reload", chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&step=2"), webtest.WaitStep(2))
	if got := webtest.TextOfSel(t, ctx, "#step-count"); !strings.Contains(got, "Шаг 2 из 4") {
		t.Errorf("after a reload the page is not Russian: %q", got)
	}
	b.NoConsoleErrors()
}

// TestBrowserScreenshots saves pictures of pages the flows above do not
// reach: all twelve handlers on a projector, in Russian, and an error.
func TestBrowserScreenshots(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "projector view", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.Base+"/lab?preset=concurrent-duplicates&handlers=all&step=3&lang=ru"), webtest.WaitStep(3))
	webtest.Screenshot(t, ctx, "lab-projector-ru", 1920, 1080, false)
	webtest.Do(t, ctx, "empty lab", chromedp.Navigate(b.Base+"/lab?lang=en"), chromedp.WaitVisible(chromedp.ID("guide-preset")))
	webtest.Screenshot(t, ctx, "lab-empty", 1440, 900, false)
	webtest.Do(t, ctx, "a crash in the source", chromedp.Navigate(b.Base+"/lab?preset=crash-after-effect&handlers=effect-first,inbox&step=2"),
		webtest.WaitStep(2), chromedp.Click(chromedp.CSS("#card-effect-first details.source > summary")),
		chromedp.WaitVisible(chromedp.CSS("#card-effect-first .crash-label")))
	webtest.Screenshot(t, ctx, "lab-source", 1440, 900, false)
	b.NoConsoleErrors()
	// The error page's own 400 is logged by the browser as a failed load.
	webtest.Do(t, ctx, "error page", chromedp.Navigate(b.Base+"/lab?script=publish+pay-1+amount%3D1%0Adelivr&lang=en"),
		chromedp.WaitVisible(chromedp.CSS(".error-box")))
	ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx2, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(webtest.ArtifactsDir(t), "error-page.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
