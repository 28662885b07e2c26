package web_test

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/webtest"
)

var idAttr = regexp.MustCompile(`\sid="([^"]+)"`)

func TestHealthz(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/healthz")
	if r.Status != 200 || r.Body != "ok\n" {
		t.Fatalf("GET /healthz = %d %q", r.Status, r.Body)
	}
	if r := webtest.Request(t, h, http.MethodHead, "/healthz", nil); r.Status != 200 {
		t.Errorf("HEAD /healthz = %d", r.Status)
	}
}

func TestRootRedirectsToLab(t *testing.T) {
	r := webtest.Get(t, webtest.NewServer(t), "/")
	if r.Status != http.StatusFound || r.Header.Get("Location") != "/lab" {
		t.Fatalf("GET / = %d to %q, want 302 to /lab", r.Status, r.Header.Get("Location"))
	}
}

func TestLabPages(t *testing.T) {
	h := webtest.NewServer(t)
	script := "publish pay-1 amount=10000\ndeliver crash=before-ack\nredeliver\ndeliver\n"
	tests := []struct {
		name   string
		target string
		want   map[string]string // handler -> verdict
		in     []string          // substrings of the body
	}{
		{"empty lab", "/lab", map[string]string{"naive": "ok", "unique": "ok", "setnx": "ok", "statemachine": "ok", "inbox": "ok"},
			[]string{"New here?", `id="do-publish"`, `value="pay-1"`}},
		{"a preset opens at step 0", "/lab?preset=crash-before-ack", map[string]string{"naive": "ok", "inbox": "ok"},
			[]string{`data-step="0" data-total="4"`, "Nothing has happened yet", "A preset opens at step 0"}},
		{"preset at its end", "/lab?preset=crash-before-ack&step=4", map[string]string{"naive": "duplicate", "inbox": "ok", "unique": "ok"},
			[]string{"Crash before the ack", `data-step="4" data-total="4"`, "watch naive credit a second time"}},
		{"preset at step 0", "/lab?preset=crash-before-ack&step=0", map[string]string{"naive": "ok", "inbox": "ok"},
			[]string{`data-step="0"`, "Nothing has happened yet"}},
		{"preset at step 1", "/lab?preset=crash-before-ack&step=1", map[string]string{"naive": "ok"},
			[]string{`data-step="1"`, "The producer publishes top-up pay-1 for 100.00."}},
		{"preset at step 2", "/lab?preset=crash-before-ack&step=2", map[string]string{"naive": "duplicate", "inbox": "ok"},
			[]string{`data-step="2"`, "deliver crash=before-ack"}},
		{"plain script", "/lab?script=" + url.QueryEscape(script), map[string]string{"naive": "duplicate", "inbox": "ok"},
			[]string{`data-step="4"`, "A worker takes the oldest ready message, runs the handler and acks."}},
		{"permalink", "/lab?s=" + link.Pack(script), map[string]string{"naive": "duplicate", "inbox": "ok"},
			[]string{`data-step="4"`}},
		{"permalink at a step", "/lab?s=" + link.Pack(script) + "&step=1", map[string]string{"naive": "ok"},
			[]string{`data-step="1"`}},
		{"chosen handlers", "/lab?preset=crash-before-ack&handlers=unique-error,naive&step=4", map[string]string{"unique-error": "poison", "naive": "duplicate"},
			[]string{"handlers=unique-error,naive"}},
		{"repeated handlers parameter", "/lab?preset=crash-before-ack&handlers=naive&handlers=inbox&step=4", map[string]string{"naive": "duplicate", "inbox": "ok"}, nil},
		{"the handler picker", "/lab?preset=crash-before-ack&step=4&handlers=&handlers=naive&handlers=broker-key", map[string]string{"naive": "duplicate", "broker-key": "ok"}, nil},
		{"an empty preset value is the empty lab", "/lab?preset=", map[string]string{"naive": "ok"}, []string{"New here?"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Get(t, h, tc.target)
			if r.Status != 200 {
				t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
			}
			got := webtest.Cards(r.Body)
			count := 5 // the core handlers
			if strings.Contains(tc.target, "handlers=") {
				count = len(tc.want)
			}
			if len(got) != count {
				t.Errorf("%d cards %v, want %d", len(got), got, count)
			}
			for handler, verdict := range tc.want {
				if got[handler] != verdict {
					t.Errorf("%s: verdict %q, want %q (cards %v)", handler, got[handler], verdict, got)
				}
			}
			for _, s := range tc.in {
				if !strings.Contains(r.Body, s) {
					t.Errorf("page lacks %q", s)
				}
			}
			if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

func TestAllHandlersSideBySide(t *testing.T) {
	h := webtest.NewServer(t)
	for _, q := range []string{"all", "core,setnx-token,setnx-fence,unique-on-conflict,version-guard,unique-error,unique-same-tx,broker-key,check-then-insert,effect-first,marker-first,setnx-no-release,inbox-no-hash,absolute-update,redelivered-flag,offset-in-db"} {
		r := webtest.Get(t, h, "/lab?preset=concurrent-duplicates&step=3&handlers="+q)
		if r.Status != 200 {
			t.Fatalf("handlers=%s: status %d\n%s", q, r.Status, webtest.Excerpt(r.Body))
		}
		got := webtest.Cards(r.Body)
		if len(got) != len(handlers.List()) {
			t.Errorf("handlers=%s: %d cards, want %d", q, len(got), len(handlers.List()))
		}
		if got["check-then-insert"] != "duplicate" || got["inbox"] != "ok" {
			t.Errorf("handlers=%s: verdicts %v", q, got)
		}
	}
}

// TestEveryPresetRenders renders every preset at every step, in both
// languages, and checks that no catalog key is missing from the page.
func TestEveryPresetRenders(t *testing.T) {
	h := webtest.NewServer(t)
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range presets {
		for step := 0; step <= len(p.Script.Steps); step++ {
			for _, lang := range []string{"en", "ru"} {
				target := fmt.Sprintf("/lab?preset=%s&handlers=all&step=%d", p.Name, step)
				r := webtest.Get(t, h, target, "Accept-Language", lang)
				if r.Status != 200 {
					t.Fatalf("%s (%s): status %d\n%s", target, lang, r.Status, webtest.Excerpt(r.Body))
				}
				if i := strings.Index(r.Body, "⟦"); i >= 0 {
					t.Fatalf("%s (%s): missing catalog key near %q", target, lang, r.Body[i:min(len(r.Body), i+60)])
				}
				seen := map[string]bool{}
				for _, m := range idAttr.FindAllStringSubmatch(r.Body, -1) {
					if seen[m[1]] {
						t.Fatalf("%s: id %q appears twice", target, m[1])
					}
					seen[m[1]] = true
				}
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	h := webtest.NewServer(t)
	bomb := func() string {
		var buf bytes.Buffer
		zw, _ := flate.NewWriter(&buf, flate.BestCompression)
		zw.Write(bytes.Repeat([]byte("# padding\n"), 200_000)) // 2 MB of valid script text
		zw.Close()
		return "1" + base64.RawURLEncoding.EncodeToString(buf.Bytes())
	}()
	notDeflate := "1" + base64.RawURLEncoding.EncodeToString([]byte("this is not deflate data"))
	handlerNames := make([]string, 0, len(handlers.List()))
	for _, h := range handlers.List() {
		handlerNames = append(handlerNames, h.Name)
	}
	presets, _ := sim.Presets()
	tests := []struct {
		name   string
		target string
		status int
		want   []string
	}{
		{"malformed permalink", "/lab?s=%21%21%21", 400, []string{"The permalink could not be read", "start with"}},
		{"permalink of another version", "/lab?s=2AAAA", 400, []string{"The permalink could not be read"}},
		{"permalink that is not base64", "/lab?s=1%2A%2A", 400, []string{"not base64url"}},
		{"permalink that is not deflate", "/lab?s=" + notDeflate, 400, []string{"does not decompress"}},
		{"permalink that inflates past the limit", "/lab?s=" + bomb, 400, []string{"longer than the limit of 65536 bytes"}},
		{"permalink that is too long", "/lab?s=1" + strings.Repeat("A", link.MaxPacked), 400, []string{"the limit is"}},
		{"permalink of a broken script", "/lab?s=" + link.Pack("fly away\n"), 400, []string{"line 1: unknown verb &#34;fly&#34;", "valid verbs: publish"}},
		{"unknown handler lists the valid ones", "/lab?handlers=naive,nope", 400,
			[]string{"There is no handler &#34;nope&#34;. Valid handlers: " + strings.Join(handlerNames, ", ")}},
		{"no handler at all", "/lab?handlers=", 400, []string{"Choose at least one handler."}},
		{"the picker with every box unticked", "/lab?preset=happy-path&step=0&handlers=", 400, []string{"Choose at least one handler."}},
		{"unknown preset lists the valid ones", "/lab?preset=crash-before-akc", 400,
			[]string{"There is no scenario &#34;crash-before-akc&#34;. Valid scenarios: " + presets[0].Name + ", " + presets[1].Name}},
		{"two scripts at once", "/lab?preset=happy-path&script=drain", 400, []string{"Give only one of preset=, s= and script="}},
		{"oversized script", "/lab?script=" + strings.Repeat("%23+padding%0A", script.MaxScriptBytes/10+1), 400, []string{"65536"}},
		{"script with a bad verb names the line and the verbs", "/lab?script=publish+pay-1+amount%3D1%0Adelivr", 400,
			[]string{"line 2: unknown verb", "valid verbs: publish, retry"}},
		{"script with a fraction", "/lab?script=publish+pay-1+amount%3D1.5", 400, []string{"never a fraction"}},
		{"step that is not a number", "/lab?preset=crash-before-ack&step=two", 400, []string{"step=two is not a step of this script: give a whole number from 0 to 4"}},
		{"negative step", "/lab?preset=crash-before-ack&step=-1", 400, []string{"from 0 to 4"}},
		{"step past the end", "/lab?preset=crash-before-ack&step=5", 400, []string{"step=5", "from 0 to 4"}},
		{"unknown page", "/nowhere", 404, []string{"There is no such page", "Nothing lives at /nowhere."}},
		{"unknown static file", "/static/nope.css", 404, []string{"There is no such page"}},
		{"static Go source is not served", "/static/static.go", 404, nil},
		{"static path escape", "/static/../web/server.go", 404, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Get(t, h, tc.target)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d\n%s", r.Status, tc.status, webtest.Excerpt(r.Body))
			}
			for _, s := range tc.want {
				if !strings.Contains(r.Body, s) {
					t.Errorf("error page lacks %q\n%s", s, webtest.Excerpt(r.Body))
				}
			}
			if tc.status >= 400 && !strings.Contains(r.Body, `role="alert"`) {
				t.Errorf("error page has no alert")
			}
		})
	}
}

func TestMethodNotAllowed(t *testing.T) {
	h := webtest.NewServer(t)
	for _, tc := range []struct{ method, target string }{
		{http.MethodGet, "/lab/step"},
		{http.MethodPost, "/lab"},
		{http.MethodDelete, "/lab"},
	} {
		r := webtest.Request(t, h, tc.method, tc.target, url.Values{})
		if r.Status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: status %d, want 405", tc.method, tc.target, r.Status)
		}
	}
}

func TestStepForms(t *testing.T) {
	h := webtest.NewServer(t)
	published := "publish pay-1 amount=10000\n"
	tests := []struct {
		name  string
		base  string // the script before the step
		form  url.Values
		added string // the line the step adds
	}{
		{"publish", "", url.Values{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"10000"}, "tenant": {"acme"}, "key": {"op"}}, "publish pay-1 amount=10000"},
		{"publish for another tenant with a v7 key", "", url.Values{"verb": {"publish"}, "op": {"x-7"}, "amount": {"250"}, "tenant": {"globex"}, "key": {"v7"}},
			"publish x-7 amount=250 tenant=globex key=v7"},
		{"publish with a fresh key", published, url.Values{"verb": {"publish"}, "op": {"pay-2"}, "amount": {"5"}, "key": {"fresh"}}, "publish pay-2 amount=5 key=fresh"},
		{"deliver", published, url.Values{"verb": {"deliver"}, "crash": {""}}, "deliver"},
		{"crash before effect", published, url.Values{"verb": {"deliver"}, "crash": {"before-effect"}}, "deliver crash=before-effect"},
		{"crash after effect", published, url.Values{"verb": {"deliver"}, "crash": {"after-effect"}}, "deliver crash=after-effect"},
		{"crash before ack", published, url.Values{"verb": {"deliver"}, "crash": {"before-ack"}}, "deliver crash=before-ack"},
		{"crash before a numbered call", published, url.Values{"verb": {"deliver"}, "crash": {"call"}, "call": {"3"}}, "deliver crash=call:3"},
		{"crash after a numbered call", published, url.Values{"verb": {"deliver"}, "crash": {"after-call"}, "call": {" 1 "}}, "deliver crash=after-call:1"},
		{"two workers switching at calls", published + "retry pay-1\n", url.Values{"verb": {"deliver-concurrent"}, "switch": {"2,5"}}, "deliver-concurrent switch=2,5"},
		{"redeliver", published + "deliver crash=before-ack\n", url.Values{"verb": {"redeliver"}}, "redeliver"},
		{"concurrent delivery", published, url.Values{"verb": {"deliver-concurrent"}}, "deliver-concurrent"},
		{"dlq replay", "max-deliveries: 1\n" + published + "deliver crash=before-ack\nredeliver\n", url.Values{"verb": {"dlq-replay"}}, "dlq-replay"},
		{"drain", published, url.Values{"verb": {"drain"}}, "drain"},
		{"advance the clock", published, url.Values{"verb": {"advance"}, "duration": {"25h"}}, "advance 25h"},
		{"gateway down", published, url.Values{"verb": {"gateway"}, "state": {"down"}}, "gateway down"},
		{"gateway up", published, url.Values{"verb": {"gateway"}, "state": {"up"}}, "gateway up"},
		{"producer retry", published, url.Values{"verb": {"retry"}, "target": {"acme pay-1"}, "amount": {"15000"}}, "retry pay-1"},
		{"change payload", published, url.Values{"verb": {"change-payload"}, "target": {"acme pay-1"}, "amount": {"15000"}}, "change-payload pay-1 amount=15000"},
		{"ship", published, url.Values{"verb": {"ship"}, "target": {"acme pay-1"}}, "ship pay-1"},
		{"retry for another tenant", "publish pay-1 amount=1 tenant=globex\n", url.Values{"verb": {"retry"}, "target": {"globex pay-1"}}, "retry pay-1 tenant=globex"},
		// The order service, its relay, refunds, out-of-order delivery
		// and batches (#17).
		{"produce with a dual write", "", url.Values{"verb": {"produce"}, "op": {"pay-1"}, "amount": {"10000"}, "mode": {"dual-write"}, "crash": {""}}, "produce pay-1 amount=10000"},
		{"produce through the outbox", published, url.Values{"verb": {"produce"}, "op": {"pay-2"}, "amount": {"500"}, "mode": {"outbox"}, "crash": {"after-commit"}},
			"produce pay-2 amount=500 mode=outbox crash=after-commit"},
		{"produce, publishing first", "", url.Values{"verb": {"produce"}, "op": {"pay-1"}, "amount": {"1"}, "mode": {"publish-first"}, "crash": {"after-publish"}},
			"produce pay-1 amount=1 mode=publish-first crash=after-publish"},
		{"relay", "produce pay-1 amount=1 mode=outbox\n", url.Values{"verb": {"relay"}, "crash": {""}}, "relay"},
		{"relay that dies after publishing", "produce pay-1 amount=1 mode=outbox\n", url.Values{"verb": {"relay"}, "crash": {"after-publish"}}, "relay crash=after-publish"},
		{"relay with nothing pending", published, url.Values{"verb": {"relay"}}, "relay"},
		{"refund", published, url.Values{"verb": {"publish"}, "kind": {"refund"}, "op": {"ref-1"}, "order": {"acme pay-1"}, "amount": {"10000"}},
			"publish ref-1 amount=10000 kind=refund order=pay-1"},
		{"refund for another tenant", "publish pay-1 amount=1 tenant=globex\n", url.Values{"verb": {"publish"}, "kind": {"refund"}, "op": {"ref-1"}, "order": {"globex pay-1"}, "amount": {"1"}},
			"publish ref-1 amount=1 tenant=globex kind=refund order=pay-1"},
		{"deliver a chosen operation", published + "publish pay-2 amount=5\n", url.Values{"verb": {"deliver"}, "op": {"pay-2"}}, "deliver pay-2"},
		{"deliver a batch", published + "publish pay-2 amount=5\n", url.Values{"verb": {"deliver-batch"}, "batch": {"2"}, "commit": {"after"}, "crash": {""}}, "deliver-batch 2"},
		{"deliver a batch, committing first, dying", published + "publish pay-2 amount=5\n", url.Values{"verb": {"deliver-batch"}, "batch": {"3"}, "commit": {"before"}, "crash": {"after-message:1"}},
			"deliver-batch 3 commit=before crash=after-message:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			form := url.Values{}
			for k, v := range tc.form {
				form[k] = v
			}
			if tc.base != "" {
				form.Set("s", link.Pack(tc.base))
			}
			sc, err := script.Parse(tc.base)
			if err != nil {
				t.Fatal(err)
			}
			form.Set("step", fmt.Sprint(len(sc.Steps)))
			loc, page := webtest.Follow(t, h, "/lab/step", form)
			if got, want := webtest.ScriptOf(t, page.Body), tc.base+tc.added+"\n"; got != want {
				t.Errorf("script after the step:\n%s\nwant:\n%s", got, want)
			}
			if strings.Contains(loc, "step=") {
				t.Errorf("Location %q: a new step shows the end, without step=", loc)
			}
		})
	}
}

func TestStepFromAPresetDropsTheStepsAfterTheOneShown(t *testing.T) {
	h := webtest.NewServer(t)
	loc, page := webtest.Follow(t, h, "/lab/step", url.Values{"preset": {"crash-before-ack"}, "step": {"2"}, "verb": {"redeliver"}})
	if !strings.HasPrefix(loc, "/lab?s=") {
		t.Errorf("Location %q: a changed preset is a permalink", loc)
	}
	sc, err := script.Parse(webtest.ScriptOf(t, page.Body))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, st := range sc.Steps {
		lines = append(lines, st.String())
	}
	if got, want := strings.Join(lines, "; "), "publish pay-1 amount=10000; deliver crash=before-ack; redeliver"; got != want {
		t.Errorf("steps %q, want %q", got, want)
	}
	if sc.Title != "Crash before the ack" || sc.Steps[0].NarrationRU == "" {
		t.Errorf("the preset's title and narration should carry over: %q", sc.Title)
	}
}

func TestBadStepForms(t *testing.T) {
	h := webtest.NewServer(t)
	published := link.Pack("publish pay-1 amount=10000\n")
	tests := []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"unknown verb", url.Values{"verb": {"frobnicate"}}, 400, "There is no step &#34;frobnicate&#34;. Valid steps: publish, retry, change-payload, deliver"},
		{"no verb", url.Values{}, 400, "There is no step &#34;&#34;"},
		{"op with a space", url.Values{"verb": {"publish"}, "op": {"pay 1"}, "amount": {"1"}}, 400, "op must be one word"},
		{"amount with a space smuggling an option", url.Values{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"1 tenant=x"}}, 400, "amount must be one word"},
		{"a newline smuggling a step", url.Values{"verb": {"advance"}, "duration": {"1h\ndrain"}}, 400, "duration must be one word"},
		{"publish without an amount", url.Values{"verb": {"publish"}, "op": {"pay-1"}}, 400, "publish needs amount=N"},
		{"publish without an op", url.Values{"verb": {"publish"}, "amount": {"1"}}, 400, "needs an operation id first"},
		{"publish a fraction", url.Values{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"1.5"}}, 400, "never a fraction"},
		{"publish twice", url.Values{"s": {published}, "verb": {"publish"}, "op": {"pay-1"}, "amount": {"1"}}, 400, "already published"},
		{"retry without an operation", url.Values{"verb": {"retry"}}, 400, "Choose a published operation for retry."},
		{"retry of an unpublished operation", url.Values{"verb": {"retry"}, "target": {"acme pay-9"}}, 400, "has not been published yet"},
		{"unknown key mode", url.Values{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"1"}, "key": {"uuid"}}, 400, "valid modes: op, v7, fresh"},
		{"unknown crash point", url.Values{"verb": {"deliver"}, "crash": {"sometime"}}, 400, "valid points: before-effect, after-effect, before-ack"},
		{"call number 0", url.Values{"s": {published}, "verb": {"deliver"}, "crash": {"call"}, "call": {"0"}}, 400, "crash=call:0: unknown crash point"},
		{"no call number", url.Values{"s": {published}, "verb": {"deliver"}, "crash": {"after-call"}}, 400, "N from 1 to 100"},
		{"call number with a space", url.Values{"s": {published}, "verb": {"deliver"}, "crash": {"call"}, "call": {"1 2"}}, 400, "call must be one word"},
		{"switch past the last call", url.Values{"s": {published}, "verb": {"deliver-concurrent"}, "switch": {"2,101"}}, 400, `&#34;101&#34; is not a call number`},
		{"bad duration", url.Values{"verb": {"advance"}, "duration": {"soon"}}, 400, "examples: 90s, 15m"},
		{"gateway sideways", url.Values{"verb": {"gateway"}, "state": {"sideways"}}, 400, "gateway needs up or down"},
		{"bad state with the form", url.Values{"verb": {"drain"}, "step": {"7"}}, 400, "step=7 is not a step of this script"},
		{"bad permalink with the form", url.Values{"verb": {"drain"}, "s": {"garbage"}}, 400, "The permalink could not be read"},
		{"unknown handler with the form", url.Values{"verb": {"drain"}, "handlers": {"naive,nobody"}}, 400, "There is no handler &#34;nobody&#34;"},
		{"deliver on an empty queue", url.Values{"verb": {"deliver"}}, 400, "after step 0 nothing is ready to deliver"},
		{"deliver after the queue emptied", url.Values{"s": {link.Pack("publish pay-1 amount=10000\ndeliver\n")}, "verb": {"deliver"}, "crash": {"before-ack"}}, 400, "after step 2 nothing is ready to deliver"},
		{"concurrent delivery on an empty queue", url.Values{"verb": {"deliver-concurrent"}, "same": {"1"}}, 400, "nothing is ready to deliver"},
		{"redeliver with nothing in flight", url.Values{"s": {published}, "verb": {"redeliver"}}, 400, "after step 1 nothing is in flight"},
		{"drain an empty queue", url.Values{"s": {link.Pack("publish pay-1 amount=10000\ndeliver\n")}, "verb": {"drain"}}, 400, "after step 2 nothing is ready to deliver"},
		{"replay an empty DLQ", url.Values{"s": {published}, "verb": {"dlq-replay"}}, 400, "after step 1 every DLQ is empty"},
		// The order service, its relay, refunds, out-of-order delivery
		// and batches (#17): a bad field is a 400 that names it.
		{"produce without an op", url.Values{"verb": {"produce"}, "amount": {"1"}}, 400, "op must be one word"},
		{"produce an op with a space", url.Values{"verb": {"produce"}, "op": {"pay 1"}, "amount": {"1"}}, 400, "op must be one word"},
		{"produce without an amount", url.Values{"verb": {"produce"}, "op": {"pay-1"}}, 400, "produce needs amount=N"},
		{"produce an amount smuggling an option", url.Values{"verb": {"produce"}, "op": {"pay-1"}, "amount": {"1 mode=outbox"}}, 400, "amount must be one word"},
		{"produce in an unknown mode", url.Values{"verb": {"produce"}, "op": {"pay-1"}, "amount": {"1"}, "mode": {"carrier-pigeon"}}, 400, "mode=carrier-pigeon: unknown producer mode"},
		{"produce with an unknown crash", url.Values{"verb": {"produce"}, "op": {"pay-1"}, "amount": {"1"}, "crash": {"sometime"}}, 400, "crash=sometime: unknown producer crash point"},
		{"produce with a mode with a space", url.Values{"verb": {"produce"}, "op": {"pay-1"}, "amount": {"1"}, "mode": {"outbox crash=after-commit"}}, 400, "mode must be one word"},
		{"outbox producer dying after publishing", url.Values{"verb": {"produce"}, "op": {"pay-1"}, "amount": {"1"}, "mode": {"outbox"}, "crash": {"after-publish"}}, 400, "write relay crash=after-publish"},
		{"relay with an unknown crash", url.Values{"verb": {"relay"}, "crash": {"before-publish"}}, 400, "crash=before-publish"},
		{"refund without an order", url.Values{"s": {published}, "verb": {"publish"}, "kind": {"refund"}, "op": {"ref-1"}, "amount": {"1"}}, 400, "order: choose the paid order"},
		{"refund of a garbled order", url.Values{"s": {published}, "verb": {"publish"}, "kind": {"refund"}, "op": {"ref-1"}, "amount": {"1"}, "order": {"pay-1"}}, 400, "order: choose the paid order"},
		{"refund of an unpublished order", url.Values{"s": {published}, "verb": {"publish"}, "kind": {"refund"}, "op": {"ref-1"}, "amount": {"1"}, "order": {"acme pay-9"}}, 400, "order=pay-9: no payment pay-9"},
		{"refund without an id", url.Values{"s": {published}, "verb": {"publish"}, "kind": {"refund"}, "amount": {"1"}, "order": {"acme pay-1"}}, 400, "needs an operation id first"},
		{"refund without an amount", url.Values{"s": {published}, "verb": {"publish"}, "kind": {"refund"}, "op": {"ref-1"}, "order": {"acme pay-1"}}, 400, "publish needs amount=N"},
		{"deliver an op with a space", url.Values{"s": {published}, "verb": {"deliver"}, "op": {"pay-1 crash=before-ack"}}, 400, "op must be one word"},
		{"deliver an unpublished op", url.Values{"s": {published}, "verb": {"deliver"}, "op": {"pay-9"}}, 400, "deliver pay-9: no operation pay-9 has been published"},
		{"deliver an op on an empty queue", url.Values{"s": {link.Pack("publish pay-1 amount=10000\ndeliver\n")}, "verb": {"deliver"}, "op": {"pay-1"}}, 400, "after step 2 nothing is ready to deliver"},
		{"deliver an op with nothing of it ready", url.Values{"s": {link.Pack("publish pay-1 amount=10000\npublish pay-2 amount=1\ndeliver pay-1\n")}, "verb": {"deliver"}, "op": {"pay-1"}}, 400, "after step 3 no message of pay-1 is ready to deliver"},
		{"batch without a size", url.Values{"s": {published}, "verb": {"deliver-batch"}}, 400, "batch=&#34;&#34; is not a batch size"},
		{"batch of zero", url.Values{"s": {published}, "verb": {"deliver-batch"}, "batch": {"0"}}, 400, "batch=&#34;0&#34; is not a batch size"},
		{"batch too big", url.Values{"s": {published}, "verb": {"deliver-batch"}, "batch": {"51"}}, 400, "from 1 to 50"},
		{"batch with an unknown commit", url.Values{"s": {published}, "verb": {"deliver-batch"}, "batch": {"2"}, "commit": {"never"}}, 400, "commit=never: unknown commit mode"},
		{"batch with a commit with a space", url.Values{"s": {published}, "verb": {"deliver-batch"}, "batch": {"2"}, "commit": {"before crash=after-message:1"}}, 400, "commit must be one word"},
		{"batch crash past the batch", url.Values{"s": {published}, "verb": {"deliver-batch"}, "batch": {"2"}, "crash": {"after-message:3"}}, 400, "crash=after-message:3: unknown batch crash point"},
		{"batch on an empty queue", url.Values{"verb": {"deliver-batch"}, "batch": {"2"}}, 400, "after step 0 nothing is ready to deliver"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Post(t, h, "/lab/step", tc.form)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d\n%s", r.Status, tc.status, webtest.Excerpt(r.Body))
			}
			if !strings.Contains(r.Body, tc.want) {
				t.Errorf("error page lacks %q\n%s", tc.want, webtest.Excerpt(r.Body))
			}
			if strings.Contains(r.Body, "line 2:") {
				t.Errorf("the message names a line the reader never saw\n%s", webtest.Excerpt(r.Body))
			}
		})
	}
}

