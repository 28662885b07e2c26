package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/classroom/room"
)

// newRoomServer is the real server over a hub the test holds.
func newRoomServer(tb testing.TB, rc room.Config) (http.Handler, *room.Hub) {
	tb.Helper()
	hub := room.NewHub(rc)
	h, err := NewServer(Config{Rooms: hub, Heartbeat: -1})
	if err != nil {
		tb.Fatal(err)
	}
	return h, hub
}

// openRoom posts the presenter's "Open a room" form and returns the room's
// code and the instructor's cookie, as "lab_room=SECRET".
func openRoom(tb testing.TB, h http.Handler, form url.Values) (code, cookie string) {
	tb.Helper()
	r := post(tb, h, "/rooms", form)
	if r.status != http.StatusSeeOther {
		tb.Fatalf("POST /rooms: status %d, want 303\n%s", r.status, excerpt(r.body))
	}
	loc := r.header.Get("Location")
	code, ok := strings.CutSuffix(strings.TrimPrefix(loc, "/rooms/"), "/present")
	if !ok || len(code) != 6 {
		tb.Fatalf("POST /rooms: Location %q, want /rooms/CODE/present", loc)
	}
	c, err := http.ParseSetCookie(r.header.Get("Set-Cookie"))
	if err != nil {
		tb.Fatalf("POST /rooms: Set-Cookie %q: %v", r.header.Get("Set-Cookie"), err)
	}
	if c.Name != classroom.SecretCookie || c.Path != "/rooms/"+code || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
		tb.Errorf("instructor cookie %+v: want %s, HttpOnly, SameSite=Lax, Path=/rooms/%s", c, classroom.SecretCookie, code)
	}
	return code, c.Name + "=" + c.Value
}

// getAt is a GET as a browser sends it to host, with a cookie.
func getAt(tb testing.TB, h http.Handler, host, target, cookie string) response {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = host
	req.Header.Set("Cookie", cookie)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

func crashBeforeAck() url.Values {
	return url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"0"}}
}

