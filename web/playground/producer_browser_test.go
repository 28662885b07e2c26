package playground_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserOutboxRelayCrash steps through the outbox preset whose relay
// dies after publishing: at the end naive's card says duplicate, and its
// timeline shows the relay publishing the same outbox row twice, as arrows
// from the producer's column to the broker, the second in step 4.
func TestBrowserOutboxRelayCrash(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(false, true)
	webtest.Do(t, ctx, "load the preset", chromedp.Navigate(b.Base+"/lab?preset=outbox-relay-crash"), webtest.WaitStep(0))
	var total int
	if _, err := fmt.Sscan(webtest.Attr(t, ctx, "#step-count", "data-total"), &total); err != nil || total < 4 {
		t.Fatalf("data-total = %d (%v)", total, err)
	}
	for step := 1; step <= total; step++ {
		webtest.Do(t, ctx, fmt.Sprintf("next to step %d", step), chromedp.Click(chromedp.ID("step-next")), webtest.WaitStep(step))
	}
	got := webtest.Verdicts(t, ctx)
	if v := got["naive"]; !strings.HasPrefix(v, "duplicate ") {
		t.Errorf("naive = %q at the end, want duplicate", v)
	}
	webtest.Do(t, ctx, "open naive's timeline", chromedp.SetAttributeValue(chromedp.ID("timeline-naive"), "open", ""),
		chromedp.WaitVisible(chromedp.CSS("#timeline-naive svg.tl")))
	publishes, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[[]string](`(() => {
		const svg = document.querySelector("#timeline-naive svg.tl");
		let step = 0;
		const out = [];
		for (const g of svg.querySelectorAll("g")) {
			const m = (g.id || "").match(/step-(\d+)$/);
			if (m) { step = +m[1]; continue; }
			if (!g.classList.contains("tl-k-publish")) continue;
			const title = g.querySelector("title");
			const line = g.querySelector("line.tl-arrow");
			if (title && title.textContent.startsWith("relay:") && line) {
				out.push(step + " " + (+line.getAttribute("x2") > +line.getAttribute("x1") ? "right" : "left"));
			}
		}
		return out;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(publishes, ",") != "2 right,4 right" {
		t.Errorf("the relay's publishes on naive's timeline = %q, want steps 2 and 4, arrows towards the broker", publishes)
	}
	tag := webtest.TextOfSel(t, ctx, "#timeline-naive .tl-k-side .tl-side-text")
	if tag != "Order service" {
		t.Errorf("the first side row's tag = %q, want the order service's", tag)
	}
	b.NoConsoleErrors()
}
