package costpage_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// costLayout is what TestBrowserCostPicker measures of the page.
type costLayout struct {
	Wider    int     // how far the page is wider than the viewport
	Smallest float64 // the smallest text on the page as drawn, px (an SVG's text scaled as its box is)
	Where    string  // that text, to say which
	Overflow []string
	Shown    []string // the handler charts showing
}

// costMeasure: the page's width, its smallest visible text as rendered
// (a font size times the scale its SVG is drawn at), the charts that
// overflow their box, and which handler charts show.
const costMeasure = `(() => {
	const out = {Wider: document.documentElement.scrollWidth - document.documentElement.clientWidth, Smallest: 1e9, Where: "", Overflow: [], Shown: []};
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		const el = n.parentElement;
		if (!n.textContent.trim() || !el || el.closest("[hidden], script, style, title, noscript")) continue;
		if (el.getClientRects().length === 0) continue;
		const r = document.createRange(); r.selectNodeContents(n);
		if (r.getBoundingClientRect().width === 0) continue; // not drawn (e.g. visually hidden)
		const cs = getComputedStyle(el);
		if (cs.visibility === "hidden" || cs.display === "none") continue;
		if (el.closest(".visually-hidden, .sr-only")) continue;
		let size = parseFloat(cs.fontSize);
		if (el instanceof SVGElement && el.getScreenCTM) size *= el.getScreenCTM().a;
		if (size < out.Smallest) { out.Smallest = size; out.Where = el.tagName.toLowerCase() + "." + (el.getAttribute("class") || "") + ": " + n.textContent.trim().slice(0, 40); }
	}
	for (const f of document.querySelectorAll(".cost-bars")) {
		if (!f.hidden && f.scrollWidth > f.clientWidth + 1) out.Overflow.push(f.id + " " + f.scrollWidth + " > " + f.clientWidth);
	}
	for (const f of document.querySelectorAll(".cost-bars[data-metric]")) {
		if (f.getClientRects().length > 0) out.Shown.push(f.id);
	}
	return out;
})()`

// TestBrowserCostPicker: /cost on a phone (390 px) and a laptop (1366
// px), in both languages, with and without JavaScript: the page is no
// wider than the screen, no text is drawn under 12 px, one handler chart
// shows per measurement, and the picker switches it (in place with the
// script, keeping ?metric= in the address; by loading the page without).
func TestBrowserCostPicker(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, js := range []bool{true, false} {
		for _, size := range []struct {
			w, h   int64
			mobile bool
		}{{390, 844, true}, {1366, 768, false}} {
			for _, lang := range []string{"en", "ru"} {
				t.Run(fmt.Sprintf("%s/%d/%s", webtest.Mode(js), size.w, lang), func(t *testing.T) {
					ctx := b.Tab(false, js)
					var opts []chromedp.EmulateViewportOption
					if size.mobile {
						opts = append(opts, chromedp.EmulateMobile)
					}
					webtest.Do(t, ctx, "open the cost page", chromedp.EmulateViewport(size.w, size.h, opts...),
						chromedp.Navigate(b.Base+"/cost?lang="+lang), chromedp.WaitVisible(chromedp.ID("ref-emb-speed")))
					webtest.Poll(t, ctx, "the page settles", `document.readyState === "complete"`)
					got := webtest.Eval[costLayout](t, ctx, costMeasure)
					if got.Wider > 0 {
						t.Errorf("the page is %d px wider than the %d px viewport", got.Wider, size.w)
					}
					t.Logf("smallest text: %.1f px (%s)", got.Smallest, got.Where)
					if got.Smallest < 12 {
						t.Errorf("text drawn at %.1f px (%s): want 12 px or more", got.Smallest, got.Where)
					}
					if len(got.Overflow) > 0 {
						t.Errorf("charts wider than their box: %v", got.Overflow)
					}
					if strings.Join(got.Shown, " ") != "ref-emb-speed ref-real-speed" {
						t.Errorf("charts showing: %v, want the speed chart of each run", got.Shown)
					}

					// Pick p99 in the embedded run's picker.
					webtest.Do(t, ctx, "mark the page", chromedp.Evaluate[chromedp.Void](`window.costMark = 1`))
					webtest.Do(t, ctx, "pick p99", chromedp.Click(chromedp.CSS(`#ref-emb .cost-pick[data-metric="p99"]`)),
						chromedp.WaitVisible(chromedp.ID("ref-emb-p99")), chromedp.WaitNotVisible(chromedp.ID("ref-emb-speed")))
					if loc := webtest.Location(t, ctx); !strings.Contains(loc, "metric=p99") || !strings.Contains(loc, "lang="+lang) {
						t.Errorf("the address is %s: want metric=p99 and the language kept", loc)
					}
					if kept := webtest.Eval[bool](t, ctx, `window.costMark === 1`); kept != js {
						t.Errorf("the page kept its state: %v (want %v: in place with the script, a load without)", kept, js)
					}
					got = webtest.Eval[costLayout](t, ctx, costMeasure)
					if strings.Join(got.Shown, " ") != "ref-emb-p99 ref-real-p99" {
						t.Errorf("after picking p99 the charts showing are %v", got.Shown)
					}
					if got.Wider > 0 || got.Smallest < 12 || len(got.Overflow) > 0 {
						t.Errorf("the p99 chart: %d px too wide, smallest text %.1f px (%s), overflowing %v", got.Wider, got.Smallest, got.Where, got.Overflow)
					}
					marked := webtest.Eval[[]string](t, ctx, `[...document.querySelectorAll('.cost-pick[aria-current="true"]')].map(a => a.dataset.metric)`)
					if strings.Join(marked, " ") != "p99 p99" {
						t.Errorf("the pickers mark %v, want p99 in both", marked)
					}
					if js {
						// The form carries the chart, so a run opens on it; Back
						// returns to the chart before.
						if v := webtest.Eval[string](t, ctx, `(i => i.disabled ? "" : i.value)(document.getElementById("cost-metric"))`); v != "p99" {
							t.Errorf("the bench form carries metric %q, want p99", v)
						}
						webtest.Do(t, ctx, "go back", chromedp.Evaluate[chromedp.Void](`history.back()`),
							chromedp.WaitVisible(chromedp.ID("ref-emb-speed")), chromedp.WaitNotVisible(chromedp.ID("ref-emb-p99")))
						if loc := webtest.Location(t, ctx); strings.Contains(loc, "metric=") {
							t.Errorf("after Back the address is %s", loc)
						}
					}
					b.NoConsoleErrors()
				})
			}
		}
	}
}
