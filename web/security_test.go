package web_test

import (
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/webtest"
)

// studentCookie is the student cookie a response sets, if any.
func studentCookie(r webtest.Response) *http.Cookie {
	for _, line := range r.Header.Values("Set-Cookie") {
		if c, err := http.ParseSetCookie(line); err == nil && c.Name == classroom.StudentCookie {
			return c
		}
	}
	return nil
}

// openPoll opens a room on crash-before-ack at step 3 and asks about
// naive's balance after step 4; it returns the room, the instructor's
// cookie and the poll's id.
func openPoll(tb testing.TB, h http.Handler, hub *room.Hub) (code, instructor, poll string) {
	tb.Helper()
	code, instructor = webtest.OpenRoom(tb, h, url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"3"}})
	r := webtest.Request(tb, h, http.MethodPost, "/rooms/"+code+"/poll", url.Values{"handler": {"naive"}}, "Cookie", instructor)
	if r.Status != http.StatusSeeOther {
		tb.Fatalf("open poll: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	st, _ := hub.State(code, true)
	return code, instructor, strconv.Itoa(st.Poll.ID)
}

func votes(tb testing.TB, hub *room.Hub, code string) *room.Poll {
	tb.Helper()
	st, err := hub.State(code, true)
	if err != nil || st.Poll == nil {
		tb.Fatalf("room %s: %v, poll %v", code, err, st.Poll)
	}
	return st.Poll
}

// TestVotesNeedAnIssuedIdentity: only an identity the server signed votes;
// made-up cookies are refused with 403 and not counted, however many.
// flipLast changes a signature's last character to another one.
func flipLast(sig string) string {
	last := "A"
	if strings.HasSuffix(sig, "A") {
		last = "B"
	}
	return sig[:len(sig)-1] + last
}

func TestVotesNeedAnIssuedIdentity(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, instructor, poll := openPoll(t, h, hub)
	base := "/rooms/" + code
	vote := func(cookie, balance string) webtest.Response {
		return webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {poll}, "balance": {balance}}, "Cookie", cookie)
	}

	// An identity another server issued (another key) is as good as forged.
	other, otherHub := webtest.NewRoomServer(t, room.Config{})
	otherCode, _, _ := openPoll(t, other, otherHub)
	foreign := webtest.IssuedStudent(t, other, otherCode)
	real := webtest.IssuedStudent(t, h, code)
	id, sig, _ := strings.Cut(strings.TrimPrefix(real, classroom.StudentCookie+"="), ".")
	forged := []string{
		"",                                       // no cookie at all
		classroom.StudentCookie + "=s1",          // the old unsigned kind
		classroom.StudentCookie + "=" + id,       // a real id without its signature
		classroom.StudentCookie + "=" + id + ".", // an empty signature
		classroom.StudentCookie + "=" + id + "x." + sig,          // another id under a real signature
		classroom.StudentCookie + "=" + id + "." + flipLast(sig), // one character of the signature changed
		foreign,
		classroom.StudentCookie + "=" + strings.Repeat("A", 200) + "." + sig,
	}
	for i := range 200 {
		c := forged[i%len(forged)]
		if i >= len(forged) {
			c = classroom.StudentCookie + "=" + fmt.Sprintf("forged-%d.%s", i, sig)
		}
		r := vote(c, "200")
		if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "This answer was not counted") {
			t.Fatalf("forged cookie %q: status %d, want 403\n%s", c, r.Status, webtest.Excerpt(r.Body))
		}
	}
	if p := votes(t, hub, code); p.Votes != 0 {
		t.Fatalf("after 200 forged votes the poll counts %d, want 0", p.Votes)
	}

	// The issued identity votes; its second vote replaces its first.
	if r := vote(real, "200"); r.Status != http.StatusSeeOther || r.Header.Get("Location") != base {
		t.Fatalf("an issued identity: status %d to %q\n%s", r.Status, r.Header.Get("Location"), webtest.Excerpt(r.Body))
	}
	if p := votes(t, hub, code); p.Votes != 1 || len(p.Counts) != 1 || p.Counts[0] != (room.VoteCount{Balance: 20000, Count: 1}) {
		t.Fatalf("after one vote: %+v", p)
	}
	if r := vote(real, "100"); r.Status != http.StatusSeeOther {
		t.Fatalf("a second vote: status %d", r.Status)
	}
	if p := votes(t, hub, code); p.Votes != 1 || len(p.Counts) != 1 || p.Counts[0] != (room.VoteCount{Balance: 10000, Count: 1}) {
		t.Fatalf("a second vote should replace the first: %+v", p)
	}

	// The student's page keeps the identity, and issues none: not to the
	// student, not to a forged cookie, which gets the join button.
	if r := webtest.Get(t, h, base, "Cookie", real); studentCookie(r) != nil || !strings.Contains(r.Body, `data-role="student"`) {
		t.Errorf("the page of a student who joined: Set-Cookie %q", r.Header.Values("Set-Cookie"))
	}
	r := webtest.Get(t, h, base, "Cookie", classroom.StudentCookie+"=s1")
	if studentCookie(r) != nil || !strings.Contains(r.Body, `id="join-go"`) || strings.Contains(r.Body, `data-role="student"`) {
		t.Errorf("a forged identity should get the join button and no identity: %q", r.Header.Values("Set-Cookie"))
	}
	// Joining again with an identity keeps it.
	if r := webtest.Request(t, h, http.MethodPost, "/join", url.Values{"code": {code}}, "Cookie", real); r.Status != http.StatusSeeOther || studentCookie(r) != nil {
		t.Errorf("a second join of a student: status %d, Set-Cookie %q", r.Status, r.Header.Values("Set-Cookie"))
	}
	// An identity issued in another room of this server (one the
	// visitor opened for the purpose, say) does not vote here.
	elsewhere, _ := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	if r := vote(webtest.IssuedStudent(t, h, elsewhere), "200"); r.Status != http.StatusForbidden {
		t.Errorf("another room's identity votes: status %d, want 403", r.Status)
	}

	// The instructor asks and does not answer, even holding a student's
	// identity.
	if r := vote(instructor+"; "+real, "300"); r.Status != http.StatusForbidden || !strings.Contains(r.Body, "does not vote") {
		t.Errorf("the instructor votes: status %d, want 403", r.Status)
	}
	if p := votes(t, hub, code); p.Votes != 1 || p.Counts[0].Balance != 10000 {
		t.Errorf("the instructor's vote changed the poll: %+v", p)
	}

	// A second student counts separately.
	if r := vote(webtest.IssuedStudent(t, h, code), "200"); r.Status != http.StatusSeeOther {
		t.Fatalf("a second student: status %d", r.Status)
	}
	if p := votes(t, hub, code); p.Votes != 2 {
		t.Errorf("two students: %d votes", p.Votes)
	}
}

