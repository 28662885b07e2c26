package classroom_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserClassroom is the live classroom end to end, in two browsers
// that share nothing: the instructor presents crash-before-ack, opens a
// room and steps it from the keyboard; the student joins with the code,
// follows without reloading, and answers a poll the instructor sees.
func TestBrowserClassroom(t *testing.T) {
	b := newBrowser(t)
	teacher := b.tab(true, true)
	student := b.tab(true, true)

	do(t, teacher, "present the preset", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.base+"/present/crash-before-ack"), waitStep(0))
	do(t, teacher, "the keys help opens with ? and closes with Esc",
		chromedp.KeyEvent("?"), chromedp.WaitVisible(chromedp.CSS("#p-help[open] .p-keys")),
		chromedp.KeyEvent(kb.Escape), chromedp.WaitNotPresent(chromedp.CSS("#p-help[open]")))
	do(t, teacher, "open a room", chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")),
		chromedp.WaitVisible(chromedp.CSS(".room-qr svg")), waitStep(0))
	code := attr(t, teacher, "#room-code", "data-code")
	if loc := location(t, teacher); loc != b.base+"/rooms/"+code+"/present" {
		t.Fatalf("instructor at %q", loc)
	}

	// The student types the code as they heard it.
	do(t, student, "join", chromedp.Navigate(b.base+"/join"),
		chromedp.SendKeys(chromedp.ID("join-code"), strings.ToLower(code[:3])+"-"+code[3:]),
		chromedp.Click(chromedp.ID("join-go")), waitStep(0),
		chromedp.WaitVisible(chromedp.CSS(`#p-live[data-state="live"]`)))
	markPage(t, student)

	// The instructor steps with →; the student's page follows by itself.
	markPage(t, teacher)
	for step := 1; step <= 3; step++ {
		do(t, teacher, fmt.Sprintf("→ to step %d", step), chromedp.KeyEvent(kb.ArrowRight), waitStep(step))
		do(t, student, fmt.Sprintf("the student sees step %d", step), waitStep(step))
	}
	if !pageKept(t, student) {
		t.Error("the student's page reloaded: it should follow the room in place")
	}
	if !pageKept(t, teacher) {
		t.Error("the instructor's page reloaded on a key")
	}
	if got := verdicts(t, student); got["naive"] != "duplicate 100.00" || got["inbox"] != "ok 100.00" {
		t.Errorf("student's cards at step 3: %v", got)
	}
	if loc := location(t, student); loc != b.base+"/rooms/"+code {
		t.Errorf("student at %q", loc)
	}

	// ← and → again: back a step and forward, both follow.
	do(t, teacher, "← to step 2", chromedp.KeyEvent(kb.ArrowLeft), waitStep(2))
	do(t, student, "the student sees step 2", waitStep(2))
	do(t, teacher, "PgDn to step 3", chromedp.KeyEvent(kb.PageDown), waitStep(3))
	do(t, student, "the student sees step 3 again", waitStep(3))

	// A prediction poll about step 4.
	do(t, teacher, "ask the room", chromedp.SetValue(chromedp.ID("poll-handler"), "naive"),
		chromedp.Click(chromedp.ID("open-poll")), chromedp.WaitVisible(chromedp.CSS(`#poll-votes[data-votes="0"]`)))
	do(t, student, "the question appears", chromedp.WaitVisible(chromedp.ID("vote-balance")))
	if q := textOfSel(t, student, ".poll-q"); !strings.Contains(q, "naive") || !strings.Contains(q, "step 4") {
		t.Errorf("question = %q", q)
	}
	screenshot(t, student, "present-student-poll-phone", 360, 800, true)
	do(t, student, "answer", chromedp.SendKeys(chromedp.ID("vote-balance"), "200"),
		chromedp.Click(chromedp.ID("vote-send")), chromedp.WaitVisible(chromedp.ID("poll-mine")))
	do(t, teacher, "the instructor sees the answer", chromedp.WaitVisible(chromedp.CSS(`#poll-votes[data-votes="1"]`)))
	if got := textOfSel(t, teacher, ".poll-chart"); !strings.Contains(got, "200.00") {
		t.Errorf("the instructor's chart = %q, want the answer 200.00 in it", got)
	}
	screenshot(t, teacher, "present-room-poll-projector", 1920, 1080, false)

	// → reveals the step: the actual balance is marked, the student was right.
	do(t, teacher, "→ reveals step 4", chromedp.KeyEvent(kb.ArrowRight), waitStep(4), chromedp.WaitVisible(chromedp.ID("poll-actual")))
	do(t, student, "the student sees the answer", waitStep(4), chromedp.WaitVisible(chromedp.CSS("#poll-result.right")))
	if got := verdicts(t, student); got["naive"] != "duplicate 200.00" || got["inbox"] != "ok 100.00" {
		t.Errorf("student's cards at step 4: %v", got)
	}
	if !pageKept(t, student) {
		t.Error("the student's page reloaded during the poll")
	}
	screenshot(t, teacher, "present-room-projector", 1920, 1080, false)
	screenshot(t, student, "present-student-phone", 360, 800, true)

	// The instructor's keys: S shows the source, 2 adds a handler (for
	// the whole room), R restarts.
	do(t, teacher, "S shows the source", chromedp.KeyEvent("s"), chromedp.WaitVisible(chromedp.ID("p-source-panel")))
	do(t, teacher, "2 adds unique", chromedp.KeyEvent("2"), chromedp.WaitVisible(chromedp.ID("card-unique")))
	do(t, student, "the student sees unique too", chromedp.WaitVisible(chromedp.ID("card-unique")))
	do(t, teacher, "R restarts", chromedp.KeyEvent("r"), waitStep(0))
	do(t, student, "the student is back at the start", waitStep(0))

	// Exploring opens the lab at the room's step, on its own address.
	explore := attr(t, student, "#p-explore", "href")
	if !strings.HasPrefix(explore, "/lab?preset=crash-before-ack") || strings.Contains(explore, "step=") {
		t.Errorf("explore link %q", explore)
	}
	b.noConsoleErrors()
}

