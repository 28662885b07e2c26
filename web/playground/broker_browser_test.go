package playground_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/brokers"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// brokerLink is the picker's link whose label is label, found by the
// text a person reads on it.
func brokerLink(label string) chromedp.Search {
	return chromedp.Search(fmt.Sprintf(`//nav[@id="brokers"]/a[normalize-space()=%q]`, label))
}

// brokerCurrent waits until the picker marks label as the broker in use.
func brokerCurrent(label string) chromedp.Action[chromedp.Void] {
	return webtest.RetryStale(chromedp.WaitReady(chromedp.Search(fmt.Sprintf(
		`//nav[@id="brokers"]/a[@aria-current="true" and normalize-space()=%q]`, label))))
}

// TestBrowserBrokerPicker is what a person does with the broker picker
// on a lab that offers the real brokers as lab serve does (brokers.Lazy):
// pick NATS JetStream on the crash-before-ack preset, step to the end and
// read the embedded server's own answers there (the redelivery is
// NumDelivered 2), then go back to the lab model, whose page has none of
// them. In Russian the picker speaks Russian.
func TestBrowserBrokerPicker(t *testing.T) {
	z := &brokers.Lazy{}
	t.Cleanup(func() { z.Close() })
	b := webtest.NewBrowserWith(t, web.Config{Brokers: z.Available(), OpenBroker: z.Open})
	// The redelivery's answer, which only JetStream gives: the lab model
	// counts deliveries too, but never in the server's words.
	const redelivered = "NumDelivered 2 (redelivered)"
	pageText := `document.body.textContent`
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(true, js)
			webtest.Do(t, ctx, "open the preset on the lab model",
				chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&lang=en"), webtest.WaitStep(0),
				chromedp.WaitVisible(chromedp.ID("brokers")))
			if got := webtest.TextOfSel(t, ctx, `#brokers a[aria-current="true"]`); got != "lab model" {
				t.Errorf("on the model the picker marks %q, want lab model", got)
			}

			webtest.Do(t, ctx, "pick NATS JetStream", webtest.RetryStale(chromedp.Click(brokerLink("NATS JetStream"))),
				brokerCurrent("NATS JetStream"), webtest.WaitStep(0))
			if loc := webtest.Location(t, ctx); !strings.Contains(loc, "broker=nats") {
				t.Errorf("address bar after picking NATS = %q, want broker=nats in it", loc)
			}
			if got := webtest.TextOfSel(t, ctx, `#brokers a[aria-current="true"]`); got != "NATS JetStream" {
				t.Errorf("after picking NATS the picker marks %q, want NATS JetStream", got)
			}
			if n := webtest.Eval[int](t, ctx, `document.querySelectorAll('#brokers a[aria-current]').length`); n != 1 {
				t.Errorf("%d picker links are marked current, want one", n)
			}

			total := 0
			if _, err := fmt.Sscan(webtest.Attr(t, ctx, "#step-count", "data-total"), &total); err != nil || total < 4 {
				t.Fatalf("data-total = %d (%v)", total, err)
			}
			webtest.Do(t, ctx, "step to the end", webtest.ClickID("step-last"), webtest.WaitStep(total), webtest.Settled())
			if loc := webtest.Location(t, ctx); !strings.Contains(loc, "broker=nats") {
				t.Errorf("address bar after stepping = %q, the step dropped broker=nats", loc)
			}
			text := webtest.Eval[string](t, ctx, pageText)
			// The server's own words: its PubAck for the publish, then the
			// two fetches of the same message, the second after the crash.
			for _, want := range []string{"JetStream PubAck: stream seq 1", "NumDelivered 1 (first delivery)", redelivered} {
				if !strings.Contains(text, want) {
					t.Errorf("at step %d on NATS the page lacks the broker's answer %q", total, want)
				}
			}
			// A person reads the redelivery in a card's timeline: unfold
			// inbox's and the server's note is drawn in it.
			if !webtest.Eval[bool](t, ctx, `document.getElementById("timeline-inbox").open`) {
				webtest.Do(t, ctx, "unfold inbox's timeline", chromedp.Click(chromedp.CSS("#timeline-inbox > summary")))
			}
			webtest.Do(t, ctx, "the redelivery in inbox's timeline", chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(
				`//details[@id="timeline-inbox"]//*[local-name()="text" and contains(., %q)]`, redelivered))))
			// The redelivery reaches naive, which credits twice, and inbox,
			// which remembers the first and credits once.
			got := webtest.Verdicts(t, ctx)
			if v := got["naive"]; !strings.HasPrefix(v, "duplicate ") {
				t.Errorf("naive on NATS = %q, want duplicate (all cards: %v)", v, got)
			}
			if v := got["inbox"]; !strings.HasPrefix(v, "ok ") {
				t.Errorf("inbox on NATS = %q, want ok (all cards: %v)", v, got)
			}

			webtest.Do(t, ctx, "back to the lab model", webtest.RetryStale(chromedp.Click(brokerLink("lab model"))),
				brokerCurrent("lab model"), webtest.WaitStep(total))
			if loc := webtest.Location(t, ctx); strings.Contains(loc, "broker=") {
				t.Errorf("address bar on the lab model = %q, want no broker= in it", loc)
			}
			if got := webtest.TextOfSel(t, ctx, `#brokers a[aria-current="true"]`); got != "lab model" {
				t.Errorf("back on the model the picker marks %q, want lab model", got)
			}
			if text := webtest.Eval[string](t, ctx, pageText); strings.Contains(text, "JetStream PubAck") || strings.Contains(text, redelivered) {
				t.Error("the lab model's page still shows JetStream's answers")
			}
			// The model runs the same story: the verdicts do not depend on
			// the broker.
			model := webtest.Verdicts(t, ctx)
			if fmt.Sprint(model) != fmt.Sprint(got) {
				t.Errorf("the model's verdicts %v differ from NATS's %v", model, got)
			}
			b.NoConsoleErrors()
		})
	}

	t.Run("russian", func(t *testing.T) {
		ctx := b.Tab(true, true)
		webtest.Do(t, ctx, "open the preset in Russian",
			chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&lang=ru"), webtest.WaitStep(0),
			chromedp.WaitVisible(chromedp.ID("brokers")))
		if got := webtest.Attr(t, ctx, "#brokers", "aria-label"); got != "Брокер" {
			t.Errorf("the picker's aria-label in Russian = %q, want Брокер", got)
		}
		if got := webtest.TextOfSel(t, ctx, "#brokers .hint"); got != "Брокер:" {
			t.Errorf("the picker's label in Russian = %q, want Брокер:", got)
		}
		if got := webtest.TextOfSel(t, ctx, `#brokers a[aria-current="true"]`); got != "модель лаборатории" {
			t.Errorf("the model's link in Russian = %q, want модель лаборатории", got)
		}
		// A broker's own name stays as its makers spell it.
		webtest.Do(t, ctx, "pick NATS JetStream", webtest.RetryStale(chromedp.Click(brokerLink("NATS JetStream"))),
			brokerCurrent("NATS JetStream"), webtest.WaitStep(0),
			chromedp.WaitReady(chromedp.CSS(`html[lang="ru"]`)))
		if loc := webtest.Location(t, ctx); !strings.Contains(loc, "broker=nats") {
			t.Errorf("address bar after picking NATS in Russian = %q, want broker=nats in it", loc)
		}
		if got := webtest.TextOfSel(t, ctx, `#brokers a[aria-current="true"]`); got != "NATS JetStream" {
			t.Errorf("after picking NATS in Russian the picker marks %q", got)
		}
		b.NoConsoleErrors()
	})
}
