package checkpage_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserFindAFailure: from a card in the lab, "Find a failure" shows
// the handler's minimal stories; "Open in the lab" replays the first, and
// the card shows the failure; with and without JavaScript.
func TestBrowserFindAFailure(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(false, js)
			webtest.Do(t, ctx, "open the lab", chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&step=1"), webtest.WaitStep(1),
				chromedp.WaitVisible(chromedp.ID("find-naive")))
			webtest.Do(t, ctx, "find a failure", chromedp.Click(chromedp.ID("find-naive")),
				chromedp.WaitVisible(chromedp.CSS(`#story-1[data-verdict="duplicate"]`)))
			webtest.Do(t, ctx, "open it in the lab", chromedp.Click(chromedp.ID("open-1")),
				chromedp.WaitVisible(chromedp.CSS(`#card-naive[data-verdict="duplicate"]`)))
			if got := webtest.Verdicts(t, ctx); len(got) != 1 {
				t.Errorf("the replay shows %d cards, want naive's alone: %v", len(got), got)
			}
			b.NoConsoleErrors()
		})
	}
}
