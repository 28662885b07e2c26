package classroom_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserClassroom is the live classroom end to end, in two browsers
// that share nothing: the instructor presents crash-before-ack, opens a
// room and steps it from the keyboard; the student joins with the code,
// follows without reloading, and answers a poll the instructor sees.
func TestBrowserClassroom(t *testing.T) {
	b := webtest.NewBrowser(t)
	teacher := b.Tab(true, true)
	student := b.Tab(true, true)

	webtest.Do(t, teacher, "present the preset", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.Base+"/present/crash-before-ack"), webtest.WaitStep(0))
	webtest.Do(t, teacher, "the keys help opens with ? and closes with Esc",
		chromedp.KeyEvent("?"), chromedp.WaitVisible(chromedp.CSS("#p-help[open] .p-keys")),
		chromedp.KeyEvent(kb.Escape), chromedp.WaitNotPresent(chromedp.CSS("#p-help[open]")))
	webtest.Do(t, teacher, "open a room", chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")),
		chromedp.WaitVisible(chromedp.CSS(".room-qr svg")), webtest.WaitStep(0))
	code := webtest.Attr(t, teacher, "#room-code", "data-code")
	if loc := webtest.Location(t, teacher); loc != b.Base+"/rooms/"+code+"/present" {
		t.Fatalf("instructor at %q", loc)
	}

	// The student types the code as they heard it.
	webtest.Do(t, student, "join", chromedp.Navigate(b.Base+"/join"),
		chromedp.SendKeys(chromedp.ID("join-code"), strings.ToLower(code[:3])+"-"+code[3:]),
		chromedp.Click(chromedp.ID("join-go")), webtest.WaitStep(0),
		chromedp.WaitVisible(chromedp.CSS(`#p-live[data-state="live"]`)))
	webtest.MarkPage(t, student)

	// The instructor steps with →; the student's page follows by itself.
	webtest.MarkPage(t, teacher)
	for step := 1; step <= 3; step++ {
		webtest.Do(t, teacher, fmt.Sprintf("→ to step %d", step), chromedp.KeyEvent(kb.ArrowRight), webtest.WaitStep(step))
		webtest.Do(t, student, fmt.Sprintf("the student sees step %d", step), webtest.WaitStep(step))
	}
	if !webtest.PageKept(t, student) {
		t.Error("the student's page reloaded: it should follow the room in place")
	}
	if !webtest.PageKept(t, teacher) {
		t.Error("the instructor's page reloaded on a key")
	}
	if got := webtest.Verdicts(t, student); got["naive"] != "duplicate 100.00" || got["inbox"] != "ok 100.00" {
		t.Errorf("student's cards at step 3: %v", got)
	}
	if loc := webtest.Location(t, student); loc != b.Base+"/rooms/"+code {
		t.Errorf("student at %q", loc)
	}

	// ← and → again: back a step and forward, both follow.
	webtest.Do(t, teacher, "← to step 2", chromedp.KeyEvent(kb.ArrowLeft), webtest.WaitStep(2))
	webtest.Do(t, student, "the student sees step 2", webtest.WaitStep(2))
	webtest.Do(t, teacher, "PgDn to step 3", chromedp.KeyEvent(kb.PageDown), webtest.WaitStep(3))
	webtest.Do(t, student, "the student sees step 3 again", webtest.WaitStep(3))

	// A prediction poll about step 4.
	webtest.Do(t, teacher, "ask the room", chromedp.SetValue(chromedp.ID("poll-handler"), "naive"),
		chromedp.Click(chromedp.ID("open-poll")), chromedp.WaitVisible(chromedp.CSS(`#poll-votes[data-votes="0"]`)))
	webtest.Do(t, student, "the question appears", chromedp.WaitVisible(chromedp.ID("vote-balance")))
	if q := webtest.TextOfSel(t, student, ".poll-q"); !strings.Contains(q, "naive") || !strings.Contains(q, "step 4") {
		t.Errorf("question = %q", q)
	}
	webtest.Screenshot(t, student, "present-student-poll-phone", 360, 800, true)
	webtest.Do(t, student, "answer", chromedp.SendKeys(chromedp.ID("vote-balance"), "200"),
		chromedp.Click(chromedp.ID("vote-send")), chromedp.WaitVisible(chromedp.ID("poll-mine")))
	webtest.Do(t, teacher, "the instructor sees the answer", chromedp.WaitVisible(chromedp.CSS(`#poll-votes[data-votes="1"]`)))
	if got := webtest.TextOfSel(t, teacher, ".poll-chart"); !strings.Contains(got, "200.00") {
		t.Errorf("the instructor's chart = %q, want the answer 200.00 in it", got)
	}
	webtest.Screenshot(t, teacher, "present-room-poll-projector", 1920, 1080, false)

	// → reveals the step: the actual balance is marked, the student was right.
	webtest.Do(t, teacher, "→ reveals step 4", chromedp.KeyEvent(kb.ArrowRight), webtest.WaitStep(4), chromedp.WaitVisible(chromedp.ID("poll-actual")))
	webtest.Do(t, student, "the student sees the answer", webtest.WaitStep(4), chromedp.WaitVisible(chromedp.CSS("#poll-result.right")))
	if got := webtest.Verdicts(t, student); got["naive"] != "duplicate 200.00" || got["inbox"] != "ok 100.00" {
		t.Errorf("student's cards at step 4: %v", got)
	}
	if !webtest.PageKept(t, student) {
		t.Error("the student's page reloaded during the poll")
	}
	webtest.Screenshot(t, teacher, "present-room-projector", 1920, 1080, false)
	webtest.Screenshot(t, student, "present-student-phone", 360, 800, true)

	// The instructor's keys: S shows the source, 2 adds a handler (for
	// the whole room), R restarts.
	webtest.Do(t, teacher, "S shows the source", chromedp.KeyEvent("s"), chromedp.WaitVisible(chromedp.ID("p-source-panel")))
	webtest.Do(t, teacher, "2 adds unique", chromedp.KeyEvent("2"), chromedp.WaitVisible(chromedp.ID("card-unique")))
	webtest.Do(t, student, "the student sees unique too", chromedp.WaitVisible(chromedp.ID("card-unique")))
	webtest.Do(t, teacher, "R restarts", chromedp.KeyEvent("r"), webtest.WaitStep(0))
	webtest.Do(t, student, "the student is back at the start", webtest.WaitStep(0))

	// Exploring opens the lab at the room's step, on its own address.
	explore := webtest.Attr(t, student, "#p-explore", "href")
	if !strings.HasPrefix(explore, "/lab?preset=crash-before-ack") || strings.Contains(explore, "step=") {
		t.Errorf("explore link %q", explore)
	}
	b.NoConsoleErrors()
}

