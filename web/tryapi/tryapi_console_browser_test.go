package tryapi_test

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserTryAPIConsole: on a sandbox's page, the console's code
// follows its fields (the script writes the first values exactly as the
// server did), its Send makes a real payment whose answer the page shows,
// each request appears at the top of the request log (the replay and a
// refused one too), and a copy button copies its command and says so.
// Without JavaScript the page says the console needs it and still shows
// the commands.
func TestBrowserTryAPIConsole(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "open the sandbox", chromedp.Navigate(b.Base+"/try-api/console-box"), chromedp.WaitVisible(chromedp.ID("try-c-send")))
	input := func(id, value string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`(e => { e.value = ` + jsString(value) + `; e.dispatchEvent(new Event("input", {bubbles: true})); })(document.getElementById("` + id + `"))`)
	}
	// The same values again: the script's code must be the server's, byte
	// for byte.
	served := map[string]string{}
	for _, id := range []string{"try-s-curl", "try-s-go", "try-s-python"} {
		served[id] = webtest.TextOfSel(t, ctx, "#"+id)
	}
	webtest.Do(t, ctx, "touch the key", input("try-c-key", "key-1"))
	for id, want := range served {
		if got := webtest.TextOfSel(t, ctx, "#"+id); got != want {
			t.Errorf("%s: the script writes\n%s\nthe server wrote\n%s", id, got, want)
		}
	}
	webtest.Do(t, ctx, "a key of its own", input("try-c-key", "console-1"), input("try-c-amount", "2500"))
	endpoint := b.Base + "/api/v1/ledgers/console-box/payments"
	for id, want := range map[string][]string{
		"try-s-curl":   {"curl -i -X POST '" + endpoint + "'", "-H 'Idempotency-Key: console-1'", `-d '{"account": "acc-1", "amount": 2500}'`},
		"try-s-go":     {`req.Header.Set("Idempotency-Key", "console-1")`, `"amount\": 2500}`},
		"try-s-python": {`"Idempotency-Key": "console-1",`, `\"amount\": 2500}`},
	} {
		got := webtest.TextOfSel(t, ctx, "#"+id)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %s:\n%s", id, w, got)
			}
		}
	}

	send := func(status string) {
		t.Helper()
		webtest.Do(t, ctx, "send "+status, chromedp.Evaluate[chromedp.Void](`document.getElementById("try-c-status").removeAttribute("data-status")`),
			chromedp.Click(chromedp.ID("try-c-send")),
			chromedp.WaitVisible(chromedp.CSS(`#try-c-status[data-status="`+status+`"]`)))
	}
	send("201")
	if got := webtest.TextOfSel(t, ctx, `#try-c-headers dd[data-header="Content-Type"]`); got != "application/json" {
		t.Errorf("the response's Content-Type shows %q", got)
	}
	if got := webtest.TextOfSel(t, ctx, "#try-c-body"); !strings.Contains(got, `"pay_1"`) {
		t.Errorf("the response body shows:\n%s", got)
	}
	webtest.Do(t, ctx, "the payment in the log", chromedp.WaitVisible(chromedp.CSS(`#try-log tbody tr:first-child[data-seq="1"][data-status="201"][data-replayed="false"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#try-payments tr[data-payment="pay_1"]`)))
	if got := webtest.TextOfSel(t, ctx, `#try-log tr[data-seq="1"] .try-log-key`); got != "console-1" {
		t.Errorf("the log's key shows %q", got)
	}

	send("201") // the same request again: the saved answer
	if got := webtest.TextOfSel(t, ctx, `#try-c-headers dd[data-header="Idempotent-Replayed"]`); got != "true" {
		t.Errorf("the replay's Idempotent-Replayed shows %q", got)
	}
	webtest.Do(t, ctx, "the replay on top", chromedp.WaitVisible(chromedp.CSS(`#try-log tbody tr:first-child[data-seq="2"][data-replayed="true"]`)))

	webtest.Do(t, ctx, "no key", input("try-c-key", ""))
	send("400")
	if got := webtest.TextOfSel(t, ctx, `#try-c-headers dd[data-header="Content-Type"]`); got != "application/problem+json" {
		t.Errorf("the 400's Content-Type shows %q", got)
	}
	webtest.Do(t, ctx, "the 400 on top", chromedp.WaitVisible(chromedp.CSS(`#try-log tbody tr:first-child[data-seq="3"][data-status="400"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#try-log[data-count="3"]`)))

	// Copy: the clipboard stands in for the system's, which headless
	// Chromium does not grant.
	webtest.Do(t, ctx, "copy the curl command",
		chromedp.Evaluate[chromedp.Void](`navigator.clipboard.writeText = t => { window.copied = t; return Promise.resolve(); }`),
		chromedp.Click(chromedp.CSS(`#try-s-curl + .try-copy`)),
		chromedp.WaitVisible(chromedp.CSS(`#try-s-curl + .try-copy.copied`)))
	copied, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[string](`window.copied`))
	if err != nil {
		t.Fatal(err)
	}
	if want := webtest.TextOfSel(t, ctx, "#try-s-curl"); copied != want {
		t.Errorf("copied %q, the command is %q", copied, want)
	}
	if got := webtest.TextOfSel(t, ctx, "#try-copy-status"); got != "Copied" {
		t.Errorf("the live region says %q", got)
	}
	webtest.ScreenshotWhen(t, ctx, "try-api-console-1366x768", 1366, 768, false, "#try-log")
	// On a phone the commands scroll inside their boxes; the page does not
	// widen.
	webtest.ScreenshotWhen(t, ctx, "try-api-console-390x844", 390, 844, true, "#try-log")
	width, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[int](`document.documentElement.scrollWidth`))
	if err != nil {
		t.Fatal(err)
	}
	if width > 390 {
		t.Errorf("at 390 px the page is %d px wide", width)
	}

	// The accessibility sweep sees the console empty; here it has an
	// answer, a filled log and a copied button, in both themes.
	src, err := os.ReadFile(webtest.AxeFile)
	if err != nil {
		t.Fatalf("the vendored axe-core is missing (run scripts/vendor.sh): %v", err)
	}
	for _, theme := range []string{"light", "dark"} {
		// runAxe's check for axe already there returns the whole axe object,
		// which the protocol cannot carry: inject it afresh each time.
		webtest.Do(t, ctx, theme, chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.theme = "`+theme+`"; window.axe = undefined`))
		for _, v := range webtest.RunAxe(t, ctx, string(src)) {
			t.Errorf("%s: %s (%s) %s: %d nodes, %s: %s", theme, v.ID, v.Impact, v.Help, v.Nodes, strings.Join(v.Targets, " | "), v.Summary)
		}
	}
	b.NoConsoleErrors()

	// Without JavaScript: the hint says so, no Send button, the code is there.
	noJS := b.Tab(true, false)
	webtest.Do(t, noJS, "open without JavaScript", chromedp.Navigate(b.Base+"/try-api/console-box"), chromedp.WaitVisible(chromedp.ID("try-console-nojs")),
		chromedp.WaitNotVisible(chromedp.ID("try-c-send")), chromedp.WaitVisible(chromedp.ID("try-s-curl")),
		chromedp.WaitVisible(chromedp.CSS(`#try-log[data-count="3"]`)))
	b.NoConsoleErrors()
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
