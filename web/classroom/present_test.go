package classroom_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestPresentPages renders the presenter view of presets and permalinks.
func TestPresentPages(t *testing.T) {
	h := webtest.NewServer(t)
	script := "publish pay-1 amount=10000\ndeliver crash=before-ack\nredeliver\ndeliver\n"
	tests := []struct {
		name   string
		target string
		want   map[string]string // handler -> "verdict balance"
		in     []string
		out    []string
	}{
		{"the list of presets", "/present", nil,
			[]string{`href="/present/crash-before-ack"`, "Crash before the ack", `href="/join"`}, []string{"article"}},
		{"a preset starts at step 0 with naive and inbox", "/present/crash-before-ack",
			map[string]string{"naive": "ok 0.00", "inbox": "ok 0.00"},
			[]string{`data-step="0" data-total="4"`, "Press → to take the first step.",
				`id="p-next" href="/present/crash-before-ack?handlers=naive,inbox&amp;step=1" data-swap`,
				`<span class="btn nav disabled" id="p-prev"`, `data-keys="on"`, `id="open-room"`,
				`id="p-explore" href="/lab?preset=crash-before-ack&amp;handlers=naive,inbox"`},
			[]string{"p-source-panel", "p-timeline-panel", "data-events"}},
		{"a preset is shown on the handlers it declares", "/present/poison-loop?step=4",
			map[string]string{"naive": "duplicate 200.00", "unique": "ok 100.00", "unique-error": "poison 100.00"},
			[]string{`href="/present/poison-loop?handlers=naive,unique,unique-error&amp;step=3"`}, nil},
		{"the end of a preset", "/present/crash-before-ack?step=4",
			map[string]string{"naive": "duplicate 200.00", "inbox": "ok 100.00"},
			[]string{"watch naive credit a second time", `id="p-prev" href="/present/crash-before-ack?handlers=naive,inbox&amp;step=3"`,
				`<span class="btn nav disabled" id="p-next"`, "DUPLICATE", "×2", "Step 4 of 4"}, nil},
		{"one handler", "/present/crash-before-ack?handlers=naive&step=2",
			map[string]string{"naive": "duplicate 100.00"},
			[]string{`data-count="1"`, `<span class="btn small p-toggle disabled on" id="p-h-1" aria-disabled="true"`,
				`id="p-h-5" href="/present/crash-before-ack?handlers=naive,inbox&amp;step=2"`}, nil},
		{"the panels", "/present/crash-before-ack?step=2&show=source,timeline",
			map[string]string{"naive": "duplicate 100.00", "inbox": "ok 100.00"},
			[]string{"p-source-panel", "p-timeline-panel", "<code>naive.go</code>", `<pre class="code" role="region" tabindex="0" aria-label="naive: source, naive.go">`, `<svg`,
				`id="p-source" href="/present/crash-before-ack?handlers=naive,inbox&amp;step=2&amp;show=timeline"`}, nil},
		{"a permalink", "/present?s=" + link.Pack(script) + "&step=4&handlers=naive,unique",
			map[string]string{"naive": "duplicate 200.00", "unique": "ok 100.00"},
			[]string{"Step 4 of 4", `id="p-prev" href="/present?s=` + link.Pack(script) + `&amp;handlers=naive,unique&amp;step=3"`,
				`<input type="hidden" name="s" value="` + link.Pack(script) + `">`}, nil},
		{"a lab address with /lab changed to /present", "/present?preset=crash-before-ack&step=2",
			map[string]string{"naive": "duplicate 100.00", "inbox": "ok 100.00"}, []string{"Step 2 of 4"}, nil},
		{"a plain script", "/present?script=" + url.QueryEscape(script) + "&step=1",
			map[string]string{"naive": "ok 0.00", "inbox": "ok 0.00"}, []string{"Step 1 of 4"}, nil},
		{"Russian", "/present/crash-before-ack?step=1&lang=ru", map[string]string{"naive": "ok 0.00", "inbox": "ok 0.00"},
			[]string{"Продюсер публикует пополнение pay-1 на 100.00.", "Шаг 1 из 4", "Открыть комнату"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Get(t, h, tc.target)
			if r.Status != http.StatusOK {
				t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
			}
			got := webtest.Cards(r.Body)
			bal := webtest.Balances(r.Body)
			if len(got) != len(tc.want) {
				t.Errorf("cards %v, want %v", got, tc.want)
			}
			for handler, want := range tc.want {
				if g := got[handler] + " " + bal[handler]; g != want {
					t.Errorf("%s: %q, want %q", handler, g, want)
				}
			}
			for _, s := range tc.in {
				if !strings.Contains(r.Body, s) {
					t.Errorf("page lacks %q", s)
				}
			}
			for _, s := range tc.out {
				if strings.Contains(r.Body, s) {
					t.Errorf("page has %q", s)
				}
			}
			webtest.NoMissingKeys(t, tc.target, r.Body)
		})
	}
}

