package playground_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// watchTokens makes the page note every message token it shows: a token
// lives only while a step plays, so the test asks afterwards.
const watchTokens = `window.sawToken = false; new MutationObserver(ms => { for (const m of ms) for (const n of m.addedNodes)
	if (n.classList && n.classList.contains("msg-token") && n.textContent) window.sawToken = true;
}).observe(document.body, { childList: true, subtree: true }); true`

// fastest chooses the fastest speed as the reader would, which lab.js
// remembers.
const fastest = `(s => { s.value = s.options[s.options.length - 1].value; s.dispatchEvent(new Event("change", { bubbles: true })); return s.value; })(document.getElementById("play-speed"))`

// pauseAWhile waits in the page for longer than a step takes at the
// fastest speed (a swap and the interval), so that a step that play would
// still take has landed before the test looks.
func pauseAWhile() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`new Promise(r => setTimeout(() => r(true), 1500))`, chromedp.EvalAwaitPromise)(ctx, tg)
		return err
	})
}

func stepShown(t *testing.T, ctx context.Context) int {
	t.Helper()
	n, err := strconv.Atoi(webtest.Attr(t, ctx, "#step-count", "data-step"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func evalString(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// TestBrowserPlayLab: Play at the fastest speed steps the lab from the
// start to the last step by itself, with the message's token on the
// cards, and turns back into Play there; Pause stops it where it is.
func TestBrowserPlayLab(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "open the preset at the start", chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&step=0"), webtest.WaitStep(0),
		chromedp.WaitVisible(chromedp.ID("play-toggle")))
	if got := webtest.Attr(t, ctx, "#play-toggle", "aria-pressed"); got != "false" {
		t.Errorf("aria-pressed = %q before playing", got)
	}
	if got := evalString(t, ctx, fastest); got != "4" {
		t.Fatalf("fastest speed %q", got)
	}
	evalString(t, ctx, watchTokens+` && ""`)
	webtest.MarkPage(t, ctx)

	webtest.Do(t, ctx, "play to the last step", chromedp.Click(chromedp.ID("play-toggle")), webtest.WaitStep(4),
		chromedp.WaitReady(chromedp.CSS(`#play-toggle[aria-pressed="false"]`)), webtest.Settled())
	if got := evalString(t, ctx, `document.getElementById("play-toggle").textContent`); !strings.Contains(got, "Play") {
		t.Errorf("at the last step the button says %q, want Play", got)
	}
	if loc := webtest.Location(t, ctx); !strings.HasSuffix(loc, "step=4") {
		t.Errorf("address after playing: %q", loc)
	}
	if !webtest.PageKept(t, ctx) {
		t.Error("play reloaded the page: it should step by htmx swaps")
	}
	if evalString(t, ctx, `String(window.sawToken)`) != "true" {
		t.Error("no message token appeared while playing")
	}
	if got := evalString(t, ctx, `localStorage.getItem("lab-play-speed") || ""`); got != "4" {
		t.Errorf("the speed remembered is %q", got)
	}
	if got := webtest.Attr(t, ctx, "#card-naive .msg-lane", "data-path"); got != "broker,worker,db,worker,broker" {
		t.Errorf("naive's path at step 4: %q", got)
	}

	// From the last step Play starts again from the first; Pause stops it.
	webtest.Do(t, ctx, "play again", chromedp.Click(chromedp.ID("play-toggle")), webtest.WaitStep(1))
	webtest.Do(t, ctx, "pause", webtest.ClickID("play-toggle"),
		chromedp.WaitReady(chromedp.CSS(`#play-toggle[aria-pressed="false"]`)), webtest.Settled())
	at := stepShown(t, ctx)
	webtest.Do(t, ctx, "wait past the next step's time", pauseAWhile(), webtest.Settled())
	if now := stepShown(t, ctx); now != at {
		t.Errorf("paused at step %d, yet the lab went on to step %d", at, now)
	}
	if at >= 4 {
		t.Errorf("paused at step %d: the pause came too late to tell", at)
	}

	// Space plays too, but not on a field.
	webtest.Do(t, ctx, "focus the page", chromedp.Focus(chromedp.ID("lab")))
	webtest.Do(t, ctx, "space plays", chromedp.KeyEvent(" "), chromedp.WaitReady(chromedp.CSS(`#play-toggle[aria-pressed="true"]`)))
	webtest.Do(t, ctx, "space pauses", chromedp.KeyEvent(" "), chromedp.WaitReady(chromedp.CSS(`#play-toggle[aria-pressed="false"]`)), webtest.Settled())
	b.NoConsoleErrors()
}

// TestBrowserPresentPlay: in the presenter Space plays to the last step
// and pauses, and the keys help says so.
func TestBrowserPresentPlay(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "present", chromedp.Navigate(b.Base+"/present/crash-before-ack?step=0&lang=en"), webtest.WaitStep(0),
		chromedp.WaitVisible(chromedp.ID("play-toggle")))
	evalString(t, ctx, fastest)
	evalString(t, ctx, watchTokens+` && ""`)
	webtest.Do(t, ctx, "space plays to the end", chromedp.KeyEvent(" "),
		chromedp.WaitReady(chromedp.CSS(`#play-toggle[aria-pressed="true"]`)), webtest.WaitStep(4),
		chromedp.WaitReady(chromedp.CSS(`#play-toggle[aria-pressed="false"]`)))
	if got := evalString(t, ctx, `document.getElementById("play-toggle").textContent`); !strings.Contains(got, "Play") {
		t.Errorf("at the last step the button says %q, want Play", got)
	}
	if evalString(t, ctx, `String(window.sawToken)`) != "true" {
		t.Error("no message token appeared while playing")
	}

	webtest.Do(t, ctx, "R restarts", chromedp.KeyEvent("r"), webtest.WaitStep(0))
	webtest.Do(t, ctx, "space plays", chromedp.KeyEvent(" "), webtest.WaitStep(1))
	webtest.Do(t, ctx, "space pauses", chromedp.KeyEvent(" "), chromedp.WaitReady(chromedp.CSS(`#play-toggle[aria-pressed="false"]`)),
		pauseAWhile())
	at := stepShown(t, ctx)
	webtest.Do(t, ctx, "wait past the next step's time", pauseAWhile())
	if now := stepShown(t, ctx); now != at || at >= 4 {
		t.Errorf("paused at step %d, then at step %d", at, now)
	}
	if got := webtest.TextOfSel(t, ctx, ".p-keys"); !strings.Contains(got, "play the steps") {
		t.Errorf("the keys help does not list Space for play: %q", got)
	}
	b.NoConsoleErrors()
}
