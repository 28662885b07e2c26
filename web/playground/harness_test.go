package playground_test

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
	clickID        = webtest.ClickID
	attr           = webtest.Attr
	verdicts       = webtest.Verdicts
	artifactsDir   = webtest.ArtifactsDir
	screenshot     = webtest.Screenshot
	screenshotWhen = webtest.ScreenshotWhen
	mode           = webtest.Mode
	location       = webtest.Location
	wantCard       = webtest.WantCard
	markPage       = webtest.MarkPage
	pageKept       = webtest.PageKept
	textOfSel      = webtest.TextOfSel
	poll           = webtest.Poll
	settled        = webtest.Settled
	waitResult     = webtest.WaitResult
	openProgress   = webtest.OpenProgress
	runAxe         = webtest.RunAxe
	axeFile        = webtest.AxeFile
	newTestServer  = webtest.NewServer
	newCodeServer  = webtest.NewCodeServer
	excerpt        = webtest.Excerpt
	cards          = webtest.Cards
	between        = webtest.Between
	mustPresets    = webtest.MustPresets
	scriptOf       = webtest.ScriptOf
	noMissingKeys  = webtest.NoMissingKeys
	matrixCellOf   = webtest.MatrixCellOf
	cardVerdicts   = webtest.CardVerdicts
	mustBank       = webtest.MustBank
	findQuestion   = webtest.FindQuestion
	answerFor      = webtest.AnswerFor
	resultOf       = webtest.ResultOf
	newRoomServer  = webtest.NewRoomServer
	openRoom       = webtest.OpenRoom
	crashBeforeAck = webtest.CrashBeforeAck
	issuedStudent  = webtest.IssuedStudent
)

var codePracticeServer = webtest.CodePracticeServer

const fixedNaive = webtest.FixedNaive

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

func openPermalink(t *testing.T, b *browser, ctx context.Context, js bool, step int) map[string]string {
	t.Helper()
	return webtest.OpenPermalink(t, b.Browser, ctx, js, step)
}

// testClock is webtest.Clock under the names these tests use.
type testClock struct{ *webtest.Clock }

func newPracticeBrowser(t *testing.T) (*browser, *testClock) {
	b, clock := webtest.NewPracticeBrowser(t)
	return wrapBrowser(b), &testClock{clock}
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

func post(tb testing.TB, h http.Handler, target string, form url.Values) response {
	tb.Helper()
	return fromWebtest(webtest.Post(tb, h, target, form))
}

func request(tb testing.TB, h http.Handler, method, target string, form url.Values, headers ...string) response {
	tb.Helper()
	return fromWebtest(webtest.Request(tb, h, method, target, form, headers...))
}

func follow(tb testing.TB, h http.Handler, target string, form url.Values) (string, response) {
	tb.Helper()
	loc, r := webtest.Follow(tb, h, target, form)
	return loc, fromWebtest(r)
}

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

func (v *visitor) profile() string { return v.Profile() }

func practiceServer(tb testing.TB) (http.Handler, *testClock) {
	tb.Helper()
	h, clock := webtest.PracticeServer(tb)
	return h, &testClock{clock}
}

func newTestClock() *testClock { return &testClock{webtest.NewClock()} }

func (v *visitor) answer(id string, form url.Values) (string, response) {
	v.tb.Helper()
	loc, r := v.Answer(id, form)
	return loc, fromWebtest(r)
}
