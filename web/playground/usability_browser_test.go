package playground_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserIdleButtonsAndPresetPicker: on an empty queue the deliver
// button is disabled and says why; a preset picked from the dropdown opens
// at step 0 with the handlers its narration is about.
func TestBrowserIdleButtonsAndPresetPicker(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(false, true)
	deliverDisabled := func() bool {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("do-deliver").disabled`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	webtest.Do(t, ctx, "open the empty lab", chromedp.Navigate(b.Base+"/lab"), chromedp.WaitVisible(chromedp.ID("do-publish")))
	if !deliverDisabled() || webtest.Attr(t, ctx, "#do-deliver", "title") == "" || webtest.Attr(t, ctx, "#do-deliver", "aria-describedby") != "why-no-deliver" {
		t.Error("deliver on an empty queue should be disabled, with its reason")
	}
	webtest.Do(t, ctx, "publish", chromedp.Click(chromedp.ID("do-publish")), webtest.WaitStep(1))
	if deliverDisabled() {
		t.Error("a ready message: deliver should be enabled")
	}
	webtest.Do(t, ctx, "pick a preset", chromedp.SetValue(chromedp.ID("preset"), "gateway-failure"),
		chromedp.Click(`#preset-form button[type=submit]`), webtest.WaitStep(0),
		chromedp.WaitVisible(chromedp.ID("card-setnx-no-release")), chromedp.WaitVisible(chromedp.ID("preset-start-rule")))
	b.NoConsoleErrors()
}
