package playground_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserPhoneShowsVerdictsFirst: on a phone, a preset's first screen
// shows every handler's verdict (the strip, each a link to its card), and
// the cards come before the folded step controls.
func TestBrowserPhoneShowsVerdictsFirst(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(false, true)
	webtest.Do(t, ctx, "a phone on a preset", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&step=4"), webtest.WaitStep(4),
		chromedp.WaitVisible(chromedp.ID("verdict-strip")))
	bottom := webtest.Eval[float64](t, ctx, `document.getElementById("verdict-strip").getBoundingClientRect().bottom + scrollY`)
	if bottom > 844 {
		t.Errorf("the verdict strip ends at %.0f px, below the first screen (844)", bottom)
	}
	strip := webtest.Eval[[]string](t, ctx, `[...document.querySelectorAll("#verdict-strip li")].map(li => li.dataset.handler + " " + li.querySelector(".mini-badge").dataset.verdict)`)
	cards := webtest.Eval[[]string](t, ctx, `[...document.querySelectorAll("article.card")].map(c => c.dataset.handler + " " + c.dataset.verdict)`)
	if len(strip) == 0 || len(strip) != len(cards) {
		t.Fatalf("strip %v, cards %v", strip, cards)
	}
	for i := range strip {
		if strip[i] != cards[i] {
			t.Errorf("strip says %q, the card %q", strip[i], cards[i])
		}
	}
	order := webtest.Eval[bool](t, ctx, `document.querySelector("section.cards").getBoundingClientRect().top < document.getElementById("controls").getBoundingClientRect().top`)
	if !order {
		t.Error("on a phone the folded step controls come before the cards")
	}
	webtest.Screenshot(t, ctx, "lab-phone-verdicts", 390, 844, true)
	// On a desktop the strip is not shown: the cards are in view.
	webtest.Do(t, ctx, "a desktop", chromedp.EmulateViewport(1366, 768), webtest.WaitStep(4))
	if shown := webtest.Eval[bool](t, ctx, `getComputedStyle(document.getElementById("verdict-strip")).display !== "none"`); shown {
		t.Error("the verdict strip shows on a desktop")
	}
	b.NoConsoleErrors()
}
