package playground_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/webtest"
)

var apiHandlerNames = []string{"api-idempotency-key", "api-naive", "api-key-no-fingerprint", "api-key-no-lock", "api-key-short-ttl"}

// TestLabAPIPreset: every API preset opens in the lab, in both languages,
// with a card per API handler, the picker's API group, the client's
// controls instead of the producer's, and no broker panel.
func TestLabAPIPreset(t *testing.T) {
	h := webtest.NewServer(t)
	presets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "ru"} {
		for _, p := range presets {
			target := "/lab?preset=" + p.Name + "&lang=" + lang + "&step=" + strconv.Itoa(len(p.Script.Steps))
			r := webtest.Get(t, h, target)
			if r.Status != http.StatusOK {
				t.Fatalf("%s: status %d\n%s", target, r.Status, webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, target, r.Body)
			got := webtest.Cards(r.Body)
			if len(got) != len(apiHandlerNames) {
				t.Errorf("%s: cards %v, want the five API handlers", target, got)
			}
			for _, want := range []string{`<optgroup label="API (Idempotency-Key)" id="api-presets">`,
				`<option value="` + p.Name + `" selected>`, `id="do-request"`, `id="do-api-retry"`, `id="do-advance"`, `class="panel no-broker"`} {
				if !strings.Contains(r.Body, want) {
					t.Errorf("%s: the page lacks %s", target, want)
				}
			}
			for _, not := range []string{`id="do-publish"`, `id="do-deliver"`, `class="qcounts"`} {
				if strings.Contains(r.Body, not) {
					t.Errorf("%s: an API page has %s", target, not)
				}
			}
		}
	}
	// The lost response: the answer and the replay, in the timeline.
	r := webtest.Get(t, h, "/lab?preset=api-lost-response&step=2&handlers=api-idempotency-key")
	body := html.UnescapeString(r.Body)
	for _, want := range []string{"POST /payments", "201 Created", "Idempotent-Replayed: true", "Charged by the provider"} {
		if !strings.Contains(body, want) {
			t.Errorf("api-lost-response at its end lacks %q", want)
		}
	}
	// The key reused with another body: api-naive answers wrong, and its
	// badge says so in sim's words.
	r = webtest.Get(t, h, "/lab?preset=api-reused-key&step=2&handlers=api-naive&lang=ru")
	if got := webtest.Cards(r.Body)["api-naive"]; got == "" {
		t.Fatalf("no api-naive card\n%s", webtest.Excerpt(r.Body))
	}
	// Every step control on an API page has its tip.
	r = webtest.Get(t, h, "/lab?preset=api-lost-response&step=1&lang=ru")
	for _, id := range labview.APIStepTipIDs {
		if !regexp.MustCompile(`id="` + id + `"[^>]*aria-describedby="tip-` + id + `"`).MatchString(r.Body) {
			t.Errorf("%s: no control described by its tip", id)
		}
	}
}

// TestLabAPIWrongStatusBadge: a run that answers with the wrong status
// wears the wrong-status badge, with sim's words for it.
func TestLabAPIWrongStatusBadge(t *testing.T) {
	h := webtest.NewServer(t)
	script := "request pay-1 amount=100 key=none"
	for lang, v := range map[string]sim.Verdict{"en": sim.WrongStatus, "ru": sim.WrongStatus} {
		r := webtest.Get(t, h, "/lab?lang="+lang+"&handlers=api-naive&script="+url.QueryEscape(script))
		if r.Status != http.StatusOK {
			t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
		}
		if got := webtest.Cards(r.Body)["api-naive"]; got != string(v) {
			t.Fatalf("%s: api-naive settles to %q, want %s", lang, got, v)
		}
		body := html.UnescapeString(r.Body)
		for _, w := range []string{strings.ToUpper(v.Word(lang)), v.Explain(lang)} {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the card does not say %q", lang, w)
			}
		}
	}
}

