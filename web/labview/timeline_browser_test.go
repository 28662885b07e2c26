package labview_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserTimelineFitsItsBox checks the lab's open timeline on a phone
// and on a laptop: the diagram is no wider than its box (on a phone the
// crash is on screen, not 500 px to the right), and on the laptop a label
// reads at 11–16 px, not the 24 px of a diagram stretched to the box.
func TestBrowserTimelineFitsItsBox(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(false, true)
	for _, vp := range []struct {
		w, h   int64
		mobile bool
	}{{390, 844, true}, {1366, 768, false}} {
		var opts []chromedp.EmulateViewportOption
		if vp.mobile {
			opts = append(opts, chromedp.EmulateMobile)
		}
		webtest.Do(t, ctx, "open a run with a crash", chromedp.EmulateViewport(vp.w, vp.h, opts...),
			chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&handlers=naive&step=4"), webtest.WaitStep(4),
			chromedp.WaitVisible(chromedp.CSS("details.tl-panel[open] svg.tl")))
		eval := func(js string) float64 {
			t.Helper()
			v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => {
				const svg = document.querySelector("details.tl-panel[open] svg.tl");
				const box = svg.parentElement;
				return `+js+`;
			})()`))
			if err != nil {
				t.Fatalf("%dx%d: %s: %v", vp.w, vp.h, js, err)
			}
			return v
		}
		width, boxWidth := eval(`svg.getBoundingClientRect().width`), eval(`box.clientWidth`)
		t.Logf("%dx%d: diagram %.0f px wide, box %.0f px", vp.w, vp.h, width, boxWidth)
		if width > boxWidth+0.5 || width == 0 {
			t.Errorf("%dx%d: the diagram is %.0f px wide in a %.0f px box", vp.w, vp.h, width, boxWidth)
		}
		if right, boxRight := eval(`document.querySelector("details.tl-panel[open] .tl-cross").getBoundingClientRect().right`),
			eval(`box.getBoundingClientRect().right`); right > boxRight {
			t.Errorf("%dx%d: the crash marker ends at %.0f px, right of its box (%.0f px)", vp.w, vp.h, right, boxRight)
		}
		if vp.w == 1366 {
			px := eval(`parseFloat(getComputedStyle(svg.querySelector(".tl-label")).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width`)
			if px < 11 || px > 16 {
				t.Errorf("%dx%d: a label is drawn at %.1f px, want 11–16", vp.w, vp.h, px)
			}
		}
	}
}
