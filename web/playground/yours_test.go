package playground_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// A person's own handler is labelled "yours", never "anti-pattern", even
// when it is right: the verdict says how it does (#28, item 3).
func TestYourHandlerIsLabelledYours(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	for _, lang := range []struct{ code, word string }{{"en", "yours"}, {"ru", "ваш"}} {
		r := webtest.Get(t, h, "/lab?s="+link.Pack("publish a amount=100\ndeliver crash=before-ack\nredeliver\n")+"&code="+link.Pack(webtest.FixedNaive)+"&lang="+lang.code)
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, webtest.Excerpt(r.Body))
		}
		_, card, ok := strings.Cut(r.Body, `id="card-yours"`)
		if !ok {
			t.Fatal("no card for the file")
		}
		card, _, _ = strings.Cut(card, "</header>")
		if !strings.Contains(card, `<span class="kind yours">`+lang.word+`</span>`) || strings.Contains(card, "kind anti") {
			t.Errorf("%s: the file's card is labelled\n%s", lang.code, card)
		}
	}
}

// The lessons' index counts its lessons from the course, in both
// languages (it said "Nine" when there were eleven).
func TestLessonsIndexCountsItsLessons(t *testing.T) {
	h, err := web.NewServer(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	course, err := lessons.Load(lessons.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ lang, want string }{{"en", "%d short lessons"}, {"ru", "всего уроков: %d"}} {
		want := fmt.Sprintf(c.want, len(course.Lessons(c.lang)))
		if r := webtest.Get(t, h, "/lessons?lang="+c.lang); !strings.Contains(r.Body, want) {
			t.Errorf("%s: the intro does not say %q", c.lang, want)
		}
	}
}