// TestRoomLifecycle: open a room, present it, join it, step it, and check
// that only the instructor can move it.
func TestRoomLifecycle(t *testing.T) {
	h, hub := newRoomServer(t, room.Config{})
	code, cookie := openRoom(t, h, crashBeforeAck())

	// The instructor's page: the code in big letters, the QR code, the
	// presenter view at step 0 and the controls that post the step.
	r := getAt(t, h, "class.example:8080", "/rooms/"+code+"/present", cookie)
	if r.status != http.StatusOK {
		t.Fatalf("instructor page: status %d\n%s", r.status, excerpt(r.body))
	}
	for _, want := range []string{
		`id="room-code" data-code="` + code + `">` + code[:3] + "\u00a0" + code[3:] + "<",
		`<svg xmlns="http://www.w3.org/2000/svg"`, "class.example:8080/join",
		`data-role="instructor"`, `data-keys="on"`, `data-events="/rooms/` + code + `/events"`, `data-version="1"`,
		`action="/rooms/` + code + `/step"`, `name="step" value="1" class="btn nav primary" id="p-next"`,
		`action="/rooms/` + code + `/poll"`, `data-step="0" data-total="4"`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("instructor page lacks %q", want)
		}
	}
	if strings.Contains(r.body, "works only on this computer") {
		t.Error("a network address is not local: no warning")
	}
	if r := getAt(t, h, "127.0.0.1:8080", "/rooms/"+code+"/present", cookie); !strings.Contains(r.body, "works only on this computer") {
		t.Error("the page should warn that 127.0.0.1 is this machine only")
	}

	// A student types the code as they like: the room's page offers the
	// join button, and issues nothing on a GET.
	r = get(t, h, "/join?code="+url.QueryEscape(strings.ToLower(code[:3])+"-"+code[3:]))
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/rooms/"+code {
		t.Fatalf("join: %d to %q, want 303 to /rooms/%s", r.status, r.header.Get("Location"), code)
	}
	r = get(t, h, "/rooms/"+code)
	if r.status != http.StatusOK || studentCookie(r) != nil {
		t.Fatalf("room page without an identity: status %d, Set-Cookie %q\n%s", r.status, r.header.Values("Set-Cookie"), excerpt(r.body))
	}
	for _, want := range []string{`id="join-room" data-code="` + code + `"`, `<form method="post" action="/join"`, `name="code" value="` + code + `"`, `id="join-go"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the room page without an identity lacks %q", want)
		}
	}
	// The join posts the code as typed, issues the identity and goes to
	// the room, where the student sees step 0.
	r = post(t, h, "/join", url.Values{"code": {strings.ToLower(code[:3]) + " " + code[3:]}})
	c := studentCookie(r)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/rooms/"+code || c == nil || c.Path != "/rooms/"+code || !c.HttpOnly {
		t.Fatalf("POST /join: %d to %q, student cookie %q", r.status, r.header.Get("Location"), r.header.Values("Set-Cookie"))
	}
	me := c.Name + "=" + c.Value
	r = get(t, h, "/rooms/"+code, "Cookie", me)
	if r.status != http.StatusOK {
		t.Fatalf("student page: status %d\n%s", r.status, excerpt(r.body))
	}
	for _, want := range []string{`data-role="student"`, `data-step="0" data-total="4"`, `data-events="/rooms/` + code + `/events"`,
		`id="p-explore" href="/lab?preset=crash-before-ack&amp;handlers=naive,inbox" target="_blank"`, "No question right now"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("student page lacks %q", want)
		}
	}
	for _, unwanted := range []string{`data-keys`, `id="p-next"`, `/step"`, "<svg xmlns"} {
		if strings.Contains(r.body, unwanted) {
			t.Errorf("student page has %q", unwanted)
		}
	}

	// The instructor steps; the student's page follows.
	for step := 1; step <= 4; step++ {
		r := request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {strconv.Itoa(step)}}, "Cookie", cookie)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/rooms/"+code+"/present" {
			t.Fatalf("step %d: %d to %q", step, r.status, r.header.Get("Location"))
		}
	}
	r = get(t, h, "/rooms/"+code, "Cookie", me)
	if got := cards(r.body); got["naive"] != "duplicate" || got["inbox"] != "ok" || !strings.Contains(r.body, `data-step="4"`) {
		t.Errorf("student page after four steps: %v", got)
	}
	if st, _ := hub.State(code, false); st.Step != 4 || st.Version != 6 || st.Joined != 1 {
		t.Errorf("room state %+v: want step 4, version 6 (a join and four steps), one joined", st)
	}

	// The panels and the handlers: shown with the room, kept on a step.
	r = request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"4"}, "handlers": {"naive"}, "show": {"source"}}, "Cookie", cookie)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/rooms/"+code+"/present?show=source" {
		t.Fatalf("handlers: %d to %q", r.status, r.header.Get("Location"))
	}
	r = get(t, h, "/rooms/"+code+"?show=source", "Cookie", me)
	if got := cards(r.body); len(got) != 1 || got["naive"] != "duplicate" || !strings.Contains(r.body, "p-source-panel") {
		t.Errorf("student page with one handler and the source: %v", got)
	}

	// Restart goes back to the start.
	request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"0"}}, "Cookie", cookie)
	if st, _ := hub.State(code, false); st.Step != 0 || len(st.Handlers) != 1 {
		t.Errorf("after a restart: %+v", st)
	}
}

// TestRoomForbidden: a student (no cookie, or a guessed one) cannot move
// the room, open a poll or see the instructor's page.
func TestRoomForbidden(t *testing.T) {
	h, hub := newRoomServer(t, room.Config{})
	code, _ := openRoom(t, h, crashBeforeAck())
	_, otherCookie := openRoom(t, h, crashBeforeAck())
	for _, cookie := range []string{"", classroom.SecretCookie + "=guess", classroom.SecretCookie + "=" + strings.Repeat("0", 32), otherCookie} {
		for _, tc := range []struct{ method, target string }{
			{http.MethodGet, "/rooms/" + code + "/present"},
			{http.MethodPost, "/rooms/" + code + "/step"},
			{http.MethodPost, "/rooms/" + code + "/poll"},
		} {
			var form url.Values
			if tc.method == http.MethodPost {
				form = url.Values{"step": {"1"}, "handler": {"naive"}}
			}
			r := request(t, h, tc.method, tc.target, form, "Cookie", cookie)
			if r.status != http.StatusForbidden {
				t.Errorf("%s %s with %q: status %d, want 403", tc.method, tc.target, cookie, r.status)
				continue
			}
			for _, want := range []string{"Only the instructor can move this room", `href="/rooms/` + code + `"`, "Back to room"} {
				if !strings.Contains(r.body, want) {
					t.Errorf("%s %s: 403 page lacks %q", tc.method, tc.target, want)
				}
			}
		}
	}
	if st, _ := hub.State(code, true); st.Step != 0 || st.Poll != nil || st.Version != 1 {
		t.Errorf("the room moved: %+v", st)
	}
}

