package classroom_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/webtest"
)

// givesAway is what on a room page tells the outcome of the next step
// before the poll about it is revealed.
var givesAway = []string{"DUPLICATE", "×2", `class="p-expected"`, `data-verdict="duplicate"`, "verdict-duplicate", "If settled now</span> <strong class=\"badge\" data-verdict"}

// TestPollHidesVerdicts: at step 3 of crash-before-ack naive is already
// a DUPLICATE if settled now; while a poll asks for naive's balance after
// step 4, neither the projector nor a student's page says so, and a
// student sees no distribution of answers. The reveal brings them all back.
func TestPollHidesVerdicts(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"3"}})
	base := "/rooms/" + code

	before := webtest.Get(t, h, base+"/present", "Cookie", cookie)
	if !strings.Contains(before.Body, "DUPLICATE") || !strings.Contains(before.Body, `class="p-expected"`) {
		t.Fatalf("without a poll the projector shows the verdicts:\n%s", webtest.Excerpt(before.Body))
	}

	webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie)
	st, _ := hub.State(code, true)
	id := strconv.Itoa(st.Poll.ID)
	student := webtest.IssuedStudent(t, h, code)
	if r := webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {id}, "balance": {"200 ₽"}}, "Cookie", student); r.Status != http.StatusSeeOther {
		t.Fatalf("vote: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}

	pages := map[string]webtest.Response{
		"projector": webtest.Get(t, h, base+"/present", "Cookie", cookie),
		"student":   webtest.Get(t, h, base, "Cookie", student+"; "+classroom.VoteCookie+"="+id+":20000"),
		"newcomer":  webtest.Get(t, h, base, "Cookie", webtest.IssuedStudent(t, h, code)),
	}
	for name, r := range pages {
		for _, bad := range givesAway {
			if strings.Contains(r.Body, bad) {
				t.Errorf("%s page during the poll contains %q", name, bad)
			}
		}
		for _, want := range []string{"verdicts-hidden", `data-verdict="hidden"`, `id="p-verdicts-note"`, `data-balance>100.00</span>`} {
			if !strings.Contains(r.Body, want) {
				t.Errorf("%s page during the poll lacks %q", name, want)
			}
		}
	}
	if !strings.Contains(pages["projector"].Body, `<span class="poll-label">200.00</span>`) {
		t.Error("the instructor does not see the answers")
	}
	for _, name := range []string{"student", "newcomer"} {
		if strings.Contains(pages[name].Body, "poll-chart") || strings.Contains(pages[name].Body, "poll-label") {
			t.Errorf("the %s sees the distribution before the reveal", name)
		}
	}

	webtest.Request(t, h, http.MethodPost, base+"/step", url.Values{"step": {"4"}}, "Cookie", cookie)
	after := map[string]webtest.Response{
		"projector": webtest.Get(t, h, base+"/present", "Cookie", cookie),
		"student":   webtest.Get(t, h, base, "Cookie", student+"; "+classroom.VoteCookie+"="+id+":20000"),
	}
	for name, r := range after {
		for _, want := range []string{"DUPLICATE", `class="p-expected"`, `data-verdict="duplicate"`, "poll-chart", `id="poll-actual"`} {
			if !strings.Contains(r.Body, want) {
				t.Errorf("%s page after the reveal lacks %q", name, want)
			}
		}
		if strings.Contains(r.Body, "verdicts-hidden") || strings.Contains(r.Body, `id="p-verdicts-note"`) {
			t.Errorf("%s page after the reveal still hides the verdicts", name)
		}
	}
}

// TestPresentVerdictsToggle: V (show=noverdicts) hides the verdicts on
// the presenter's own view, solo or in a room, and the links keep it.
func TestPresentVerdictsToggle(t *testing.T) {
	h := webtest.NewServer(t)
	shown := webtest.Get(t, h, "/present/crash-before-ack?step=3")
	if got := hrefOf(t, shown.Body, "p-verdicts"); got != "/present/crash-before-ack?handlers=naive,inbox&step=3&show=noverdicts" {
		t.Errorf("the toggle leads to %q", got)
	}
	hidden := webtest.Get(t, h, "/present/crash-before-ack?step=3&show=noverdicts")
	if hidden.Status != http.StatusOK {
		t.Fatalf("status %d", hidden.Status)
	}
	for _, bad := range givesAway {
		if strings.Contains(hidden.Body, bad) {
			t.Errorf("show=noverdicts still shows %q", bad)
		}
	}
	for id, want := range map[string]string{
		"p-verdicts": "/present/crash-before-ack?handlers=naive,inbox&step=3",
		"p-next":     "/present/crash-before-ack?handlers=naive,inbox&step=4&show=noverdicts",
		"p-source":   "/present/crash-before-ack?handlers=naive,inbox&step=3&show=source,noverdicts",
	} {
		if got := hrefOf(t, hidden.Body, id); got != want {
			t.Errorf("#%s leads to %q, want %q", id, got, want)
		}
	}
	if strings.Contains(hidden.Body, `id="p-verdicts-note"`) {
		t.Error("without a poll the page says a poll hides the verdicts")
	}

	// In a room the choice is the room's (the instructor's V posts it,
	// TestRoomHidesVerdictsWithoutAPoll), and the instructor's forms keep it.
	hr, _ := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, hr, url.Values{"preset": {"crash-before-ack"}, "step": {"3"}})
	base := "/rooms/" + code
	webtest.Request(t, hr, http.MethodPost, base+"/verdicts", url.Values{"hide": {"true"}}, "Cookie", cookie)
	if r := webtest.Get(t, hr, base+"/present?show=noverdicts", "Cookie", cookie); strings.Contains(r.Body, "DUPLICATE") || !strings.Contains(r.Body, `name="show" value="noverdicts"`) {
		t.Error("the instructor's page with show=noverdicts shows the verdicts, or its forms drop the flag")
	}
	if r := webtest.Request(t, hr, http.MethodPost, base+"/step", url.Values{"step": {"2"}, "show": {"noverdicts"}}, "Cookie", cookie); r.Header.Get("Location") != base+"/present?show=noverdicts" {
		t.Errorf("a step goes to %q", r.Header.Get("Location"))
	}
	if s := webtest.Get(t, hr, base, "Cookie", webtest.IssuedStudent(t, hr, code)); !strings.Contains(s.Body, `data-role="student"`) || strings.Contains(s.Body, `id="p-verdicts"`) {
		t.Error("a student has the presenter's verdicts toggle")
	}
}

