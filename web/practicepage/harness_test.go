package practicepage_test

// The harness these tests share with the web's others (web/webtest), under
// the names the tests use.

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

var (
	do             = webtest.Do
	waitStep       = webtest.WaitStep
	attr           = webtest.Attr
	screenshotWhen = webtest.ScreenshotWhen
	mode           = webtest.Mode
	location       = webtest.Location
	markPage       = webtest.MarkPage
	pageKept       = webtest.PageKept
	textOfSel      = webtest.TextOfSel
	waitResult     = webtest.WaitResult
	openProgress   = webtest.OpenProgress
	findQuestion   = webtest.FindQuestion
	engineResult   = webtest.EngineResult
	otherVerdict   = webtest.OtherVerdict
	excerpt        = webtest.Excerpt
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

// testClock is webtest.Clock under the names these tests use.
type testClock struct{ *webtest.Clock }

func (c testClock) advance(d time.Duration) { c.Advance(d) }

func newPracticeBrowser(t *testing.T) (*browser, *testClock) {
	b, clock := webtest.NewPracticeBrowser(t)
	return wrapBrowser(b), &testClock{clock}
}

func TestMain(m *testing.M) { webtest.Main(m) }

func newTestClock() *testClock { return &testClock{webtest.NewClock()} }

func newPracticeServer(tb testing.TB, path string, clock *testClock) (http.Handler, func()) {
	tb.Helper()
	return webtest.NewPracticeServer(tb, path, clock.Clock)
}

// response is webtest.Response under the names these tests use.
type response struct {
	status int
	header http.Header
	body   string
}

func fromWebtest(r webtest.Response) response { return response{r.Status, r.Header, r.Body} }

// visitor is webtest.Visitor under the names these tests use.
type visitor struct {
	*webtest.Visitor
	tb testing.TB
}

func newVisitor(tb testing.TB, h http.Handler) *visitor {
	return &visitor{webtest.NewVisitor(tb, h), tb}
}

func (v *visitor) get(target string, headers ...string) response {
	v.tb.Helper()
	return fromWebtest(v.Get(target, headers...))
}

func (v *visitor) post(target string, form url.Values, headers ...string) response {
	v.tb.Helper()
	return fromWebtest(v.Post(target, form, headers...))
}

func (v *visitor) answer(id string, form url.Values) (string, response) {
	v.tb.Helper()
	loc, r := v.Answer(id, form)
	return loc, fromWebtest(r)
}