// TestRoomErrors: every way a room address can fail gets its page and
// status.
func TestRoomErrors(t *testing.T) {
	h, _ := newRoomServer(t, room.Config{})
	code, cookie := openRoom(t, h, crashBeforeAck())
	base := "/rooms/" + code
	student := issuedStudent(t, h, code) // the identity the student page issues
	tests := []struct {
		name   string
		method string
		target string
		form   url.Values
		cookie string
		status int
		want   string
	}{
		{"unknown room", "GET", "/rooms/ZZZZZZ", nil, "", 404, "This room has closed"},
		{"unknown room, instructor", "GET", "/rooms/ZZZZZZ/present", nil, cookie, 404, "This room has closed"},
		{"unknown room, events", "GET", "/rooms/ZZZZZZ/events", nil, "", 404, "This room has closed"},
		{"unknown room, step", "POST", "/rooms/ZZZZZZ/step", url.Values{"step": {"1"}}, cookie, 404, "This room has closed"},
		{"unknown room, poll", "POST", "/rooms/ZZZZZZ/poll", url.Values{"handler": {"naive"}}, cookie, 404, "This room has closed"},
		{"unknown room, vote", "POST", "/rooms/ZZZZZZ/vote", url.Values{"poll": {"1"}, "balance": {"1"}}, "", 404, "This room has closed"},
		{"a code that is no code", "GET", "/rooms/%3Cb%3E", nil, "", 404, "Room &lt;B&gt; is not open"},
		{"step past the end", "POST", base + "/step", url.Values{"step": {"5"}}, cookie, 400, "step=5 is not a step of this script"},
		{"step not a number", "POST", base + "/step", url.Values{"step": {"next"}}, cookie, 400, "step=next"},
		{"no step", "POST", base + "/step", url.Values{}, cookie, 400, "give a whole number from 0 to 4"},
		{"a handler that does not exist", "POST", base + "/step", url.Values{"step": {"1"}, "handlers": {"naive,nope"}}, cookie, 400, "There is no handler &#34;nope&#34;"},
		{"no handlers", "POST", base + "/step", url.Values{"step": {"1"}, "handlers": {""}}, cookie, 400, "at least one handler"},
		{"a bad panel", "POST", base + "/step", url.Values{"step": {"1"}, "show": {"slides"}}, cookie, 400, "show=slides"},
		{"a bad panel, page", "GET", base + "?show=slides", nil, "", 400, "show=slides"},
		{"a poll about a handler not shown", "POST", base + "/poll", url.Values{"handler": {"unique"}}, cookie, 400, "There is no handler &#34;unique&#34; in this room"},
		{"vote without a poll", "POST", base + "/vote", url.Values{"poll": {"1"}, "balance": {"200"}}, student, 409, "There is no question open"},
		{"vote without having opened the room", "POST", base + "/vote", url.Values{"poll": {"1"}, "balance": {"200"}}, "", 403, "Only students who joined the room"},
		{"the instructor votes", "POST", base + "/vote", url.Values{"poll": {"1"}, "balance": {"200"}}, cookie + "; " + student, 403, "does not vote"},
		{"vote with a made-up identity", "POST", base + "/vote", url.Values{"poll": {"1"}, "balance": {"200"}}, classroom.StudentCookie + "=s1", 403, "Only students who joined the room"},
		{"vote for no poll id", "POST", base + "/vote", url.Values{"balance": {"200"}}, "", 400, "poll= is not a poll of this room"},
		{"vote with letters", "POST", base + "/vote", url.Values{"poll": {"1"}, "balance": {"lots"}}, "", 400, "&#34;lots&#34; is not an amount"},
		{"a room without a script", "POST", "/rooms", url.Values{}, "", 400, "A room needs a scenario"},
		{"a room on a bad permalink", "POST", "/rooms", url.Values{"s": {"1!!"}}, "", 400, "not base64url"},
		{"a room on an unknown preset", "POST", "/rooms", url.Values{"preset": {"nope"}}, "", 400, "There is no scenario"},
		{"a room at a step past the end", "POST", "/rooms", url.Values{"preset": {"crash-before-ack"}, "step": {"9"}}, "", 400, "step=9"},
		{"DELETE /rooms", "DELETE", "/rooms", nil, "", 405, "DELETE is not allowed here"}, // GET /rooms: 303 to /present (classroom/rooms_index.go)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := request(t, h, tc.method, tc.target, tc.form, "Cookie", tc.cookie)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d\n%s", r.status, tc.status, excerpt(r.body))
			}
			if !strings.Contains(r.body, tc.want) {
				t.Errorf("page lacks %q\n%s", tc.want, excerpt(r.body))
			}
			noMissingKeys(t, tc.target, r.body)
		})
	}
}

