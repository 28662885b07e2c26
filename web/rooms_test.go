package web_test

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

	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestRoomLifecycle: open a room, present it, join it, step it, and check
// that only the instructor can move it.
func TestRoomLifecycle(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())

	// The instructor's page: the code in big letters, the QR code, the
	// presenter view at step 0 and the controls that post the step.
	r := webtest.GetAt(t, h, "class.example:8080", "/rooms/"+code+"/present", cookie)
	if r.Status != http.StatusOK {
		t.Fatalf("instructor page: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	for _, want := range []string{
		`id="room-code" data-code="` + code + `">` + code[:3] + "\u00a0" + code[3:] + "<",
		`<svg xmlns="http://www.w3.org/2000/svg"`, "class.example:8080/join",
		`data-role="instructor"`, `data-keys="on"`, `data-events="/rooms/` + code + `/events"`, `data-version="1"`,
		`action="/rooms/` + code + `/step"`, `name="step" value="1" class="btn nav primary" id="p-next"`,
		`action="/rooms/` + code + `/poll"`, `data-step="0" data-total="4"`,
	} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("instructor page lacks %q", want)
		}
	}
	if strings.Contains(r.Body, "works only on this computer") {
		t.Error("a network address is not local: no warning")
	}
	if r := webtest.GetAt(t, h, "127.0.0.1:8080", "/rooms/"+code+"/present", cookie); !strings.Contains(r.Body, "works only on this computer") {
		t.Error("the page should warn that 127.0.0.1 is this machine only")
	}

	// A student types the code as they like: the room's page offers the
	// join button, and issues nothing on a GET.
	r = webtest.Get(t, h, "/join?code="+url.QueryEscape(strings.ToLower(code[:3])+"-"+code[3:]))
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/rooms/"+code {
		t.Fatalf("join: %d to %q, want 303 to /rooms/%s", r.Status, r.Header.Get("Location"), code)
	}
	r = webtest.Get(t, h, "/rooms/"+code)
	if r.Status != http.StatusOK || studentCookie(r) != nil {
		t.Fatalf("room page without an identity: status %d, Set-Cookie %q\n%s", r.Status, r.Header.Values("Set-Cookie"), webtest.Excerpt(r.Body))
	}
	for _, want := range []string{`id="join-room" data-code="` + code + `"`, `<form method="post" action="/join"`, `name="code" value="` + code + `"`, `id="join-go"`} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("the room page without an identity lacks %q", want)
		}
	}
	// The join posts the code as typed, issues the identity and goes to
	// the room, where the student sees step 0.
	r = webtest.Post(t, h, "/join", url.Values{"code": {strings.ToLower(code[:3]) + " " + code[3:]}})
	c := studentCookie(r)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/rooms/"+code || c == nil || c.Path != "/rooms/"+code || !c.HttpOnly {
		t.Fatalf("POST /join: %d to %q, student cookie %q", r.Status, r.Header.Get("Location"), r.Header.Values("Set-Cookie"))
	}
	me := c.Name + "=" + c.Value
	r = webtest.Get(t, h, "/rooms/"+code, "Cookie", me)
	if r.Status != http.StatusOK {
		t.Fatalf("student page: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	for _, want := range []string{`data-role="student"`, `data-step="0" data-total="4"`, `data-events="/rooms/` + code + `/events"`,
		`id="p-explore" href="/lab?preset=crash-before-ack&amp;handlers=naive,inbox" target="_blank"`, "No question right now"} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("student page lacks %q", want)
		}
	}
	for _, unwanted := range []string{`data-keys`, `id="p-next"`, `/step"`, "<svg xmlns"} {
		if strings.Contains(r.Body, unwanted) {
			t.Errorf("student page has %q", unwanted)
		}
	}

	// The instructor steps; the student's page follows.
	for step := 1; step <= 4; step++ {
		r := webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {strconv.Itoa(step)}}, "Cookie", cookie)
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/rooms/"+code+"/present" {
			t.Fatalf("step %d: %d to %q", step, r.Status, r.Header.Get("Location"))
		}
	}
	r = webtest.Get(t, h, "/rooms/"+code, "Cookie", me)
	if got := webtest.Cards(r.Body); got["naive"] != "duplicate" || got["inbox"] != "ok" || !strings.Contains(r.Body, `data-step="4"`) {
		t.Errorf("student page after four steps: %v", got)
	}
	if st, _ := hub.State(code, false); st.Step != 4 || st.Version != 6 || st.Joined != 1 {
		t.Errorf("room state %+v: want step 4, version 6 (a join and four steps), one joined", st)
	}

	// The panels and the handlers: shown with the room, kept on a step.
	r = webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"4"}, "handlers": {"naive"}, "show": {"source"}}, "Cookie", cookie)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/rooms/"+code+"/present?show=source" {
		t.Fatalf("handlers: %d to %q", r.Status, r.Header.Get("Location"))
	}
	r = webtest.Get(t, h, "/rooms/"+code+"?show=source", "Cookie", me)
	if got := webtest.Cards(r.Body); len(got) != 1 || got["naive"] != "duplicate" || !strings.Contains(r.Body, "p-source-panel") {
		t.Errorf("student page with one handler and the source: %v", got)
	}

	// Restart goes back to the start.
	webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"0"}}, "Cookie", cookie)
	if st, _ := hub.State(code, false); st.Step != 0 || len(st.Handlers) != 1 {
		t.Errorf("after a restart: %+v", st)
	}
}

