package playground_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserAPIPreset: a person opens an API preset, steps through it
// and sees, on the timeline of the handler the story is about, the 201
// the client never got and then the saved answer replayed to its retry;
// with and without JavaScript.
func TestBrowserAPIPreset(t *testing.T) {
	b := webtest.NewBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(false, js)
			webtest.Do(t, ctx, "load the API preset", chromedp.Navigate(b.Base+"/lab?preset=api-lost-response"), webtest.WaitStep(0))
			if got := webtest.Attr(t, ctx, "#preset option[value=api-lost-response]", "value"); got != "api-lost-response" {
				t.Fatalf("the picker does not offer the API preset: %q", got)
			}
			webtest.Do(t, ctx, "next to step 1", chromedp.Click(chromedp.ID("step-next")), webtest.WaitStep(1))
			tl := timelineText(t, ctx, "api-idempotency-key")
			for _, want := range []string{"Client", "Server", "POST /payments", "201 Created"} {
				if !strings.Contains(tl, want) {
					t.Errorf("step 1: the timeline does not show %q:\n%s", want, tl)
				}
			}
			webtest.Do(t, ctx, "next to step 2", chromedp.Click(chromedp.ID("step-next")), webtest.WaitStep(2))
			tl = timelineText(t, ctx, "api-idempotency-key")
			if !strings.Contains(tl, "Idempotent-Replayed") {
				t.Errorf("step 2: the timeline does not show the replayed answer:\n%s", tl)
			}
			got := webtest.Verdicts(t, ctx)
			webtest.WantCard(t, got, "api-idempotency-key", "ok 100.00")
			webtest.WantCard(t, got, "api-naive", "duplicate 200.00")
			// The client's controls add a step: one more retry, answered
			// from the saved response again.
			webtest.Do(t, ctx, "open the step controls", chromedp.Click(chromedp.CSS("#controls > summary")),
				chromedp.WaitVisible(chromedp.ID("do-api-retry")))
			if js {
				webtest.Screenshot(t, ctx, "lab-api-lost-response", 1440, 1000, false)
			}
			webtest.Do(t, ctx, "retry again", chromedp.Click(chromedp.ID("do-api-retry")), webtest.WaitStep(3))
			if tl := timelineText(t, ctx, "api-idempotency-key"); strings.Count(tl, "Idempotent-Replayed") < 2 {
				t.Errorf("step 3: the second retry is not answered from the saved response:\n%s", tl)
			}
			b.NoConsoleErrors()
		})
	}
}

// timelineText is the text a handler's timeline draws, its tooltips
// included (long labels are cut short on the picture itself).
func timelineText(t *testing.T, ctx context.Context, handler string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[string](`document.getElementById("timeline-body-`+handler+`").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