func TestOversizedForm(t *testing.T) {
	r := webtest.Post(t, webtest.NewServer(t), "/lab/script", url.Values{"script": {strings.Repeat("x", page.MaxFormBytes)}})
	if r.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if !strings.Contains(r.Body, "A form may carry at most") {
		t.Errorf("413 page lacks its message\n%s", webtest.Excerpt(r.Body))
	}
}

func TestUndo(t *testing.T) {
	h := webtest.NewServer(t)
	loc, page := webtest.Follow(t, h, "/lab/undo", url.Values{"preset": {"crash-before-ack"}, "step": {"4"}})
	if got := webtest.ScriptOf(t, page.Body); strings.Count(got, "\ndeliver\n") != 0 || !strings.HasSuffix(got, "redeliver\n") {
		t.Errorf("after undo the script ends:\n%s", got)
	}
	if strings.Contains(loc, "step=") {
		t.Errorf("undo at the end stays at the end; Location %q", loc)
	}
	// Looking at step 1 of 4, undo removes step 4 and stays on step 1.
	loc, _ = webtest.Follow(t, h, "/lab/undo", url.Values{"preset": {"crash-before-ack"}, "step": {"1"}})
	if !strings.Contains(loc, "step=1") {
		t.Errorf("undo while looking at step 1: Location %q, want step=1", loc)
	}
	// Undoing the only step gives the empty lab; undoing nothing stays there.
	one := link.Pack("publish pay-1 amount=1\n")
	if loc, _ := webtest.Follow(t, h, "/lab/undo", url.Values{"s": {one}, "step": {"1"}}); loc != "/lab" {
		t.Errorf("undo of the only step: Location %q, want /lab", loc)
	}
	if loc, _ := webtest.Follow(t, h, "/lab/undo", url.Values{}); loc != "/lab" {
		t.Errorf("undo of nothing: Location %q, want /lab", loc)
	}
	// Undoing back to an unchanged preset gives its name again.
	changed := link.Pack(webtest.MustPreset(t, "crash-before-ack").Script.String() + "drain\n")
	if loc, _ := webtest.Follow(t, h, "/lab/undo", url.Values{"s": {changed}, "step": {"5"}}); loc != "/lab?preset=crash-before-ack&step=4" {
		t.Errorf("undo back to the preset: Location %q", loc)
	}
}

