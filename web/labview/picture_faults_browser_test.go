package labview_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserPictureFaults: a click on the worker of a card's lane, or
// Enter on it, adds the crash step the "Crash before ack" button adds:
// the address is the link's, the step line and the narration say so, and
// the card's worker shows the crash; then a click on the broker
// redelivers. With JavaScript the page is swapped, not reloaded; without
// it the link is followed.
func TestBrowserPictureFaults(t *testing.T) {
	b := webtest.NewBrowser(t)
	start := "/lab?" + url.Values{"script": {"publish pay-1 amount=10000"}, "handlers": {"naive,setnx"}}.Encode()
	for _, js := range []bool{true, false} {
		for _, how := range []string{"click", "keyboard"} {
			t.Run(webtest.Mode(js)+"-"+how, func(t *testing.T) {
				ctx := b.Tab(true, js)
				webtest.Do(t, ctx, "open the lab with pay-1 ready", chromedp.Navigate(b.Base+start), webtest.WaitStep(1),
					chromedp.WaitVisible(chromedp.ID("lane-crash-naive")))
				if js {
					webtest.MarkPage(t, ctx)
					// The click should submit the step control's own form.
					webtest.Eval[bool](t, ctx, `document.addEventListener("submit", e => { window.submittedBy = e.submitter ? e.submitter.id : "?" }, true); true`)
				}
				href := webtest.Attr(t, ctx, "#lane-crash-naive", "href")
				if name := webtest.Eval[string](t, ctx, `document.getElementById("lane-crash-naive").textContent`); !strings.HasPrefix(name, "Worker") ||
					!strings.Contains(name, "crash the worker before its ack") {
					t.Errorf("the worker's link reads %q", name)
				}
				press := chromedp.Click(chromedp.ID("lane-crash-naive"))
				if how == "keyboard" {
					press = chromedp.KeyEvent(kb.Enter)
					webtest.Do(t, ctx, "focus the worker", chromedp.Focus(chromedp.ID("lane-crash-naive")))
					if got := webtest.Eval[string](t, ctx, `document.activeElement.id`); got != "lane-crash-naive" {
						t.Fatalf("the worker's link does not take the focus (%q has it)", got)
					}
				}
				webtest.Do(t, ctx, how+" on the worker", press, webtest.WaitStep(2), webtest.Settled())
				if loc := webtest.Location(t, ctx); loc != b.Base+href {
					t.Errorf("after the %s the address is\n%s\nwant the link's\n%s", how, loc, b.Base+href)
				}
				if got := webtest.TextOfSel(t, ctx, ".step-line"); got != "deliver crash=before-ack" {
					t.Errorf("the step added is %q", got)
				}
				if got := webtest.TextOfSel(t, ctx, "#narration"); !strings.Contains(got, "dies before its ack") {
					t.Errorf("the narration (the live region) says %q", got)
				}
				if !webtest.Eval[bool](t, ctx, `!!document.querySelector('#card-naive li.lane-part.crash[data-part="worker"]')`) {
					t.Error("naive's card does not show its worker's crash")
				}
				if js && !webtest.PageKept(t, ctx) {
					t.Error("the click reloaded the page: with JavaScript it should press the step control (an htmx swap)")
				}
				if by := webtest.Eval[string](t, ctx, `String(window.submittedBy)`); js && by != "do-crash-before-ack" {
					t.Errorf("with JavaScript the %s submitted %q, want the Crash before ack button's form", how, by)
				}
				// Nothing is left to deliver, so the worker is no longer a
				// link: a keyboard reader is left on the card's broker.
				if got := webtest.Eval[string](t, ctx, `document.activeElement.id`); js && how == "keyboard" && got != "lane-redeliver-naive" {
					t.Errorf("after Enter on the worker the focus is on %q, want naive's broker", got)
				}

				// pay-1 is in flight now: the broker redelivers it.
				webtest.Do(t, ctx, "click the broker", chromedp.WaitVisible(chromedp.ID("lane-redeliver-naive")),
					chromedp.Click(chromedp.ID("lane-redeliver-naive")), webtest.WaitStep(3), webtest.Settled())
				if got := webtest.TextOfSel(t, ctx, ".step-line"); got != "redeliver" {
					t.Errorf("the broker's click added %q", got)
				}
				b.NoConsoleErrors()
			})
		}
	}
}