// TestPresentBadInput: an unknown preset is a 404 (in the path) or a 400
// (in preset=) that lists the presets;
// everything else the reader can get wrong is a 400 naming the problem.
func TestPresentBadInput(t *testing.T) {
	h := webtest.NewServer(t)
	tests := []struct {
		target string
		status int
		want   []string
	}{
		{"/present/no-such-thing", http.StatusNotFound,
			[]string{`There is no scenario &#34;no-such-thing&#34; to present.`, "crash-before-ack, ", `href="/present/crash-before-ack"`}},
		{"/present?s=2AAAA", http.StatusBadRequest, []string{"should start with"}},
		{"/present?s=1%21%21%21", http.StatusBadRequest, []string{"not base64url"}},
		{"/present?s=1AAAA", http.StatusBadRequest, []string{"does not decompress"}},
		{"/present?script=delivr", http.StatusBadRequest, []string{"The script has an error"}},
		{"/present/crash-before-ack?step=5", http.StatusBadRequest, []string{"step=5 is not a step of this script", "from 0 to 4"}},
		{"/present/crash-before-ack?step=x", http.StatusBadRequest, []string{"step=x"}},
		{"/present/crash-before-ack?handlers=nope", http.StatusBadRequest, []string{`There is no handler &#34;nope&#34;`}},
		{"/present/crash-before-ack?handlers=", http.StatusBadRequest, []string{"at least one handler"}},
		{"/present/crash-before-ack?show=slides", http.StatusBadRequest, []string{"show=slides is not a panel"}},
		{"/present/crash-before-ack?s=" + link.Pack("deliver\n"), http.StatusBadRequest, []string{"only one of"}},
		// A field naming no preset is a 400, as at /lab; the path
		// /present/NAME is a page, and an unknown one a 404.
		{"/present?preset=nope", http.StatusBadRequest, []string{`There is no scenario &#34;nope&#34; to present.`, `href="/present/happy-path"`}},
		{"/present?preset=crash-before-ack&s=" + link.Pack("deliver\n"), http.StatusBadRequest, []string{"only one of"}},
	}
	for _, tc := range tests {
		r := webtest.Get(t, h, tc.target)
		if r.Status != tc.status {
			t.Errorf("GET %s: status %d, want %d\n%s", tc.target, r.Status, tc.status, webtest.Excerpt(r.Body))
			continue
		}
		for _, s := range tc.want {
			if !strings.Contains(r.Body, s) {
				t.Errorf("GET %s: page lacks %q\n%s", tc.target, s, webtest.Excerpt(r.Body))
			}
		}
	}
	if r := webtest.Post(t, h, "/present/crash-before-ack", url.Values{}); r.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST /present/…: status %d, want 405", r.Status)
	}
}

// TestPresentLinksWalkTheScript follows the Next link from the start to
// the end, as the keyboard does, and back with Restart.
func TestPresentLinksWalkTheScript(t *testing.T) {
	h := webtest.NewServer(t)
	target := "/present/crash-before-ack"
	for step := 0; step <= 4; step++ {
		r := webtest.Get(t, h, target)
		if r.Status != http.StatusOK || !strings.Contains(r.Body, `data-step="`+strconv.Itoa(step)+`" data-total="4"`) {
			t.Fatalf("GET %s: status %d, want step %d", target, r.Status, step)
		}
		if step == 4 {
			restart := hrefOf(t, r.Body, "p-restart")
			if restart != "/present/crash-before-ack?handlers=naive,inbox&step=0" {
				t.Errorf("restart = %q", restart)
			}
			break
		}
		target = hrefOf(t, r.Body, "p-next")
	}
}

// hrefOf is the unescaped href of the element with id.
func hrefOf(tb testing.TB, body, id string) string {
	tb.Helper()
	i := strings.Index(body, `id="`+id+`" href="`)
	if i < 0 {
		tb.Fatalf("no link #%s\n%s", id, webtest.Excerpt(body))
	}
	rest := body[i+len(`id="`+id+`" href="`):]
	return webtest.HTMLUnescape(rest[:strings.IndexByte(rest, '"')])
}
