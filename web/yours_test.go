package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
)

// A person's own handler is labelled "yours", never "anti-pattern", even
// when it is right: the verdict says how it does (#28, item 3).
func TestYourHandlerIsLabelledYours(t *testing.T) {
	h := newCodeServer(t, sandbox.Limits{})
	for _, lang := range []struct{ code, word string }{{"en", "yours"}, {"ru", "ваш"}} {
		r := get(t, h, "/lab?s="+link.Pack("publish a amount=100\ndeliver crash=before-ack\nredeliver\n")+"&code="+link.Pack(fixedNaive)+"&lang="+lang.code)
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, excerpt(r.body))
		}
		_, card, ok := strings.Cut(r.body, `id="card-yours"`)
		if !ok {
			t.Fatal("no card for the file")
		}
		card, _, _ = strings.Cut(card, "</header>")
		if !strings.Contains(card, `<span class="kind yours">`+lang.word+`</span>`) || strings.Contains(card, "kind anti") {
			t.Errorf("%s: the file's card is labelled\n%s", lang.code, card)
		}
	}
}
