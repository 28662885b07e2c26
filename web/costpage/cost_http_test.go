package costpage_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestCostPage: /cost shows the reference run's charts and table, and the
// form that runs a bench here; both languages.
func TestCostPage(t *testing.T) {
	h := webtest.NewServer(t)
	for lang, want := range map[string][]string{
		// The plan is SQLite's own, asked by the server: statemachine's
		// UPDATE of the order scans the table, its credit searches an index.
		"en": {"What idempotency costs", "The reference run", `id="cost-run"`, `<svg class="cost-chart"`, `id="ref-emb-speed"`, `id="ref-real-keyfill"`, "Real engine: PostgreSQL and Redis", `data-handler="inbox"`,
			"Why statemachine slows down as the table grows", "WHERE id = ? AND status = ?\n  └─ SCAN orders\n", "└─ SEARCH accounts USING INDEX"},
		"ru": {"Сколько стоит идемпотентность", "Эталонный прогон", "Сообщений в секунду", "Строк в inbox по часам", "Почему statemachine замедляется", "└─ SCAN orders"},
	} {
		r := webtest.Get(t, h, "/cost?lang="+lang)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d", lang, r.Status)
		}
		for _, w := range want {
			if !strings.Contains(r.Body, w) {
				t.Errorf("%s: the page lacks %q", lang, w)
			}
		}
		if strings.Contains(r.Body, `id="cost-results-title"`) {
			t.Errorf("%s: results without a run", lang)
		}
	}
}

// TestCostRunWithoutJavaScript: the form's GET runs a small bench and
// shows its results: charts and a row per handler.
func TestCostRunWithoutJavaScript(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/cost?run=1&handlers=core&messages=20&duplicates=10&keys=1000&retention=1")
	if r.Status != http.StatusOK {
		t.Fatalf("%d: %s", r.Status, r.Body)
	}
	for _, w := range []string{`id="cost-results-title"`, `id="run-speed"`, `id="run-keysize"`, `id="run-retention"`,
		"20 messages per handler, 10% sent twice (2 copies)"} {
		if !strings.Contains(r.Body, w) {
			t.Errorf("the results lack %q", w)
		}
	}
	results := r.Body[strings.Index(r.Body, `id="cost-results"`):strings.Index(r.Body, `id="cost-ref-title"`)]
	if n := strings.Count(results, `<tr data-handler=`); n != 5 {
		t.Errorf("%d handler rows in the results, want the 5 core handlers", n)
	}
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", r.Header.Get("Cache-Control"))
	}
}

// TestCostRefuses: bad fields name themselves and the valid range, with
// 400; a server started with --bench=false shows no form and refuses
// runs with 403.
func TestCostRefuses(t *testing.T) {
	h := webtest.NewServer(t)
	for target, want := range map[string]string{
		"/cost?run=1&messages=2001":       "messages: &#34;2001&#34; is not valid; 1–2000",
		"/cost?run=1&messages=lots":       "messages: &#34;lots&#34; is not valid",
		"/cost?run=1&duplicates=101":      "duplicates: &#34;101&#34; is not valid; 0–100",
		"/cost?run=1&keys=50001":          "keys: &#34;50001&#34; is not valid; 0–50000",
		"/cost?handlers=every":            "handlers: &#34;every&#34; is not valid; core, all",
		"/cost/events?messages=0":         "messages: &#34;0&#34; is not valid",
		"/cost?run=1&retention=sometimes": "retention: &#34;sometimes&#34; is not valid",
	} {
		r := webtest.Get(t, h, target)
		if r.Status != http.StatusBadRequest || !strings.Contains(r.Body, want) {
			t.Errorf("%s: %d, want 400 with %q\n%s", target, r.Status, want, webtest.Excerpt(r.Body))
		}
	}
	off, err := web.NewServer(web.Config{NoBench: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := webtest.Get(t, off, "/cost"); r.Status != http.StatusOK || strings.Contains(r.Body, `id="cost-run"`) || !strings.Contains(r.Body, `id="cost-off"`) {
		t.Errorf("--bench=false: the page still offers a run (%d)", r.Status)
	}
	for _, target := range []string{"/cost?run=1&messages=5", "/cost/events?messages=5"} {
		if r := webtest.Get(t, off, target); r.Status != http.StatusForbidden || !strings.Contains(r.Body, "does not run benches") {
			t.Errorf("--bench=false: %s answered %d", target, r.Status)
		}
	}
}

// TestCostEvents: the stream sends progress after each handler's run
// (five core handlers, three rounds: 15 runs), then the results section.
func TestCostEvents(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/cost/events?handlers=core&messages=10&duplicates=0&keys=0&retention=")
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %q", r.Status, r.Header.Get("Content-Type"))
	}
	for _, w := range []string{"event: progress\ndata: 0 1\n\n", "event: progress\ndata: 1 15\n\n", "event: progress\ndata: 15 15\n\n", "event: done\ndata: "} {
		if !strings.Contains(r.Body, w) {
			t.Errorf("the stream lacks %q:\n%s", w, webtest.Excerpt(r.Body))
		}
	}
	done := r.Body[strings.Index(r.Body, "event: done"):]
	if !strings.Contains(done, `id="cost-results-title"`) || strings.Contains(done, `id="run-keysize"`) || strings.Contains(done, `id="run-retention"`) {
		t.Errorf("the done event is not the results section (no keys, no retention asked):\n%s", webtest.Excerpt(done))
	}
	// The retention box ticked: its chart comes too.
	if r := webtest.Get(t, h, "/cost/events?handlers=core&messages=5&keys=0&retention=1"); !strings.Contains(r.Body, `id="run-retention"`) {
		t.Errorf("a ticked retention box gave no retention chart:\n%s", webtest.Excerpt(r.Body))
	}
}