// TestRoomLimits: too many rooms and a full room each say so with a 503.
func TestRoomLimits(t *testing.T) {
	h, hub := newRoomServer(t, room.Config{MaxRooms: 1, MaxStudents: 1})
	code, _ := openRoom(t, h, crashBeforeAck())
	r := post(t, h, "/rooms", crashBeforeAck())
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "No more rooms can open now") || !strings.Contains(r.body, "--max-rooms") {
		t.Errorf("a second room: status %d\n%s", r.status, excerpt(r.body))
	}
	if r.header.Get("Retry-After") == "" {
		t.Error("a 503 should say when to retry")
	}
	sub, err := hub.Subscribe(code) // the one student the room holds
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	for _, target := range []string{"/rooms/" + code, "/rooms/" + code + "/events"} {
		r := get(t, h, target)
		if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "This room is full") || !strings.Contains(r.body, "--max-students") {
			t.Errorf("GET %s in a full room: status %d\n%s", target, r.status, excerpt(r.body))
		}
	}
	sub.Close()
	if r := get(t, h, "/rooms/"+code); r.status != http.StatusOK {
		t.Errorf("a place came free: status %d", r.status)
	}
}

// TestRoomExpiry: a room left alone for its idle time closes; its pages
// say so and its event streams end with a closing event.
func TestRoomExpiry(t *testing.T) {
	clock := newTestClock()
	h, hub := newRoomServer(t, room.Config{IdleTTL: time.Hour, Now: clock.Now})
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, cookie := openRoom(t, h, crashBeforeAck())
	stream := openStream(t, ts.URL, code, "")
	defer stream.close()
	if ev := stream.next(t); ev.state.Step != 0 {
		t.Fatalf("first event %+v", ev)
	}

	clock.advance(59 * time.Minute)
	if r := request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"1"}}, "Cookie", cookie); r.status != http.StatusSeeOther {
		t.Fatalf("a room used within its idle time lives: status %d", r.status)
	}
	if ev := stream.next(t); ev.state.Step != 1 {
		t.Fatalf("event %+v, want step 1", ev)
	}
	clock.advance(61 * time.Minute)
	for _, target := range []string{"/rooms/" + code, "/rooms/" + code + "/present", "/join?code=" + code} {
		r := get(t, h, target, "Cookie", cookie)
		if r.status != http.StatusNotFound {
			t.Errorf("GET %s after the idle time: status %d, want 404", target, r.status)
		}
	}
	if r := get(t, h, "/rooms/"+code); !strings.Contains(r.body, "This room has closed") {
		t.Errorf("closed room page:\n%s", excerpt(r.body))
	}
	if n := hub.Sweep(); n != 1 {
		t.Fatalf("Sweep closed %d rooms, want 1", n)
	}
	if ev := stream.next(t); ev.event != "closed" {
		t.Fatalf("after the sweep: %+v, want event: closed", ev)
	}
	if ev, err := stream.read(); !errors.Is(err, io.EOF) {
		t.Fatalf("the stream should end after closed, got %+v, %v", ev, err)
	}
}

