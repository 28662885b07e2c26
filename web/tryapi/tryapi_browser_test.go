package tryapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserTryAPI: open /try-api, pick a sandbox name, see the
// cheat-sheet filled in with this server's address and the name; a
// payment made from outside the browser (as curl would) appears on the
// page by itself, through the page's poll, and its replay changes nothing.
func TestBrowserTryAPI(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "open /try-api", chromedp.Navigate(b.Base+"/try-api"), chromedp.WaitVisible(chromedp.ID("try-name")))
	webtest.Do(t, ctx, "pick a name", chromedp.SetValue(chromedp.ID("try-name"), "browser-box"), chromedp.Click(chromedp.ID("try-open")),
		chromedp.WaitVisible(chromedp.ID("try-inactive")))
	if loc := webtest.Location(t, ctx); loc != b.Base+"/try-api/browser-box" {
		t.Fatalf("the form went to %s", loc)
	}
	endpoint := b.Base + "/api/v1/ledgers/browser-box/payments"
	if cheat := webtest.TextOfSel(t, ctx, "#cmd-first pre"); !strings.Contains(cheat, "curl -i -X POST "+endpoint) || !strings.Contains(cheat, "Idempotency-Key: key-1") {
		t.Errorf("the cheat-sheet's first command:\n%s", cheat)
	}
	pay := func() (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(`{"account": "acc-1", "amount": 1000}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "key-1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("Idempotent-Replayed")
	}
	if status, _ := pay(); status != http.StatusCreated {
		t.Fatalf("payment: %d", status)
	}
	webtest.Do(t, ctx, "see the payment appear", chromedp.WaitVisible(chromedp.CSS(`#try-payments tr[data-payment="pay_1"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#try-keys tr[data-key="key-1"][data-locked="false"]`)))
	if got := webtest.TextOfSel(t, ctx, `#try-accounts tr[data-account="acc-1"] td`); got != "10.00" {
		t.Errorf("acc-1's balance shows %q, want 10.00", got)
	}
	if status, replayed := pay(); status != http.StatusCreated || replayed != "true" {
		t.Errorf("replay: %d %q", status, replayed)
	}
	webtest.Do(t, ctx, "still one payment", chromedp.WaitVisible(chromedp.CSS(`#try-payments[data-count="1"]`)))
	webtest.ScreenshotWhen(t, ctx, "try-api-sandbox-1366x768", 1366, 768, false, "#try-payments")
	webtest.ScreenshotWhen(t, ctx, "try-api-sandbox-390x844", 390, 844, true, "#try-payments")
	b.NoConsoleErrors()
}
