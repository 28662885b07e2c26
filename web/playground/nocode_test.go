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
)

// A lab whose machine cannot isolate a child (lab serve's self-test
// failed) runs no visitor's file: every page that would run one says
// why, and the lab page says it where the editor would be.
func TestNoIsolationTurnsCodeOff(t *testing.T) {
	const why = "sandbox: this system cannot isolate a child (mount: operation not permitted)"
	bank, store := openProgress(t, "")
	h, err := web.NewServer(web.Config{NoCode: why, Practice: store, Bank: bank})
	if err != nil {
		t.Fatal(err)
	}
	lab := get(t, h, "/lab")
	if lab.status != http.StatusOK || !strings.Contains(html.UnescapeString(lab.body), why) || strings.Contains(lab.body, `id="editor"`) {
		t.Errorf("/lab: status %d, the reason shown: %v, the editor hidden: %v", lab.status,
			strings.Contains(html.UnescapeString(lab.body), why), !strings.Contains(lab.body, `id="editor"`))
	}
	code := link.Pack("package handler\n")
	for _, c := range []struct {
		name string
		r    response
	}{
		{"a code= address", get(t, h, "/lab?s="+link.Pack("publish a amount=100\n")+"&code="+code)},
		{"the editor's form", post(t, h, "/lab/code", url.Values{"state": {"preset=crash-before-ack"}, "code": {"package handler\n"}, "action": {"run"}})},
		{"a check of a file", get(t, h, "/check/code?code="+code)},
		{"a coding exercise", post(t, h, "/practice/q/"+findQuestion(t, practice.KindCode, nil).ID, url.Values{"code": {"package handler\n\nfunc Handle() {}\n"}})},
	} {
		if c.r.status != http.StatusServiceUnavailable || !strings.Contains(html.UnescapeString(c.r.body), why) {
			t.Errorf("%s: status %d, want 503 naming why: %s", c.name, c.r.status, excerpt(c.r.body))
		}
	}
}