// TestBrowserPresenterWithoutJavaScript: the presenter view steps by its
// links, and a student's page still shows the room, without JavaScript.
func TestBrowserPresenterWithoutJavaScript(t *testing.T) {
	b := newBrowser(t)
	ctx := b.tab(true, false)
	do(t, ctx, "present", chromedp.Navigate(b.base+"/present/crash-before-ack?handlers=naive,inbox"), waitStep(0))
	for step := 1; step <= 2; step++ {
		do(t, ctx, fmt.Sprintf("next to %d", step), chromedp.Click(chromedp.ID("p-next")), waitStep(step))
	}
	if loc := location(t, ctx); !strings.HasSuffix(loc, "/present/crash-before-ack?handlers=naive,inbox&step=2") {
		t.Errorf("address %q: a reload must keep the place", loc)
	}
	do(t, ctx, "the timeline", chromedp.Click(chromedp.ID("p-timeline")), chromedp.WaitVisible(chromedp.ID("p-timeline-panel")), waitStep(2))
	do(t, ctx, "the keys list opens as a disclosure", chromedp.Click(chromedp.CSS("#p-help > summary")),
		chromedp.WaitVisible(chromedp.CSS("#p-help .p-keys")))
	do(t, ctx, "open a room", chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")), waitStep(2))
	do(t, ctx, "step the room", chromedp.Click(chromedp.ID("p-next")), waitStep(3))
	b.noConsoleErrors()
}

// TestBrowserPresenterScreenshots: the presenter view on a projector, in
// both themes and in Russian, and the pages around it.
func TestBrowserPresenterScreenshots(t *testing.T) {
	b := newBrowser(t)
	ctx := b.tab(true, true)
	do(t, ctx, "projector", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.base+"/present/crash-before-ack?step=4&lang=en"), waitStep(4))
	screenshot(t, ctx, "present-projector", 1920, 1080, false)
	do(t, ctx, "dark theme", chromedp.Click(chromedp.ID("theme-toggle")), chromedp.Click(chromedp.ID("theme-toggle")),
		chromedp.WaitReady(chromedp.CSS(`html[data-theme="dark"]`)))
	screenshot(t, ctx, "present-projector-dark", 1920, 1080, false)
	do(t, ctx, "back to auto", chromedp.Click(chromedp.ID("theme-toggle")), chromedp.WaitNotPresent(chromedp.CSS(`html[data-theme]`)))
	do(t, ctx, "one handler", chromedp.Navigate(b.base+"/present/crash-before-ack?handlers=naive&step=2&show=source"), waitStep(2))
	screenshot(t, ctx, "present-projector-one-source", 1920, 1080, false)
	do(t, ctx, "Russian", chromedp.Navigate(b.base+"/present/concurrent-duplicates?handlers=naive,check-then-insert,inbox&step=3&show=timeline&lang=ru"), waitStep(3))
	screenshot(t, ctx, "present-projector-ru", 1920, 1080, false)
	do(t, ctx, "laptop", chromedp.Navigate(b.base+"/present/crash-before-ack?step=4&lang=en"), waitStep(4))
	screenshot(t, ctx, "present-desktop", 1440, 900, false)
	screenshot(t, ctx, "present-phone", 360, 780, true)
	do(t, ctx, "the list", chromedp.Navigate(b.base+"/present"), chromedp.WaitVisible(chromedp.CSS(".pi-list")))
	screenshotWhen(t, ctx, "present-index", 1440, 900, false, ".pi-list")
	b.noConsoleErrors() // the next page is a 404, which the browser logs
	do(t, ctx, "join", chromedp.Navigate(b.base+"/join?code=ZZZ-ZZZ"), chromedp.WaitVisible(chromedp.ID("join-problem")))
	screenshotWhen(t, ctx, "present-join-phone", 360, 700, true, "#join-code")
}