func TestRunScript(t *testing.T) {
	h := webtest.NewServer(t)
	text := "publish pay-1 amount=300\ndeliver crash=after-effect\nredeliver\ndeliver\n"
	loc, page := webtest.Follow(t, h, "/lab/script", url.Values{"script": {text}, "handlers": {"naive,effect-first,inbox"}, "s": {link.Pack("drain\n")}})
	if !strings.Contains(loc, "handlers=naive,effect-first,inbox") {
		t.Errorf("Location %q lost the handlers", loc)
	}
	if got := webtest.Cards(page.Body); got["naive"] != "duplicate" || got["inbox"] != "ok" || len(got) != 3 {
		t.Errorf("cards %v", got)
	}
	// A preset's text, pasted back, is the preset again.
	loc, _ = webtest.Follow(t, h, "/lab/script", url.Values{"script": {webtest.MustPreset(t, "happy-path").Source}})
	if loc != "/lab?preset=happy-path&step=4" {
		t.Errorf("the happy-path text: Location %q, want the preset", loc)
	}

	bad := "publish pay-1 amount=300\ndeliver crash=whenever\n"
	r := webtest.Post(t, h, "/lab/script", url.Values{"script": {bad}, "preset": {"happy-path"}})
	if r.Status != 400 {
		t.Fatalf("bad script: status %d", r.Status)
	}
	for _, want := range []string{"line 2: crash=whenever: unknown crash point; valid points: before-effect, after-effect, before-ack",
		`<textarea id="script" name="script"`, "deliver crash=whenever", `href="/lab?preset=happy-path"`} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("bad script page lacks %q\n%s", want, webtest.Excerpt(r.Body))
		}
	}
}

