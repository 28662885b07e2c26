package classroom_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserPresentAPIStory: an instructor presents an API story from the
// keyboard: → steps it to the replayed answer, and a handler key toggles
// an API handler off.
func TestBrowserPresentAPIStory(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "present api-lost-response", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.Base+"/present/api-lost-response"), webtest.WaitStep(0))
	for step := 1; step <= 2; step++ {
		webtest.Do(t, ctx, "→", chromedp.KeyEvent(kb.ArrowRight), webtest.WaitStep(step))
	}
	webtest.Do(t, ctx, "the right server replays, the naive one charges twice",
		chromedp.WaitVisible(chromedp.CSS(`#card-api-idempotency-key[data-verdict="ok"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#card-api-naive[data-verdict="duplicate"]`)))
	webtest.Do(t, ctx, "key 1 hides the first API handler", chromedp.KeyEvent("1"),
		chromedp.WaitNotPresent(chromedp.ID("card-api-idempotency-key")))
	b.NoConsoleErrors()
}
