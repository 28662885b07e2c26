package checkpage_test

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
	verdicts      = webtest.Verdicts
	mode          = webtest.Mode
	newTestServer = webtest.NewServer
	excerpt       = webtest.Excerpt
	noMissingKeys = webtest.NoMissingKeys
)

const fixedNaive = webtest.FixedNaive

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

func post(tb testing.TB, h http.Handler, target string, form url.Values) response {
	tb.Helper()
	return fromWebtest(webtest.Post(tb, h, target, form))
}
