package web_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/webtest"
)

// Tests for holding a classroom: progress that cannot be saved, the
// import caps, log levels, and room streams when the server stops.

// logBuffer collects a server's log lines; the server writes from its
// handlers' goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// lines are the log lines whose message is msg.
func (b *logBuffer) lines(msg string) []string {
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, " msg="+msg+" ") || strings.Contains(l, ` msg="`+msg+`" `) {
			out = append(out, l)
		}
	}
	return out
}

// loggedPracticeServer is the real server over a progress file, logging
// into a buffer; it returns the file's path too.
func loggedPracticeServer(tb testing.TB) (http.Handler, *logBuffer, *practice.Store, string) {
	tb.Helper()
	bank := webtest.MustBank(tb)
	path := filepath.Join(tb.TempDir(), "progress.db")
	store, err := practice.Open(path, bank)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	logs := &logBuffer{}
	h, err := web.NewServer(web.Config{Practice: store, Bank: bank, Now: webtest.NewClock().Now, Logger: logs.logger()})
	if err != nil {
		tb.Fatal(err)
	}
	return h, logs, store, path
}

// TestPracticeNotSaved: when the progress database refuses a write (here
// a trigger added by another connection stands in for a read-only file
// or a failing disk), the reader gets a 503 page that says their progress
// could not be saved, in their language; the cause is logged at ERROR.
// Never the 500 page's advice about "a smaller script".
func TestPracticeNotSaved(t *testing.T) {
	h, logs, _, path := loggedPracticeServer(t)
	q := webtest.FindQuestion(t, practice.KindChoice, nil)
	v := webtest.NewVisitor(t, h)
	v.Answer(q.ID, url.Values(webtest.AnswerFor(t, q, true))) // a profile, saved

	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON attempts
		BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`); err != nil {
		t.Fatal(err)
	}
	hx := []string{"HX-Request", "true", "HX-Request-Type", "partial"}
	for _, tc := range []struct {
		name    string
		headers []string
		want    []string
	}{
		{"page", nil, []string{"Your progress could not be saved", "refused to save it", "not with what you did"}},
		{"russian", []string{"Accept-Language", "ru"}, []string{"Не удалось сохранить прогресс", "проблема на стороне лаборатории"}},
		{"htmx", hx, []string{"refused to save it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := v.Post("/practice/q/"+q.ID, url.Values(webtest.AnswerFor(t, q, false)), tc.headers...)
			if r.Status != http.StatusServiceUnavailable {
				t.Fatalf("status %d, want 503\n%s", r.Status, webtest.Excerpt(r.Body))
			}
			body := html.UnescapeString(r.Body)
			for _, want := range tc.want {
				if !strings.Contains(body, want) {
					t.Errorf("the page does not say %q\n%s", want, webtest.Excerpt(r.Body))
				}
			}
			if strings.Contains(body, "smaller script") || strings.Contains(body, "сценарий покороче") {
				t.Errorf("the page talks about a smaller script\n%s", webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, tc.name, r.Body)
			if tc.name == "htmx" && r.Header.Get("HX-Retarget") != "#flash" {
				t.Errorf("htmx: HX-Retarget %q, want #flash", r.Header.Get("HX-Retarget"))
			}
		})
	}
	t.Run("import", func(t *testing.T) {
		r := v.Upload("progress.json", progressFile(t, v.Profile(), 2, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		if r.Status != http.StatusServiceUnavailable || !strings.Contains(r.Body, "Your progress could not be saved") {
			t.Errorf("import: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
		}
	})

	failed := logs.lines("progress not saved")
	if len(failed) != 4 {
		t.Errorf("%d ERROR lines for the failed writes, want 4:\n%s", len(failed), logs)
	}
	for _, l := range failed {
		if !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "simulated") {
			t.Errorf("want ERROR with the cause: %s", l)
		}
	}
	for _, l := range logs.lines("request") {
		if strings.Contains(l, "status=503") && !strings.Contains(l, "level=WARN") {
			t.Errorf("a 503's request line should be a WARN: %s", l)
		}
	}
	if got := logs.lines("request failed"); len(got) != 0 {
		t.Errorf("the failed write went through the 500 path: %q", got)
	}
}

// progressFile is an export of n attempts of profile, a second apart from
// start, at every question in turn.
func progressFile(tb testing.TB, profile string, n int, start time.Time) []byte {
	tb.Helper()
	type attempt struct {
		ID       string    `json:"id"`
		Question string    `json:"question"`
		Score    float64   `json:"score"`
		At       time.Time `json:"at"`
	}
	qs := webtest.MustBank(tb).Questions()
	f := struct {
		Format   string    `json:"format"`
		Version  int       `json:"version"`
		Profile  string    `json:"profile"`
		Attempts []attempt `json:"attempts"`
	}{practice.ExportFormat, practice.ExportVersion, profile, []attempt{}}
	for i := range n {
		f.Attempts = append(f.Attempts, attempt{practice.NewProfileID(), qs[i%len(qs)].ID, 1, start.Add(time.Duration(i) * time.Second)})
	}
	data, err := json.Marshal(f)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// TestPracticeImportCaps: an upload over MaxImportBytes is a 413 naming
// the limit; an import that would take the profile past
// practice.MaxAttempts is a 422 naming the cap and what the profile has,
// and imports nothing.
func TestPracticeImportCaps(t *testing.T) {
	if practice.MaxImportBytes > 4<<20 || practice.MaxAttempts > 10000 {
		t.Errorf("caps too generous: %d bytes, %d attempts a profile", practice.MaxImportBytes, practice.MaxAttempts)
	}
	h, _, store, _ := loggedPracticeServer(t)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	t.Run("size", func(t *testing.T) {
		v := webtest.NewVisitor(t, h)
		big := append(progressFile(t, practice.NewProfileID(), 1, start), bytes.Repeat([]byte(" "), practice.MaxImportBytes)...)
		r := v.Upload("progress.json", big)
		want := fmt.Sprintf("at most %d MiB", practice.MaxImportBytes>>20)
		if r.Status != http.StatusRequestEntityTooLarge || !strings.Contains(r.Body, want) {
			t.Errorf("status %d, want 413 saying %q\n%s", r.Status, want, webtest.Excerpt(r.Body))
		}
		if v.Profile() != "" {
			t.Error("a refused upload minted a profile")
		}
	})

	t.Run("attempts", func(t *testing.T) {
		v := webtest.NewVisitor(t, h)
		have := practice.MaxAttempts - 3
		if r := v.Upload("mine.json", progressFile(t, practice.NewProfileID(), have, start)); r.Status != http.StatusSeeOther {
			t.Fatalf("first import: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
		}
		r := v.Upload("more.json", progressFile(t, practice.NewProfileID(), 5, start.Add(24*time.Hour)))
		if r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d, want 422\n%s", r.Status, webtest.Excerpt(r.Body))
		}
		body := html.UnescapeString(r.Body)
		for _, want := range []string{
			"This file does not fit into your progress",
			fmt.Sprintf("a profile keeps at most %d answers", practice.MaxAttempts),
			fmt.Sprintf("has %d, and the file would add 5", have),
			"Nothing was imported",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the page does not say %q\n%s", want, webtest.Excerpt(r.Body))
			}
		}
		webtest.NoMissingKeys(t, "422", r.Body)
		if as, err := store.Attempts(t.Context(), v.Profile()); err != nil || len(as) != have {
			t.Errorf("%d attempts after the refused import (%v), want %d", len(as), err, have)
		}
		ru := v.Do(webtest.UploadRequest(t, "more.json", progressFile(t, practice.NewProfileID(), 5, start.Add(48*time.Hour))), "Accept-Language", "ru")
		if ru.Status != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(ru.Body), "Ничего не импортировано") {
			t.Errorf("in Russian: status %d\n%s", ru.Status, webtest.Excerpt(ru.Body))
		}
		// Up to the cap exactly is fine.
		if r := v.Upload("three.json", progressFile(t, practice.NewProfileID(), 3, start.Add(72*time.Hour))); r.Status != http.StatusSeeOther {
			t.Errorf("an import up to the cap: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
		}
	})
}

// TestRequestLogLevels: the request line's level follows whose fault the
// status is: INFO for the reader's (4xx), WARN for the lab keeping its
// limits (503, 429), ERROR only for the lab's own faults (500).
func TestRequestLogLevels(t *testing.T) {
	for _, tc := range []struct {
		status int
		level  string
	}{
		{200, "INFO"}, {303, "INFO"}, {400, "INFO"}, {404, "INFO"}, {413, "INFO"}, {422, "INFO"},
		{429, "WARN"}, {503, "WARN"}, {500, "ERROR"}, {502, "ERROR"},
	} {
		logs := &logBuffer{}
		s := web.ServerOver(&page.Shell{Log: logs.logger()})
		h := s.LogRequests(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tc.status) }))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
		if got := logs.String(); !strings.Contains(got, "level="+tc.level+" msg=request") || !strings.Contains(got, fmt.Sprintf("status=%d", tc.status)) {
			t.Errorf("status %d logged as %q, want level %s", tc.status, got, tc.level)
		}
	}
}

// TestRoomFullIsNotAnError: a full room and a server with no room left
// answer 503 and log a WARN naming the flag to raise, never an ERROR.
func TestRoomFullIsNotAnError(t *testing.T) {
	logs := &logBuffer{}
	hub := room.NewHub(room.Config{MaxRooms: 1, MaxStudents: 1})
	h, err := web.NewServer(web.Config{Rooms: hub, Heartbeat: -1, Logger: logs.logger()})
	if err != nil {
		t.Fatal(err)
	}
	code, _ := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	sub, err := hub.Subscribe(code) // the one student the room holds
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if r := webtest.Get(t, h, "/rooms/"+code); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("a full room: status %d", r.Status)
	}
	if r := webtest.Post(t, h, "/rooms", webtest.CrashBeforeAck()); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("a second room: status %d", r.Status)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("an ERROR was logged:\n%s", logs)
	}
	limits := logs.lines("room limit reached")
	if len(limits) != 2 || !strings.Contains(limits[0], "level=WARN") || !strings.Contains(limits[0], "limit=--max-students") ||
		!strings.Contains(limits[1], "limit=--max-rooms") {
		t.Errorf("want two WARN lines naming --max-students and --max-rooms:\n%s", logs)
	}
	for _, l := range logs.lines("request") {
		if strings.Contains(l, "status=503") && !strings.Contains(l, "level=WARN") {
			t.Errorf("a 503's request line should be a WARN: %s", l)
		}
	}
}

// TestStopSendsStoppedEvent: when the server stops, a room's event
// stream says so (event: stopped) before it ends, and the room's pages
// carry the words present.js shows then, in the page's language.
func TestStopSendsStoppedEvent(t *testing.T) {
	stop := make(chan struct{})
	h, err := web.NewServer(web.Config{Rooms: room.NewHub(room.Config{}), Heartbeat: -1, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	student := webtest.IssuedStudent(t, h, code)
	for _, tc := range []struct{ target, cookie, lang, want string }{
		{"/rooms/" + code, student, "en", "The lab has stopped, and this room with it"},
		{"/rooms/" + code, student, "ru", "Лаборатория остановлена, а с ней и эта комната"},
		{"/rooms/" + code + "/present", cookie, "en", "The lab has stopped, and this room with it"},
	} {
		r := webtest.GetAt(t, h, "example.com", tc.target+"?lang="+tc.lang, tc.cookie)
		if r.Status != http.StatusOK || !strings.Contains(r.Body, `id="room-stopped" role="alert" hidden`) ||
			!strings.Contains(html.UnescapeString(r.Body), tc.want) {
			t.Errorf("GET %s in %s: status %d; want the hidden stopped note saying %q", tc.target, tc.lang, r.Status, tc.want)
		}
	}
	s := openStream(t, ts.URL, code, "")
	defer s.close()
	s.next(t)
	close(stop)
	var last sseEvent
	for {
		ev, err := s.read()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("stream ended with %v, want EOF", err)
			}
			break
		}
		if ev.event != "" || ev.data != "" {
			last = ev
		}
	}
	if last.event != "stopped" || last.data != "{}" {
		t.Errorf("the last event before the end is %+v, want event: stopped with data {}", last)
	}
}
