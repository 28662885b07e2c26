package classroom_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/idempotency-lab/lab/web/webtest"
)

// evalBool asks the page a yes-or-no question in JavaScript.
func evalBool(t *testing.T, ctx context.Context, expr string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ok, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[bool](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return ok
}

// inSight is JavaScript: the element is inside the viewport and nothing
// covers its middle.
func inSight(sel string) string {
	return `(e => { if (!e) return false; const r = e.getBoundingClientRect();
		if (r.width === 0 || r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) return false;
		const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		return !!at && e.contains(at); })(document.querySelector(` + "`" + sel + "`" + `))`
}

func activeID(t *testing.T, ctx context.Context) string {
	t.Helper()
	return func() string {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		id, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[string](`document.activeElement ? document.activeElement.id : ""`))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}()
}

// TestBrowserPresenterKeysOnALaptop: at 1280×720 the step buttons are on
// the first screen; the keys help is a dialog that keeps the focus and
// gives it back, and covers nothing once closed; 0 toggles the tenth
// handler; V hides the verdicts.
func TestBrowserPresenterKeysOnALaptop(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "present on a laptop", chromedp.EmulateViewport(1280, 720),
		chromedp.Navigate(b.Base+"/present/crash-before-ack?step=2&lang=en"), webtest.WaitStep(2))
	if !evalBool(t, ctx, inSight("#p-next")) || !evalBool(t, ctx, inSight("#p-prev")) {
		t.Error("at 1280×720 the step buttons are not in sight")
	}
	webtest.Screenshot(t, ctx, "present-laptop-1280", 1280, 720, false)

	webtest.Do(t, ctx, "focus next, open the keys", chromedp.Focus(chromedp.ID("p-next")), chromedp.KeyEvent("?"),
		chromedp.WaitVisible(chromedp.CSS("#p-help[open] .p-keys")))
	if id := activeID(t, ctx); id != "p-help-close" {
		t.Errorf("the focus is on %q, want the dialog's Close button", id)
	}
	if evalBool(t, ctx, `document.querySelector("#p-help > summary").getClientRects().length > 0`) {
		t.Error("the help's summary is on screen over the page")
	}
	if !strings.Contains(webtest.TextOfSel(t, ctx, ".p-keys-handlers"), "0") {
		t.Errorf("the keys help lists handlers %q, without 0", webtest.TextOfSel(t, ctx, ".p-keys-handlers"))
	}
	webtest.Screenshot(t, ctx, "present-keys-1280", 1280, 720, false)
	for _, shift := range []bool{false, true, false} {
		var opts []chromedp.KeyOption
		if shift {
			opts = append(opts, chromedp.KeyModifiers(chromedp.ModifierShift))
		}
		webtest.Do(t, ctx, "tab", chromedp.KeyEvent(kb.Tab, opts...))
		if !evalBool(t, ctx, `document.getElementById("p-help-body").contains(document.activeElement)`) {
			t.Fatalf("Tab (shift %v) left the dialog for %q", shift, activeID(t, ctx))
		}
	}
	webtest.Do(t, ctx, "Esc closes", chromedp.KeyEvent(kb.Escape), chromedp.WaitNotPresent(chromedp.CSS("#p-help[open]")))
	if id := activeID(t, ctx); id != "p-next" {
		t.Errorf("after Esc the focus is on %q, want p-next back", id)
	}
	if !evalBool(t, ctx, `(document.querySelector('.p-exits a[href="/present"]').scrollIntoView({block: "center"}), true)`) ||
		!evalBool(t, ctx, inSight(`.p-exits a[href="/present"]`)) {
		t.Error("“Other scenarios” is covered or out of sight")
	}
	// The Keys button opens it too, and Close gives the focus back to it.
	webtest.Do(t, ctx, "the Keys button", chromedp.Click(chromedp.ID("p-help-open")), chromedp.WaitVisible(chromedp.CSS("#p-help[open] .p-keys")),
		chromedp.Click(chromedp.ID("p-help-close")), chromedp.WaitNotPresent(chromedp.CSS("#p-help[open]")))
	if id := activeID(t, ctx); id != "p-help-open" {
		t.Errorf("after Close the focus is on %q, want the Keys button", id)
	}

	// 0 is the tenth handler's key.
	tenth := webtest.Attr(t, ctx, "#p-h-10", "data-key")
	if tenth != "0" {
		t.Fatalf("the tenth handler's key is %q", tenth)
	}
	webtest.Do(t, ctx, "0 adds the tenth handler", chromedp.KeyEvent("0"), chromedp.WaitVisible(chromedp.CSS("#p-h-10.on")), webtest.WaitStep(2))
	webtest.Do(t, ctx, "0 removes it", chromedp.KeyEvent("0"), chromedp.WaitVisible(chromedp.CSS("#p-h-10:not(.on)")))
	webtest.Do(t, ctx, "Q toggles the eleventh", chromedp.KeyEvent("q"), chromedp.WaitVisible(chromedp.CSS("#p-h-11.on")))

	// V hides the verdicts and brings them back.
	webtest.Do(t, ctx, "V hides the verdicts", chromedp.KeyEvent("v"), chromedp.WaitVisible(chromedp.CSS("main.verdicts-hidden")))
	if got := webtest.Verdicts(t, ctx); got["naive"] != "hidden 100.00" {
		t.Errorf("naive with verdicts hidden: %q", got["naive"])
	}
	if loc := webtest.Location(t, ctx); !strings.Contains(loc, "show=noverdicts") {
		t.Errorf("address %q: a reload must keep the verdicts hidden", loc)
	}
	webtest.Do(t, ctx, "V shows them", chromedp.KeyEvent("v"), chromedp.WaitNotPresent(chromedp.CSS("main.verdicts-hidden")))
	if got := webtest.Verdicts(t, ctx); got["naive"] != "duplicate 100.00" {
		t.Errorf("naive with verdicts shown: %q", got["naive"])
	}
	b.NoConsoleErrors()
}

