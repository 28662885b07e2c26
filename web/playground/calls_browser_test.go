package playground_test

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserCrashAtACall: a person picks an I/O call by its number and
// crashes the worker right after it, with and without JavaScript. naive's
// only call is its UPDATE, so dying after it is dying before the ack; the
// timeline numbers the call and shows where the worker died.
func TestBrowserCrashAtACall(t *testing.T) {
	b := newBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(mode(js), func(t *testing.T) {
			ctx := b.tab(false, js)
			do(t, ctx, "open the empty lab", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.ID("do-publish")))
			do(t, ctx, "publish", chromedp.Click(chromedp.ID("do-publish")), waitStep(1))
			do(t, ctx, "crash after call 1",
				chromedp.SetValue(chromedp.ID("crash-call"), "1"),
				chromedp.Click(chromedp.ID("do-crash-after-call")), waitStep(2))
			got := verdicts(t, ctx)
			// The cards show the balance now and the settled verdict. Call 1
			// is each handler's own: naive's UPDATE went through (the
			// redelivery will credit again); unique's is BEGIN, rolled
			// back with the worker; setnx's is its claim, which outlives
			// the worker and makes the redelivery skip the charge.
			wantCard(t, got, "naive", "duplicate 100.00")
			wantCard(t, got, "unique", "ok 0.00")
			wantCard(t, got, "setnx", "lost 0.00")
			for _, want := range []string{"#1 UPDATE accounts", "worker dies right after its call 1"} {
				shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.body.textContent.includes(`+strconv.Quote(want)+`)`))
				if err != nil || !shown {
					t.Errorf("the page does not show %q (%v)", want, err)
				}
			}
			b.noConsoleErrors()
		})
	}
}