// watchTokenBoxes pauses every message token as it appears and, at each
// part of its path (where it stops on its way; between two parts it
// glides), measures it against every part's name in its lane: a
// token that covers a name is noted in window.tokenOverlaps. It moves the
// token to its end afterwards, so the page goes on as it would.
const watchTokenBoxes = `window.tokenChecks = 0; window.tokenOverlaps = [];
new MutationObserver(ms => { for (const m of ms) for (const tok of m.addedNodes) {
	if (!tok.classList || !tok.classList.contains("msg-token")) continue;
	const lane = tok.closest(".msg-lane"), names = [...lane.querySelectorAll(".lane-label")];
	const a = tok.getAnimations()[0], end = a ? a.effect.getComputedTiming().endTime : 0;
	// At each part of the path (a keyframe's offset, in time once the
	// easing is linear), and where it rests (no animation).
	const offsets = a ? a.effect.getKeyframes().map(k => k.computedOffset) : [1];
	if (a) { a.pause(); a.effect.updateTiming({ easing: "linear" }); }
	offsets.forEach((off, k) => {
		if (a) a.currentTime = end * off;
		const r = tok.getBoundingClientRect();
		for (const el of names) {
			const q = el.getBoundingClientRect();
			if (r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom)
				window.tokenOverlaps.push(lane.closest("article").dataset.handler + ": token " + tok.textContent + " at hop " + k + " (" + lane.dataset.path + ") covers " + el.textContent);
		}
		window.tokenChecks++;
	});
	if (a) { a.currentTime = end; a.play(); }
}}).observe(document.body, { childList: true, subtree: true }); true`

// TestBrowserTokenUnderNames: the message token moving along a card's
// lane never covers a part's name (#28: it covered "Broker"), at any part
// of its path, at any step of the story, on a laptop and on a phone (where
// the lane wraps), in both languages, in the lab and in the presenter
// (where the token and the names are larger).
func TestBrowserTokenUnderNames(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, c := range []struct {
		name          string
		width, height int64
		lang          string
		page, next    string // the page (the lab or the presenter) and its next-step control
	}{
		{"1440-en", 1440, 1000, "en", "/lab", "step-next"},
		{"390-en", 390, 844, "en", "/lab", "step-next"},
		{"390-ru", 390, 844, "ru", "/lab", "step-next"},
		{"present-1920-en", 1920, 1080, "en", "/present/crash-before-ack", "p-next"},
		{"present-1366-ru", 1366, 768, "ru", "/present/crash-before-ack", "p-next"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := b.Tab(true, true)
			// The token moves only for a reader who did not ask for less
			// motion (the harness asks for less).
			webtest.Do(t, ctx, "allow motion", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "no-preference"}}})
				return err
			}), chromedp.EmulateViewport(c.width, c.height))
			query := "?handlers=naive,setnx&step=0&lang=" + c.lang
			if c.page == "/lab" {
				query = "?preset=crash-before-ack&handlers=naive,setnx&step=0&lang=" + c.lang
			}
			webtest.Do(t, ctx, "open the story at its start", chromedp.Navigate(b.Base+c.page+query), webtest.WaitStep(0),
				chromedp.WaitVisible(chromedp.ID(c.next)))
			webtest.Eval[bool](t, ctx, watchTokenBoxes)
			for step := 1; step <= 4; step++ {
				before := webtest.Eval[int](t, ctx, `window.tokenChecks`)
				webtest.Do(t, ctx, "next step", chromedp.Click(chromedp.ID(c.next)), webtest.WaitStep(step), webtest.Settled())
				webtest.Poll(t, ctx, "a token is measured", `window.tokenChecks > `+strconv.Itoa(before))
			}
			if got := webtest.Eval[[]string](t, ctx, `window.tokenOverlaps`); len(got) > 0 {
				t.Errorf("the token covers a name:\n%s", strings.Join(got, "\n"))
			}
			b.NoConsoleErrors()
		})
	}
}