// TestUserTextIsEscaped puts markup everywhere the reader's text reaches:
// operation ids and tenants (shown in steps, tables, queues, the timeline),
// the script title, and error messages.
func TestUserTextIsEscaped(t *testing.T) {
	h := webtest.NewServer(t)
	const evil = `<script>alert(1)</script>`
	script := "title: " + evil + "\n" +
		"publish " + evil + " amount=100 tenant=<img/src=x/onerror=alert(2)>\n" +
		"deliver crash=before-ack\nredeliver\ndeliver\n"
	pages := map[string]webtest.Response{
		"permalink":  webtest.Get(t, h, "/lab?s="+link.Pack(script)),
		"script":     webtest.Get(t, h, "/lab?script="+url.QueryEscape(script)),
		"bad script": webtest.Get(t, h, "/lab?script="+url.QueryEscape(script+"explode "+evil+"\n")),
		"handler":    webtest.Get(t, h, "/lab?handlers="+url.QueryEscape(evil)),
		"preset":     webtest.Get(t, h, "/lab?preset="+url.QueryEscape(evil)),
		"not found":  webtest.Get(t, h, "/"+url.PathEscape(evil)),
		"partial":    webtest.Get(t, h, "/lab?s="+link.Pack(script), "HX-Request", "true", "HX-Request-Type", "partial"),
	}
	_, stepped := webtest.Follow(t, h, "/lab/step", url.Values{"verb": {"publish"}, "op": {evil}, "amount": {"1"}})
	pages["step form"] = stepped
	for name, r := range pages {
		for _, raw := range []string{"<script>alert", "<img/src", "<img src"} {
			if strings.Contains(r.Body, raw) {
				i := strings.Index(r.Body, raw)
				t.Errorf("%s: unescaped %q in the page: …%s…", name, raw, r.Body[max(0, i-80):min(len(r.Body), i+80)])
			}
		}
		if !strings.Contains(r.Body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s: the escaped text is not shown\n%s", name, webtest.Excerpt(r.Body))
		}
	}
	if got := webtest.Cards(pages["permalink"].Body); got["naive"] != "duplicate" {
		t.Errorf("a markup-laden key is still just a key: %v", got)
	}
}

