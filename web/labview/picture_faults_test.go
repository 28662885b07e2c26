package labview_test

import (
	"github.com/idempotency-lab/lab/web/webtest"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// pictureScript leaves pay-1 in flight (its worker died before the ack)
// and pay-2 ready: every click of the picture is offered.
const pictureScript = "publish pay-1 amount=10000\npublish pay-2 amount=10000\ndeliver crash=before-ack"

// laneAct finds the picture's link with id on a page: its address and the
// step control it stands for; ok is false when the page has none.
func laneAct(body, id string) (href, button string, ok bool) {
	m := regexp.MustCompile(`<a href="([^"]*)" class="lane-act" id="` + regexp.QuoteMeta(id) + `" data-button="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		return "", "", false
	}
	return html.UnescapeString(m[1]), m[2], true
}

// TestPictureFaultLinks: on a card's lane the worker, the broker and the
// gateway link to the very address the step control's form leads to
// (the same step appended), named for what they do in both languages,
// and only where that control would do something on the card.
func TestPictureFaultLinks(t *testing.T) {
	h := webtest.NewServer(t)
	state := url.Values{"script": {pictureScript}, "handlers": {"naive,setnx"}}
	r := webtest.Get(t, h, "/lab?"+state.Encode())
	if r.Status != 200 {
		t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	// Each click, the form its control sends (as the page's buttons do),
	// and the step it appends.
	for _, c := range []struct {
		id, button string
		form       url.Values
		line, name string
	}{
		{"lane-crash-naive", "do-crash-before-ack", url.Values{"verb": {"deliver"}, "crash": {"before-ack"}}, "deliver crash=before-ack", "crash the worker before its ack on the next delivery"},
		{"lane-crash-setnx", "do-crash-before-ack", url.Values{"verb": {"deliver"}, "crash": {"before-ack"}}, "deliver crash=before-ack", "crash the worker before its ack on the next delivery"},
		{"lane-redeliver-naive", "do-redeliver", url.Values{"verb": {"redeliver"}}, "redeliver", "redeliver the messages in flight"},
		{"lane-gateway-setnx", "do-gateway-down", url.Values{"verb": {"gateway"}, "state": {"down"}}, "gateway down", "take the gateway down"},
	} {
		t.Run(c.id, func(t *testing.T) {
			href, button, ok := laneAct(r.Body, c.id)
			if !ok {
				t.Fatalf("no link %s on the page", c.id)
			}
			if button != c.button {
				t.Errorf("%s stands for %q, want %q", c.id, button, c.button)
			}
			if !regexp.MustCompile(`id="`+c.id+`" data-button="`+c.button+`" title="[A-Za-z]+: `+c.name+`"><span class="lane-label">`).MatchString(r.Body) ||
				!strings.Contains(r.Body, `<span class="visually-hidden">: `+c.name+`</span></a>`) {
				t.Errorf("%s is not named %q after its visible name", c.id, c.name)
			}
			form := url.Values{"step": {"3"}}
			for k, v := range state {
				form[k] = v
			}
			for k, v := range c.form {
				form[k] = v
			}
			loc, page := webtest.Follow(t, h, "/lab/step", form)
			if loc != href {
				t.Errorf("the control leads to\n%s\nthe picture to\n%s", loc, href)
			}
			if !strings.Contains(page.Body, `<code class="step-line">`+c.line+`</code>`) || !strings.Contains(page.Body, `data-step="4"`) {
				t.Errorf("after the click the page does not show step 4, %q:\n%s", c.line, webtest.Excerpt(page.Body))
			}
		})
	}
	// The crash shows on the card the click was on: its worker dies.
	href, _, _ := laneAct(r.Body, "lane-crash-naive")
	after := webtest.Get(t, h, href)
	if !regexp.MustCompile(`<li class="lane-part hit crash[^"]*" data-part="worker">`).MatchString(after.Body) {
		t.Errorf("after a click on the worker, its lane shows no crash:\n%s", webtest.Excerpt(after.Body))
	}
	// naive does not call the gateway: its lane has none to click.
	if _, _, ok := laneAct(r.Body, "lane-gateway-naive"); ok {
		t.Error("naive's lane offers a gateway it does not have")
	}
	if !strings.Contains(r.Body, `<ol class="lane-parts" aria-label="The parts of naive&#39;s run; a click on one adds a fault">`) {
		t.Error("naive's lane is not a named list of its parts")
	}

	// Nothing to deliver, nothing in flight: no worker or broker click,
	// and a lane without any click stays a picture (aria-hidden).
	r = webtest.Get(t, h, "/lab?preset=crash-before-ack&step=0&handlers=naive")
	for _, id := range []string{"lane-crash-naive", "lane-redeliver-naive"} {
		if _, _, ok := laneAct(r.Body, id); ok {
			t.Errorf("at step 0, with nothing published, the lane offers %s", id)
		}
	}
	if !strings.Contains(r.Body, `<ol class="lane-parts" aria-hidden="true">`) {
		t.Error("a lane with nothing to click is not hidden from screen readers")
	}
	r = webtest.Get(t, h, "/lab?preset=crash-before-ack&step=1&handlers=naive")
	if _, _, ok := laneAct(r.Body, "lane-crash-naive"); !ok {
		t.Error("at step 1 (pay-1 ready) the worker cannot be crashed")
	}
	if _, _, ok := laneAct(r.Body, "lane-redeliver-naive"); ok {
		t.Error("at step 1 (nothing in flight) the broker offers a redelivery")
	}

	// A gateway that is down is brought back up by the same click.
	down := url.Values{"script": {"publish pay-1 amount=10000\ngateway down"}, "handlers": {"setnx"}}
	r = webtest.Get(t, h, "/lab?"+down.Encode())
	if _, button, ok := laneAct(r.Body, "lane-gateway-setnx"); !ok || button != "do-gateway-up" {
		t.Errorf("with the gateway down its click stands for %q (%v), want do-gateway-up", button, ok)
	}
	if !strings.Contains(r.Body, ": bring the gateway back up</span>") {
		t.Error("the gateway's click is not named for bringing it up")
	}

	// In Russian.
	r = webtest.Get(t, h, "/lab?"+state.Encode()+"&lang=ru")
	for _, want := range []string{": уронить воркер перед ack при следующей доставке</span>", ": вернуть необработанные сообщения в очередь</span>",
		": уронить шлюз</span>", `aria-label="Части прогона naive; щелчок по части добавляет сбой"`} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("the Russian page has no %s", want)
		}
	}

	// The presenter shows the lane as a picture, without the lab's clicks.
	r = webtest.Get(t, h, "/present/crash-before-ack?step=2")
	if strings.Contains(r.Body, `class="lane-act"`) {
		t.Error("the presenter's lanes link to the lab")
	}
	// The API side's cards have no lane, so nothing to click.
	r = webtest.Get(t, h, "/lab?preset=api-crash-after-charge")
	if r.Status == 200 && strings.Contains(r.Body, `class="lane-act"`) {
		t.Error("an API card offers the picture's clicks")
	}
}
