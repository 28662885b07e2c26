package webtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/classroom/room"
)

// NewRoomServer is the real server over a hub the test holds.
func NewRoomServer(tb testing.TB, rc room.Config) (http.Handler, *room.Hub) {
	tb.Helper()
	hub := room.NewHub(rc)
	h, err := web.NewServer(web.Config{Rooms: hub, Heartbeat: -1})
	if err != nil {
		tb.Fatal(err)
	}
	return h, hub
}

// OpenRoom posts the presenter's "Open a room" form and returns the room's
// code and the instructor's cookie, as "lab_room=SECRET".
func OpenRoom(tb testing.TB, h http.Handler, form url.Values) (code, cookie string) {
	tb.Helper()
	r := Post(tb, h, "/rooms", form)
	if r.Status != http.StatusSeeOther {
		tb.Fatalf("POST /rooms: status %d, want 303\n%s", r.Status, Excerpt(r.Body))
	}
	loc := r.Header.Get("Location")
	code, ok := strings.CutSuffix(strings.TrimPrefix(loc, "/rooms/"), "/present")
	if !ok || len(code) != 6 {
		tb.Fatalf("POST /rooms: Location %q, want /rooms/CODE/present", loc)
	}
	c, err := http.ParseSetCookie(r.Header.Get("Set-Cookie"))
	if err != nil {
		tb.Fatalf("POST /rooms: Set-Cookie %q: %v", r.Header.Get("Set-Cookie"), err)
	}
	if c.Name != classroom.SecretCookie || c.Path != "/rooms/"+code || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
		tb.Errorf("instructor cookie %+v: want %s, HttpOnly, SameSite=Lax, Path=/rooms/%s", c, classroom.SecretCookie, code)
	}
	return code, c.Name + "=" + c.Value
}

// GetAt is a GET as a browser sends it to host, with a cookie.
func GetAt(tb testing.TB, h http.Handler, host, target, cookie string) Response {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = host
	req.Header.Set("Cookie", cookie)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return Response{rec.Code, rec.Header(), rec.Body.String()}
}

// CrashBeforeAck is the "Open a room" form on crash-before-ack, naive
// and inbox, at step 0.
func CrashBeforeAck() url.Values {
	return url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"0"}}
}

// IssuedStudent joins a room as a new student would, by the join form's
// POST, and returns the identity it issued as "lab_student=ID.SIG". Each
// call joins from an address of its own, so that many students stay
// within the per-address join throttle.
func IssuedStudent(tb testing.TB, h http.Handler, code string) string {
	tb.Helper()
	n := joinAddrs.Add(1)
	addr := fmt.Sprintf("10.%d.%d.%d:4321", n>>16&255, n>>8&255, n&255)
	r := From(tb, h, addr, "/join", url.Values{"code": {code}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/rooms/"+code {
		tb.Fatalf("join: status %d to %q, want 303 to /rooms/%s\n%s", r.Status, r.Header.Get("Location"), code, Excerpt(r.Body))
	}
	for _, line := range r.Header.Values("Set-Cookie") {
		if c, err := http.ParseSetCookie(line); err == nil && c.Name == classroom.StudentCookie {
			if c.Path != "/rooms/"+code || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
				tb.Errorf("student cookie %+v: want Path=/rooms/%s, HttpOnly, SameSite=Lax", c, code)
			}
			return c.Name + "=" + c.Value
		}
	}
	tb.Fatalf("the join issued no %s cookie: %q", classroom.StudentCookie, r.Header.Values("Set-Cookie"))
	return ""
}

// joinAddrs numbers the addresses IssuedStudent joins from.
var joinAddrs atomic.Uint32

// From is a form POSTed from a client address; headers come in name,
// value pairs.
func From(tb testing.TB, h http.Handler, addr, target string, form url.Values, headers ...string) Response {
	tb.Helper()
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return Response{rec.Code, rec.Header(), rec.Body.String()}
}
