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
)

// TestBrowserStepThroughPreset is the classroom flow: load the
// crash-before-ack preset, step through it, see naive credit twice while
// inbox credits once, rewind with the slider, and share the permalink.
func TestBrowserStepThroughPreset(t *testing.T) {
	b := newBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(mode(js), func(t *testing.T) {
			ctx := b.tab(false, js)
			do(t, ctx, "load the preset", chromedp.Navigate(b.base+"/lab?preset=crash-before-ack&step=0"), waitStep(0))
			if js {
				markPage(t, ctx)
			}
			for step := 1; step <= 4; step++ {
				if js && step == 1 {
					// A presenter's remote sends the arrow keys.
					do(t, ctx, "arrow key to step 1", chromedp.KeyEvent(kb.ArrowRight), waitStep(1))
					continue
				}
				do(t, ctx, fmt.Sprintf("next to step %d", step), chromedp.Click(chromedp.ID("step-next")), waitStep(step))
				got := verdicts(t, ctx)
				switch step {
				case 1:
					wantCard(t, got, "naive", "ok 0.00")
					wantCard(t, got, "inbox", "ok 0.00")
				case 2:
					// Credited once so far, but the in-flight message will
					// come back: naive already settles to a duplicate.
					wantCard(t, got, "naive", "duplicate 100.00")
					wantCard(t, got, "inbox", "ok 100.00")
				case 4:
					wantCard(t, got, "naive", "duplicate 200.00")
					for _, h := range []string{"inbox", "unique", "setnx", "statemachine"} {
						wantCard(t, got, h, "ok 100.00")
					}
				}
			}
			if js {
				if !pageKept(t, ctx) {
					t.Error("the page reloaded on a step: htmx should swap the lab region only")
				}
				// A preset opens at step 0, so its end needs step=.
				if loc := location(t, ctx); !strings.Contains(loc, "preset=crash-before-ack") || !strings.Contains(loc, "step=4") {
					t.Errorf("address bar after stepping to the end = %q, want the preset at its end (step=4)", loc)
				}
			}
			if js {
				// The browser's Back button restores the previous step.
				do(t, ctx, "browser back", chromedp.NavigateBack(), waitStep(3))
				do(t, ctx, "browser forward", chromedp.NavigateForward(), waitStep(4))
			}
			narration := textOfSel(t, ctx, "#narration")
			if !strings.Contains(narration, "naive") {
				t.Errorf("narration at step 4 = %q, want the preset's own words", narration)
			}

			// Rewind with the slider: keys with JavaScript, the Show
			// button without.
			if js {
				do(t, ctx, "rewind with the slider",
					chromedp.Focus(chromedp.ID("step-slider")),
					chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft),
					waitStep(1))
			} else {
				do(t, ctx, "rewind with the slider",
					chromedp.SetAttributeValue(chromedp.ID("step-slider"), "value", "1"),
					chromedp.Click(chromedp.CSS("#slider-form button[type=submit]")),
					waitStep(1))
			}
			if js && !pageKept(t, ctx) {
				t.Error("the page reloaded on the slider")
			}
			rewound := verdicts(t, ctx)
			wantCard(t, rewound, "naive", "ok 0.00")
			if loc := location(t, ctx); !strings.Contains(loc, "step=1") {
				t.Errorf("address bar after rewinding = %q, want step=1 in it", loc)
			}
			if js {
				screenshot(t, ctx, "lab-desktop-step1", 1440, 1000, false)
			}

			shared := openPermalink(t, b, ctx, js, 1)
			if fmt.Sprint(shared) != fmt.Sprint(rewound) {
				t.Errorf("permalink in a fresh browser shows %v, want %v", shared, rewound)
			}
			b.noConsoleErrors()
		})
	}
}

