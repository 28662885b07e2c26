package classroom_test

// The harness these tests share with the web's others (web/webtest), under
// the names the tests use.

import (
	"context"
	"net/http"
	"testing"

	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

var (
	do             = webtest.Do
	waitStep       = webtest.WaitStep
	attr           = webtest.Attr
	verdicts       = webtest.Verdicts
	screenshot     = webtest.Screenshot
	screenshotWhen = webtest.ScreenshotWhen
	location       = webtest.Location
	markPage       = webtest.MarkPage
	pageKept       = webtest.PageKept
	textOfSel      = webtest.TextOfSel
	newTestServer  = webtest.NewServer
	cards          = webtest.Cards
	mustPresets    = webtest.MustPresets
)

// labBrowser is webtest.Browser under the names these tests use.
type labBrowser struct {
	*webtest.Browser
	base string
}

func wrapBrowser(b *webtest.Browser) *labBrowser { return &labBrowser{b, b.Base} }

func (b *labBrowser) tab(fresh, javascript bool) context.Context { return b.Tab(fresh, javascript) }

func (b *labBrowser) noConsoleErrors() { b.NoConsoleErrors() }

func newBrowser(t *testing.T) *labBrowser { return wrapBrowser(webtest.NewBrowser(t)) }

func newBrowserWith(t *testing.T, cfg web.Config) *labBrowser {
	return wrapBrowser(webtest.NewBrowserWith(t, cfg))
}

// response is webtest.Response under the names these tests use.
type response struct {
	status int
	header http.Header
	body   string
}

func fromWebtest(r webtest.Response) response { return response{r.Status, r.Header, r.Body} }

func get(tb testing.TB, h http.Handler, target string, headers ...string) response {
	tb.Helper()
	return fromWebtest(webtest.Get(tb, h, target, headers...))
}
