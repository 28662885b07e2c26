package a11y_test

// The harness these tests share with the web's others (web/webtest), under
// the names the tests use.

import (
	"context"
	"testing"

	"github.com/idempotency-lab/lab/web/webtest"
)

var (
	do             = webtest.Do
	waitStep       = webtest.WaitStep
	attr           = webtest.Attr
	artifactsDir   = webtest.ArtifactsDir
	screenshotWhen = webtest.ScreenshotWhen
	poll           = webtest.Poll
	findQuestion   = webtest.FindQuestion
	wrongOption    = webtest.WrongOption
	engineResult   = webtest.EngineResult
	otherVerdict   = webtest.OtherVerdict
	runAxe         = webtest.RunAxe
	axeFile        = webtest.AxeFile
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

// testClock is webtest.Clock under the names these tests use.
type testClock struct{ *webtest.Clock }

func newPracticeBrowser(t *testing.T) (*browser, *testClock) {
	b, clock := webtest.NewPracticeBrowser(t)
	return wrapBrowser(b), &testClock{clock}
}

func TestMain(m *testing.M) { webtest.Main(m) }