// TestPoll: the instructor asks, students answer, the instructor sees the
// distribution, stepping reveals it with the actual balance marked.
func TestPoll(t *testing.T) {
	h, hub := newRoomServer(t, room.Config{})
	code, cookie := openRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "step": {"3"}})
	base := "/rooms/" + code

	r := request(t, h, http.MethodPost, base+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != base+"/present" {
		t.Fatalf("open poll: %d to %q", r.status, r.header.Get("Location"))
	}
	st, _ := hub.State(code, true)
	if st.Poll == nil || st.Poll.Handler != "naive" || st.Poll.Step != 4 {
		t.Fatalf("poll %+v: want naive, step 4", st.Poll)
	}
	id := strconv.Itoa(st.Poll.ID)

	student := get(t, h, base, "Cookie", issuedStudent(t, h, code))
	for _, want := range []string{"What will naive&#39;s balance be after step 4?", `id="vote-balance"`, `name="poll" value="` + id + `"`} {
		if !strings.Contains(student.body, want) {
			t.Errorf("student page lacks %q", want)
		}
	}
	// Three students answer; one changes their mind.
	votes := []struct{ student, balance string }{{"a", "200"}, {"b", "100.00"}, {"c", "200,00"}, {"b", "1 0 0"}}
	var lastA string
	identity := map[string]string{} // each student's issued cookie
	for _, v := range votes {
		if identity[v.student] == "" {
			identity[v.student] = issuedStudent(t, h, code)
		}
		r := request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {id}, "balance": {v.balance}}, "Cookie", identity[v.student])
		if r.status != http.StatusSeeOther || r.header.Get("Location") != base {
			t.Fatalf("vote %v: %d to %q\n%s", v, r.status, r.header.Get("Location"), excerpt(r.body))
		}
		if v.student == "a" {
			lastA = r.header.Get("Set-Cookie")
		}
	}
	voteCk, err := http.ParseSetCookie(lastA)
	if err != nil || voteCk.Name != classroom.VoteCookie || voteCk.Value != id+":20000" || voteCk.Path != base {
		t.Fatalf("vote cookie %q (%v)", lastA, err)
	}
	mine := identity["a"] + "; " + classroom.VoteCookie + "=" + voteCk.Value

	teacher := get(t, h, base+"/present", "Cookie", cookie)
	for _, want := range []string{`id="poll-votes" data-votes="3"`, `<span class="poll-label">100.00</span>`, `<span class="poll-label">200.00</span>`,
		`id="reveal-poll"`, "Reveal: go to step 4"} {
		if !strings.Contains(teacher.body, want) {
			t.Errorf("instructor page lacks %q", want)
		}
	}
	if strings.Contains(teacher.body, `id="poll-actual"`) {
		t.Error("the actual balance shows before the reveal")
	}
	if s := get(t, h, base, "Cookie", mine); strings.Contains(s.body, "poll-label") || !strings.Contains(s.body, "Your answer: 200.00") {
		t.Errorf("before the reveal a student sees their answer and not the distribution:\n%s", excerpt(s.body))
	}

	// Stepping onto the predicted step reveals it.
	request(t, h, http.MethodPost, base+"/step", url.Values{"step": {"4"}}, "Cookie", cookie)
	s := get(t, h, base, "Cookie", mine)
	for _, want := range []string{`id="poll-actual"`, "naive&#39;s balance after this step: 200.00", `class="poll-row actual mine"`, "You said 200.00: right!"} {
		if !strings.Contains(s.body, want) {
			t.Errorf("student page after the reveal lacks %q", want)
		}
	}
	if strings.Contains(s.body, `id="vote-balance"`) {
		t.Error("the vote form stays after the reveal")
	}
	wrong := get(t, h, base, "Cookie", identity["b"]+"; "+classroom.VoteCookie+"="+id+":10000")
	if !strings.Contains(wrong.body, "You said 100.00; it was 200.00.") {
		t.Error("a wrong answer is not told so")
	}
	if r := request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {id}, "balance": {"300"}}, "Cookie", issuedStudent(t, h, code)); r.status != http.StatusConflict {
		t.Errorf("a vote after the reveal: status %d, want 409", r.status)
	}
	// At the last step there is nothing left to ask about.
	if r := request(t, h, http.MethodPost, base+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie); r.status != http.StatusBadRequest ||
		!strings.Contains(r.body, "no next step to predict") {
		t.Errorf("a poll at the last step: status %d", r.status)
	}
	if strings.Contains(get(t, h, base+"/present", "Cookie", cookie).body, `id="open-poll"`) {
		t.Error("the last step offers to ask about a next step")
	}
}