// TestRoomForbidden: a student (no cookie, or a guessed one) cannot move
// the room, open a poll or see the instructor's page.
func TestRoomForbidden(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, _ := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	_, otherCookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
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
			r := webtest.Request(t, h, tc.method, tc.target, form, "Cookie", cookie)
			if r.Status != http.StatusForbidden {
				t.Errorf("%s %s with %q: status %d, want 403", tc.method, tc.target, cookie, r.Status)
				continue
			}
			for _, want := range []string{"Only the instructor can move this room", `href="/rooms/` + code + `"`, "Back to room"} {
				if !strings.Contains(r.Body, want) {
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
	h, _ := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	base := "/rooms/" + code
	student := webtest.IssuedStudent(t, h, code) // the identity the student page issues
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
			r := webtest.Request(t, h, tc.method, tc.target, tc.form, "Cookie", tc.cookie)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d\n%s", r.Status, tc.status, webtest.Excerpt(r.Body))
			}
			if !strings.Contains(r.Body, tc.want) {
				t.Errorf("page lacks %q\n%s", tc.want, webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, tc.target, r.Body)
		})
	}
}

// TestRoomLimits: too many rooms and a full room each say so with a 503.
func TestRoomLimits(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{MaxRooms: 1, MaxStudents: 1})
	code, _ := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	r := webtest.Post(t, h, "/rooms", webtest.CrashBeforeAck())
	if r.Status != http.StatusServiceUnavailable || !strings.Contains(r.Body, "No more rooms can open now") || !strings.Contains(r.Body, "--max-rooms") {
		t.Errorf("a second room: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if r.Header.Get("Retry-After") == "" {
		t.Error("a 503 should say when to retry")
	}
	sub, err := hub.Subscribe(code) // the one student the room holds
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	for _, target := range []string{"/rooms/" + code, "/rooms/" + code + "/events"} {
		r := webtest.Get(t, h, target)
		if r.Status != http.StatusServiceUnavailable || !strings.Contains(r.Body, "This room is full") || !strings.Contains(r.Body, "--max-students") {
			t.Errorf("GET %s in a full room: status %d\n%s", target, r.Status, webtest.Excerpt(r.Body))
		}
	}
	sub.Close()
	if r := webtest.Get(t, h, "/rooms/"+code); r.Status != http.StatusOK {
		t.Errorf("a place came free: status %d", r.Status)
	}
}

