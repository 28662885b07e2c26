package web_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestMatrixShowsEveryPresetAndHandler checks the verdict grid in both
// languages: a row per preset in teaching order with its title in the
// page's language, a column per handler with the core ones first, and the
// cells of a preset whose outcome the lectures state.
func TestMatrixShowsEveryPresetAndHandler(t *testing.T) {
	h := webtest.NewServer(t)
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lang, dup, ok string
	}{{"en", "DUPLICATE", "OK"}, {"ru", "ДУБЛЬ", "ВЕРНО"}} {
		t.Run(tc.lang, func(t *testing.T) {
			r := webtest.Get(t, h, "/matrix?lang="+tc.lang)
			if r.Status != http.StatusOK {
				t.Fatalf("status %d\n%s", r.Status, r.Body)
			}
			body := r.Body
			webtest.NoMissingKeys(t, "/matrix?lang="+tc.lang, body)
			for _, want := range []string{`<table class="mx" id="matrix">`, `<caption id="mx-caption">`, `<th scope="col"`, `<th scope="row"`} {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %s", want)
				}
			}
			// Rows in teaching order, titled in the page's language.
			last := -1
			for _, p := range presets {
				i := strings.Index(body, `<tr data-preset="`+p.Name+`">`)
				if i < 0 {
					t.Errorf("no row for preset %s", p.Name)
					continue
				}
				if i < last {
					t.Errorf("preset %s is out of teaching order", p.Name)
				}
				last = i
				title := p.Script.Title
				if tc.lang == "ru" && p.Script.TitleRU != "" {
					title = p.Script.TitleRU
				}
				if title != "" && !strings.Contains(body, ">"+html.EscapeString(title)+"</a>") {
					t.Errorf("%s: no title %q", p.Name, title)
				}
			}
			// Columns: every handler, the core ones first.
			thead := regexp.MustCompile(`(?s)<thead>.*?</thead>`).FindString(body)
			var cols []string
			for _, m := range regexp.MustCompile(`data-handler="([^"]+)"`).FindAllStringSubmatch(thead, -1) {
				cols = append(cols, m[1])
			}
			var want []string
			for _, hi := range handlers.List() {
				if hi.Core {
					want = append(want, hi.Name)
				}
			}
			for _, hi := range handlers.List() {
				if !hi.Core {
					want = append(want, hi.Name)
				}
			}
			if strings.Join(cols, ",") != strings.Join(want, ",") {
				t.Errorf("columns %v, want %v", cols, want)
			}
			// Crash before the ack: naive credits twice, the inbox once.
			v, settled, href := webtest.MatrixCellOf(t, body, "crash-before-ack", "naive")
			if v != "duplicate" || settled != "200.00" || href != "/lab?handlers=naive&preset=crash-before-ack&step=4" {
				t.Errorf("crash-before-ack × naive: %s %s %s, want duplicate 200.00 and a link to the lab", v, settled, href)
			}
			v, settled, _ = webtest.MatrixCellOf(t, body, "crash-before-ack", "inbox")
			if v != "ok" || settled != "100.00" {
				t.Errorf("crash-before-ack × inbox: %s %s, want ok 100.00", v, settled)
			}
			row := regexp.MustCompile(`(?s)<tr data-preset="crash-before-ack">.*?</tr>`).FindString(body)
			for _, word := range []string{tc.dup, tc.ok, "×2", "✓"} {
				if !strings.Contains(row, word) {
					t.Errorf("the crash-before-ack row lacks %q", word)
				}
			}
		})
	}
}

// TestMatrixComputedOnce checks that the grid runs the engine once and
// keeps the outcome, and that the page is served from the cache after.
func TestMatrixComputedOnce(t *testing.T) {
	s, err := web.InternalServer(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Routes()
	first := webtest.Get(t, h, "/matrix?lang=en")
	again := webtest.Get(t, h, "/matrix?lang=en", "If-None-Match", first.Header.Get("ETag"))
	if first.Header.Get("ETag") == "" || again.Status != http.StatusNotModified {
		t.Errorf("the page is not served from the cache: ETag %q, then status %d", first.Header.Get("ETag"), again.Status)
	}
}

// TestRoomsIndexRedirects checks GET /rooms: the instructor's entry point
// is /present.
func TestRoomsIndexRedirects(t *testing.T) {
	h := webtest.NewServer(t)
	for target, want := range map[string]string{"/rooms": "/present", "/rooms?lang=ru": "/present?lang=ru"} {
		r := webtest.Get(t, h, target)
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != want {
			t.Errorf("GET %s: %d to %q, want 303 to %s", target, r.Status, r.Header.Get("Location"), want)
		}
	}
}

// TestNavLinksTheMatrix checks the header's link to the grid.
func TestNavLinksTheMatrix(t *testing.T) {
	h := webtest.NewServer(t)
	for _, target := range []string{"/lab", "/matrix"} {
		nav := regexp.MustCompile(`(?s)<nav class="site-nav".*?</nav>`).FindString(webtest.Get(t, h, target).Body)
		if !strings.Contains(nav, `href="/matrix"`) {
			t.Errorf("%s: the navigation has no link to /matrix", target)
		}
	}
	nav := regexp.MustCompile(`(?s)<nav class="site-nav".*?</nav>`).FindString(webtest.Get(t, h, "/matrix").Body)
	if !strings.Contains(nav, `href="/matrix" aria-current="page"`) {
		t.Errorf("/matrix is not marked current:\n%s", nav)
	}
}