// TestPollWithNobodyRight marks the actual balance even when no one chose it.
func TestPollWithNobodyRight(t *testing.T) {
	h, hub := newRoomServer(t, room.Config{})
	code, cookie := openRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "step": {"3"}})
	base := "/rooms/" + code
	request(t, h, http.MethodPost, base+"/poll", url.Values{"handler": {"inbox"}}, "Cookie", cookie)
	st, _ := hub.State(code, true)
	request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {strconv.Itoa(st.Poll.ID)}, "balance": {"200"}}, "Cookie", issuedStudent(t, h, code))
	request(t, h, http.MethodPost, base+"/step", url.Values{"step": {"4"}}, "Cookie", cookie)
	r := get(t, h, base+"/present", "Cookie", cookie)
	if !strings.Contains(r.body, `<li class="poll-row actual"><span class="poll-label">100.00</span>`) || !strings.Contains(r.body, `<span class="poll-n">0</span>`) {
		t.Errorf("the actual balance 100.00 should be a row of its own with 0 answers\n%s", excerpt(r.body[strings.Index(r.body, `id="poll"`):]))
	}
}

func TestJoin(t *testing.T) {
	h, _ := newRoomServer(t, room.Config{})
	code, _ := openRoom(t, h, crashBeforeAck())
	tests := []struct {
		target   string
		status   int
		location string
		want     string
	}{
		{"/join", 200, "", `id="join-code"`},
		{"/join?code=", 200, "", `id="join-code"`},
		{"/join?code=" + url.QueryEscape(" "+strings.ToLower(code)+" "), 303, "/rooms/" + code, ""},
		{"/join?code=" + code[:2] + "-" + code[2:4] + "+" + code[4:], 303, "/rooms/" + code, ""},
		{"/join/" + strings.ToLower(code), 303, "/rooms/" + code, ""},
		{"/join?code=ZZZ-ZZZ", 404, "", "No room with the code ZZZ\u00a0ZZZ is open"},
		{"/join?code=" + url.QueryEscape("<script>"), 400, "", "&#34;&lt;script&gt;&#34; is not a room code"},
		{"/join?code=AB", 400, "", "six letters and digits"},
		{"/join/too-long-for-a-code", 400, "", "is not a room code"},
	}
	for _, tc := range tests {
		r := get(t, h, tc.target)
		if r.status != tc.status || r.header.Get("Location") != tc.location || !strings.Contains(r.body, tc.want) {
			t.Errorf("GET %s: %d to %q, want %d to %q with %q\n%s", tc.target, r.status, r.header.Get("Location"), tc.status, tc.location, tc.want, excerpt(r.body))
		}
	}
	if r := get(t, h, "/join?code=<script>"); strings.Contains(r.body, "<script>\"") || strings.Contains(r.body, `value="<script>"`) {
		t.Error("the typed code is not escaped")
	}
}

// ---- Event streams over real HTTP.

type sseEvent struct {
	id, event, data, comment string
	state                    classroom.LiveEvent
}

// stream is one student's event stream.
type stream struct {
	resp   *http.Response
	br     *bufio.Reader
	cancel context.CancelFunc
}

func openStream(tb testing.TB, base, code, lastID string) *stream {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/rooms/"+code+"/events", nil)
	if err != nil {
		tb.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		tb.Fatalf("events: status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return &stream{resp: resp, br: bufio.NewReader(resp.Body), cancel: cancel}
}

func (s *stream) close() { s.cancel(); s.resp.Body.Close() }

// read returns the next block of the stream (an event, a comment or the
// retry hint).
func (s *stream) read() (sseEvent, error) {
	var ev sseEvent
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			if ev.data != "" && ev.event == "" {
				if err := json.Unmarshal([]byte(ev.data), &ev.state); err != nil {
					return ev, fmt.Errorf("event data %q: %w", ev.data, err)
				}
			}
			return ev, nil
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			ev.comment = value
		case "id":
			ev.id = value
		case "event":
			ev.event = value
		case "data":
			ev.data += value
		}
	}
}

// next returns the next event, skipping the retry hint and comments.
func (s *stream) next(tb testing.TB) sseEvent {
	tb.Helper()
	for {
		ev, err := s.read()
		if err != nil {
			tb.Fatalf("reading the event stream: %v", err)
		}
		if ev.data != "" {
			return ev
		}
	}
}

