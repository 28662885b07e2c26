package playground_test

import (
	"fmt"
	"github.com/idempotency-lab/lab/web/webtest"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestParseErrorsSpeakTheReadersLanguage: the parser's message reaches a
// Russian reader in Russian, with the line it names.
func TestParseErrorsSpeakTheReadersLanguage(t *testing.T) {
	h := webtest.NewServer(t)
	script := url.QueryEscape("publish pay-1 amount=100\nfly away\n")
	for _, tc := range []struct{ lang, want string }{
		{"en", `line 2: unknown verb "fly"`},
		{"ru", `строка 2: неизвестная команда "fly"`},
	} {
		r := webtest.Get(t, h, "/lab?script="+script+"&lang="+tc.lang)
		if r.Status != http.StatusBadRequest {
			t.Fatalf("lang=%s: status %d, want 400", tc.lang, r.Status)
		}
		if body := html.UnescapeString(r.Body); !strings.Contains(body, tc.want) {
			t.Errorf("lang=%s: page does not say %q:\n%s", tc.lang, tc.want, webtest.Excerpt(r.Body))
		}
	}
}

// TestTimelineSpeaksTheReadersLanguage: the engine's own words in the
// timeline (not the SQL, which is code) follow the page's language.
func TestTimelineSpeaksTheReadersLanguage(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/lab?preset=crash-before-ack&step=4&lang=ru")
	if r.Status != http.StatusOK {
		t.Fatalf("status %d", r.Status)
	}
	body := html.UnescapeString(r.Body)
	for _, want := range []string{"воркер падает, не успев отправить ack", "UPDATE accounts SET balance"} {
		if !strings.Contains(body, want) {
			t.Errorf("Russian lab page lacks %q", want)
		}
	}
	if strings.Contains(body, "worker dies before it can ack") {
		t.Error("Russian lab page still shows the English crash text")
	}
}

// TestLabLinksToThePresenter: the lab offers its run to the presenter view,
// which opens on the same script and step.
func TestLabLinksToThePresenter(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/lab?preset=crash-before-ack&step=2")
	want := `href="/present?preset=crash-before-ack&amp;step=2"`
	if !strings.Contains(r.Body, want) {
		t.Fatalf("lab page lacks %s", want)
	}
	p := webtest.Get(t, h, "/present?preset=crash-before-ack&step=2")
	if p.Status != http.StatusOK {
		t.Fatalf("presenter view: status %d\n%s", p.Status, webtest.Excerpt(p.Body))
	}
}

// TestCancellingErrorsAreExplained: when one operation is doubled and
// another lost, the total looks right; the card says why it is not.
func TestCancellingErrorsAreExplained(t *testing.T) {
	h := webtest.NewServer(t)
	script := url.QueryEscape("publish a amount=100\npublish b amount=100\ndeliver crash=before-effect\nredeliver\ndeliver\ndeliver\nadvance 25h\nretry b\ndeliver\n")
	r := webtest.Get(t, h, "/lab?script="+script+"&handlers=setnx&lang=en")
	if r.Status != http.StatusOK {
		t.Fatalf("status %d", r.Status)
	}
	if body := html.UnescapeString(r.Body); !strings.Contains(body, "the errors cancel out") {
		t.Errorf("setnx card does not explain the cancelling errors:\n%s", webtest.Excerpt(r.Body))
	}
}

// TestLongDrainStaysSmall: a short permalink that drains hundreds of
// messages must not turn into a page of megabytes of diagram.
func TestLongDrainStaysSmall(t *testing.T) {
	h := webtest.NewServer(t)
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "publish p%d amount=100\n", i)
	}
	b.WriteString("drain\n")
	r := webtest.Get(t, h, "/lab?script="+url.QueryEscape(b.String())+"&handlers=naive")
	if r.Status != http.StatusOK {
		t.Fatalf("status %d", r.Status)
	}
	if len(r.Body) > 2<<20 {
		t.Errorf("page is %d bytes; the timeline should be capped", len(r.Body))
	}
	if !strings.Contains(html.UnescapeString(r.Body), "more events in this step, not drawn") {
		t.Error("the capped step does not say how many events were left out")
	}
}

// TestOpenRoomKeepsPanels: a presenter who opens a room with the source
// showing finds it still showing in the room.
func TestOpenRoomKeepsPanels(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/present/crash-before-ack?show=source")
	if r.Status != http.StatusOK {
		t.Fatalf("status %d", r.Status)
	}
	if !strings.Contains(r.Body, `name="show" value="source"`) {
		t.Error("the open-a-room form does not carry the open panels")
	}
}
