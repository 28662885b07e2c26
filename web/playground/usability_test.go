package playground_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestLabPresetShowsDeclaredHandlers: a preset without handlers= opens on
// the core handlers and the ones its handlers: header declares, in the
// handler list's order, at step 0; the canonical address needs neither.
func TestLabPresetShowsDeclaredHandlers(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/lab?preset=poison-loop")
	if r.Status != 200 {
		t.Fatalf("status %d", r.Status)
	}
	got := webtest.Cards(r.Body)
	for _, name := range []string{"naive", "unique", "setnx", "statemachine", "inbox", "unique-error"} {
		if _, ok := got[name]; !ok {
			t.Errorf("no card for %s: %v", name, got)
		}
	}
	if len(got) != 6 {
		t.Errorf("%d cards %v, want 6", len(got), got)
	}
	if !strings.Contains(r.Body, `data-step="0"`) {
		t.Error("a preset should open at step 0")
	}
	if strings.Contains(r.Body, "handlers=naive,unique,setnx") {
		t.Error("the default handlers should not be spelt out in the address")
	}
	// Every preset whose story names handlers shows them.
	for _, name := range []string{"gateway-failure", "concurrent-duplicates", "crash-before-effect", "crash-after-effect", "dlq-replay"} {
		p, err := sim.FindPreset(webtest.MustPresets(t), name)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Script.Handlers) == 0 {
			t.Errorf("%s declares no handlers", name)
		}
		got := webtest.Cards(webtest.Get(t, h, "/lab?preset="+name).Body)
		for _, hn := range p.Script.Handlers {
			if _, ok := got[hn]; !ok {
				t.Errorf("%s: no card for declared %s: %v", name, hn, got)
			}
		}
		pg := webtest.Cards(webtest.Get(t, h, "/present/"+name).Body)
		if len(pg) != len(p.Script.Handlers) {
			t.Errorf("/present/%s shows %v, want %v", name, pg, p.Script.Handlers)
		}
	}
}

func TestResultSymbol(t *testing.T) {
	for _, tc := range []struct {
		settled, expected int64
		want              string
	}{
		{20000, 10000, "×2"},
		{30000, 10000, "×3"},
		{15000, 10000, "+50.00"},
	} {
		res := sim.Result{Verdict: sim.Duplicate, Settled: tc.settled, Expected: tc.expected}
		if got := page.ResultSymbol(res); got != tc.want {
			t.Errorf("settled %d of %d: %q, want %q", tc.settled, tc.expected, got, tc.want)
		}
	}
	// A handler that credits every delivery of a thrice-delivered message.
	h := webtest.NewServer(t)
	script := "publish pay-1 amount=10000\ndeliver crash=before-ack\nredeliver\ndeliver crash=before-ack\nredeliver\ndeliver\n"
	r := webtest.Get(t, h, "/lab?handlers=naive&s="+link.Pack(script))
	if !strings.Contains(r.Body, "×3") || strings.Contains(r.Body, "×2") {
		t.Errorf("naive credited three times: the card should say ×3\n%s", webtest.Excerpt(r.Body))
	}
}

// TestIdleStepsAreNarratedAndRefused: a deliver with nothing ready (typed
// into a script) is narrated as doing nothing, and the buttons that would
// add one are disabled with the reason.
func TestIdleStepsAreNarratedAndRefused(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/lab?s="+link.Pack("deliver\n"))
	if !strings.Contains(r.Body, "nothing is ready to deliver: the queue is empty and nothing changes") {
		t.Errorf("the narration of an idle deliver\n%s", webtest.Excerpt(r.Body))
	}
	if !strings.Contains(r.Body, `id="do-deliver" disabled title="Nothing is ready to deliver at this step: the queue is empty." aria-describedby="why-no-deliver"`) &&
		!strings.Contains(r.Body, `aria-describedby="why-no-deliver"`) {
		t.Errorf("the deliver button should be disabled with its reason")
	}
	if !strings.Contains(r.Body, `id="why-no-redeliver"`) {
		t.Error("the redeliver button should say why it is disabled")
	}
	ru := webtest.Get(t, h, "/lab?lang=ru&s="+link.Pack("redeliver\n"))
	if !strings.Contains(ru.Body, "Ни одно сообщение не в обработке, возвращать в очередь нечего") {
		t.Errorf("the Russian narration of an idle redeliver\n%s", webtest.Excerpt(ru.Body))
	}
	// An idle drain and an idle DLQ replay, typed into a script, say so;
	// their buttons are disabled with the reason.
	idle := webtest.Get(t, h, "/lab?s="+link.Pack("drain\ndlq-replay\n")+"&step=1")
	if !strings.Contains(idle.Body, "Workers ask for messages, but nothing is ready to deliver: nothing changes.") {
		t.Errorf("the narration of an idle drain\n%s", webtest.Excerpt(idle.Body))
	}
	for _, id := range []string{"do-drain", "do-dlq-replay"} {
		tag := regexp.MustCompile(`<button[^>]* id="` + id + `"[^>]*>`).FindString(idle.Body)
		if !strings.Contains(tag, " disabled") {
			t.Errorf("the %s button on an idle page is not disabled: %s", id, tag)
		}
	}
	if !strings.Contains(idle.Body, `id="why-no-dlq"`) {
		t.Error("the DLQ replay button does not say why it is disabled")
	}
	if r := webtest.Get(t, h, "/lab?lang=ru&s="+link.Pack("dlq-replay\n")); !strings.Contains(r.Body, "DLQ пуста, переотправлять нечего: ничего не меняется.") {
		t.Errorf("the Russian narration of an idle DLQ replay\n%s", webtest.Excerpt(r.Body))
	}
	// With a message ready, delivering is allowed.
	ok := webtest.Get(t, h, "/lab?s="+link.Pack("publish pay-1 amount=1\n"))
	if strings.Contains(ok.Body, `id="why-no-deliver"`) {
		t.Error("a ready message: deliver should be enabled")
	}
	ruErr := webtest.Post(t, h, "/lab/step?lang=ru", url.Values{"verb": {"deliver"}})
	if ruErr.Status != 400 || !strings.Contains(ruErr.Body, "доставлять нечего, очередь пуста") {
		t.Errorf("Russian refusal: %d\n%s", ruErr.Status, webtest.Excerpt(ruErr.Body))
	}
}