// TestCrossOriginPostsAreRefused: a page of another site cannot make a
// reader's browser change anything here: every POST route answers 403
// with the lab's page in the reader's language, and nothing changes.
func TestCrossOriginPostsAreRefused(t *testing.T) {
	logs := &logBuffer{}
	hub := room.NewHub(room.Config{})
	h, err := web.NewServer(web.Config{Rooms: hub, Heartbeat: -1, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	code, instructor, poll := openPoll(t, h, hub)
	student := webtest.IssuedStudent(t, h, code)
	rooms, before := hub.Rooms(), votes(t, hub, code)
	stBefore, _ := hub.State(code, true)

	posts := []struct {
		target string
		form   url.Values
	}{
		{"/lab/step", url.Values{"preset": {"crash-before-ack"}, "verb": {"advance"}, "duration": {"1h"}}},
		{"/lab/undo", url.Values{"preset": {"crash-before-ack"}, "step": {"4"}}},
		{"/lab/script", url.Values{"script": {"publish a amount=100\ndeliver\n"}}},
		{"/practice/q/unique-return-nil", url.Values{"option": {"a"}}},
		{"/practice/import", url.Values{"file": {"{}"}}},
		{"/rooms", webtest.CrashBeforeAck()},
		{"/rooms/" + code + "/step", url.Values{"step": {"4"}}},
		{"/rooms/" + code + "/poll", url.Values{"handler": {"inbox"}}},
		{"/rooms/" + code + "/vote", url.Values{"poll": {poll}, "balance": {"200"}}},
	}
	attacks := []struct {
		name    string
		headers []string
	}{
		{"Origin of another site", []string{"Origin", "http://evil.example"}},
		{"Sec-Fetch-Site: cross-site", []string{"Sec-Fetch-Site", "cross-site"}},
		{"Sec-Fetch-Site: same-site", []string{"Sec-Fetch-Site", "same-site", "Origin", "http://evil.example.com"}},
		{"htmx from another site", []string{"Sec-Fetch-Site", "cross-site", "HX-Request", "true"}},
	}
	for _, p := range posts {
		for _, a := range attacks {
			headers := append([]string{"Cookie", instructor + "; " + student, "Accept-Language", "ru"}, a.headers...)
			r := webtest.Request(t, h, http.MethodPost, p.target, p.form, headers...)
			if r.Status != http.StatusForbidden {
				t.Errorf("POST %s, %s: status %d, want 403\n%s", p.target, a.name, r.Status, webtest.Excerpt(r.Body))
				continue
			}
			body := html.UnescapeString(r.Body)
			if !strings.Contains(body, "Запрос отклонён") || !strings.Contains(body, "страница другого сайта") {
				t.Errorf("POST %s, %s: the refusal is not the lab's Russian page\n%s", p.target, a.name, webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, p.target, r.Body)
		}
	}
	if hub.Rooms() != rooms {
		t.Errorf("cross-site posts opened rooms: %d, want %d", hub.Rooms(), rooms)
	}
	if after := votes(t, hub, code); after.Votes != before.Votes || after.ID != before.ID || after.Handler != "naive" {
		t.Errorf("cross-site posts changed the poll: %+v, was %+v", after, before)
	}
	if st, _ := hub.State(code, true); st.Step != stBefore.Step {
		t.Errorf("cross-site posts moved the room to step %d", st.Step)
	}
	log := logs.String()
	if !strings.Contains(log, `level=WARN msg="cross-origin request refused"`) || !strings.Contains(log, "origin=http://evil.example") {
		t.Errorf("the refusals are not logged as warnings:\n%s", log)
	}
	if strings.Contains(log, "level=ERROR") {
		t.Errorf("a refused cross-site post is logged as an error:\n%s", log)
	}
}

// TestSameOriginPostsPass: forms posted from the lab's own pages, with or
// without htmx, and requests without browser headers (curl) still work.
func TestSameOriginPostsPass(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, instructor, poll := openPoll(t, h, hub)
	student := webtest.IssuedStudent(t, h, code)
	browsers := []struct {
		name    string
		headers []string
	}{
		{"curl: no Origin, no Sec-Fetch-Site", nil},
		{"a plain form (no JavaScript)", []string{"Origin", "http://example.com", "Sec-Fetch-Site", "same-origin"}},
		{"htmx", []string{"Origin", "http://example.com", "Sec-Fetch-Site", "same-origin", "HX-Request", "true"}},
		{"an older browser: Origin only", []string{"Origin", "http://example.com"}},
		{"typed or bookmarked (Sec-Fetch-Site: none)", []string{"Sec-Fetch-Site", "none"}},
	}
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			with := func(cookie string) []string { return append([]string{"Cookie", cookie}, b.headers...) }
			for _, p := range []struct {
				target, cookie string
				form           url.Values
			}{
				{"/lab/step", "", url.Values{"preset": {"crash-before-ack"}, "verb": {"advance"}, "duration": {"1h"}}},
				{"/lab/undo", "", url.Values{"preset": {"crash-before-ack"}, "step": {"4"}}},
				{"/lab/script", "", url.Values{"script": {"publish a amount=100\ndeliver\n"}}},
				{"/rooms", "", webtest.CrashBeforeAck()},
				{"/rooms/" + code + "/step", instructor, url.Values{"step": {"3"}}},
				{"/rooms/" + code + "/vote", student, url.Values{"poll": {poll}, "balance": {"200"}}},
			} {
				r := webtest.Request(t, h, http.MethodPost, p.target, p.form, with(p.cookie)...)
				if r.Status != http.StatusSeeOther {
					t.Errorf("POST %s: status %d, want 303\n%s", p.target, r.Status, webtest.Excerpt(r.Body))
				}
			}
		})
	}
	if p := votes(t, hub, code); p.Votes != 1 {
		t.Errorf("one student voting five times: %d votes, want 1", p.Votes)
	}
}

