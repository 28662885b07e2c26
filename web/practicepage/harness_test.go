package practicepage_test

// The harness these tests share with the web's others (web/webtest), under
// the names the tests use.

import (
	"context"
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