func TestHTMXGetsTheLabRegion(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/lab?preset=crash-before-ack&step=2", "HX-Request", "true", "HX-Request-Type", "partial")
	if r.Status != 200 {
		t.Fatalf("status %d", r.Status)
	}
	if strings.Contains(r.Body, "<html") || strings.Contains(r.Body, `<header class="top"`) {
		t.Error("a partial request got the whole page")
	}
	for _, want := range []string{"<title>Step 2 of 4 · Crash before the ack", `<div id="flash"`, `id="card-naive"`} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("partial lacks %q", want)
		}
	}
	if v := r.Header.Get("Vary"); !strings.Contains(v, "HX-Request") {
		t.Errorf("Vary %q must name HX-Request", v)
	}
	// A history restore asks for the whole page.
	full := webtest.Get(t, h, "/lab?preset=crash-before-ack", "HX-Request", "true", "HX-Request-Type", "full", "HX-History-Restore-Request", "true")
	if !strings.Contains(full.Body, "<html") {
		t.Error("a history restore got a fragment")
	}
	// An error goes into the message area and leaves the address alone.
	bad := webtest.Get(t, h, "/lab?preset=nope", "HX-Request", "true", "HX-Request-Type", "partial")
	if bad.Status != 400 || bad.Header.Get("HX-Retarget") != "#flash" || bad.Header.Get("HX-Push-Url") != "false" {
		t.Errorf("htmx error: status %d, HX-Retarget %q, HX-Push-Url %q", bad.Status, bad.Header.Get("HX-Retarget"), bad.Header.Get("HX-Push-Url"))
	}
	if strings.Contains(bad.Body, "<html") || !strings.Contains(bad.Body, "There is no scenario") {
		t.Errorf("htmx error body:\n%s", bad.Body)
	}
}