// TestPresentHandlerKeys: every handler has a key, the digits first,
// then 0 and letters, on its button and in the keys help.
func TestPresentHandlerKeys(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/present/crash-before-ack?step=1")
	buttons := regexp.MustCompile(`id="p-h-(\d+)"[^>]*data-key="([^"]*)"`).FindAllStringSubmatch(r.Body, -1)
	if len(buttons) < 10 {
		t.Fatalf("%d handler buttons with keys, want every handler (at least 10)", len(buttons))
	}
	for i, b := range buttons {
		if b[1] != strconv.Itoa(i+1) || b[2] != classroom.HandlerKeys[i] {
			t.Errorf("handler %d: id p-h-%s, key %q, want key %q", i+1, b[1], b[2], classroom.HandlerKeys[i])
		}
		if b[2] == "" {
			t.Errorf("handler %s has no key", b[1])
		}
	}
	help := r.Body[strings.Index(r.Body, `class="p-keys-handlers"`):]
	help = help[:strings.Index(help, "</dt>")]
	for _, b := range buttons[9:] {
		if !strings.Contains(help, "<kbd>"+b[2]+"</kbd>") {
			t.Errorf("the keys help does not list %q:\n%s", b[2], help)
		}
	}
	for _, k := range classroom.HandlerKeys {
		if strings.ContainsAny(k, "RSTV?") {
			t.Errorf("handler key %q is taken by another command", k)
		}
	}
}

// TestVoteFormSaysMajorUnits: the vote form says money is in major units,
// in both languages, and such an answer is read.
func TestVoteFormSaysMajorUnits(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "step": {"3"}})
	base := "/rooms/" + code
	webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie)
	for lang, want := range map[string][]string{
		"en": {`placeholder="in major units, e.g. 200.00"`, "In major units, e.g. 200.00", `aria-describedby="vote-hint"`},
		"ru": {`placeholder="в основных единицах, например 200.00"`, "В основных единицах, например 200.00"},
	} {
		r := webtest.Get(t, h, base+"?lang="+lang, "Cookie", webtest.IssuedStudent(t, h, code))
		for _, w := range want {
			if !strings.Contains(r.Body, w) {
				t.Errorf("%s: the vote form lacks %q", lang, w)
			}
		}
	}
	st, _ := hub.State(code, true)
	if r := webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {strconv.Itoa(st.Poll.ID)}, "balance": {"200,00"}},
		"Cookie", webtest.IssuedStudent(t, h, code)); r.Status != http.StatusSeeOther {
		t.Errorf("200,00: status %d", r.Status)
	}
	if _, ok := classroom.Catalog()["err.balance"]; ok {
		t.Error("err.balance is back in the catalogue, unused")
	}
}

// TestRoomHidesVerdictsWithoutAPoll: the instructor's V in a room hides
// the verdicts on every student's page too, with no poll open, until the
// instructor shows them again; only the instructor may, with a valid
// value.
func TestRoomHidesVerdictsWithoutAPoll(t *testing.T) {
	h, _ := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"4"}})
	base := "/rooms/" + code
	student := webtest.IssuedStudent(t, h, code)
	shows := func(who string, want bool) {
		t.Helper()
		pages := map[string]webtest.Response{"projector": webtest.Get(t, h, base+"/present", "Cookie", cookie), "student": webtest.Get(t, h, base, "Cookie", student)}
		for name, r := range pages {
			if got := strings.Contains(r.Body, `data-verdict="duplicate"`) && !strings.Contains(r.Body, "verdicts-hidden"); got != want {
				t.Errorf("%s: %s page shows the verdicts: %v, want %v\n%s", who, name, got, want, webtest.Excerpt(r.Body))
			}
		}
	}
	shows("before V", true)
	r := webtest.Request(t, h, http.MethodPost, base+"/verdicts", url.Values{"hide": {"true"}, "show": {"source"}}, "Cookie", cookie)
	if loc := r.Header.Get("Location"); r.Status != http.StatusSeeOther || loc != base+"/present?show=source,noverdicts" {
		t.Fatalf("hide: %d %q\n%s", r.Status, loc, webtest.Excerpt(r.Body))
	}
	shows("after V", false)
	if r := webtest.Request(t, h, http.MethodPost, base+"/verdicts", url.Values{"hide": {"false"}}, "Cookie", student); r.Status != http.StatusForbidden {
		t.Errorf("a student's V: status %d, want 403", r.Status)
	}
	if r := webtest.Request(t, h, http.MethodPost, base+"/verdicts", url.Values{"hide": {"maybe"}}, "Cookie", cookie); r.Status != http.StatusBadRequest ||
		!strings.Contains(html.UnescapeString(r.Body), `hide="maybe" is not a choice: use true`) {
		t.Errorf("a bad value: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	webtest.Request(t, h, http.MethodPost, base+"/verdicts", url.Values{"hide": {"false"}}, "Cookie", cookie)
	shows("after V again", true)
}
