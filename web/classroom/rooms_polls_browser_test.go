package classroom_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserVerdictPoll: the instructor asks for naive's verdict after
// step 4 of crash-before-ack; a student answers by a radio button, live;
// the instructor reveals the step, and the student's page, without a
// reload, marks the right answer (DUPLICATE) as the student's own.
func TestBrowserVerdictPoll(t *testing.T) {
	b := webtest.NewBrowser(t)
	teacher := b.Tab(true, true)
	student := b.Tab(true, true)

	webtest.Do(t, teacher, "open a room at step 3", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.Base+"/present/crash-before-ack?handlers=naive,inbox&step=3"), webtest.WaitStep(3),
		chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")), webtest.WaitStep(3))
	code := webtest.Attr(t, teacher, "#room-code", "data-code")
	webtest.Do(t, student, "join", chromedp.Navigate(b.Base+"/rooms/"+code), chromedp.Click(chromedp.ID("join-go")), webtest.WaitStep(3),
		chromedp.WaitVisible(chromedp.CSS(`#p-live[data-state="live"]`)))
	webtest.MarkPage(t, student)

	webtest.Do(t, teacher, "ask for a verdict", chromedp.SetValue(chromedp.ID("poll-kind"), "verdict"),
		chromedp.SetValue(chromedp.ID("poll-handler"), "naive"),
		chromedp.Click(chromedp.ID("open-poll")), chromedp.WaitVisible(chromedp.CSS(`#poll-votes[data-votes="0"]`)))
	webtest.Do(t, student, "the question appears with the verdicts to choose from", chromedp.WaitVisible(chromedp.ID("vote-choice-2")))
	if q := webtest.TextOfSel(t, student, ".poll-q"); !strings.Contains(q, "naive's verdict") || !strings.Contains(q, "step 4") {
		t.Errorf("question = %q", q)
	}
	if got := webtest.TextOfSel(t, student, "#vote-options"); !strings.Contains(got, "DUPLICATE") || !strings.Contains(got, "SILENT CONFLICT") {
		t.Errorf("the options = %q", got)
	}
	webtest.Do(t, student, "answer DUPLICATE", chromedp.Click(chromedp.ID("vote-choice-2")),
		chromedp.Click(chromedp.ID("vote-send")), chromedp.WaitVisible(chromedp.ID("poll-mine")))
	if got := webtest.TextOfSel(t, student, ".poll-chart"); got != "" {
		t.Errorf("the student sees the tally before the reveal: %q", got)
	}
	if got := webtest.Attr(t, student, "#card-naive", "data-verdict"); got != "hidden" {
		t.Errorf("the student's card shows the verdict %q before the reveal", got)
	}
	webtest.Do(t, teacher, "the instructor sees the answer", chromedp.WaitVisible(chromedp.CSS(`#poll-votes[data-votes="1"]`)))

	webtest.Do(t, teacher, "reveal", chromedp.Click(chromedp.ID("reveal-poll")), webtest.WaitStep(4), chromedp.WaitVisible(chromedp.ID("poll-actual")))
	webtest.Do(t, student, "the student sees the right answer marked", webtest.WaitStep(4),
		chromedp.WaitVisible(chromedp.CSS(".poll-row.actual.mine")), chromedp.WaitVisible(chromedp.CSS("#poll-result.right")))
	if got := webtest.TextOfSel(t, student, ".poll-row.actual .poll-label"); got != "DUPLICATE" {
		t.Errorf("the answer marked right is %q, want DUPLICATE", got)
	}
	if got := webtest.TextOfSel(t, student, "#poll-actual"); !strings.Contains(got, "naive's verdict after this step: DUPLICATE") {
		t.Errorf("the reveal says %q", got)
	}
	if !webtest.PageKept(t, student) {
		t.Error("the student's page reloaded during the poll")
	}
	b.NoConsoleErrors()
}

// TestBrowserRoomVerdictsKey: the instructor's V in a room hides the
// verdicts on a student's page too, live, with no poll open, and V again
// brings them back.
func TestBrowserRoomVerdictsKey(t *testing.T) {
	b := webtest.NewBrowser(t)
	teacher := b.Tab(true, true)
	student := b.Tab(true, true)
	webtest.Do(t, teacher, "open a room at step 4", chromedp.EmulateViewport(1366, 768),
		chromedp.Navigate(b.Base+"/present/crash-before-ack?handlers=naive,inbox&step=4"), webtest.WaitStep(4),
		chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")), webtest.WaitStep(4))
	code := webtest.Attr(t, teacher, "#room-code", "data-code")
	webtest.Do(t, student, "join", chromedp.Navigate(b.Base+"/rooms/"+code), chromedp.Click(chromedp.ID("join-go")), webtest.WaitStep(4),
		chromedp.WaitVisible(chromedp.CSS(`#p-live[data-state="live"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#card-naive[data-verdict="duplicate"]`)))
	webtest.Do(t, teacher, "press V", chromedp.KeyEvent("v"), chromedp.WaitVisible(chromedp.CSS("main.verdicts-hidden")))
	webtest.Do(t, student, "the student's verdicts hide", chromedp.WaitVisible(chromedp.CSS(`#card-naive[data-verdict="hidden"]`)))
	webtest.Do(t, teacher, "press V again", chromedp.KeyEvent("v"), chromedp.WaitNotPresent(chromedp.CSS("main.verdicts-hidden")))
	webtest.Do(t, student, "the student's verdicts show", chromedp.WaitVisible(chromedp.CSS(`#card-naive[data-verdict="duplicate"]`)))
	b.NoConsoleErrors()
}