// TestBrowserPollHidesVerdicts: with a poll open the projector and the
// student's phone show balances but no verdict; → reveals both.
func TestBrowserPollHidesVerdicts(t *testing.T) {
	b := webtest.NewBrowser(t)
	teacher := b.Tab(true, true)
	student := b.Tab(true, true)
	webtest.Do(t, teacher, "open a room at step 3", chromedp.EmulateViewport(1280, 720),
		chromedp.Navigate(b.Base+"/present/crash-before-ack?step=3&lang=en"), webtest.WaitStep(3),
		chromedp.Click(chromedp.ID("open-room")), chromedp.WaitVisible(chromedp.ID("room-code")))
	if !evalBool(t, teacher, inSight("#p-next")) {
		t.Error("at 1280×720 the room's step buttons are not in sight")
	}
	code := webtest.Attr(t, teacher, "#room-code", "data-code")
	webtest.Do(t, student, "join", chromedp.EmulateViewport(360, 800), chromedp.Navigate(b.Base+"/rooms/"+code), chromedp.Click(chromedp.ID("join-go")), webtest.WaitStep(3),
		chromedp.WaitVisible(chromedp.CSS(`#p-live[data-state="live"]`)))
	if got := webtest.Verdicts(t, student); got["naive"] != "duplicate 100.00" {
		t.Fatalf("before the poll: %v", got)
	}
	webtest.Do(t, teacher, "ask about naive", chromedp.SetValue(chromedp.ID("poll-handler"), "naive"),
		chromedp.Click(chromedp.ID("open-poll")), chromedp.WaitVisible(chromedp.ID("p-verdicts-note")))
	webtest.Do(t, student, "the question hides the verdicts", chromedp.WaitVisible(chromedp.ID("vote-balance")),
		chromedp.WaitReady(chromedp.CSS("main.verdicts-hidden")))
	for who, ctx := range map[string]context.Context{"projector": teacher, "student": student} {
		if got := webtest.Verdicts(t, ctx); got["naive"] != "hidden 100.00" || got["inbox"] != "hidden 100.00" {
			t.Errorf("%s during the poll: %v", who, got)
		}
		if evalBool(t, ctx, `!!document.querySelector(".p-expected, .p-verdict [data-verdict]")`) {
			t.Errorf("%s shows an expected balance or a verdict during the poll", who)
		}
	}
	webtest.Screenshot(t, student, "present-student-poll-hidden-phone", 360, 800, true)
	webtest.Do(t, student, "answer", chromedp.SendKeys(chromedp.ID("vote-balance"), "200"),
		chromedp.Click(chromedp.ID("vote-send")), chromedp.WaitVisible(chromedp.ID("poll-mine")))
	webtest.Do(t, teacher, "the instructor sees the count", chromedp.WaitVisible(chromedp.CSS(".poll-chart")))
	webtest.Screenshot(t, teacher, "present-room-poll-hidden-1280", 1280, 720, false)
	if evalBool(t, student, `!!document.querySelector(".poll-chart")`) {
		t.Error("the student sees the answers before the reveal")
	}
	webtest.Do(t, teacher, "→ reveals", chromedp.KeyEvent(kb.ArrowRight), webtest.WaitStep(4), chromedp.WaitVisible(chromedp.ID("poll-actual")))
	webtest.Do(t, student, "the student sees it all", webtest.WaitStep(4), chromedp.WaitVisible(chromedp.CSS(".poll-chart")),
		chromedp.WaitNotPresent(chromedp.CSS("main.verdicts-hidden")))
	if got := webtest.Verdicts(t, student); got["naive"] != "duplicate 200.00" {
		t.Errorf("after the reveal: %v", got)
	}
	b.NoConsoleErrors()
}