func TestLanguage(t *testing.T) {
	h := webtest.NewServer(t)
	ru := "Шаг 2 из 4"
	en := "Step 2 of 4"
	target := "/lab?preset=crash-before-ack&step=2"
	if r := webtest.Get(t, h, target); !strings.Contains(r.Body, en) || !strings.Contains(r.Body, `<html lang="en"`) {
		t.Error("no Accept-Language: want English")
	}
	if r := webtest.Get(t, h, target, "Accept-Language", "ru-RU,ru;q=0.9,en;q=0.8"); !strings.Contains(r.Body, ru) ||
		!strings.Contains(r.Body, `<html lang="ru"`) || !strings.Contains(r.Body, "Воркер успел зачислить деньги") {
		t.Error("Accept-Language ru: want Russian, with the preset's Russian summary")
	}
	if r := webtest.Get(t, h, target, "Accept-Language", "de-DE,en;q=0.5,ru;q=0.4"); !strings.Contains(r.Body, en) {
		t.Error("Accept-Language de,en,ru: want English, the better of the two")
	}
	r := webtest.Get(t, h, target+"&lang=ru", "Accept-Language", "en")
	if !strings.Contains(r.Body, ru) {
		t.Error("?lang=ru: want Russian")
	}
	var cookie *http.Cookie
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == page.LangCookie {
			cookie = c
		}
	}
	if cookie == nil || cookie.Value != "ru" {
		t.Fatalf("?lang=ru sets no language cookie: %v", r.Header["Set-Cookie"])
	}
	if r := webtest.Get(t, h, target, "Accept-Language", "en", "Cookie", cookie.String()); !strings.Contains(r.Body, ru) {
		t.Error("the language cookie is not remembered")
	}
	if r := webtest.Get(t, h, target+"&lang=xx", "Accept-Language", "ru"); r.Status != 200 || !strings.Contains(r.Body, ru) {
		t.Error("an unknown ?lang= falls back to the browser's language")
	}
	// The switch links keep the page the reader is on.
	if r := webtest.Get(t, h, target); !strings.Contains(r.Body, `href="/lab?lang=ru&amp;preset=crash-before-ack&amp;step=2"`) {
		t.Error("the language switch does not keep the address")
	}
}

