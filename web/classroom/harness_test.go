package classroom_test

// The harness these tests share with the web's others (web/webtest), under
// the names the tests use.

import (
	"context"
	"net/http"
	"net/url"
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
	excerpt        = webtest.Excerpt
	balances       = webtest.Balances
	htmlUnescape   = webtest.HTMLUnescape
	noMissingKeys  = webtest.NoMissingKeys
	newRoomServer  = webtest.NewRoomServer
	openRoom       = webtest.OpenRoom
	crashBeforeAck = webtest.CrashBeforeAck
	issuedStudent  = webtest.IssuedStudent
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

func post(tb testing.TB, h http.Handler, target string, form url.Values) response {
	tb.Helper()
	return fromWebtest(webtest.Post(tb, h, target, form))
}

func request(tb testing.TB, h http.Handler, method, target string, form url.Values, headers ...string) response {
	tb.Helper()
	return fromWebtest(webtest.Request(tb, h, method, target, form, headers...))
}
