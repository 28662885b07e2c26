package playground_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// goalMet is the goal panel's rows as "label=met" in the page.
const goalMet = `[...document.querySelectorAll("#goal-panel tr.goal-item")].map(r => r.querySelector("th").textContent.trim() + "=" + r.dataset.met)`

// TestBrowserGoalAndSolution is a learner on a challenge: the goal panel
// says the verdict is not met yet and offers no solution; after one step
// of their own "Show a solution" appears, shows the steps, and playing
// them step by step turns the verdict met; with and without JavaScript,
// and the panel fits a phone's width in Russian too.
func TestBrowserGoalAndSolution(t *testing.T) {
	b, _ := newPracticeBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(mode(js), func(t *testing.T) {
			ctx := b.tab(true, js)
			do(t, ctx, "open a challenge", chromedp.EmulateViewport(1366, 768), chromedp.Navigate(b.base+"/lab?challenge=naive-twice"),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="open"] #goal-panel`)))
			if rows := strings.Join(eval[[]string](t, ctx, goalMet), " "); rows != "Verdict=false Steps=true" {
				t.Errorf("at the start the panel says %q", rows)
			}
			if eval[bool](t, ctx, `!!document.getElementById("ch-show-solution")`) {
				t.Error("a solution offered before a try")
			}
			do(t, ctx, "a try: publish", chromedp.Click(chromedp.ID("do-publish")), waitStep(1),
				chromedp.WaitVisible(chromedp.ID("ch-show-solution")))
			do(t, ctx, "show a solution", chromedp.Click(chromedp.ID("ch-show-solution")),
				chromedp.WaitVisible(chromedp.ID("ch-solution")))
			if sol := textOfSel(t, ctx, "#ch-solution pre"); !strings.Contains(sol, "deliver crash=before-ack") {
				t.Errorf("the solution shown is %q", sol)
			}
			do(t, ctx, "play it", chromedp.Click(chromedp.ID("ch-play-solution")), waitStep(0),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="open"]`)))
			if rows := strings.Join(eval[[]string](t, ctx, goalMet), " "); rows != "Verdict=false Steps=true" {
				t.Errorf("at the solution's start the panel says %q", rows)
			}
			do(t, ctx, "its first step", chromedp.Click(chromedp.ID("step-next")), waitStep(1))
			do(t, ctx, "its second step", chromedp.Click(chromedp.ID("step-next")), waitStep(2),
				chromedp.WaitVisible(chromedp.CSS(`#challenge[data-status="solved"]`)))
			if rows := strings.Join(eval[[]string](t, ctx, goalMet), " "); rows != "Verdict=true Steps=true" {
				t.Errorf("after the solution's steps the panel says %q", rows)
			}
			// The solution stays on view while it is played.
			if !eval[bool](t, ctx, `!!document.getElementById("ch-solution")`) {
				t.Error("the solution is gone while playing it")
			}
			if js {
				screenshot(t, ctx, "challenge-goal-solution", 1366, 768, false)
				do(t, ctx, "a phone in Russian", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
					chromedp.Navigate(b.base+"/lab?challenge=inbox-quarantine&lang=ru"),
					chromedp.WaitVisible(chromedp.ID("goal-panel")))
				if over := eval[bool](t, ctx, `(() => { const p = document.getElementById("goal-panel"); const r = p.getBoundingClientRect(); return r.right > innerWidth + 1 || p.scrollWidth > p.clientWidth + 1 })()`); over {
					t.Error("the goal panel is wider than a phone")
				}
				screenshot(t, ctx, "challenge-goal-phone-ru", 390, 844, true)
			}
			do(t, ctx, "the list", chromedp.EmulateViewport(1366, 768), chromedp.Navigate(b.base+"/challenges"),
				chromedp.WaitVisible(chromedp.CSS(`#ch-naive-twice [data-seen="true"]`)))
			b.noConsoleErrors()
		})
	}
}
