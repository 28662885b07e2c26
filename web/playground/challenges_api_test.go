package playground_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestChallengeAPIWithTheControls: an API challenge starts from its
// setup's request (the client's first, already sent, one step of the
// two), shows the API handlers' cards, and is solved with the API side's
// step controls; undoing every step leaves the empty script, whose cards
// are the broker side's (the API ones cannot run it), and sending a
// request again brings the challenge's cards back.
func TestChallengeAPIWithTheControls(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	v := webtest.NewVisitor(t, h)
	r := v.Get("/challenges/api-race-charges-twice")
	loc := r.Header.Get("Location")
	if r.Status != http.StatusSeeOther || !strings.Contains(loc, "challenge=api-race-charges-twice") || !strings.Contains(loc, "s=") {
		t.Fatalf("short address: %d %q", r.Status, loc)
	}
	page := v.Get(loc)
	if page.Status != 200 || !strings.Contains(page.Body, `data-status="open"`) || !strings.Contains(page.Body, "Steps: 1 of at most 2") {
		t.Fatalf("the challenge's lab page:\n%s", webtest.Excerpt(page.Body))
	}
	if got := cardNames(page.Body); strings.Join(got, ",") != "api-key-no-lock,api-idempotency-key" {
		t.Errorf("cards %v, want api-key-no-lock,api-idempotency-key", got)
	}
	solved := v.StepTo(loc, url.Values{"verb": {"request-concurrent"}, "op": {"pay-2"}, "amount": {"10000"}})
	page = v.Get(solved)
	if !strings.Contains(page.Body, `data-status="solved"`) || !strings.Contains(page.Body, "Solved in 2 steps") {
		t.Fatalf("after the solution, the banner:\n%s", webtest.Excerpt(page.Body))
	}
	if list := v.Get("/challenges"); !strings.Contains(list.Body, `id="ch-api-race-charges-twice" data-challenge="api-race-charges-twice" data-solved="true"`) {
		t.Errorf("the list does not show it solved:\n%s", webtest.Excerpt(list.Body))
	}
	// Undo twice: the empty script, on the broker side's handlers.
	for range 2 {
		u, err := url.Parse(solved)
		if err != nil {
			t.Fatal(err)
		}
		r := v.Post("/lab/undo", u.Query())
		if r.Status != http.StatusSeeOther {
			t.Fatalf("undo from %q: %d\n%s", solved, r.Status, webtest.Excerpt(r.Body))
		}
		solved = r.Header.Get("Location")
	}
	page = v.Get(solved)
	if page.Status != 200 || !strings.Contains(solved, "challenge=api-race-charges-twice") {
		t.Fatalf("after undoing every step (%q): %d\n%s", solved, page.Status, webtest.Excerpt(page.Body))
	}
	if got := cardNames(page.Body); strings.Contains(strings.Join(got, ","), "api-") {
		t.Errorf("the empty script shows API cards %v", got)
	}
	again := v.Get(v.StepTo(solved, url.Values{"verb": {"request"}, "op": {"pay-1"}, "amount": {"10000"}}))
	if got := cardNames(again.Body); again.Status != 200 || strings.Join(got, ",") != "api-key-no-lock,api-idempotency-key" {
		t.Errorf("a request again: status %d, cards %v", again.Status, got)
	}
}

// TestChallengeAPIBanner: the other API challenge judged from scripts in
// the address, in both languages, and the refusals of a script of the
// other side than the challenge's.
func TestChallengeAPIBanner(t *testing.T) {
	h := webtest.NewServer(t)
	req := "request pay-1 amount=10000\n"
	for _, tc := range []struct {
		name, challenge, script string
		status                  int
		want, wantRU            string
	}{
		{"solved", "api-reused-key-silent", req + "retry pay-1 amount=12000\n", 200, `data-status="solved"`, `data-status="solved"`},
		// The same body again is a replay the client asked for: no conflict.
		{"the same body", "api-reused-key-silent", req + "retry pay-1\n", 200, "Steps: 2 of at most 2", "Шагов: 2, можно не больше 2"},
		{"too long", "api-reused-key-silent", req + "retry pay-1\nretry pay-1 amount=12000\n", 200, "this challenge allows 2", "можно не больше 2"},
		{"a broker script on an API challenge", "api-reused-key-silent", "publish pay-1 amount=10000\n", 400,
			"Challenge api-reused-key-silent is played on the API side, and this script publishes messages", "Задание api-reused-key-silent решается на стороне API"},
		{"an API script on a broker challenge", "naive-twice", req, 400,
			"Challenge naive-twice is played on the broker side, and this script sends API requests", "Задание naive-twice решается на стороне брокера"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for lang, want := range map[string]string{"en": tc.want, "ru": tc.wantRU} {
				r := webtest.Get(t, h, "/lab?challenge="+tc.challenge+"&lang="+lang+"&s="+link.Pack(tc.script))
				if r.Status != tc.status || !strings.Contains(html.UnescapeString(r.Body), want) {
					t.Errorf("%s: status %d, want %d and %q\n%s", lang, r.Status, tc.status, want, webtest.Excerpt(r.Body))
				}
			}
		})
	}
}