// TestThrottle: a bucket per address, refilled at its rate, on a clock
// the test moves.
func TestThrottle(t *testing.T) {
	clock := webtest.NewClock()
	th := web.NewThrottle("test", 60, 3, 100, clock.Now) // one a second, three at once
	for i := range 3 {
		if ok, _ := th.Allow("a"); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	ok, wait := th.Allow("a")
	if ok || wait <= 0 || wait > time.Second {
		t.Fatalf("past the burst: ok=%v wait=%v, want refused, under a second", ok, wait)
	}
	if ok, _ := th.Allow("b"); !ok {
		t.Error("another address is refused")
	}
	clock.Advance(time.Second)
	if ok, _ := th.Allow("a"); !ok {
		t.Error("a second later one more is allowed")
	}
	if ok, _ := th.Allow("a"); ok {
		t.Error("but only one")
	}
	// Once full again (3 s), an address is forgotten: the map shrinks.
	clock.Advance(3 * time.Second)
	th.Allow("c")
	if n := th.Size(); n != 1 {
		t.Errorf("after every bucket refilled the throttle remembers %d addresses, want 1 (c)", n)
	}
}

// TestThrottleBoundedMap: however many addresses come, the throttle
// remembers at most its capacity; the rest share one bucket.
func TestThrottleBoundedMap(t *testing.T) {
	clock := webtest.NewClock()
	th := web.NewThrottle("test", 60, 2, 10, clock.Now)
	allowed := 0
	for i := range 1000 {
		if ok, _ := th.Allow("10.0." + strconv.Itoa(i/250) + "." + strconv.Itoa(i%250)); ok {
			allowed++
		}
	}
	if n := th.Size(); n != 10 {
		t.Errorf("the throttle remembers %d addresses, want its capacity 10", n)
	}
	// Ten addresses with their own burst of 2, then the overflow's 2.
	if allowed != 10+2 {
		t.Errorf("%d of 1000 new addresses allowed, want 12", allowed)
	}
	// When the remembered ones go idle, new addresses get their own again.
	clock.Advance(3 * time.Second)
	if ok, _ := th.Allow("192.0.2.9"); !ok {
		t.Error("a new address after the others went idle is refused")
	}
	if n := th.Size(); n != 1 {
		t.Errorf("after a sweep the throttle remembers %d, want 1", n)
	}
}

func TestClientKey(t *testing.T) {
	for _, tc := range []struct{ remote, want string }{
		{"192.0.2.1:1234", "192.0.2.1"},
		{"192.0.2.1:9999", "192.0.2.1"}, // the port is not part of it
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "2001:db8:1:2::/64"}, // same /64
		{"[::ffff:192.0.2.1]:80", "192.0.2.1"},
		{"192.0.2.1", "192.0.2.1"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/rooms", nil)
		r.RemoteAddr = tc.remote
		r.Header.Set("X-Forwarded-For", "203.0.113.7") // not trusted
		if got := web.ClientKey(r); got != tc.want {
			t.Errorf("clientKey(%q) = %q, want %q", tc.remote, got, tc.want)
		}
	}
}

// TestOpeningRoomsAndImportsAreThrottled: a script posting again and
// again from one address gets 429 with Retry-After and a page that says
// to wait, in the reader's language; other addresses go on; time heals.
func TestOpeningRoomsAndImportsAreThrottled(t *testing.T) {
	clock := webtest.NewClock()
	h, err := web.NewServer(web.Config{Rooms: room.NewHub(room.Config{MaxRooms: 1000}), Heartbeat: -1, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target      string
		form        url.Values
		status      int // below the limit: a room opens; practice has no database here
		burst, secs int
	}{
		{"/rooms", webtest.CrashBeforeAck(), http.StatusSeeOther, web.RoomsBurst, 60 / web.RoomsPerMinute},
		{"/practice/import", url.Values{"file": {"{}"}}, http.StatusServiceUnavailable, web.ImportsBurst, 60 / web.ImportsPerMinute},
	} {
		t.Run(tc.target, func(t *testing.T) {
			for i := range tc.burst {
				if r := webtest.From(t, h, "198.51.100.7:5000", tc.target, tc.form); r.Status != tc.status {
					t.Fatalf("request %d: status %d, want %d\n%s", i+1, r.Status, tc.status, webtest.Excerpt(r.Body))
				}
			}
			r := webtest.From(t, h, "198.51.100.7:5001", tc.target, tc.form, "Accept-Language", "ru")
			if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != strconv.Itoa(tc.secs) {
				t.Fatalf("past the burst: status %d, Retry-After %q; want 429, %d", r.Status, r.Header.Get("Retry-After"), tc.secs)
			}
			if body := html.UnescapeString(r.Body); !strings.Contains(body, "Подождите "+strconv.Itoa(tc.secs)+" с") {
				t.Errorf("the 429 page does not say to wait, in Russian\n%s", webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, tc.target, r.Body)
			if r := webtest.From(t, h, "198.51.100.8:5000", tc.target, tc.form); r.Status != tc.status {
				t.Errorf("another address: status %d, want %d", r.Status, tc.status)
			}
			clock.Advance(time.Duration(tc.secs) * time.Second)
			if r := webtest.From(t, h, "198.51.100.7:5000", tc.target, tc.form); r.Status != tc.status {
				t.Errorf("after Retry-After: status %d, want %d", r.Status, tc.status)
			}
		})
	}
}

// TestAClassroomBehindOneAddressVotes: 300 students behind one NAT
// address all answer the same poll within a second; a script from that
// address hammering the vote is then held back.
func TestAClassroomBehindOneAddressVotes(t *testing.T) {
	clock := webtest.NewClock()
	hub := room.NewHub(room.Config{})
	h, err := web.NewServer(web.Config{Rooms: hub, Heartbeat: -1, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	code, _, poll := openPoll(t, h, hub)
	students := make([]string, web.VotesBurst)
	for i := range students {
		students[i] = webtest.IssuedStudent(t, h, code)
	}
	for i, s := range students {
		r := webtest.From(t, h, "203.0.113.9:4000", "/rooms/"+code+"/vote", url.Values{"poll": {poll}, "balance": {strconv.Itoa(100 + i%3*100)}}, "Cookie", s)
		if r.Status != http.StatusSeeOther {
			t.Fatalf("student %d: status %d\n%s", i+1, r.Status, webtest.Excerpt(r.Body))
		}
	}
	if p := votes(t, hub, code); p.Votes != web.VotesBurst {
		t.Fatalf("%d students voted, the poll counts %d", web.VotesBurst, p.Votes)
	}
	r := webtest.From(t, h, "203.0.113.9:4000", "/rooms/"+code+"/vote", url.Values{"poll": {poll}, "balance": {"1"}}, "Cookie", students[0])
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "1" {
		t.Errorf("past a full room's burst: status %d, Retry-After %q; want 429, 1", r.Status, r.Header.Get("Retry-After"))
	}
	// A minute later the room can answer again in full.
	clock.Advance(time.Minute)
	for i, s := range students {
		if r := webtest.From(t, h, "203.0.113.9:4000", "/rooms/"+code+"/vote", url.Values{"poll": {poll}, "balance": {"400"}}, "Cookie", s); r.Status != http.StatusSeeOther {
			t.Fatalf("a minute later, student %d: status %d", i+1, r.Status)
		}
	}
	if p := votes(t, hub, code); p.Votes != web.VotesBurst || len(p.Counts) != 1 {
		t.Errorf("everyone changed their mind: %+v", p)
	}
}

// errorMessage is the text of an error page's message, unescaped.
func errorMessage(body string) string {
	for _, class := range []string{`class="error-msg">`, `class="join-problem" role="alert" id="join-problem">`} {
		if i := strings.Index(body, class); i >= 0 {
			rest := body[i+len(class):]
			return html.UnescapeString(rest[:strings.Index(rest, "</p>")])
		}
	}
	return ""
}

// TestLongInputIsQuotedOnce: an error page quotes at most an excerpt of
// the bad value, once, however long it is.
func TestLongInputIsQuotedOnce(t *testing.T) {
	h, _ := webtest.NewRoomServer(t, room.Config{})
	code, instructor := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	long := strings.Repeat("z", 200_000)
	tests := []struct {
		name, method, target string
		form                 url.Values
		cookie               string
		status               int
		quoted               string // the value the message quotes an excerpt of
		before, after        string // the message around the excerpt
	}{
		{"a room code", "GET", "/join?code=" + long, nil, "", 400, long, `"`, `" is not a room code`},
		{"a room code in the path", "GET", "/join/" + long, nil, "", 404, "/join/" + long, "Nothing lives at ", "."},
		{"an unknown path", "GET", "/" + long, nil, "", 404, "/" + long, "Nothing lives at ", "."},
		{"an unknown path under 1 KiB", "GET", "/" + long[:1000], nil, "", 404, "/" + long, "Nothing lives at ", "."},
		{"a preset", "GET", "/lab?preset=" + long, nil, "", 400, long, `There is no scenario "`, `". Valid scenarios: happy-path, crash-before-ack,`},
		{"a preset to present", "GET", "/present/" + long, nil, "", 404, "/present/" + long, "Nothing lives at ", "."},
		{"a handler", "GET", "/lab?preset=crash-before-ack&handlers=naive," + long, nil, "", 400, long, `There is no handler "`, `". Valid handlers: naive, unique,`},
		{"a step", "GET", "/lab?preset=crash-before-ack&step=" + long, nil, "", 400, long, "step=", " is not a step"},
		{"a verb", "POST", "/lab/step", url.Values{"preset": {"crash-before-ack"}, "verb": {long}}, "", 400, long, `There is no step "`, `". Valid steps: publish,`},
		{"a method", long[:5000], "/lab", nil, "", 405, long, "", " is not allowed here."},
		{"a room", "GET", "/rooms/" + long, nil, "", 404, "/rooms/" + long, "Nothing lives at ", "."},
		{"a panel", "GET", "/present/crash-before-ack?show=" + long, nil, "", 400, long, "show=", " is not a panel"},
		{"a room step", "POST", "/rooms/" + code + "/step", url.Values{"step": {long}}, instructor, 400, long, "step=", " is not a step"},
		{"a balance", "POST", "/rooms/" + code + "/vote", url.Values{"poll": {"1"}, "balance": {long}}, "", 400, long, `"`, `" is not an amount`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Request(t, h, tc.method, tc.target, tc.form, "Cookie", tc.cookie)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d\n%s", r.Status, tc.status, webtest.Excerpt(r.Body))
			}
			if len(r.Body) > 20<<10 {
				t.Errorf("the page is %d bytes, want under 20 KiB", len(r.Body))
			}
			want := page.InputExcerpt(tc.quoted)
			zs := strings.Repeat("z", strings.Count(want, "z"))
			if n := strings.Count(r.Body, zs); n != 1 {
				t.Errorf("the page quotes the excerpt %d times, want once", n)
			}
			if strings.Contains(r.Body, zs+"z") {
				t.Error("the page quotes more than the excerpt")
			}
			if msg := errorMessage(r.Body); !strings.Contains(msg, tc.before+want+tc.after) {
				t.Errorf("the message %q lacks %q", msg, tc.before+want+tc.after)
			}
			webtest.NoMissingKeys(t, tc.name, r.Body)
		})
	}

	// A script that does not parse: the message quotes an excerpt of the
	// bad word; the editor offers the whole script back, to fix.
	script := "publish a amount=100\n" + strings.Repeat("q", 50_000) + "\n"
	r := webtest.Request(t, h, http.MethodPost, "/lab/script", url.Values{"script": {script}})
	if r.Status != http.StatusBadRequest {
		t.Fatalf("a bad script: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	msg := errorMessage(r.Body)
	if !strings.Contains(msg, `line 2: unknown verb "`+strings.Repeat("q", page.MaxQuoteRunes)+`…"; valid verbs: publish,`) || len(msg) > 1000 {
		t.Errorf("the parse error quotes too much or too little: %q", excerptOf(msg))
	}
	if !strings.Contains(r.Body, strings.Repeat("q", 50_000)) {
		t.Error("the editor does not offer the whole script back")
	}
}

func TestBoundText(t *testing.T) {
	long := strings.Repeat("z", 5000)
	short := strings.Repeat("z", page.MaxQuoteRunes) + "…"
	for _, tc := range []struct{ in, want string }{
		{`unknown verb "fly"; valid verbs: publish, retry`, `unknown verb "fly"; valid verbs: publish, retry`},
		{`line 2: unknown verb "` + long + `"; valid verbs: publish, retry`, `line 2: unknown verb "` + short + `"; valid verbs: publish, retry`},
		{`found "` + strings.Repeat("a ", 3000) + `" here`, `found "` + string([]rune(strings.Repeat("a ", 3000))[:page.MaxQuoteRunes]) + `…" here`},
		{`quoted "with \"escaped` + long + `\" quotes" after`, `quoted "with \"escaped` + long[:page.MaxQuoteRunes-len(`with \"escaped`)] + `…" after`},
		{`unterminated "` + long, `unterminated "` + short},
		{`word ` + long + ` then more`, `word ` + short + ` then more`},
		{`key=` + long + `: unknown`, `key=` + long[:page.MaxQuoteRunes-4] + `… unknown`},
	} {
		if got := page.BoundText(tc.in); got != tc.want {
			t.Errorf("boundText(%q)\n = %q\nwant %q", excerptOf(tc.in), excerptOf(got), excerptOf(tc.want))
		}
	}
	// Many short words are cut at page.MaxTextRunes.
	if got := page.BoundText(strings.Repeat("a ", 100_000)); len([]rune(got)) != page.MaxTextRunes+1 {
		t.Errorf("200,000 runes of short words: %d runes, want %d", len([]rune(got)), page.MaxTextRunes+1)
	}
	// A hostile text is read once: this finishes at once.
	page.BoundText(strings.Repeat(`"\"`, 300_000))

	// The lab's own lists stay whole; the reader's value does not.
	list := strings.Repeat("crash-before-ack, ", 25)
	args := page.BoundArgs([]any{long, list, 7, page.Bilingual{EN: `unknown "` + long + `"`, RU: `неизвестное "` + long + `"`}})
	if args[0] != short || args[1] != list || args[2] != 7 || args[3] != (page.Bilingual{EN: `unknown "` + short + `"`, RU: `неизвестное "` + short + `"`}) {
		t.Errorf("boundArgs: %v", args)
	}
	if got := page.InputExcerpt(strings.Repeat("я", 150)); got != strings.Repeat("я", page.MaxQuoteRunes)+"…" {
		t.Errorf("inputExcerpt counts runes, not bytes: %q", got)
	}
}

// TestLongInputIsQuotedOnceInPractice: the practice pages' own error page
// quotes an excerpt too.
func TestLongInputIsQuotedOnceInPractice(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	long := strings.Repeat("z", 200_000)
	for _, tc := range []struct {
		name, target  string
		status        int
		before, after string
	}{
		{"a topic", "/practice?topic=" + long, 404, `There is no practice topic "`, `". Topics: `},
		{"a run number", "/practice/interview?seed=" + long, 400, `seed="`, `" is not a run number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Get(t, h, tc.target)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d\n%s", r.Status, tc.status, webtest.Excerpt(r.Body))
			}
			if len(r.Body) > 20<<10 {
				t.Errorf("the page is %d bytes, want under 20 KiB", len(r.Body))
			}
			zs := strings.Repeat("z", page.MaxQuoteRunes)
			if n := strings.Count(r.Body, zs); n != 1 || strings.Contains(r.Body, zs+"z") {
				t.Errorf("the page quotes the excerpt %d times (or more of it), want once", n)
			}
			if msg, want := errorMessage(r.Body), tc.before+zs+"…"+tc.after; !strings.Contains(msg, want) {
				t.Errorf("the message %q lacks %q", msg, want)
			}
		})
	}
}
