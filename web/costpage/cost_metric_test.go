package costpage_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/cost"
	"github.com/idempotency-lab/lab/web/webtest"
)

// figureTag is the opening tag of the chart with that id.
func figureTag(t *testing.T, body, id string) string {
	t.Helper()
	tag := regexp.MustCompile(`<figure[^>]*\bid="` + regexp.QuoteMeta(id) + `"[^>]*>`).FindString(body)
	if tag == "" {
		t.Fatalf("no chart %s in the page:\n%s", id, webtest.Excerpt(body))
	}
	return tag
}

// section is body from the element with that id to the next </figure>.
func figureBody(body, id string) string {
	i := strings.Index(body, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	if j := strings.Index(rest, "</figure>"); j >= 0 {
		return rest[:j]
	}
	return rest
}

// TestCostMetric: /cost shows one handler chart per measurement, the one
// ?metric= names (speed by default), the others hidden for the script;
// the picker marks it and links to each metric keeping the address's
// other fields; the chart's numbers are the reference run's, by family.
func TestCostMetric(t *testing.T) {
	h := webtest.NewServer(t)
	ref, err := cost.Reference()
	if err != nil {
		t.Fatal(err)
	}
	inbox := func(rs []cost.Result) cost.Result {
		for _, r := range rs {
			if r.Handler == "inbox" {
				return r
			}
		}
		t.Fatal("no inbox in the reference run")
		return cost.Result{}
	}
	for _, shown := range cost.Metrics() {
		for _, target := range []string{"/cost?metric=" + string(shown), "/cost?lang=ru&metric=" + string(shown)} {
			if shown == cost.MetricSpeed && !strings.Contains(target, "lang") {
				target = "/cost" // the default: no metric in the address
			}
			t.Run(target, func(t *testing.T) {
				r := webtest.Get(t, h, target)
				if r.Status != http.StatusOK {
					t.Fatalf("%d:\n%s", r.Status, webtest.Excerpt(r.Body))
				}
				for _, m := range cost.Metrics() {
					for _, id := range []string{"ref-emb-" + string(m), "ref-real-" + string(m)} {
						tag := figureTag(t, r.Body, id)
						if hidden := strings.Contains(tag, " hidden"); hidden != (m != shown) {
							t.Errorf("%s: %s, want hidden only when not %s", id, tag, shown)
						}
					}
					// The picker: the chosen one marked, each a link that
					// keeps the language.
					link := regexp.MustCompile(`<a class="cost-pick" href="([^"]*)" data-metric="`+string(m)+`"( aria-current="true")?>`).FindAllStringSubmatch(r.Body, -1)
					if len(link) != 2 { // the embedded and the real run
						t.Fatalf("%d picker links to %s, want 2", len(link), m)
					}
					if current := link[0][2] != ""; current != (m == shown) {
						t.Errorf("the link to %s: aria-current %v", m, current)
					}
					href := link[0][1]
					if (m == cost.MetricSpeed) == strings.Contains(href, "metric=") {
						t.Errorf("the link to %s is %q (the default leaves metric out, the others name it)", m, href)
					}
					if m != cost.MetricSpeed && !strings.Contains(href, "metric="+string(m)) {
						t.Errorf("the link to %s is %q", m, href)
					}
					if strings.Contains(target, "lang=ru") != strings.Contains(href, "lang=ru") {
						t.Errorf("the link to %s is %q: it drops or adds the address's language", m, href)
					}
				}
				// The shown chart's bar for inbox carries the figure the
				// table has.
				for id, rs := range map[string][]cost.Result{"ref-emb-": ref.Embedded.Handlers.Handlers, "ref-real-": ref.Real.Handlers.Handlers} {
					_, text := shown.Of(inbox(rs))
					fig := figureBody(r.Body, id+string(shown))
					if !regexp.MustCompile(`<code class="cb-label">inbox</code>\s*<svg[^>]*><rect class="cb-bar" width="[0-9.]+" height="10"></rect></svg>\s*<span class="cb-value">` + regexp.QuoteMeta(text) + `</span>`).MatchString(fig) {
						t.Errorf("%s%s: no bar for inbox with %q:\n%s", id, shown, text, webtest.Excerpt(fig))
					}
				}
			})
		}
	}
}

// TestCostFamilies: the chart and the table group the handlers by the
// catalogue's families, in its order, in both languages; the page says
// that Redis keys (miniredis's above all) are not in bytes/msg.
func TestCostFamilies(t *testing.T) {
	h := webtest.NewServer(t)
	for lang, want := range map[string][]string{
		"en": {"No defence", "A record in the database", "A claim in Redis", "The data&#39;s own state", "Redis keys are not in it", "miniredis"},
		"ru": {"Без защиты", "Запись в базе", "Захват в Redis", "Состояние самих данных", "ключи Redis в это число не входят", "miniredis"},
	} {
		r := webtest.Get(t, h, "/cost?metric=bytes&lang="+lang)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d", lang, r.Status)
		}
		fig := figureBody(r.Body, "ref-emb-bytes")
		last := -1
		for _, w := range want[:4] {
			i := strings.Index(fig, w)
			if i < 0 || i < last {
				t.Errorf("%s: the chart lacks the family %q or has it out of order", lang, w)
			}
			last = i
		}
		for _, w := range want[4:] {
			if !strings.Contains(r.Body, w) {
				t.Errorf("%s: the page does not say %q", lang, w)
			}
		}
	}
	r := webtest.Get(t, h, "/cost")
	for family, handler := range map[string]string{"none": "naive", "dedup": "inbox", "lock": "setnx", "state": "statemachine"} {
		body := r.Body[strings.Index(r.Body, `<tbody data-family="`+family+`"`):]
		body = body[:strings.Index(body, "</tbody>")]
		if !strings.Contains(body, `<tr data-handler="`+handler+`"`) {
			t.Errorf("the table's %s group lacks %s", family, handler)
		}
	}
	// The lock family's bytes are 0 on miniredis: the keys are counted
	// in their own column.
	setnx := r.Body[strings.Index(r.Body, `<tr data-handler="setnx"`):]
	setnx = setnx[:strings.Index(setnx, "</tr>")]
	if !strings.Contains(setnx, `<td class="num">0</td><td class="num">2000</td>`) {
		t.Errorf("setnx's row: want 0 bytes/msg and its 2000 Redis keys:\n%s", setnx)
	}
}

