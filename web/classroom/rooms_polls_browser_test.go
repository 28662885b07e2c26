package classroom_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserVerdictPoll: the instructor asks for naive's verdict after
// step 4 of crash-before-ack; a student answers by a radio button, live;
// the instructor reveals the step, and the student's page, without a
// reload, marks the right answer (DUPLICATE) as the student's own.
func TestBrowserVerdictPoll(t *testing.T) {
	b := newBrowser(t)
	teacher := b.tab(true, true)
	student := b.tab(true, true)

	do(t, teacher, "open a room at step 3", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.base+"/present/crash-before-ack?handlers=naive,inbox&step=3"), waitStep(3),
		chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")), waitStep(3))
	code := attr(t, teacher, "#room-code", "data-code")
	do(t, student, "join", chromedp.Navigate(b.base+"/rooms/"+code), chromedp.Click(chromedp.ID("join-go")), waitStep(3),
		chromedp.WaitVisible(chromedp.CSS(`#p-live[data-state="live"]`)))
	markPage(t, student)

	do(t, teacher, "ask for a verdict", chromedp.SetValue(chromedp.ID("poll-kind"), "verdict"),
		chromedp.SetValue(chromedp.ID("poll-handler"), "naive"),
		chromedp.Click(chromedp.ID("open-poll")), chromedp.WaitVisible(chromedp.CSS(`#poll-votes[data-votes="0"]`)))
	do(t, student, "the question appears with the verdicts to choose from", chromedp.WaitVisible(chromedp.ID("vote-choice-2")))
	if q := textOfSel(t, student, ".poll-q"); !strings.Contains(q, "naive's verdict") || !strings.Contains(q, "step 4") {
		t.Errorf("question = %q", q)
	}
	if got := textOfSel(t, student, "#vote-options"); !strings.Contains(got, "DUPLICATE") || !strings.Contains(got, "SILENT CONFLICT") {
		t.Errorf("the options = %q", got)
	}
	do(t, student, "answer DUPLICATE", chromedp.Click(chromedp.ID("vote-choice-2")),
		chromedp.Click(chromedp.ID("vote-send")), chromedp.WaitVisible(chromedp.ID("poll-mine")))
	if got := textOfSel(t, student, ".poll-chart"); got != "" {
		t.Errorf("the student sees the tally before the reveal: %q", got)
	}
	if got := attr(t, student, "#card-naive", "data-verdict"); got != "hidden" {
		t.Errorf("the student's card shows the verdict %q before the reveal", got)
	}
	do(t, teacher, "the instructor sees the answer", chromedp.WaitVisible(chromedp.CSS(`#poll-votes[data-votes="1"]`)))

	do(t, teacher, "reveal", chromedp.Click(chromedp.ID("reveal-poll")), waitStep(4), chromedp.WaitVisible(chromedp.ID("poll-actual")))
	do(t, student, "the student sees the right answer marked", waitStep(4),
		chromedp.WaitVisible(chromedp.CSS(".poll-row.actual.mine")), chromedp.WaitVisible(chromedp.CSS("#poll-result.right")))
	if got := textOfSel(t, student, ".poll-row.actual .poll-label"); got != "DUPLICATE" {
		t.Errorf("the answer marked right is %q, want DUPLICATE", got)
	}
	if got := textOfSel(t, student, "#poll-actual"); !strings.Contains(got, "naive's verdict after this step: DUPLICATE") {
		t.Errorf("the reveal says %q", got)
	}
	if !pageKept(t, student) {
		t.Error("the student's page reloaded during the poll")
	}
	b.noConsoleErrors()
}

// TestBrowserRoomVerdictsKey: the instructor's V in a room hides the
// verdicts on a student's page too, live, with no poll open, and V again
// brings them back.
func TestBrowserRoomVerdictsKey(t *testing.T) {
	b := newBrowser(t)
	teacher := b.tab(true, true)
	student := b.tab(true, true)
	do(t, teacher, "open a room at step 4", chromedp.EmulateViewport(1366, 768),
		chromedp.Navigate(b.base+"/present/crash-before-ack?handlers=naive,inbox&step=4"), waitStep(4),
		chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")), waitStep(4))
	code := attr(t, teacher, "#room-code", "data-code")
	do(t, student, "join", chromedp.Navigate(b.base+"/rooms/"+code), chromedp.Click(chromedp.ID("join-go")), waitStep(4),
		chromedp.WaitVisible(chromedp.CSS(`#p-live[data-state="live"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#card-naive[data-verdict="duplicate"]`)))
	do(t, teacher, "press V", chromedp.KeyEvent("v"), chromedp.WaitVisible(chromedp.CSS("main.verdicts-hidden")))
	do(t, student, "the student's verdicts hide", chromedp.WaitVisible(chromedp.CSS(`#card-naive[data-verdict="hidden"]`)))
	do(t, teacher, "press V again", chromedp.KeyEvent("v"), chromedp.WaitNotPresent(chromedp.CSS("main.verdicts-hidden")))
	do(t, student, "the student's verdicts show", chromedp.WaitVisible(chromedp.CSS(`#card-naive[data-verdict="duplicate"]`)))
	b.noConsoleErrors()
}
