package playground_test

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestErrorTitles: an error page's heading names the kind of problem: a
// value that is not valid, a script that does not parse, and the headings
// that already said so (413, 422, 404) stay.
func TestErrorTitles(t *testing.T) {
	h := webtest.NewServer(t)
	for _, tc := range []struct {
		name, target string
		status       int
		en, ru       string
	}{
		{"a bad field", "/lab?preset=crash-before-ack&step=99", 400, "Something in the request is not valid", "В запросе есть неверное значение"},
		{"a script that does not parse", "/lab?script=" + url.QueryEscape("publish pay-1 amount=lots"), 400, "The script has an error", "В сценарии ошибка"},
		{"no such page", "/nothing-here", 404, "There is no such page", "Такой страницы нет"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for lang, want := range map[string]string{"en": tc.en, "ru": tc.ru} {
				r := webtest.Get(t, h, tc.target+map[bool]string{true: "&", false: "?"}[strings.Contains(tc.target, "?")]+"lang="+lang)
				if r.Status != tc.status {
					t.Fatalf("%s: status %d, want %d\n%s", lang, r.Status, tc.status, webtest.Excerpt(r.Body))
				}
				heading := `<span class="status">` + strconv.Itoa(tc.status) + `</span> ` + html.EscapeString(want) + `</h1>`
				if !strings.Contains(r.Body, heading) {
					t.Errorf("%s: the heading is not %q\n%s", lang, want, webtest.Excerpt(r.Body))
				}
				if strings.Contains(r.Body, "could not be read") || strings.Contains(r.Body, "Не удалось разобрать запрос") {
					t.Errorf("%s: an ordinary error says the request could not be read", lang)
				}
			}
		})
	}

	// In practice too: a balance that is not an amount is a value that is not valid.
	ph, _ := webtest.PracticeServer(t)
	q := webtest.FindQuestion(t, practice.KindPredict, nil)
	r := webtest.NewVisitor(t, ph).Post("/practice/q/"+q.ID, url.Values{"balance": {"lots"}, "verdict": {"ok"}})
	if r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "Something in the request is not valid</h1>") {
		t.Errorf("practice: status %d, heading\n%s", r.Status, webtest.Excerpt(r.Body))
	}

	// And in a room: a vote with a balance that is not an amount.
	rh, _ := webtest.NewRoomServer(t, room.Config{})
	code, _ := webtest.OpenRoom(t, rh, webtest.CrashBeforeAck())
	r = webtest.Request(t, rh, http.MethodPost, "/rooms/"+code+"/vote", url.Values{"poll": {"1"}, "balance": {"-5"}}, "Cookie", webtest.IssuedStudent(t, rh, code))
	if r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "Something in the request is not valid") || !strings.Contains(html.UnescapeString(r.Body), "no minus") {
		t.Errorf("room vote: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
}

// TestAPIScriptInTheLab: a script of API requests runs in the lab: the
// page shows a card for every API handler, the client and the server on
// the timeline, and the answers, in both languages.
func TestAPIScriptInTheLab(t *testing.T) {
	h := webtest.NewServer(t)
	for lang, want := range map[string][]string{
		"en": {"Client", "Server", "201 Created", "Charged by the provider"},
		"ru": {"Клиент", "Сервер", "201 Created", "Списано провайдером"},
	} {
		r := webtest.Get(t, h, "/lab?lang="+lang+"&script="+url.QueryEscape("request pay-1 amount=100 lose-response\nretry pay-1"))
		if r.Status != http.StatusOK {
			t.Fatalf("%s: status %d\n%s", lang, r.Status, webtest.Excerpt(r.Body))
		}
		got := webtest.Cards(r.Body)
		for _, hn := range []string{"api-idempotency-key", "api-naive", "api-key-no-fingerprint", "api-key-no-lock", "api-key-short-ttl"} {
			if _, ok := got[hn]; !ok {
				t.Errorf("%s: no card for %s (cards: %v)", lang, hn, got)
			}
		}
		body := html.UnescapeString(r.Body)
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page does not say %q", lang, w)
			}
		}
		if strings.Contains(body, `id="do-publish"`) {
			t.Errorf("%s: an API script offers the producer's publish", lang)
		}
	}
}