// TestBrowserBuildWithControls is the newcomer's flow on an empty lab:
// publish, deliver with a crash before the ack, redeliver, deliver.
func TestBrowserBuildWithControls(t *testing.T) {
	b := newBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(mode(js), func(t *testing.T) {
			ctx := b.tab(false, js)
			do(t, ctx, "open the empty lab", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.ID("do-publish")))
			if js {
				markPage(t, ctx)
			}
			for i, button := range []string{"do-publish", "do-crash-before-ack", "do-redeliver", "do-deliver"} {
				do(t, ctx, "press "+button, clickID(button), waitStep(i+1))
			}
			got := verdicts(t, ctx)
			wantCard(t, got, "naive", "duplicate 200.00")
			wantCard(t, got, "inbox", "ok 100.00")
			if js && !pageKept(t, ctx) {
				t.Error("the page reloaded on a step control")
			}

			// Publishing pay-1 again is an error the page explains: in the
			// message area with JavaScript, on an error page without.
			before := location(t, ctx)
			do(t, ctx, "publish pay-1 twice",
				chromedp.SetValue(chromedp.ID("publish-op"), "pay-1"),
				chromedp.Click(chromedp.ID("do-publish")))
			if js {
				do(t, ctx, "the error shows", chromedp.WaitVisible(chromedp.CSS("#flash .flash-box")))
				if msg := textOfSel(t, ctx, "#flash"); !strings.Contains(msg, "already published") {
					t.Errorf("flash = %q", msg)
				}
				if loc := location(t, ctx); loc != before {
					t.Errorf("an error moved the address bar from %q to %q", before, loc)
				}
				do(t, ctx, "the lab stays", waitStep(4))
				// The next good step clears the message.
				do(t, ctx, "advance the clock", chromedp.Click(chromedp.ID("do-advance")), waitStep(5),
					chromedp.WaitNotPresent(chromedp.CSS("#flash .flash-box")))
				do(t, ctx, "undo it", chromedp.Click(chromedp.ID("do-undo")), waitStep(4))
			} else {
				do(t, ctx, "the error page shows", chromedp.WaitVisible(chromedp.CSS(".error-box")))
				if msg := textOfSel(t, ctx, ".error-msg"); !strings.Contains(msg, "already published") {
					t.Errorf("error page says %q", msg)
				}
				do(t, ctx, "back to the lab", chromedp.Click(chromedp.CSS(".error-links a")), waitStep(4))
			}
			if loc := location(t, ctx); !strings.Contains(loc, "/lab?s=") {
				t.Errorf("address bar = %q, want a /lab?s= permalink", loc)
			}
			script := textOfSel(t, ctx, "#script")
			for _, line := range []string{"publish pay-1 amount=10000", "deliver crash=before-ack", "redeliver", "deliver"} {
				if !strings.Contains(script, line) {
					t.Errorf("script editor lacks %q:\n%s", line, script)
				}
			}
			if js {
				screenshot(t, ctx, "lab-desktop", 1440, 1000, false)
				screenshot(t, ctx, "lab-phone", 360, 780, true)
				do(t, ctx, "dark theme", chromedp.EmulateViewport(1440, 1000), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
					_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
						Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}, {Name: "prefers-reduced-motion", Value: "reduce"}}})
					return err
				}))
				screenshot(t, ctx, "lab-desktop-dark", 1440, 1000, false)
			}

			do(t, ctx, "undo", chromedp.Click(chromedp.ID("do-undo")), waitStep(3),
				chromedp.WaitReady(chromedp.CSS(`#step-count[data-total="3"]`)))
			got = verdicts(t, ctx)
			shared := openPermalink(t, b, ctx, js, 3)
			if fmt.Sprint(shared) != fmt.Sprint(got) {
				t.Errorf("permalink in a fresh browser shows %v, want %v", shared, got)
			}
			b.noConsoleErrors()
		})
	}
}

// TestBrowserThemeAndLanguage switches the theme and the language.
func TestBrowserThemeAndLanguage(t *testing.T) {
	b := newBrowser(t)
	ctx := b.tab(true, true)
	do(t, ctx, "open", chromedp.Navigate(b.base+"/lab?preset=crash-before-ack&step=1"), waitStep(1))
	for _, want := range []string{"light", "dark", ""} {
		do(t, ctx, "theme toggle", chromedp.Click(chromedp.ID("theme-toggle")))
		got, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[string](`document.documentElement.dataset.theme || ""`))
		if err != nil || got != want {
			t.Errorf("theme after a click = %q (%v), want %q", got, err, want)
		}
	}
	do(t, ctx, "a card's timeline link unfolds its diagram",
		chromedp.Click(chromedp.CSS("#card-inbox .tl-link a")),
		chromedp.WaitVisible(chromedp.CSS("#timeline-inbox[open] svg.tl")))
	do(t, ctx, "switch to Russian", chromedp.Click(chromedp.CSS(`.langs a[lang="ru"]`)),
		chromedp.WaitReady(chromedp.CSS(`html[lang="ru"]`)), waitStep(1))
	if got := textOfSel(t, ctx, "#step-count"); !strings.Contains(got, "Шаг 1 из 4") {
		t.Errorf("step count in Russian = %q", got)
	}
	if got := textOfSel(t, ctx, "#narration"); !strings.Contains(got, "Продюсер публикует") {
		t.Errorf("narration in Russian = %q", got)
	}
	// The choice is remembered: the next page is Russian without ?lang=.
	do(t, ctx, "next", chromedp.Click(chromedp.ID("step-next")), waitStep(2))
	do(t, ctx, "reload", chromedp.Navigate(b.base+"/lab?preset=crash-before-ack&step=2"), waitStep(2))
	if got := textOfSel(t, ctx, "#step-count"); !strings.Contains(got, "Шаг 2 из 4") {
		t.Errorf("after a reload the page is not Russian: %q", got)
	}
	b.noConsoleErrors()
}

// TestBrowserScreenshots saves pictures of pages the flows above do not
// reach: all twelve handlers on a projector, in Russian, and an error.
func TestBrowserScreenshots(t *testing.T) {
	b := newBrowser(t)
	ctx := b.tab(true, true)
	do(t, ctx, "projector view", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.base+"/lab?preset=concurrent-duplicates&handlers=all&step=3&lang=ru"), waitStep(3))
	screenshot(t, ctx, "lab-projector-ru", 1920, 1080, false)
	do(t, ctx, "empty lab", chromedp.Navigate(b.base+"/lab?lang=en"), chromedp.WaitVisible(chromedp.ID("guide-preset")))
	screenshot(t, ctx, "lab-empty", 1440, 900, false)
	do(t, ctx, "a crash in the source", chromedp.Navigate(b.base+"/lab?preset=crash-after-effect&handlers=effect-first,inbox&step=2"),
		waitStep(2), chromedp.Click(chromedp.CSS("#card-effect-first details.source > summary")),
		chromedp.WaitVisible(chromedp.CSS("#card-effect-first .crash-label")))
	screenshot(t, ctx, "lab-source", 1440, 900, false)
	b.noConsoleErrors()
	// The error page's own 400 is logged by the browser as a failed load.
	do(t, ctx, "error page", chromedp.Navigate(b.base+"/lab?script=publish+pay-1+amount%3D1%0Adelivr&lang=en"),
		chromedp.WaitVisible(chromedp.CSS(".error-box")))
	ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx2, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(artifactsDir(t), "error-page.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
