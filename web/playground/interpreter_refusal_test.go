package playground_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestInterpreterRefusal: a handler file with a construct the
// interpreter runs otherwise than Go (an error constant of a named string
// type, not equal to itself there) is refused over HTTP as the loader
// refuses it: the editor's form leads to the lab address with the file,
// a 422 naming the construct and its alternative, in English and
// Russian, and the checker's address is refused with the same message,
// never a verdict.
func TestInterpreterRefusal(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	code := strings.Replace(webtest.FixedNaive, "func Handle(", "type errCode string\n\nfunc (e errCode) Error() string { return string(e) }\n\nconst ErrBusy errCode = \"busy\"\n\nfunc Handle(", 1)
	if code == webtest.FixedNaive {
		t.Fatal("fixedNaive has no Handle to insert before")
	}
	for _, c := range []struct{ lang, want string }{
		{"en", "type errCode has an Error method"},
		{"ru", "у типа errCode есть метод Error"},
	} {
		r := webtest.Post(t, h, "/lab/code?lang="+c.lang, url.Values{"code": {code}, "state": {"?preset=crash-before-ack"}, "action": {"run"}})
		if r.Status == http.StatusSeeOther { // the lab keeps the file in its address and shows what is wrong there
			r = webtest.Get(t, h, strings.TrimSuffix(r.Header.Get("Location"), "#editor")+"&lang="+c.lang)
		}
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(r.Body), c.want) {
			t.Errorf("%s: status %d, want 422 and %q\n%s", c.lang, r.Status, c.want, webtest.Excerpt(r.Body))
		}
		chk := webtest.Get(t, h, "/check/code?code="+link.Pack(code)+"&lang="+c.lang)
		if chk.Status == http.StatusOK && strings.Contains(chk.Body, `class="chk-story"`) || !strings.Contains(html.UnescapeString(chk.Body), c.want) {
			t.Errorf("/check/code, %s: status %d, want %q and no story\n%s", c.lang, chk.Status, c.want, webtest.Excerpt(chk.Body))
		}
	}
}
