package web_test

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestRoomPageMintsNoIdentity is the attack of issue 24: a client that
// drops its cookies and opens a room's page again, sixty times, then
// votes with whatever the page gave it. The page gives no identity (it
// offers the join button), so no vote counts.
func TestRoomPageMintsNoIdentity(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, _, poll := openPoll(t, h, hub)
	base := "/rooms/" + code
	for i := range 60 {
		// A fresh client each round: no cookie, or a made-up one.
		cookie := ""
		if i%2 == 1 {
			cookie = classroom.StudentCookie + "=round" + strconv.Itoa(i) + ".sig"
		}
		page := webtest.Get(t, h, base, "Cookie", cookie)
		if page.Status != http.StatusOK || !strings.Contains(page.Body, `id="join-go"`) || strings.Contains(page.Body, `data-role="student"`) {
			t.Fatalf("round %d: status %d, want the join button\n%s", i+1, page.Status, webtest.Excerpt(page.Body))
		}
		if len(page.Header.Values("Set-Cookie")) != 0 {
			t.Fatalf("round %d: the room's page set %q", i+1, page.Header.Values("Set-Cookie"))
		}
		// The vote carries what the client has: nothing the server issued.
		r := webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {poll}, "balance": {"999"}}, "Cookie", cookie)
		if r.Status != http.StatusForbidden {
			t.Fatalf("round %d: vote status %d, want 403", i+1, r.Status)
		}
	}
	st, _ := hub.State(code, true)
	if st.Joined != 0 || st.Poll.Votes != 0 || st.Poll.Voters != 0 {
		t.Fatalf("after 60 rounds: %d joined, %d votes from %d voters; want none", st.Joined, st.Poll.Votes, st.Poll.Voters)
	}
}

// TestVotesCountIdentitiesOnce: an identity's answers count once, the
// last one; the poll says how many identities answered and how many
// joined, to the instructor and to students, in both languages.
func TestVotesCountIdentitiesOnce(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, instructor, poll := openPoll(t, h, hub)
	base := "/rooms/" + code
	vote := func(student, balance string) {
		t.Helper()
		if r := webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {poll}, "balance": {balance}}, "Cookie", student); r.Status != http.StatusSeeOther {
			t.Fatalf("vote: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
		}
	}
	one := webtest.IssuedStudent(t, h, code)
	for _, b := range []string{"100", "200", "300", "200", "200"} {
		vote(one, b)
	}
	if p := votes(t, hub, code); p.Votes != 1 || p.Voters != 1 || len(p.Counts) != 1 || p.Counts[0] != (room.VoteCount{Balance: 20000, Count: 1}) {
		t.Fatalf("one identity voting five times: %+v, want its last answer once", p)
	}
	two, three := webtest.IssuedStudent(t, h, code), webtest.IssuedStudent(t, h, code)
	vote(two, "100")
	vote(three, "200")
	webtest.IssuedStudent(t, h, code) // a fourth joins and does not answer
	if p := votes(t, hub, code); p.Votes != 3 || p.Voters != 3 {
		t.Fatalf("three identities: %d votes from %d voters, want 3 from 3", p.Votes, p.Voters)
	}
	for _, tc := range []struct{ who, target, cookie, lang, want string }{
		{"instructor", base + "/present", instructor, "en", "Answers: 3 · voters: 3 · joined the room: 4"},
		{"instructor", base + "/present", instructor, "ru", "Ответов: 3 · проголосовавших: 3 · вошли в комнату: 4"},
		{"student", base, one, "en", "Answers: 3 · voters: 3 · joined the room: 4"},
		{"student", base, one, "ru", "Ответов: 3 · проголосовавших: 3 · вошли в комнату: 4"},
	} {
		r := webtest.Get(t, h, tc.target+"?lang="+tc.lang, "Cookie", tc.cookie)
		if got := pollVotesLine(r.Body); got != tc.want {
			t.Errorf("%s page in %s: the poll says %q, want %q", tc.who, tc.lang, got, tc.want)
		}
		if !strings.Contains(r.Body, `data-voters="3"`) {
			t.Errorf("%s page in %s lacks data-voters", tc.who, tc.lang)
		}
		webtest.NoMissingKeys(t, tc.target, r.Body)
	}
}

// pollVotesLine is the text of a page's poll-votes line, its spaces
// folded.
func pollVotesLine(body string) string {
	i := strings.Index(body, `id="poll-votes"`)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	rest = rest[strings.Index(rest, ">")+1 : strings.Index(rest, "</p>")]
	var b strings.Builder
	for inTag := false; rest != ""; rest = rest[1:] {
		switch c := rest[0]; {
		case c == '<':
			inTag = true
		case c == '>':
			inTag = false
		case !inTag:
			b.WriteByte(c)
		}
	}
	return strings.Join(strings.Fields(html.UnescapeString(b.String())), " ")
}