// TestCostBadMetric: a metric that is not one is refused with 400 naming
// the valid ones, as the page's other fields are, on the page and on the
// bench's event stream.
func TestCostBadMetric(t *testing.T) {
	h := webtest.NewServer(t)
	for _, target := range []string{"/cost?metric=calls", "/cost?metric=P99", "/cost?lang=ru&metric=%3Cb%3E", "/cost/events?messages=5&metric=storage"} {
		r := webtest.Get(t, h, target)
		if r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "; speed, sql, redis, bytes, p99.") ||
			!strings.Contains(r.Body, "metric: &#34;") {
			t.Errorf("%s: %d, want 400 naming the metrics:\n%s", target, r.Status, webtest.Excerpt(r.Body))
		}
		if strings.Contains(r.Body, "<b>") {
			t.Errorf("%s: the value is not escaped", target)
		}
	}
	if r := webtest.Get(t, h, "/cost?lang=ru&metric=x"); !strings.Contains(r.Body, "metric: &#34;x&#34; — недопустимо; speed, sql, redis, bytes, p99") {
		t.Errorf("in Russian:\n%s", webtest.Excerpt(r.Body))
	}
}

// TestCostRunMetric: a bench run without JavaScript opens on the metric
// the form carries, and its picker links reload that run with another.
func TestCostRunMetric(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/cost?run=1&handlers=core&messages=5&duplicates=0&keys=0&metric=redis")
	if r.Status != http.StatusOK {
		t.Fatalf("%d:\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if tag := figureTag(t, r.Body, "run-redis"); strings.Contains(tag, " hidden") {
		t.Errorf("the run's Redis chart is hidden: %s", tag)
	}
	if tag := figureTag(t, r.Body, "run-speed"); !strings.Contains(tag, " hidden") {
		t.Errorf("the run's speed chart shows: %s", tag)
	}
	if !strings.Contains(r.Body, `<input type="hidden" name="metric" id="cost-metric" value="redis">`) {
		t.Errorf("the form does not carry the metric")
	}
	if !regexp.MustCompile(`href="/cost\?[^"]*metric=p99[^"]*run=1[^"]*"`).MatchString(r.Body) {
		t.Errorf("the run's picker does not keep the run")
	}
	// The event stream's section opens on the metric asked for too.
	ev := webtest.Get(t, h, "/cost/events?handlers=core&messages=5&duplicates=0&keys=0&metric=p99")
	done := ev.Body[strings.Index(ev.Body, "event: done"):]
	if tag := figureTag(t, done, "run-p99"); strings.Contains(tag, " hidden") {
		t.Errorf("the streamed run's p99 chart is hidden: %s", tag)
	}
	if !strings.Contains(done, `href="/cost?duplicates=0&amp;handlers=core&amp;keys=0&amp;messages=5&amp;metric=sql&amp;run=1"`) {
		t.Errorf("the streamed run's picker does not link to the run:\n%s", webtest.Excerpt(done))
	}
}