// TestBrowserPresenterWithoutJavaScript: the presenter view steps by its
// links, and a student's page still shows the room, without JavaScript.
func TestBrowserPresenterWithoutJavaScript(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, false)
	webtest.Do(t, ctx, "present", chromedp.Navigate(b.Base+"/present/crash-before-ack?handlers=naive,inbox"), webtest.WaitStep(0))
	for step := 1; step <= 2; step++ {
		webtest.Do(t, ctx, fmt.Sprintf("next to %d", step), chromedp.Click(chromedp.ID("p-next")), webtest.WaitStep(step))
	}
	if loc := webtest.Location(t, ctx); !strings.HasSuffix(loc, "/present/crash-before-ack?handlers=naive,inbox&step=2") {
		t.Errorf("address %q: a reload must keep the place", loc)
	}
	webtest.Do(t, ctx, "the timeline", chromedp.Click(chromedp.ID("p-timeline")), chromedp.WaitVisible(chromedp.ID("p-timeline-panel")), webtest.WaitStep(2))
	webtest.Do(t, ctx, "the keys list opens as a disclosure", chromedp.Click(chromedp.CSS("#p-help > summary")),
		chromedp.WaitVisible(chromedp.CSS("#p-help .p-keys")))
	webtest.Do(t, ctx, "open a room", chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")), webtest.WaitStep(2))
	webtest.Do(t, ctx, "step the room", chromedp.Click(chromedp.ID("p-next")), webtest.WaitStep(3))
	b.NoConsoleErrors()
}

// TestBrowserPresenterScreenshots: the presenter view on a projector, in
// both themes and in Russian, and the pages around it.
func TestBrowserPresenterScreenshots(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "projector", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.Base+"/present/crash-before-ack?step=4&lang=en"), webtest.WaitStep(4))
	webtest.Screenshot(t, ctx, "present-projector", 1920, 1080, false)
	webtest.Do(t, ctx, "dark theme", chromedp.Click(chromedp.ID("theme-toggle")), chromedp.Click(chromedp.ID("theme-toggle")),
		chromedp.WaitReady(chromedp.CSS(`html[data-theme="dark"]`)))
	webtest.Screenshot(t, ctx, "present-projector-dark", 1920, 1080, false)
	webtest.Do(t, ctx, "back to auto", chromedp.Click(chromedp.ID("theme-toggle")), chromedp.WaitNotPresent(chromedp.CSS(`html[data-theme]`)))
	webtest.Do(t, ctx, "one handler", chromedp.Navigate(b.Base+"/present/crash-before-ack?handlers=naive&step=2&show=source"), webtest.WaitStep(2))
	webtest.Screenshot(t, ctx, "present-projector-one-source", 1920, 1080, false)
	webtest.Do(t, ctx, "Russian", chromedp.Navigate(b.Base+"/present/concurrent-duplicates?handlers=naive,check-then-insert,inbox&step=3&show=timeline&lang=ru"), webtest.WaitStep(3))
	webtest.Screenshot(t, ctx, "present-projector-ru", 1920, 1080, false)
	webtest.Do(t, ctx, "laptop", chromedp.Navigate(b.Base+"/present/crash-before-ack?step=4&lang=en"), webtest.WaitStep(4))
	webtest.Screenshot(t, ctx, "present-desktop", 1440, 900, false)
	webtest.Screenshot(t, ctx, "present-phone", 360, 780, true)
	webtest.Do(t, ctx, "the list", chromedp.Navigate(b.Base+"/present"), chromedp.WaitVisible(chromedp.CSS(".pi-list")))
	webtest.ScreenshotWhen(t, ctx, "present-index", 1440, 900, false, ".pi-list")
	b.NoConsoleErrors() // the next page is a 404, which the browser logs
	webtest.Do(t, ctx, "join", chromedp.Navigate(b.Base+"/join?code=ZZZ-ZZZ"), chromedp.WaitVisible(chromedp.ID("join-problem")))
	webtest.ScreenshotWhen(t, ctx, "present-join-phone", 360, 700, true, "#join-code")
}