// TestJoinsAreThrottled: joining issues an identity, and one address gets
// joinsBurst of them in a room, then one each 60/joinsPerMinute seconds:
// the next join gets 429 with Retry-After and the page that says to wait,
// in the reader's language, and issues nothing. Other addresses, other
// rooms and students who joined already are not held back; time heals.
func TestJoinsAreThrottled(t *testing.T) {
	clock := webtest.NewClock()
	hub := room.NewHub(room.Config{Now: clock.Now})
	h, err := web.NewServer(web.Config{Rooms: hub, Heartbeat: -1, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	code, _ := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	other, _ := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	const addr = "198.51.100.20:7000"
	join := func(addr, code string, headers ...string) webtest.Response {
		t.Helper()
		return webtest.From(t, h, addr, "/join", url.Values{"code": {code}}, headers...)
	}
	var first string
	for i := range web.JoinsBurst {
		r := join(addr, code)
		c := studentCookie(r)
		if r.Status != http.StatusSeeOther || c == nil {
			t.Fatalf("join %d: status %d, Set-Cookie %q", i+1, r.Status, r.Header.Values("Set-Cookie"))
		}
		if first == "" {
			first = c.Name + "=" + c.Value
		}
	}
	secs := strconv.Itoa(60 / web.JoinsPerMinute)
	for i := range 60 { // a script going on: none of it gets an identity
		r := join("198.51.100.20:"+strconv.Itoa(8000+i), code, "Accept-Language", "ru")
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != secs || studentCookie(r) != nil {
			t.Fatalf("join %d past the burst: status %d, Retry-After %q, Set-Cookie %q; want 429, %s, none",
				web.JoinsBurst+i+1, r.Status, r.Header.Get("Retry-After"), r.Header.Values("Set-Cookie"), secs)
		}
		if i == 0 {
			if body := html.UnescapeString(r.Body); !strings.Contains(body, "Подождите "+secs+" с") {
				t.Errorf("the 429 page does not say to wait, in Russian\n%s", webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, "/join", r.Body)
		}
	}
	if st, _ := hub.State(code, false); st.Joined != web.JoinsBurst {
		t.Fatalf("%d identities issued to one address, want %d", st.Joined, web.JoinsBurst)
	}
	// A student who joined already goes back in, issued nothing new.
	if r := webtest.From(t, h, addr, "/join", url.Values{"code": {code}}, "Cookie", first); r.Status != http.StatusSeeOther || studentCookie(r) != nil {
		t.Errorf("a student joining again: status %d, Set-Cookie %q", r.Status, r.Header.Values("Set-Cookie"))
	}
	if r := join("198.51.100.21:7000", code); r.Status != http.StatusSeeOther || studentCookie(r) == nil {
		t.Errorf("another address: status %d", r.Status)
	}
	if r := join(addr, other); r.Status != http.StatusSeeOther || studentCookie(r) == nil {
		t.Errorf("the same address in another room: status %d", r.Status)
	}
	clock.Advance(time.Duration(60/web.JoinsPerMinute) * time.Second)
	if r := join(addr, code); r.Status != http.StatusSeeOther || studentCookie(r) == nil {
		t.Errorf("after Retry-After: status %d", r.Status)
	}
	if r := join(addr, code); r.Status != http.StatusTooManyRequests {
		t.Errorf("and only one: status %d", r.Status)
	}
}

// TestJoinForm: the room's page offers the join in the reader's language
// and keeps the panels; the join checks the code it is given; a full
// room issues nothing; another site cannot make a browser join.
func TestJoinForm(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{MaxStudents: 1})
	code, _ := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	shown := code[:3] + "\u00a0" + code[3:]
	r := webtest.Get(t, h, "/rooms/"+code+"?show=source&lang=ru")
	body := html.UnescapeString(r.Body)
	for _, want := range []string{"Войти в комнату " + shown, `name="show" value="source"`, `action="/join"`, "Войти</button>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the Russian join page lacks %q", want)
		}
	}
	webtest.NoMissingKeys(t, "/rooms/"+code, r.Body)
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the join page: Cache-Control %q, want no-store", cc)
	}
	r = webtest.Post(t, h, "/join", url.Values{"code": {code}, "show": {"source"}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/rooms/"+code+"?show=source" || studentCookie(r) == nil {
		t.Errorf("a join with the panels: %d to %q", r.Status, r.Header.Get("Location"))
	}
	for _, tc := range []struct {
		code   string
		status int
		want   string
	}{
		{"", 400, "is not a room code"},
		{"AB", 400, "is not a room code"},
		{"ZZZ-ZZZ", 404, "No room with the code ZZZ\u00a0ZZZ is open"},
	} {
		r := webtest.Post(t, h, "/join", url.Values{"code": {tc.code}})
		if r.Status != tc.status || !strings.Contains(html.UnescapeString(r.Body), tc.want) || studentCookie(r) != nil {
			t.Errorf("join %q: status %d, want %d with %q\n%s", tc.code, r.Status, tc.status, tc.want, webtest.Excerpt(r.Body))
		}
	}
	// The room's one place is taken: a newcomer is told so, and issued
	// nothing.
	sub, err := hub.Subscribe(code)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if r := webtest.Post(t, h, "/join", url.Values{"code": {code}}); r.Status != http.StatusServiceUnavailable || studentCookie(r) != nil {
		t.Errorf("a join of a full room: status %d, Set-Cookie %q", r.Status, r.Header.Values("Set-Cookie"))
	}
	sub.Close()
	joined, _ := hub.State(code, false)
	r = webtest.Request(t, h, http.MethodPost, "/join", url.Values{"code": {code}}, "Sec-Fetch-Site", "cross-site")
	if st, _ := hub.State(code, false); r.Status != http.StatusForbidden || studentCookie(r) != nil || st.Joined != joined.Joined {
		t.Errorf("a join posted by another site: status %d, joined %d, was %d", r.Status, st.Joined, joined.Joined)
	}
}