// TestManyStudentsFollowEveryStep: 200 students on real HTTP connections
// each receive every change of the room, in order.
func TestManyStudentsFollowEveryStep(t *testing.T) {
	const students = 200
	steps := []int{1, 2, 3, 4, 3, 2, 1, 0, 1, 2, 3, 4, 0, 4, 1, 3, 2, 4, 0, 2}
	h, _ := newRoomServer(t, room.Config{MaxStudents: students, Buffer: len(steps) + 1})
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, cookie := openRoom(t, h, crashBeforeAck())

	ready := make(chan struct{}, students)
	errs := make(chan error, students)
	var wg sync.WaitGroup
	for i := range students {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := tryStream(ts.URL, code)
			if err != nil {
				errs <- fmt.Errorf("student %d: %w", i, err)
				ready <- struct{}{}
				return
			}
			defer s.close()
			first, err := s.nextEvent()
			ready <- struct{}{}
			if err != nil || first.state.Step != 0 || first.id != "1" {
				errs <- fmt.Errorf("student %d: first event %+v, %v; want step 0, id 1", i, first, err)
				return
			}
			for n, want := range steps {
				ev, err := s.nextEvent()
				if err != nil {
					errs <- fmt.Errorf("student %d: after %d steps: %w", i, n, err)
					return
				}
				if ev.state.Step != want || ev.id != strconv.Itoa(n+2) {
					errs <- fmt.Errorf("student %d: event %d is step %d id %s, want step %d id %d", i, n+1, ev.state.Step, ev.id, want, n+2)
					return
				}
			}
		}()
	}
	for range students {
		<-ready
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, step := range steps {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/rooms/"+code+"/step", strings.NewReader("step="+strconv.Itoa(step)))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Cookie", cookie)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("step %d: status %d", step, resp.StatusCode)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// tryStream is openStream for goroutines, which must not call Fatal.
func tryStream(base, code string) (*stream, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/rooms/"+code+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	return &stream{resp: resp, br: bufio.NewReader(resp.Body), cancel: cancel}, nil
}

func (s *stream) nextEvent() (sseEvent, error) {
	for {
		ev, err := s.read()
		if err != nil || ev.data != "" {
			return ev, err
		}
	}
}

// TestReconnectResumesAtTheCurrentStep: a page that lost its stream
// reconnects with Last-Event-ID and gets the current step first.
func TestReconnectResumesAtTheCurrentStep(t *testing.T) {
	h, _ := newRoomServer(t, room.Config{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, cookie := openRoom(t, h, crashBeforeAck())
	s := openStream(t, ts.URL, code, "")
	first := s.next(t)
	s.close()
	for _, step := range []string{"1", "2", "3"} {
		request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {step}}, "Cookie", cookie)
	}
	again := openStream(t, ts.URL, code, first.id)
	defer again.close()
	ev := again.next(t)
	if ev.state.Step != 3 || ev.id != "4" || ev.state.Version != 4 {
		t.Fatalf("after reconnecting: %+v, want step 3 with id 4", ev)
	}
	request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"4"}}, "Cookie", cookie)
	if ev := again.next(t); ev.state.Step != 4 || ev.id != "5" {
		t.Fatalf("next event %+v, want step 4 with id 5", ev)
	}
}

// TestEventStreamFormat checks the stream's headers, the retry hint, the
// event's JSON and the heartbeat comment.
func TestEventStreamFormat(t *testing.T) {
	hub := room.NewHub(room.Config{})
	h, err := NewServer(Config{Rooms: hub, Heartbeat: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, cookie := openRoom(t, h, crashBeforeAck())
	s := openStream(t, ts.URL, code, "")
	defer s.close()
	if cc := s.resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	hint, err := s.read()
	if err != nil || hint.data != "" {
		t.Fatalf("first block %+v, %v: want the retry hint", hint, err)
	}
	ev := s.next(t)
	if ev.id != "1" || !strings.Contains(ev.data, `"step":0`) || !strings.Contains(ev.data, `"handlers":["naive","inbox"]`) || strings.Contains(ev.data, "publish") {
		t.Errorf("first event %+v: want id 1, step 0, the handlers and no script", ev)
	}
	for {
		b, err := s.read()
		if err != nil {
			t.Fatal(err)
		}
		if b.comment == "heartbeat" {
			break
		}
	}
	// Opening a poll and voting reach the stream; the distribution stays
	// hidden from students until the reveal.
	request(t, h, http.MethodPost, "/rooms/"+code+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie)
	ev = s.next(t)
	if ev.state.Poll == nil || ev.state.Poll.Handler != "naive" || ev.state.Poll.Step != 1 {
		t.Fatalf("poll event %+v", ev.state)
	}
	request(t, h, http.MethodPost, "/rooms/"+code+"/vote", url.Values{"poll": {strconv.Itoa(ev.state.Poll.ID)}, "balance": {"0"}}, "Cookie", issuedStudent(t, h, code))
	// A vote is news for the instructor only: the students' streams are not
	// woken for it. The next student event is the instructor's step, which
	// reveals the poll with its one vote.
	request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"1"}}, "Cookie", cookie)
	ev = s.next(t)
	if ev.state.Step != 1 || ev.state.Poll == nil || !ev.state.Poll.Revealed || ev.state.Poll.Votes != 1 || len(ev.state.Poll.Counts) != 1 {
		t.Fatalf("event after the step %+v: want step 1 with the poll revealed, 1 vote and its count", ev.state)
	}
}

