package course_test

import (
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserLessonOpensTheEditor is a reader of the UNIQUE lesson who
// wants to run the handler it shows: a click on "Open in the editor"
// under the quoted Unique opens the lab on the lesson's scenario
// (crash-before-ack, its title in the story), with the editor open and
// holding the handler's whole file, run beside the compiled unique. With
// JavaScript the editor is CodeMirror; without it the link is a plain
// link and the editor the plain textarea. English with JavaScript,
// Russian without; each also at 390 px, where the link fits the column.
func TestBrowserLessonOpensTheEditor(t *testing.T) {
	b := webtest.NewBrowserWith(t, web.Config{Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	file, err := sandbox.Builtin("unique")
	if err != nil {
		t.Fatal(err)
	}
	p := webtest.MustPreset(t, "crash-before-ack")
	for _, tc := range []struct {
		js         bool
		lang, text string
	}{
		{true, "en", "Open in the editor"},
		{false, "ru", "Открыть в редакторе"},
	} {
		t.Run(webtest.Mode(tc.js)+"/"+tc.lang, func(t *testing.T) {
			ctx := b.Tab(true, tc.js)
			const link = `.lesson-body figure.source[data-decl="Unique"] a.open-editor`
			webtest.Do(t, ctx, "open the lesson", chromedp.Navigate(b.Base+"/lessons/unique?lang="+tc.lang),
				chromedp.WaitVisible(chromedp.CSS(link)))
			if got := webtest.TextOfSel(t, ctx, link); got != tc.text {
				t.Errorf("the link says %q, want %q", got, tc.text)
			}
			// On a phone the link and its note wrap within the column:
			// the page does not scroll sideways (screenshotWhen) and the
			// line ends inside the viewport.
			webtest.ScreenshotWhen(t, ctx, "lesson-open-editor-phone-"+tc.lang, 390, 844, true, link)
			if over := webtest.Eval[float64](t, ctx, `document.querySelector('`+link+`').closest(".source-action").getBoundingClientRect().right -
				document.documentElement.clientWidth`); over > 0.5 {
				t.Errorf("at 390 px the editor's link runs %.1f px past the viewport", over)
			}
			webtest.Do(t, ctx, "back to the desktop", chromedp.EmulateViewport(1440, 1000))
			webtest.Do(t, ctx, "open in the editor", chromedp.Click(chromedp.CSS(link)),
				chromedp.WaitVisible(chromedp.ID("card-yours")))
			loc, err := url.Parse(webtest.Location(t, ctx))
			if err != nil {
				t.Fatal(err)
			}
			if loc.Path != "/lab" || loc.Query().Get("preset") != "crash-before-ack" || loc.Query().Get("code") == "" {
				t.Errorf("landed on %s, want /lab with preset=crash-before-ack and the file in code=", loc)
			}
			title := p.Script.Title
			if tc.lang == "ru" {
				title = p.Script.TitleRU
			}
			if got := webtest.TextOfSel(t, ctx, "#story-title"); got != title {
				t.Errorf("the lab shows the story %q, want the scenario's %q", got, title)
			}
			if !webtest.Eval[bool](t, ctx, `document.getElementById("editor-box").open`) {
				t.Error("the editor is closed")
			}
			var inEditor string
			if tc.js {
				webtest.Poll(t, ctx, "CodeMirror takes the textarea's place", `!!document.getElementById("code").labEditor`)
				inEditor = webtest.Eval[string](t, ctx, `document.getElementById("code").labEditor.state.doc.toString()`)
			} else {
				inEditor = webtest.Eval[string](t, ctx, `document.getElementById("code").value`)
			}
			if inEditor != strings.TrimPrefix(file, "\n") {
				t.Errorf("the editor holds\n%s\nwant the handler file of unique", inEditor)
			}
			// The file runs as the handler it copies: on every step the
			// two cards agree.
			got := webtest.Verdicts(t, ctx)
			if got["yours"] == "" || got["yours"] != got["unique"] {
				t.Errorf("the file's card says %q, the compiled unique's %q", got["yours"], got["unique"])
			}
			b.NoConsoleErrors()
		})
	}
}
