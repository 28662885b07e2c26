package playground_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// A lab whose machine cannot isolate a child (lab serve's self-test
// failed) runs no visitor's file: every page that would run one says
// why, and the lab page says it where the editor would be.
func TestNoIsolationTurnsCodeOff(t *testing.T) {
	const why = "sandbox: this system cannot isolate a child (mount: operation not permitted)"
	bank, store := webtest.OpenProgress(t, "")
	h, err := web.NewServer(web.Config{NoCode: why, Practice: store, Bank: bank})
	if err != nil {
		t.Fatal(err)
	}
	lab := webtest.Get(t, h, "/lab")
	if lab.Status != http.StatusOK || !strings.Contains(html.UnescapeString(lab.Body), why) || strings.Contains(lab.Body, `id="editor"`) {
		t.Errorf("/lab: status %d, the reason shown: %v, the editor hidden: %v", lab.Status,
			strings.Contains(html.UnescapeString(lab.Body), why), !strings.Contains(lab.Body, `id="editor"`))
	}
	code := link.Pack("package handler\n")
	for _, c := range []struct {
		name string
		r    webtest.Response
	}{
		{"a code= address", webtest.Get(t, h, "/lab?s="+link.Pack("publish a amount=100\n")+"&code="+code)},
		{"the editor's form", webtest.Post(t, h, "/lab/code", url.Values{"state": {"preset=crash-before-ack"}, "code": {"package handler\n"}, "action": {"run"}})},
		{"a check of a file", webtest.Get(t, h, "/check/code?code="+code)},
		{"a coding exercise", webtest.Post(t, h, "/practice/q/"+webtest.FindQuestion(t, practice.KindCode, nil).ID, url.Values{"code": {"package handler\n\nfunc Handle() {}\n"}})},
	} {
		if c.r.Status != http.StatusServiceUnavailable || !strings.Contains(html.UnescapeString(c.r.Body), why) {
			t.Errorf("%s: status %d, want 503 naming why: %s", c.name, c.r.Status, webtest.Excerpt(c.r.Body))
		}
	}
}