func TestCatalogIsComplete(t *testing.T) {
	for key, v := range web.NewCatalog() {
		if strings.TrimSpace(v[0]) == "" || strings.TrimSpace(v[1]) == "" {
			t.Errorf("%s: missing English or Russian: %q", key, v)
		}
		if strings.Count(v[0], "%") != strings.Count(v[1], "%") {
			t.Errorf("%s: the translations take different arguments: %q / %q", key, v[0], v[1])
		}
	}
	for _, h := range handlers.List() {
		if _, ok := web.NewCatalog()["h."+h.Name]; !ok {
			t.Errorf("handler %s has no translated summary", h.Name)
		}
	}
}

func TestStaticFiles(t *testing.T) {
	h := webtest.NewServer(t)
	page := webtest.Get(t, h, "/lab")
	m := regexp.MustCompile(`href="(/static/lab\.css\?v=([0-9a-f]+))"`).FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatal("the page does not link a versioned lab.css")
	}
	r := webtest.Get(t, h, m[1])
	if r.Status != 200 || !strings.Contains(r.Header.Get("Cache-Control"), "immutable") || r.Header.Get("ETag") != `"`+m[2]+`"` {
		t.Errorf("versioned CSS: %d, Cache-Control %q, ETag %q", r.Status, r.Header.Get("Cache-Control"), r.Header.Get("ETag"))
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
		t.Errorf("Content-Type %q", ct)
	}
	if r := webtest.Get(t, h, "/static/lab.css"); r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("unversioned CSS: Cache-Control %q, want no-cache", r.Header.Get("Cache-Control"))
	}
	if r := webtest.Get(t, h, "/static/lab.css", "If-None-Match", `"`+m[2]+`"`); r.Status != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", r.Status)
	}
	for _, name := range []string{"vendor/htmx-4.0.1.min.js", "lab.js", "timeline.css", "favicon.svg"} {
		if r := webtest.Get(t, h, "/static/"+name); r.Status != 200 || r.Body == "" {
			t.Errorf("%s: status %d", name, r.Status)
		}
	}
	if !strings.Contains(page.Body, "/static/vendor/htmx-4.0.1.min.js?v=") {
		t.Error("the page does not load the vendored htmx")
	}
	if strings.Contains(page.Body, "//cdn") || strings.Contains(page.Body, "https://") {
		t.Error("the page refers to another host")
	}
}

