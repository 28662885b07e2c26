package playground_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserMatrix opens the verdict grid, checks it on a phone (the
// table scrolls, the page does not), clicks a cell and lands on the lab
// showing that preset on that handler.
func TestBrowserMatrix(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(false, js)
			cell := `tr[data-preset="crash-before-ack"] td[data-handler="naive"] a`
			webtest.Do(t, ctx, "open the grid", chromedp.Navigate(b.Base+"/matrix"),
				chromedp.WaitVisible(chromedp.CSS(cell)))
			if js {
				webtest.ScreenshotWhen(t, ctx, "matrix-phone", 390, 844, true, "#matrix")
				webtest.ScreenshotWhen(t, ctx, "matrix-projector", 1440, 1000, false, "#matrix")
			}
			webtest.Do(t, ctx, "click crash-before-ack × naive", chromedp.Click(chromedp.CSS(cell)),
				chromedp.WaitVisible(chromedp.CSS(`article.card[data-handler="naive"]`)))
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			loc, err := chromedp.Run(wctx, chromedp.Location())
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(loc)
			if err != nil {
				t.Fatal(err)
			}
			if u.Path != "/lab" || u.Query().Get("preset") != "crash-before-ack" || u.Query().Get("handlers") != "naive" ||
				u.Query().Get("step") != "4" {
				t.Errorf("the cell led to %s, want the lab with preset=crash-before-ack&handlers=naive&step=4", loc)
			}
			if got := webtest.Verdicts(t, ctx)["naive"]; got != "duplicate 200.00" {
				t.Errorf("the lab shows naive as %q, want duplicate 200.00", got)
			}
		})
	}
	b.NoConsoleErrors()
}
