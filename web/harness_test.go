package web_test

// The harness the server's external tests share with the web's others
// (web/webtest), under the names the tests use. The tests in package web
// itself reach the server's internals and cannot import webtest (it
// imports web): they keep the helpers of their own files.

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/idempotency-lab/lab/web/webtest"
)

var (
	newTestServer = webtest.NewServer
	newCodeServer = webtest.NewCodeServer
	excerpt       = webtest.Excerpt
	cardVerdicts  = webtest.CardVerdicts
)

const fixedNaive = webtest.FixedNaive

// TestMain makes the test binary a sandbox child when the server starts
// one, as `lab sandbox-child` is the lab's.
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

func follow(tb testing.TB, h http.Handler, target string, form url.Values) (string, response) {
	tb.Helper()
	loc, r := webtest.Follow(tb, h, target, form)
	return loc, fromWebtest(r)
}
