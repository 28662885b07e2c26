package course_test

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
	verdicts       = webtest.Verdicts
	screenshotWhen = webtest.ScreenshotWhen
	mode           = webtest.Mode
	location       = webtest.Location
	markPage       = webtest.MarkPage
	pageKept       = webtest.PageKept
	textOfSel      = webtest.TextOfSel
	poll           = webtest.Poll
	mustPreset     = webtest.MustPreset
	newTestServer  = webtest.NewServer
	newCodeServer  = webtest.NewCodeServer
	excerpt        = webtest.Excerpt
	cards          = webtest.Cards
	balances       = webtest.Balances
	htmlUnescape   = webtest.HTMLUnescape
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

func newBrowserWith(t *testing.T, cfg web.Config) *browser {
	return wrapBrowser(webtest.NewBrowserWith(t, cfg))
}

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
