package web

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/classroom/room"
)

// TestRoomPageMintsNoIdentity is the attack of issue 24: a client that
// drops its cookies and opens a room's page again, sixty times, then
// votes with whatever the page gave it. The page gives no identity (it
// offers the join button), so no vote counts.
func TestRoomPageMintsNoIdentity(t *testing.T) {
	h, hub := newRoomServer(t, room.Config{})
	code, _, poll := openPoll(t, h, hub)
	base := "/rooms/" + code
	for i := range 60 {
		// A fresh client each round: no cookie, or a made-up one.
		cookie := ""
		if i%2 == 1 {
			cookie = classroom.StudentCookie + "=round" + strconv.Itoa(i) + ".sig"
		}
		page := get(t, h, base, "Cookie", cookie)
		if page.status != http.StatusOK || !strings.Contains(page.body, `id="join-go"`) || strings.Contains(page.body, `data-role="student"`) {
			t.Fatalf("round %d: status %d, want the join button\n%s", i+1, page.status, excerpt(page.body))
		}
		if len(page.header.Values("Set-Cookie")) != 0 {
			t.Fatalf("round %d: the room's page set %q", i+1, page.header.Values("Set-Cookie"))
		}
		// The vote carries what the client has: nothing the server issued.
		r := request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {poll}, "balance": {"999"}}, "Cookie", cookie)
		if r.status != http.StatusForbidden {
			t.Fatalf("round %d: vote status %d, want 403", i+1, r.status)
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
	h, hub := newRoomServer(t, room.Config{})
	code, instructor, poll := openPoll(t, h, hub)
	base := "/rooms/" + code
	vote := func(student, balance string) {
		t.Helper()
		if r := request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {poll}, "balance": {balance}}, "Cookie", student); r.status != http.StatusSeeOther {
			t.Fatalf("vote: status %d\n%s", r.status, excerpt(r.body))
		}
	}
	one := issuedStudent(t, h, code)
	for _, b := range []string{"100", "200", "300", "200", "200"} {
		vote(one, b)
	}
	if p := votes(t, hub, code); p.Votes != 1 || p.Voters != 1 || len(p.Counts) != 1 || p.Counts[0] != (room.VoteCount{Balance: 20000, Count: 1}) {
		t.Fatalf("one identity voting five times: %+v, want its last answer once", p)
	}
	two, three := issuedStudent(t, h, code), issuedStudent(t, h, code)
	vote(two, "100")
	vote(three, "200")
	issuedStudent(t, h, code) // a fourth joins and does not answer
	if p := votes(t, hub, code); p.Votes != 3 || p.Voters != 3 {
		t.Fatalf("three identities: %d votes from %d voters, want 3 from 3", p.Votes, p.Voters)
	}
	for _, tc := range []struct{ who, target, cookie, lang, want string }{
		{"instructor", base + "/present", instructor, "en", "Answers: 3 · voters: 3 · joined the room: 4"},
		{"instructor", base + "/present", instructor, "ru", "Ответов: 3 · проголосовавших: 3 · вошли в комнату: 4"},
		{"student", base, one, "en", "Answers: 3 · voters: 3 · joined the room: 4"},
		{"student", base, one, "ru", "Ответов: 3 · проголосовавших: 3 · вошли в комнату: 4"},
	} {
		r := get(t, h, tc.target+"?lang="+tc.lang, "Cookie", tc.cookie)
		if got := pollVotesLine(r.body); got != tc.want {
			t.Errorf("%s page in %s: the poll says %q, want %q", tc.who, tc.lang, got, tc.want)
		}
		if !strings.Contains(r.body, `data-voters="3"`) {
			t.Errorf("%s page in %s lacks data-voters", tc.who, tc.lang)
		}
		noMissingKeys(t, tc.target, r.body)
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
	clock := newTestClock()
	hub := room.NewHub(room.Config{Now: clock.Now})
	h, err := NewServer(Config{Rooms: hub, Heartbeat: -1, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	code, _ := openRoom(t, h, crashBeforeAck())
	other, _ := openRoom(t, h, crashBeforeAck())
	const addr = "198.51.100.20:7000"
	join := func(addr, code string, headers ...string) response {
		t.Helper()
		return from(t, h, addr, "/join", url.Values{"code": {code}}, headers...)
	}
	var first string
	for i := range joinsBurst {
		r := join(addr, code)
		c := studentCookie(r)
		if r.status != http.StatusSeeOther || c == nil {
			t.Fatalf("join %d: status %d, Set-Cookie %q", i+1, r.status, r.header.Values("Set-Cookie"))
		}
		if first == "" {
			first = c.Name + "=" + c.Value
		}
	}
	secs := strconv.Itoa(60 / joinsPerMinute)
	for i := range 60 { // a script going on: none of it gets an identity
		r := join("198.51.100.20:"+strconv.Itoa(8000+i), code, "Accept-Language", "ru")
		if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != secs || studentCookie(r) != nil {
			t.Fatalf("join %d past the burst: status %d, Retry-After %q, Set-Cookie %q; want 429, %s, none",
				joinsBurst+i+1, r.status, r.header.Get("Retry-After"), r.header.Values("Set-Cookie"), secs)
		}
		if i == 0 {
			if body := html.UnescapeString(r.body); !strings.Contains(body, "Подождите "+secs+" с") {
				t.Errorf("the 429 page does not say to wait, in Russian\n%s", excerpt(r.body))
			}
			noMissingKeys(t, "/join", r.body)
		}
	}
	if st, _ := hub.State(code, false); st.Joined != joinsBurst {
		t.Fatalf("%d identities issued to one address, want %d", st.Joined, joinsBurst)
	}
	// A student who joined already goes back in, issued nothing new.
	if r := from(t, h, addr, "/join", url.Values{"code": {code}}, "Cookie", first); r.status != http.StatusSeeOther || studentCookie(r) != nil {
		t.Errorf("a student joining again: status %d, Set-Cookie %q", r.status, r.header.Values("Set-Cookie"))
	}
	if r := join("198.51.100.21:7000", code); r.status != http.StatusSeeOther || studentCookie(r) == nil {
		t.Errorf("another address: status %d", r.status)
	}
	if r := join(addr, other); r.status != http.StatusSeeOther || studentCookie(r) == nil {
		t.Errorf("the same address in another room: status %d", r.status)
	}
	clock.advance(time.Duration(60/joinsPerMinute) * time.Second)
	if r := join(addr, code); r.status != http.StatusSeeOther || studentCookie(r) == nil {
		t.Errorf("after Retry-After: status %d", r.status)
	}
	if r := join(addr, code); r.status != http.StatusTooManyRequests {
		t.Errorf("and only one: status %d", r.status)
	}
}

// TestJoinForm: the room's page offers the join in the reader's language
// and keeps the panels; the join checks the code it is given; a full
// room issues nothing; another site cannot make a browser join.
func TestJoinForm(t *testing.T) {
	h, hub := newRoomServer(t, room.Config{MaxStudents: 1})
	code, _ := openRoom(t, h, crashBeforeAck())
	shown := code[:3] + "\u00a0" + code[3:]
	r := get(t, h, "/rooms/"+code+"?show=source&lang=ru")
	body := html.UnescapeString(r.body)
	for _, want := range []string{"Войти в комнату " + shown, `name="show" value="source"`, `action="/join"`, "Войти</button>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the Russian join page lacks %q", want)
		}
	}
	noMissingKeys(t, "/rooms/"+code, r.body)
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the join page: Cache-Control %q, want no-store", cc)
	}
	r = post(t, h, "/join", url.Values{"code": {code}, "show": {"source"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/rooms/"+code+"?show=source" || studentCookie(r) == nil {
		t.Errorf("a join with the panels: %d to %q", r.status, r.header.Get("Location"))
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
		r := post(t, h, "/join", url.Values{"code": {tc.code}})
		if r.status != tc.status || !strings.Contains(html.UnescapeString(r.body), tc.want) || studentCookie(r) != nil {
			t.Errorf("join %q: status %d, want %d with %q\n%s", tc.code, r.status, tc.status, tc.want, excerpt(r.body))
		}
	}
	// The room's one place is taken: a newcomer is told so, and issued
	// nothing.
	sub, err := hub.Subscribe(code)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if r := post(t, h, "/join", url.Values{"code": {code}}); r.status != http.StatusServiceUnavailable || studentCookie(r) != nil {
		t.Errorf("a join of a full room: status %d, Set-Cookie %q", r.status, r.header.Values("Set-Cookie"))
	}
	sub.Close()
	joined, _ := hub.State(code, false)
	r = request(t, h, http.MethodPost, "/join", url.Values{"code": {code}}, "Sec-Fetch-Site", "cross-site")
	if st, _ := hub.State(code, false); r.status != http.StatusForbidden || studentCookie(r) != nil || st.Joined != joined.Joined {
		t.Errorf("a join posted by another site: status %d, joined %d, was %d", r.status, st.Joined, joined.Joined)
	}
}
