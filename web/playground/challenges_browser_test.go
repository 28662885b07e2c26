package playground_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/idempotency-lab/lab/practice"
)

// TestBrowserChallenge is a learner taking the first challenge: from the
// list to the lab, two step controls, the banner says solved, the next
// challenge is one click away, and the list remembers it; with and
// without JavaScript.
func TestBrowserChallenge(t *testing.T) {
	b, _ := newPracticeBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(mode(js), func(t *testing.T) {
			ctx := b.tab(true, js)
			do(t, ctx, "open the challenges", chromedp.Navigate(b.base+"/challenges"),
				chromedp.WaitVisible(chromedp.CSS(`#ch-naive-twice[data-solved="false"] a.btn`)))
			do(t, ctx, "start the first", chromedp.Click(chromedp.CSS(`#ch-naive-twice a.btn`)),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="open"]`)))
			if js {
				markPage(t, ctx)
			}
			do(t, ctx, "publish", chromedp.Click(chromedp.ID("do-publish")), waitStep(1),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="open"]`)))
			do(t, ctx, "crash before the ack", chromedp.Click(chromedp.ID("do-crash-before-ack")), waitStep(2),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="solved"]`)))
			if msg := textOfSel(t, ctx, "#ch-status"); !strings.Contains(msg, "Solved in 2 steps") {
				t.Errorf("banner says %q", msg)
			}
			if js && !pageKept(t, ctx) {
				t.Error("the page reloaded on a step control")
			}
			if js {
				screenshot(t, ctx, "challenge-solved", 1366, 768, false)
			}
			do(t, ctx, "the next challenge", chromedp.Click(chromedp.ID("ch-next")),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-challenge="broker-id-is-not-a-key"][data-status="open"]`)))
			do(t, ctx, "back to the list", chromedp.Navigate(b.base+"/challenges"),
				chromedp.WaitVisible(chromedp.CSS(`#ch-naive-twice[data-solved="true"]`)))
			if n := textOfSel(t, ctx, "#ch-count"); !strings.Contains(n, fmt.Sprintf("1 of %d solved", len(practice.Challenges()))) {
				t.Errorf("count = %q", n)
			}
			b.noConsoleErrors()
		})
	}
}