// TestRoomExpiry: a room left alone for its idle time closes; its pages
// say so and its event streams end with a closing event.
func TestRoomExpiry(t *testing.T) {
	clock := webtest.NewClock()
	h, hub := webtest.NewRoomServer(t, room.Config{IdleTTL: time.Hour, Now: clock.Now})
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	stream := openStream(t, ts.URL, code, "")
	defer stream.close()
	if ev := stream.next(t); ev.state.Step != 0 {
		t.Fatalf("first event %+v", ev)
	}

	clock.Advance(59 * time.Minute)
	if r := webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"1"}}, "Cookie", cookie); r.Status != http.StatusSeeOther {
		t.Fatalf("a room used within its idle time lives: status %d", r.Status)
	}
	if ev := stream.next(t); ev.state.Step != 1 {
		t.Fatalf("event %+v, want step 1", ev)
	}
	clock.Advance(61 * time.Minute)
	for _, target := range []string{"/rooms/" + code, "/rooms/" + code + "/present", "/join?code=" + code} {
		r := webtest.Get(t, h, target, "Cookie", cookie)
		if r.Status != http.StatusNotFound {
			t.Errorf("GET %s after the idle time: status %d, want 404", target, r.Status)
		}
	}
	if r := webtest.Get(t, h, "/rooms/"+code); !strings.Contains(r.Body, "This room has closed") {
		t.Errorf("closed room page:\n%s", webtest.Excerpt(r.Body))
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
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "step": {"3"}})
	base := "/rooms/" + code

	r := webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != base+"/present" {
		t.Fatalf("open poll: %d to %q", r.Status, r.Header.Get("Location"))
	}
	st, _ := hub.State(code, true)
	if st.Poll == nil || st.Poll.Handler != "naive" || st.Poll.Step != 4 {
		t.Fatalf("poll %+v: want naive, step 4", st.Poll)
	}
	id := strconv.Itoa(st.Poll.ID)

	student := webtest.Get(t, h, base, "Cookie", webtest.IssuedStudent(t, h, code))
	for _, want := range []string{"What will naive&#39;s balance be after step 4?", `id="vote-balance"`, `name="poll" value="` + id + `"`} {
		if !strings.Contains(student.Body, want) {
			t.Errorf("student page lacks %q", want)
		}
	}
	// Three students answer; one changes their mind.
	votes := []struct{ student, balance string }{{"a", "200"}, {"b", "100.00"}, {"c", "200,00"}, {"b", "1 0 0"}}
	var lastA string
	identity := map[string]string{} // each student's issued cookie
	for _, v := range votes {
		if identity[v.student] == "" {
			identity[v.student] = webtest.IssuedStudent(t, h, code)
		}
		r := webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {id}, "balance": {v.balance}}, "Cookie", identity[v.student])
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != base {
			t.Fatalf("vote %v: %d to %q\n%s", v, r.Status, r.Header.Get("Location"), webtest.Excerpt(r.Body))
		}
		if v.student == "a" {
			lastA = r.Header.Get("Set-Cookie")
		}
	}
	voteCk, err := http.ParseSetCookie(lastA)
	if err != nil || voteCk.Name != classroom.VoteCookie || voteCk.Value != id+":20000" || voteCk.Path != base {
		t.Fatalf("vote cookie %q (%v)", lastA, err)
	}
	mine := identity["a"] + "; " + classroom.VoteCookie + "=" + voteCk.Value

	teacher := webtest.Get(t, h, base+"/present", "Cookie", cookie)
	for _, want := range []string{`id="poll-votes" data-votes="3"`, `<span class="poll-label">100.00</span>`, `<span class="poll-label">200.00</span>`,
		`id="reveal-poll"`, "Reveal: go to step 4"} {
		if !strings.Contains(teacher.Body, want) {
			t.Errorf("instructor page lacks %q", want)
		}
	}
	if strings.Contains(teacher.Body, `id="poll-actual"`) {
		t.Error("the actual balance shows before the reveal")
	}
	if s := webtest.Get(t, h, base, "Cookie", mine); strings.Contains(s.Body, "poll-label") || !strings.Contains(s.Body, "Your answer: 200.00") {
		t.Errorf("before the reveal a student sees their answer and not the distribution:\n%s", webtest.Excerpt(s.Body))
	}

	// Stepping onto the predicted step reveals it.
	webtest.Request(t, h, http.MethodPost, base+"/step", url.Values{"step": {"4"}}, "Cookie", cookie)
	s := webtest.Get(t, h, base, "Cookie", mine)
	for _, want := range []string{`id="poll-actual"`, "naive&#39;s balance after this step: 200.00", `class="poll-row actual mine"`, "You said 200.00: right!"} {
		if !strings.Contains(s.Body, want) {
			t.Errorf("student page after the reveal lacks %q", want)
		}
	}
	if strings.Contains(s.Body, `id="vote-balance"`) {
		t.Error("the vote form stays after the reveal")
	}
	wrong := webtest.Get(t, h, base, "Cookie", identity["b"]+"; "+classroom.VoteCookie+"="+id+":10000")
	if !strings.Contains(wrong.Body, "You said 100.00; it was 200.00.") {
		t.Error("a wrong answer is not told so")
	}
	if r := webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {id}, "balance": {"300"}}, "Cookie", webtest.IssuedStudent(t, h, code)); r.Status != http.StatusConflict {
		t.Errorf("a vote after the reveal: status %d, want 409", r.Status)
	}
	// At the last step there is nothing left to ask about.
	if r := webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie); r.Status != http.StatusBadRequest ||
		!strings.Contains(r.Body, "no next step to predict") {
		t.Errorf("a poll at the last step: status %d", r.Status)
	}
	if strings.Contains(webtest.Get(t, h, base+"/present", "Cookie", cookie).Body, `id="open-poll"`) {
		t.Error("the last step offers to ask about a next step")
	}
}