// TestInstructorStreamHearsVotes: the instructor's own page (holding the
// room's secret) is told of every vote, with the distribution, and takes
// no student's place.
func TestInstructorStreamHearsVotes(t *testing.T) {
	hub := room.NewHub(room.Config{MaxStudents: 1})
	h, err := NewServer(Config{Rooms: hub})
	if err != nil {
		t.Fatal(err)
	}
	code, cookie := openRoom(t, h, crashBeforeAck())
	secret := strings.TrimPrefix(cookie, classroom.SecretCookie+"=")
	student := issuedStudent(t, h, code)
	sub, err := hub.Watch(code, secret)
	if err != nil {
		t.Fatalf("the room cookie %q does not hold the instructor's secret: %v", cookie, err)
	}
	defer sub.Close()
	<-sub.C
	if n, _ := hub.Places(code); n != 1 {
		t.Fatalf("places = %d with the instructor watching, want 1", n)
	}
	request(t, h, http.MethodPost, "/rooms/"+code+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie)
	st := <-sub.C
	request(t, h, http.MethodPost, "/rooms/"+code+"/vote", url.Values{"poll": {strconv.Itoa(st.Poll.ID)}, "balance": {"200"}}, "Cookie", student) // major units, as a person types them
	st = <-sub.C
	if st.Poll == nil || st.Poll.Votes != 1 || len(st.Poll.Counts) != 1 || st.Poll.Counts[0].Balance != 20000 {
		t.Fatalf("instructor's state after a vote: %+v, want the vote and its distribution", st.Poll)
	}
}

// TestEventStreamOutlivesServerTimeouts: the lab's server has read and
// write timeouts for ordinary requests; a stream must outlive them.
func TestEventStreamOutlivesServerTimeouts(t *testing.T) {
	const timeout = 50 * time.Millisecond
	hub := room.NewHub(room.Config{})
	h, err := NewServer(Config{Rooms: hub, Heartbeat: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ReadTimeout, ts.Config.WriteTimeout = timeout, timeout
	ts.Start()
	defer ts.Close()
	code, cookie := openRoom(t, h, crashBeforeAck())
	start := time.Now()
	s := openStream(t, ts.URL, code, "")
	defer s.close()
	s.next(t)
	// Read heartbeats until the stream has lived well past both timeouts:
	// the stream itself is the clock, nothing sleeps.
	for beats := 0; time.Since(start) < 4*timeout; {
		b, err := s.read()
		if err != nil {
			t.Fatalf("the stream ended after %d heartbeats, %v after it opened: %v", beats, time.Since(start), err)
		}
		if b.comment == "heartbeat" {
			beats++
		}
	}
	request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"1"}}, "Cookie", cookie)
	if ev := s.next(t); ev.state.Step != 1 {
		t.Fatalf("event %+v, want step 1", ev)
	}
}

// TestStopEndsEventStreams: closing Config.Stop ends the streams, so that
// a graceful shutdown need not wait for them.
func TestStopEndsEventStreams(t *testing.T) {
	stop := make(chan struct{})
	h, err := NewServer(Config{Rooms: room.NewHub(room.Config{}), Heartbeat: -1, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, _ := openRoom(t, h, crashBeforeAck())
	s := openStream(t, ts.URL, code, "")
	defer s.close()
	s.next(t)
	close(stop)
	for {
		if _, err := s.read(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("stream ended with %v, want EOF", err)
			}
			return
		}
	}
}