// TestLabAPIHandlersValidated: an API script's handlers= is read against
// the API handlers, and a message handler there (or an API handler for a
// broker script) is a 400 that names the valid ones, in both languages.
func TestLabAPIHandlersValidated(t *testing.T) {
	h := webtest.NewServer(t)
	for _, tc := range []struct {
		target string
		want   []string
	}{
		{"/lab?preset=api-lost-response&handlers=nope", []string{"nope", "api-idempotency-key, api-naive"}},
		{"/lab?preset=api-lost-response&handlers=naive", []string{"naive", "handles messages", "api-key-short-ttl"}},
		{"/lab?preset=crash-before-ack&handlers=api-naive", []string{"api-naive", "serves API requests", "naive"}},
		{"/lab?preset=api-lost-response&handlers=", []string{"Choose at least one handler"}},
		{"/lab?preset=api-lost-response&handlers=%3Cb%3E", []string{"&lt;b&gt;"}},
	} {
		r := webtest.Get(t, h, tc.target+"&lang=en")
		if r.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400\n%s", tc.target, r.Status, webtest.Excerpt(r.Body))
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.Body, w) {
				t.Errorf("%s: the error lacks %q\n%s", tc.target, w, webtest.Excerpt(r.Body))
			}
		}
		if strings.Contains(r.Body, "<b>") {
			t.Errorf("%s: user text not escaped", tc.target)
		}
		ru := webtest.Get(t, h, tc.target+"&lang=ru")
		if ru.Status != http.StatusBadRequest || !cyrillic.MatchString(webtest.Excerpt(ru.Body)) {
			t.Errorf("%s: the Russian error is %d, or not in Russian", tc.target, ru.Status)
		}
	}
	// The handlers named are kept, and core and all mean every API handler.
	for target, want := range map[string]int{
		"/lab?preset=api-lost-response&handlers=api-naive,api-key-no-lock": 2,
		"/lab?preset=api-lost-response&handlers=all":                       5,
		"/lab?preset=api-lost-response&handlers=core":                      5,
	} {
		if r := webtest.Get(t, h, target); r.Status != 200 || len(webtest.Cards(r.Body)) != want {
			t.Errorf("%s: status %d, cards %v, want %d", target, r.Status, webtest.Cards(r.Body), want)
		}
	}
}

// TestLabAPIAddStep: the client's controls add API steps through POST
// /lab/step, the empty lab offers the first request, and bad fields are
// a clear 400 in both languages.
func TestLabAPIAddStep(t *testing.T) {
	h := webtest.NewServer(t)
	empty := webtest.Get(t, h, "/lab")
	for _, want := range []string{`id="do-publish"`, `id="do-request"`, `id="api-start"`} {
		if !strings.Contains(empty.Body, want) {
			t.Errorf("the empty lab lacks %s", want)
		}
	}
	loc, pg := webtest.Follow(t, h, "/lab/step", url.Values{"step": {"0"}, "verb": {"request"}, "op": {"pay-1"}, "amount": {"10000"},
		"tenant": {"acme"}, "key": {"op"}, "crash": {""}, "lose": {"1"}})
	if sc := webtest.ScriptOf(t, pg.Body); !strings.Contains(sc, "request pay-1 amount=10000 lose-response") {
		t.Fatalf("after the first request the script is %q", sc)
	}
	if n := html.UnescapeString(pg.Body); !strings.Contains(n, "The client sends POST /payments for pay-1") || !strings.Contains(n, "the answer never reaches the client") {
		t.Errorf("the narration of the request does not say what happened\n%s", webtest.Excerpt(pg.Body))
	}
	if len(webtest.Cards(pg.Body)) != 5 || !strings.Contains(pg.Body, `id="do-api-retry"`) {
		t.Fatalf("the page after a request: cards %v, retry control %v", webtest.Cards(pg.Body), strings.Contains(pg.Body, `id="do-api-retry"`))
	}
	state := stateOf(t, loc)
	state.Set("step", "1")
	retry := cloneValues(state)
	retry.Set("verb", "retry")
	retry.Set("target", "acme pay-1")
	retry.Set("amount", "")
	retry.Set("crash", "after-effect")
	loc, pg = webtest.Follow(t, h, "/lab/step", retry)
	if sc := webtest.ScriptOf(t, pg.Body); !strings.Contains(sc, "\nretry pay-1 crash=after-effect") {
		t.Fatalf("after the retry the script is %q", sc)
	}
	state = stateOf(t, loc)
	state.Set("step", "2")
	again := cloneValues(state)
	again.Set("verb", "request-concurrent")
	again.Set("target", "acme pay-1")
	loc, pg = webtest.Follow(t, h, "/lab/step", again)
	if sc := webtest.ScriptOf(t, pg.Body); !strings.Contains(sc, "\nrequest-concurrent pay-1") {
		t.Fatalf("after two at once the script is %q", sc)
	}
	if !strings.Contains(pg.Body, "Server 2") {
		t.Errorf("two at once: the timeline has no second server")
	}
	// Bad fields: 400, never a 500, with the reason in both languages.
	state = stateOf(t, loc)
	state.Set("step", "3")
	for _, bad := range []url.Values{
		{"verb": {"request"}, "op": {""}, "amount": {"5"}},
		{"verb": {"request"}, "op": {"a b"}, "amount": {"5"}},
		{"verb": {"request"}, "op": {"pay-9"}, "amount": {"-5"}},
		{"verb": {"request"}, "op": {"pay-9"}, "amount": {"5"}, "key": {"<script>"}},
		{"verb": {"request"}, "op": {"pay-9"}, "amount": {"5"}, "lose": {"maybe"}},
		{"verb": {"request"}, "op": {"pay-9"}, "amount": {"5"}, "crash": {"before-ack"}},
		{"verb": {"retry"}, "target": {"acme pay-404"}},
		{"verb": {"retry"}, "target": {""}},
		{"verb": {"request-concurrent"}, "op": {"pay-9"}, "amount": {"5"}, "lose": {"1"}},
		{"verb": {"publish"}, "op": {"pay-9"}, "amount": {"5"}},
	} {
		form := cloneValues(state)
		for k, v := range bad {
			form[k] = v
		}
		for _, lang := range []string{"en", "ru"} {
			r := webtest.Request(t, h, http.MethodPost, "/lab/step?lang="+lang, form)
			if r.Status != http.StatusBadRequest {
				t.Errorf("%v (%s): status %d, want 400\n%s", bad, lang, r.Status, webtest.Excerpt(r.Body))
				continue
			}
			if strings.Contains(r.Body, "<script>") {
				t.Errorf("%v: user text not escaped", bad)
			}
			if lang == "ru" && !cyrillic.MatchString(webtest.Excerpt(r.Body)) {
				t.Errorf("%v: the Russian error is not in Russian", bad)
			}
		}
	}
}

