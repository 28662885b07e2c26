package playground_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// goalMet is the goal panel's rows as "label=met" in the page.
const goalMet = `[...document.querySelectorAll("#goal-panel tr.goal-item")].map(r => r.querySelector("th").textContent.trim() + "=" + r.dataset.met)`

// TestBrowserGoalAndSolution is a learner on a challenge: the goal panel
// says the verdict is not met yet and offers no solution; after one step
// of their own "Show a solution" appears, shows the steps, and playing
// them step by step turns the verdict met; with and without JavaScript,
// and the panel fits a phone's width in Russian too.
func TestBrowserGoalAndSolution(t *testing.T) {
	b, _ := webtest.NewPracticeBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(true, js)
			webtest.Do(t, ctx, "open a challenge", chromedp.EmulateViewport(1366, 768), chromedp.Navigate(b.Base+"/lab?challenge=naive-twice"),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="open"] #goal-panel`)))
			if rows := strings.Join(webtest.Eval[[]string](t, ctx, goalMet), " "); rows != "Verdict=false Steps=true" {
				t.Errorf("at the start the panel says %q", rows)
			}
			if webtest.Eval[bool](t, ctx, `!!document.getElementById("ch-show-solution")`) {
				t.Error("a solution offered before a try")
			}
			webtest.Do(t, ctx, "a try: publish", chromedp.Click(chromedp.ID("do-publish")), webtest.WaitStep(1),
				chromedp.WaitVisible(chromedp.ID("ch-show-solution")))
			webtest.Do(t, ctx, "show a solution", chromedp.Click(chromedp.ID("ch-show-solution")),
				chromedp.WaitVisible(chromedp.ID("ch-solution")))
			if sol := webtest.TextOfSel(t, ctx, "#ch-solution pre"); !strings.Contains(sol, "deliver crash=before-ack") {
				t.Errorf("the solution shown is %q", sol)
			}
			webtest.Do(t, ctx, "play it", chromedp.Click(chromedp.ID("ch-play-solution")), webtest.WaitStep(0),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="open"]`)))
			if rows := strings.Join(webtest.Eval[[]string](t, ctx, goalMet), " "); rows != "Verdict=false Steps=true" {
				t.Errorf("at the solution's start the panel says %q", rows)
			}
			webtest.Do(t, ctx, "its first step", chromedp.Click(chromedp.ID("step-next")), webtest.WaitStep(1))
			webtest.Do(t, ctx, "its second step", chromedp.Click(chromedp.ID("step-next")), webtest.WaitStep(2),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="solved"]`)))
			if rows := strings.Join(webtest.Eval[[]string](t, ctx, goalMet), " "); rows != "Verdict=true Steps=true" {
				t.Errorf("after the solution's steps the panel says %q", rows)
			}
			// The solution stays on view while it is played.
			if !webtest.Eval[bool](t, ctx, `!!document.getElementById("ch-solution")`) {
				t.Error("the solution is gone while playing it")
			}
			if js {
				webtest.Screenshot(t, ctx, "challenge-goal-solution", 1366, 768, false)
				webtest.Do(t, ctx, "a phone in Russian", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
					chromedp.Navigate(b.Base+"/lab?challenge=inbox-quarantine&lang=ru"),
					chromedp.WaitVisible(chromedp.ID("goal-panel")))
				if over := webtest.Eval[bool](t, ctx, `(() => { const p = document.getElementById("goal-panel"); const r = p.getBoundingClientRect(); return r.right > innerWidth + 1 || p.scrollWidth > p.clientWidth + 1 })()`); over {
					t.Error("the goal panel is wider than a phone")
				}
				webtest.Screenshot(t, ctx, "challenge-goal-phone-ru", 390, 844, true)
			}
			webtest.Do(t, ctx, "the list", chromedp.EmulateViewport(1366, 768), chromedp.Navigate(b.Base+"/challenges"),
				chromedp.WaitVisible(chromedp.CSS(`#ch-naive-twice [data-seen="true"]`)))
			b.NoConsoleErrors()
		})
	}
}