// TestPollWithNobodyRight marks the actual balance even when no one chose it.
func TestPollWithNobodyRight(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "step": {"3"}})
	base := "/rooms/" + code
	webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"handler": {"inbox"}}, "Cookie", cookie)
	st, _ := hub.State(code, true)
	webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {strconv.Itoa(st.Poll.ID)}, "balance": {"200"}}, "Cookie", webtest.IssuedStudent(t, h, code))
	webtest.Request(t, h, http.MethodPost, base+"/step", url.Values{"step": {"4"}}, "Cookie", cookie)
	r := webtest.Get(t, h, base+"/present", "Cookie", cookie)
	if !strings.Contains(r.Body, `<li class="poll-row actual"><span class="poll-label">100.00</span>`) || !strings.Contains(r.Body, `<span class="poll-n">0</span>`) {
		t.Errorf("the actual balance 100.00 should be a row of its own with 0 answers\n%s", webtest.Excerpt(r.Body[strings.Index(r.Body, `id="poll"`):]))
	}
}

func TestJoin(t *testing.T) {
	h, _ := webtest.NewRoomServer(t, room.Config{})
	code, _ := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
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
		r := webtest.Get(t, h, tc.target)
		if r.Status != tc.status || r.Header.Get("Location") != tc.location || !strings.Contains(r.Body, tc.want) {
			t.Errorf("GET %s: %d to %q, want %d to %q with %q\n%s", tc.target, r.Status, r.Header.Get("Location"), tc.status, tc.location, tc.want, webtest.Excerpt(r.Body))
		}
	}
	if r := webtest.Get(t, h, "/join?code=<script>"); strings.Contains(r.Body, "<script>\"") || strings.Contains(r.Body, `value="<script>"`) {
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
	h, _ := webtest.NewRoomServer(t, room.Config{MaxStudents: students, Buffer: len(steps) + 1})
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())

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
	h, _ := webtest.NewRoomServer(t, room.Config{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	s := openStream(t, ts.URL, code, "")
	first := s.next(t)
	s.close()
	for _, step := range []string{"1", "2", "3"} {
		webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {step}}, "Cookie", cookie)
	}
	again := openStream(t, ts.URL, code, first.id)
	defer again.close()
	ev := again.next(t)
	if ev.state.Step != 3 || ev.id != "4" || ev.state.Version != 4 {
		t.Fatalf("after reconnecting: %+v, want step 3 with id 4", ev)
	}
	webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"4"}}, "Cookie", cookie)
	if ev := again.next(t); ev.state.Step != 4 || ev.id != "5" {
		t.Fatalf("next event %+v, want step 4 with id 5", ev)
	}
}

// TestEventStreamFormat checks the stream's headers, the retry hint, the
// event's JSON and the heartbeat comment.
func TestEventStreamFormat(t *testing.T) {
	hub := room.NewHub(room.Config{})
	h, err := web.NewServer(web.Config{Rooms: hub, Heartbeat: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
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
	webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie)
	ev = s.next(t)
	if ev.state.Poll == nil || ev.state.Poll.Handler != "naive" || ev.state.Poll.Step != 1 {
		t.Fatalf("poll event %+v", ev.state)
	}
	webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/vote", url.Values{"poll": {strconv.Itoa(ev.state.Poll.ID)}, "balance": {"0"}}, "Cookie", webtest.IssuedStudent(t, h, code))
	// A vote is news for the instructor only: the students' streams are not
	// woken for it. The next student event is the instructor's step, which
	// reveals the poll with its one vote.
	webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"1"}}, "Cookie", cookie)
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
	h, err := web.NewServer(web.Config{Rooms: hub})
	if err != nil {
		t.Fatal(err)
	}
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	secret := strings.TrimPrefix(cookie, classroom.SecretCookie+"=")
	student := webtest.IssuedStudent(t, h, code)
	sub, err := hub.Watch(code, secret)
	if err != nil {
		t.Fatalf("the room cookie %q does not hold the instructor's secret: %v", cookie, err)
	}
	defer sub.Close()
	<-sub.C
	if n, _ := hub.Places(code); n != 1 {
		t.Fatalf("places = %d with the instructor watching, want 1", n)
	}
	webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie)
	st := <-sub.C
	webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/vote", url.Values{"poll": {strconv.Itoa(st.Poll.ID)}, "balance": {"200"}}, "Cookie", student) // major units, as a person types them
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
	h, err := web.NewServer(web.Config{Rooms: hub, Heartbeat: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ReadTimeout, ts.Config.WriteTimeout = timeout, timeout
	ts.Start()
	defer ts.Close()
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
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
	webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/step", url.Values{"step": {"1"}}, "Cookie", cookie)
	if ev := s.next(t); ev.state.Step != 1 {
		t.Fatalf("event %+v, want step 1", ev)
	}
}

// TestStopEndsEventStreams: closing Config.Stop ends the streams, so that
// a graceful shutdown need not wait for them.
func TestStopEndsEventStreams(t *testing.T) {
	stop := make(chan struct{})
	h, err := web.NewServer(web.Config{Rooms: room.NewHub(room.Config{}), Heartbeat: -1, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, _ := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
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
