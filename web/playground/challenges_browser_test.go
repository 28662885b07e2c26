package playground_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserChallenge is a learner taking the first challenge: from the
// list to the lab, two step controls, the banner says solved, the next
// challenge is one click away, and the list remembers it; with and
// without JavaScript.
func TestBrowserChallenge(t *testing.T) {
	b, _ := webtest.NewPracticeBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(true, js)
			webtest.Do(t, ctx, "open the challenges", chromedp.Navigate(b.Base+"/challenges"),
				chromedp.WaitVisible(chromedp.CSS(`#ch-naive-twice[data-solved="false"] a.btn`)))
			webtest.Do(t, ctx, "start the first", chromedp.Click(chromedp.CSS(`#ch-naive-twice a.btn`)),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="open"]`)))
			if js {
				webtest.MarkPage(t, ctx)
			}
			webtest.Do(t, ctx, "publish", chromedp.Click(chromedp.ID("do-publish")), webtest.WaitStep(1),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="open"]`)))
			webtest.Do(t, ctx, "crash before the ack", chromedp.Click(chromedp.ID("do-crash-before-ack")), webtest.WaitStep(2),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="solved"]`)))
			if msg := webtest.TextOfSel(t, ctx, "#ch-status"); !strings.Contains(msg, "Solved in 2 steps") {
				t.Errorf("banner says %q", msg)
			}
			if js && !webtest.PageKept(t, ctx) {
				t.Error("the page reloaded on a step control")
			}
			if js {
				webtest.Screenshot(t, ctx, "challenge-solved", 1366, 768, false)
			}
			webtest.Do(t, ctx, "the next challenge", chromedp.Click(chromedp.ID("ch-next")),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-challenge="broker-id-is-not-a-key"][data-status="open"]`)))
			webtest.Do(t, ctx, "back to the list", chromedp.Navigate(b.Base+"/challenges"),
				chromedp.WaitVisible(chromedp.CSS(`#ch-naive-twice[data-solved="true"]`)))
			if n := webtest.TextOfSel(t, ctx, "#ch-count"); !strings.Contains(n, fmt.Sprintf("1 of %d solved", len(practice.Challenges()))) {
				t.Errorf("count = %q", n)
			}
			b.NoConsoleErrors()
		})
	}
}
