package costpage_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserCost: a small bench from the cost page shows its results
// (charts and a row per handler) beside the reference run; with
// JavaScript the results arrive over the event stream with a progress
// bar, without it the form loads the page with them.
func TestBrowserCost(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(false, js)
			webtest.Do(t, ctx, "open the cost page", chromedp.Navigate(b.Base+"/cost"),
				chromedp.WaitVisible(chromedp.ID("ref-emb-speed")))
			webtest.Do(t, ctx, "ask for a small bench",
				chromedp.SetValue(chromedp.ID("cost-messages"), "20"),
				chromedp.SetValue(chromedp.ID("cost-keys"), "1000"),
				chromedp.Click(chromedp.ID("cost-go")),
				chromedp.WaitVisible(chromedp.ID("cost-results-title")),
				chromedp.WaitVisible(chromedp.ID("run-speed")))
			rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#cost-results tr[data-handler]").length`))
			if err != nil {
				t.Fatal(err)
			}
			if rows != 5 {
				t.Errorf("%d handler rows, want the 5 core handlers", rows)
			}
			b.NoConsoleErrors()
		})
	}
}
