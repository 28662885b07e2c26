package labview_test

// The harness these tests share with the web's others (web/webtest), under
// the names the tests use.

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/idempotency-lab/lab/web/webtest"
)

var (
	do            = webtest.Do
	waitStep      = webtest.WaitStep
	attr          = webtest.Attr
	mode          = webtest.Mode
	location      = webtest.Location
	markPage      = webtest.MarkPage
	pageKept      = webtest.PageKept
	textOfSel     = webtest.TextOfSel
	poll          = webtest.Poll
	settled       = webtest.Settled
	newTestServer = webtest.NewServer
	excerpt       = webtest.Excerpt
	openRoom      = webtest.OpenRoom
	cardVerdicts  = webtest.CardVerdicts
)

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return webtest.Eval[T](t, ctx, expr)
}

// browser is webtest.Browser under the names these tests use.
type browser struct {
	*webtest.Browser
	base string
}

func wrapBrowser(b *webtest.Browser) *browser { return &browser{b, b.Base} }

func (b *browser) tab(fresh, javascript bool) context.Context { return b.Tab(fresh, javascript) }

func (b *browser) noConsoleErrors() { b.NoConsoleErrors() }

func newBrowser(t *testing.T) *browser { return wrapBrowser(webtest.NewBrowser(t)) }

func TestMain(m *testing.M) { webtest.Main(m) }

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

func follow(tb testing.TB, h http.Handler, target string, form url.Values) (string, response) {
	tb.Helper()
	loc, r := webtest.Follow(tb, h, target, form)
	return loc, fromWebtest(r)
}

func getAt(tb testing.TB, h http.Handler, host, target, cookie string) response {
	tb.Helper()
	return fromWebtest(webtest.GetAt(tb, h, host, target, cookie))
}
