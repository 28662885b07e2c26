package playground_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserStepKeepsPlace: at a laptop's 1366×768, stepping with Next
// keeps the window where it was and the focus on Next, and the first
// screen shows the step controls and the first card's verdict.
func TestBrowserStepKeepsPlace(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(false, true)
	webtest.Do(t, ctx, "open the preset at step 1", chromedp.EmulateViewport(1366, 768),
		chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&step=1"), webtest.WaitStep(1),
		chromedp.WaitVisible(chromedp.CSS("article.card")))
	eval := func(js string) float64 {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	if bottom := eval(`document.querySelector("article.card .verdict .badge").getBoundingClientRect().bottom`); bottom > 768 {
		t.Errorf("the first card's verdict ends at %.0f px, below the 768 px first screen", bottom)
	}
	// Every core handler's balance and verdict, not only the first card's.
	if bottom := eval(`Math.max(...[...document.querySelectorAll("article.card")].filter(c => c.querySelector(".kind.core")).map(c => c.querySelector(".verdict .badge").getBoundingClientRect().bottom))`); bottom > 768 {
		t.Errorf("a core handler's verdict ends at %.0f px, below the 768 px first screen", bottom)
	}
	if open := eval(`document.getElementById("controls").open ? 1 : 0`); open != 0 {
		t.Error("a preset should open with the Add a step panel folded")
	}
	if bottom := eval(`document.getElementById("step-next").getBoundingClientRect().bottom`); bottom > 768 {
		t.Errorf("Next ends at %.0f px, below the first screen", bottom)
	}
	eval(`window.scrollTo(0, 120), window.scrollY`)
	before := eval(`window.scrollY`)
	webtest.Do(t, ctx, "press Next", chromedp.Click(chromedp.ID("step-next")), webtest.WaitStep(2))
	// The swap settles after the new step shows; wait for htmx to finish.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping")`)); err != nil {
		t.Fatal(err)
	}
	after := eval(`window.scrollY`)
	if d := after - before; d > 4 || d < -4 {
		t.Errorf("Next moved the window from scrollY %.0f to %.0f", before, after)
	}
	active, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement ? document.activeElement.id : ""`))
	if err != nil {
		t.Fatal(err)
	}
	if active != "step-next" {
		t.Errorf("after Next the focus is on %q, want step-next", active)
	}

	// On a phone, → from far down the page (the cards) steps without
	// jumping back to the top.
	webtest.Do(t, ctx, "a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), webtest.WaitStep(2))
	eval(`document.querySelector("section.cards").scrollIntoView(), window.scrollY`)
	before = eval(`window.scrollY`)
	if before < 500 {
		t.Fatalf("the cards start at scrollY %.0f on a phone; the check needs a page scrolled down", before)
	}
	webtest.Do(t, ctx, "press →", chromedp.KeyEvent(kb.ArrowRight), webtest.WaitStep(3))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping")`)); err != nil {
		t.Fatal(err)
	}
	// The narration above changes length with the step, so the cards may
	// move by a line or two, but the window must not jump back up.
	if after := eval(`window.scrollY`); after-before > 80 || before-after > 80 {
		t.Errorf("on a phone → moved the window from scrollY %.0f to %.0f", before, after)
	}
	b.NoConsoleErrors()
}

// TestBrowserSourceScrollsInCard: with every handler, five cards share a
// row at 1920×1080; a handler's source scrolls inside its card instead of
// pushing past it or being clipped.
func TestBrowserSourceScrollsInCard(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(false, true)
	webtest.Do(t, ctx, "open all handlers", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&handlers=all&step=4"), webtest.WaitStep(4),
		chromedp.WaitVisible(chromedp.CSS("article.card")))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelectorAll("details.source, details.code-fold").forEach(d => d.open = true), true`)); err != nil {
		t.Fatal(err)
	}
	bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("article.card")].flatMap(card => {
		const out = [];
		if (card.scrollWidth > card.clientWidth) out.push(card.id + ": card " + card.scrollWidth + " > " + card.clientWidth);
		const pre = card.querySelector("details.source > pre.code");
		if (!pre) { out.push(card.id + ": no source"); return out; }
		const style = getComputedStyle(pre);
		if (pre.scrollWidth > pre.clientWidth && !/auto|scroll/.test(style.overflowX)) out.push(card.id + ": source clipped");
		const cr = card.getBoundingClientRect(), pr = pre.getBoundingClientRect();
		if (pr.right > cr.right + 0.5) out.push(card.id + ": source sticks out by " + (pr.right - cr.right));
		// Nothing in the card sticks out past its right edge, except inside
		// a box that scrolls sideways.
		for (const el of card.querySelectorAll("*")) {
			let box = el.parentElement, scrolls = false;
			for (; box && box !== card; box = box.parentElement) {
				if (/auto|scroll/.test(getComputedStyle(box).overflowX)) { scrolls = true; break; }
			}
			if (scrolls) continue;
			const r = el.getBoundingClientRect();
			if (r.width > 0 && r.right > cr.right + 0.5) { out.push(card.id + ": " + el.tagName + "." + el.className + " sticks out by " + Math.round(r.right - cr.right)); break; }
		}
		return out;
	})`))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range bad {
		t.Error(m)
	}
	b.NoConsoleErrors()
}
