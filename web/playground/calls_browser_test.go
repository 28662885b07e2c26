package playground_test

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserCrashAtACall: a person picks an I/O call by its number and
// crashes the worker right after it, with and without JavaScript. naive's
// only call is its UPDATE, so dying after it is dying before the ack; the
// timeline numbers the call and shows where the worker died.
func TestBrowserCrashAtACall(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(false, js)
			webtest.Do(t, ctx, "open the empty lab", chromedp.Navigate(b.Base+"/"), chromedp.WaitVisible(chromedp.ID("do-publish")))
			webtest.Do(t, ctx, "publish", chromedp.Click(chromedp.ID("do-publish")), webtest.WaitStep(1))
			webtest.Do(t, ctx, "crash after call 1",
				chromedp.SetValue(chromedp.ID("crash-call"), "1"),
				chromedp.Click(chromedp.ID("do-crash-after-call")), webtest.WaitStep(2))
			got := webtest.Verdicts(t, ctx)
			// The cards show the balance now and the settled verdict. Call 1
			// is each handler's own: naive's UPDATE went through (the
			// redelivery will credit again); unique's is BEGIN, rolled
			// back with the worker; setnx's is its claim, which outlives
			// the worker and makes the redelivery skip the charge.
			webtest.WantCard(t, got, "naive", "duplicate 100.00")
			webtest.WantCard(t, got, "unique", "ok 0.00")
			webtest.WantCard(t, got, "setnx", "lost 0.00")
			for _, want := range []string{"#1 UPDATE accounts", "worker dies right after its call 1"} {
				shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.body.textContent.includes(`+strconv.Quote(want)+`)`))
				if err != nil || !shown {
					t.Errorf("the page does not show %q (%v)", want, err)
				}
			}
			b.NoConsoleErrors()
		})
	}
}