// TestMatrixAPITable: the verdict grid has the API side's table under the
// broker's: every API preset on every API handler, each cell a link to
// that run in the lab.
func TestMatrixAPITable(t *testing.T) {
	h := webtest.NewServer(t)
	presets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "ru"} {
		r := webtest.Get(t, h, "/matrix?lang="+lang)
		if r.Status != http.StatusOK {
			t.Fatalf("status %d", r.Status)
		}
		webtest.NoMissingKeys(t, "/matrix", r.Body)
		i, j := strings.Index(r.Body, `id="matrix"`), strings.Index(r.Body, `id="matrix-api"`)
		if i < 0 || j < i {
			t.Fatalf("%s: no API table under the broker's", lang)
		}
		api := r.Body[j:]
		broker := r.Body[i:j]
		for _, p := range presets {
			if strings.Contains(broker, `data-preset="`+p.Name+`"`) {
				t.Errorf("%s: the broker's table has the API preset %s", lang, p.Name)
			}
			for _, hn := range apiHandlerNames {
				v, _, href := webtest.MatrixCellOf(t, api, p.Name, hn)
				if v == "" {
					t.Errorf("%s × %s: no verdict", p.Name, hn)
				}
				if lab := webtest.Get(t, h, href); lab.Status != http.StatusOK || len(webtest.Cards(lab.Body)) != 1 {
					t.Errorf("%s × %s: the cell's link %s gives %d with cards %v", p.Name, hn, href, lab.Status, webtest.Cards(lab.Body))
				}
			}
		}
	}
	// The stories' outcomes: a lost response duplicates on api-naive.
	r := webtest.Get(t, h, "/matrix")
	api := r.Body[strings.Index(r.Body, `id="matrix-api"`):]
	if v, settled, _ := webtest.MatrixCellOf(t, api, "api-lost-response", "api-naive"); v != "duplicate" || settled != "200.00" {
		t.Errorf("api-lost-response × api-naive: %s %s, want duplicate 200.00", v, settled)
	}
	if v, _, _ := webtest.MatrixCellOf(t, api, "api-lost-response", "api-idempotency-key"); v != "ok" {
		t.Errorf("api-lost-response × api-idempotency-key: %s, want ok", v)
	}
}

// stateOf is the lab state a /lab address carries, as form fields.
func stateOf(t *testing.T, loc string) url.Values {
	t.Helper()
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