func TestSecurityHeaders(t *testing.T) {
	r := webtest.Get(t, webtest.NewServer(t), "/lab")
	for name, want := range map[string]string{
		"Content-Security-Policy": "script-src 'self'",
		"X-Content-Type-Options":  "nosniff",
	} {
		if !strings.Contains(r.Header.Get(name), want) {
			t.Errorf("%s = %q, want it to contain %q", name, r.Header.Get(name), want)
		}
	}
}

func TestDevModeReadsStaticFromDisk(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/vendor", 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dir+"/lab.css", []byte("body{color:red}"), 0o644)
	h, err := web.NewServer(web.Config{Dev: true, StaticDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r := webtest.Get(t, h, "/static/lab.css")
	if r.Body != "body{color:red}" || r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("dev static: %q, Cache-Control %q", r.Body, r.Header.Get("Cache-Control"))
	}
}

// BenchmarkLabPage measures a whole lab page: replayed and rendered every
// time (fresh), and served from the replay cache (cached), compressed as a
// browser asks.
func BenchmarkLabPage(b *testing.B) {
	for _, c := range []struct {
		name  string
		bytes int64
	}{{"fresh", -1}, {"cached", 0}} {
		b.Run(c.name, func(b *testing.B) {
			h, err := web.NewServer(web.Config{CacheBytes: c.bytes})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				r := webtest.Get(b, h, "/lab?preset=crash-before-ack&handlers=all", "Accept-Encoding", "gzip")
				if r.Status != 200 {
					b.Fatal(r.Status)
				}
			}
		})
	}
}

// TestPanicIsA500Page: a bug in a handler gives a calm error page, never a
// dropped connection or a stack trace.
func TestPanicIsA500Page(t *testing.T) {
	s, err := web.InternalServer(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	h := s.RecoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	r := webtest.Get(t, h, "/lab")
	if r.Status != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", r.Status)
	}
	if strings.Contains(r.Body, "boom") || strings.Contains(r.Body, "goroutine") {
		t.Error("the 500 page shows the panic")
	}
	if !strings.Contains(r.Body, "Something broke inside the lab") {
		t.Errorf("500 page:\n%s", webtest.Excerpt(r.Body))
	}
}

func TestPagesAreCompressed(t *testing.T) {
	h := webtest.NewServer(t)
	plain := webtest.Get(t, h, "/lab?preset=crash-before-ack")
	gz := webtest.Get(t, h, "/lab?preset=crash-before-ack", "Accept-Encoding", "gzip")
	if gz.Header.Get("Content-Encoding") != "gzip" || len(gz.Body)*4 > len(plain.Body) {
		t.Errorf("Content-Encoding %q, %d bytes compressed from %d", gz.Header.Get("Content-Encoding"), len(gz.Body), len(plain.Body))
	}
	t.Logf("lab page: %d KB, %d KB gzipped", len(plain.Body)>>10, len(gz.Body)>>10)
}

// The controls for the gateway's ambiguous and deduplicating modes and
// for the slow worker add the steps the script language spells so.
func TestNewGatewayAndSameControls(t *testing.T) {
	h := webtest.NewServer(t)
	base := url.Values{"script": {"publish pay-1 amount=100\n"}}
	for _, c := range []struct {
		fields url.Values
		line   string
	}{
		{url.Values{"verb": {"gateway"}, "state": {"timeout"}}, "gateway timeout"},
		{url.Values{"verb": {"gateway"}, "state": {"dedup on"}}, "gateway dedup on"},
		{url.Values{"verb": {"gateway"}, "state": {"dedup off"}}, "gateway dedup off"},
		{url.Values{"verb": {"deliver-concurrent"}, "same": {"1"}}, "deliver-concurrent same"},
	} {
		f := url.Values{}
		for k, v := range base {
			f[k] = v
		}
		for k, v := range c.fields {
			f[k] = v
		}
		_, page := webtest.Follow(t, h, "/lab/step", f)
		if got := webtest.ScriptOf(t, page.Body); !strings.Contains(got, c.line+"\n") {
			t.Errorf("%v: script %q lacks %q", c.fields, got, c.line)
		}
	}
	page := webtest.Get(t, h, "/lab")
	for _, id := range []string{"do-gateway-timeout", "do-gateway-dedup-on", "do-gateway-dedup-off", "do-deliver-same"} {
		if !strings.Contains(page.Body, `id="`+id+`"`) {
			t.Errorf("the lab has no %s control", id)
		}
	}
}

// The timeline open at first is that of the handler the story is about
// (the preset's handlers: header), and state tables are named regions.
func TestStoryTimelineOpensAndTablesAreRegions(t *testing.T) {
	h := webtest.NewServer(t)
	page := webtest.Get(t, h, "/lab?preset=gateway-failure&step=3")
	if page.Status != http.StatusOK {
		t.Fatalf("status %d", page.Status)
	}
	open := regexp.MustCompile(`<details class="[^"]*" id="timeline-([a-z-]+)" open`).FindAllStringSubmatch(page.Body, -1)
	if len(open) != 1 || open[0][1] != "setnx" {
		t.Errorf("open timelines %v, want only setnx's (the story's first handler on screen)", open)
	}
	if !strings.Contains(page.Body, `role="region" tabindex="0" aria-label="setnx: table accounts"`) {
		t.Error("setnx's accounts table is not a named region")
	}
}
