package playground_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserWriteYourOwn is a student fixing the naive handler: open the
// editor on the crash before the ack, put a fix in it, run it, see it ok
// where naive shows a duplicate, then open the shared link in a fresh
// browser and see the same. With JavaScript the editor is CodeMirror (the
// fix goes in as a paste would); without it, the plain textarea.
func TestBrowserWriteYourOwn(t *testing.T) {
	b := webtest.NewBrowserWith(t, web.Config{Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(false, js)
			webtest.Do(t, ctx, "open the lab", chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack&step=4"),
				chromedp.WaitVisible(chromedp.ID("card-naive")))
			webtest.Do(t, ctx, "open the editor", chromedp.Click(chromedp.CSS("#editor-box > summary")))
			if js {
				webtest.Do(t, ctx, "CodeMirror takes the textarea's place", chromedp.WaitVisible(chromedp.CSS("#editor-box .cm-editor")))
				paste := `(() => { const v = document.getElementById("code").labEditor;
					v.dispatch({changes: {from: 0, to: v.state.doc.length, insert: ` + strconv.Quote(webtest.FixedNaive) + `}}); return true; })()`
				if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](paste)); err != nil {
					t.Fatal(err)
				}
			} else {
				webtest.Do(t, ctx, "type the fix", chromedp.WaitVisible(chromedp.ID("code")), chromedp.SetValue(chromedp.ID("code"), webtest.FixedNaive))
			}
			webtest.Do(t, ctx, "run it", chromedp.Click(chromedp.ID("code-run")), chromedp.WaitVisible(chromedp.ID("card-yours")))
			got := webtest.Verdicts(t, ctx)
			webtest.WantCard(t, got, "naive", "duplicate 200.00")
			webtest.WantCard(t, got, "yours", "ok 100.00")
			link, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("permalink").value`))
			if err != nil || !strings.Contains(link, "code=1") {
				t.Fatalf("permalink %q: %v", link, err)
			}
			fresh := b.Tab(true, js)
			webtest.Do(t, fresh, "open the shared link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.ID("card-yours")))
			if again := webtest.Verdicts(t, fresh); again["yours"] != got["yours"] || again["naive"] != got["naive"] {
				t.Errorf("the shared link shows %v, the page showed %v", again, got)
			}
			b.NoConsoleErrors()
		})
	}
}
