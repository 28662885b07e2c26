package classroom_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/classroom/room"
)

func TestMain(m *testing.M) {
	code := m.Run()
	servers.Stop() // the throwaway Redis, if a test started one
	os.Exit(code)
}

// labOnRedis is a lab server whose rooms are in the Redis at redisURL.
func labOnRedis(t *testing.T, redisURL string) *httptest.Server {
	t.Helper()
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	hub, err := room.NewRedisHub(room.Config{}, rdb)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	h, err := web.NewServer(web.Config{Rooms: hub, Heartbeat: -1, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { close(stop); ts.Close(); hub.Close(); rdb.Close() })
	return ts
}

// browser is a client with its own cookies that does not follow
// redirects.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func postForm(t *testing.T, c *http.Client, u string, form url.Values) *http.Response {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST %s %v: %s, want 303", u, form, resp.Status)
	}
	return resp
}

func getPage(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%.500s", u, resp.Status, b)
	}
	return string(b)
}

// events opens a room's event stream as c and hands on its states.
func events(t *testing.T, c *http.Client, u string) <-chan classroom.LiveEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	out := make(chan classroom.LiveEvent, 100)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "{}" {
				var ev classroom.LiveEvent
				if json.Unmarshal([]byte(data), &ev) == nil {
					out <- ev
				}
			}
		}
	}()
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	return out
}

// until reads events until one satisfies ok. The timeout only keeps a
// broken test from hanging.
func until(t *testing.T, c <-chan classroom.LiveEvent, what string, ok func(classroom.LiveEvent) bool) classroom.LiveEvent {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, open := <-c:
			if !open {
				t.Fatalf("the stream ended waiting for %s", what)
			}
			if ok(ev) {
				return ev
			}
		case <-timeout:
			t.Fatalf("no event with %s within 20 s", what)
		}
	}
}

// TestRoomAcrossTwoServers: two lab servers share one Redis server. The
// instructor opens a room on A; a student follows it on B, and every step,
// poll and hiding of the verdicts reaches the student's stream there; the
// student votes on B, and the instructor on A hears the vote and sees it
// in the results.
func TestRoomAcrossTwoServers(t *testing.T) {
	rd := servers.Redis(t)
	a, b := labOnRedis(t, rd), labOnRedis(t, rd)
	teacher, student := browser(t), browser(t)

	resp := postForm(t, teacher, a.URL+"/rooms", url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"0"}})
	code, ok := strings.CutSuffix(strings.TrimPrefix(resp.Header.Get("Location"), "/rooms/"), "/present")
	if !ok || len(code) != 6 {
		t.Fatalf("opening a room: Location %q", resp.Header.Get("Location"))
	}
	onA, onB := a.URL+"/rooms/"+code, b.URL+"/rooms/"+code
	getPage(t, teacher, onA+"/present")
	teacherEvents := events(t, teacher, onA+"/events")
	until(t, teacherEvents, "the first state", func(ev classroom.LiveEvent) bool { return ev.Step == 0 })

	page := getPage(t, student, onB) // the room, opened on the other server
	if !strings.Contains(page, code[:3]) || !strings.Contains(page, `id="join-go"`) {
		t.Fatalf("the room's page on B does not offer to join it:\n%.500s", page)
	}
	// The student joins on A; the identity A issued counts on B too.
	if resp := postForm(t, student, a.URL+"/join", url.Values{"code": {code}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("joining on A: status %d", resp.StatusCode)
	}
	until(t, teacherEvents, "1 joined", func(ev classroom.LiveEvent) bool { return ev.Joined == 1 })
	if page := getPage(t, student, onB); !strings.Contains(page, `data-role="student"`) {
		t.Fatalf("the student's page on B, after joining on A:\n%.500s", page)
	}
	studentEvents := events(t, student, onB+"/events")
	until(t, studentEvents, "step 0", func(ev classroom.LiveEvent) bool { return ev.Step == 0 })
	until(t, teacherEvents, "1 student", func(ev classroom.LiveEvent) bool { return ev.Students == 1 })

	postForm(t, teacher, onA+"/step", url.Values{"step": {"1"}})
	until(t, studentEvents, "step 1", func(ev classroom.LiveEvent) bool { return ev.Step == 1 })
	postForm(t, teacher, onA+"/verdicts", url.Values{"hide": {"true"}})
	until(t, studentEvents, "hidden verdicts", func(ev classroom.LiveEvent) bool { return ev.HideVerdicts })
	postForm(t, teacher, onA+"/verdicts", url.Values{"hide": {"false"}})
	until(t, studentEvents, "verdicts shown", func(ev classroom.LiveEvent) bool { return !ev.HideVerdicts })

	postForm(t, teacher, onA+"/poll", url.Values{"handler": {"naive"}})
	ev := until(t, studentEvents, "a poll", func(ev classroom.LiveEvent) bool { return ev.Poll != nil })
	if ev.Poll.Counts != nil {
		t.Fatalf("the student sees the tally before the reveal: %+v", ev.Poll)
	}
	if !strings.Contains(getPage(t, student, onB), `name="poll"`) {
		t.Fatal("the student's page on B has no poll to answer")
	}
	postForm(t, student, onB+"/vote", url.Values{"poll": {strconv.Itoa(ev.Poll.ID)}, "balance": {"2.00"}})

	got := until(t, teacherEvents, "the vote", func(ev classroom.LiveEvent) bool { return ev.Poll != nil && ev.Poll.Votes == 1 && ev.Poll.Voters == 1 })
	if len(got.Poll.Counts) != 1 || got.Poll.Counts[0].Balance != 200 || got.Poll.Counts[0].Count != 1 {
		t.Fatalf("the instructor's tally on A: %+v, want one vote for 200", got.Poll.Counts)
	}
	if csv := getPage(t, teacher, onA+"/results.csv?lang=en"); !strings.Contains(csv, "2.00") {
		t.Fatalf("the results on A lack the vote cast on B:\n%s", csv)
	}

	postForm(t, teacher, onA+"/poll", url.Values{"reveal": {"1"}})
	rev := until(t, studentEvents, "the reveal", func(ev classroom.LiveEvent) bool { return ev.Poll != nil && ev.Poll.Revealed })
	if len(rev.Poll.Counts) != 1 {
		t.Fatalf("the student's revealed poll: %+v", rev.Poll)
	}
}
