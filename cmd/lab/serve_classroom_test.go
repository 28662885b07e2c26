package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/practice"
)

// Tests for serving a classroom: a damaged progress file, the flags that
// bound the server, and a graceful shutdown that tells the room's pages.

// TestServeDamagedProgressFile writes a real progress file, closes it,
// damages bytes in its middle, and starts serve on it: it exits with 2 and
// a message naming the file and what to do.
func TestServeDamagedProgressFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "progress.db")
	bank, err := practice.Load()
	if err != nil {
		t.Fatal(err)
	}
	store, err := practice.Open(path, bank)
	if err != nil {
		t.Fatal(err)
	}
	profile := practice.NewProfileID()
	if _, err := store.Import(context.Background(), profile, progressFile(t, bank, profile, 2000)); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	damageMiddle(t, path)

	code, out, errOut := lab(t, "", "serve", "--addr", "127.0.0.1:0", "--data", path)
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{
		"lab serve: the progress file " + path + " is damaged (quick_check: ",
		"); move it aside (for example to " + path + ".broken) and start again: a new, empty progress file will be created",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
	if out != "" {
		t.Errorf("stdout %q, want nothing", out)
	}
}

// progressFile is an export of n attempts of profile, at every question in
// turn.
func progressFile(tb testing.TB, bank *practice.Bank, profile string, n int) []byte {
	tb.Helper()
	qs := bank.Questions()
	var attempts []map[string]any
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		attempts = append(attempts, map[string]any{"id": practice.NewProfileID(), "question": qs[i%len(qs)].ID,
			"score": 1, "at": start.Add(time.Duration(i) * time.Second)})
	}
	data, err := json.Marshal(map[string]any{"format": practice.ExportFormat, "version": practice.ExportVersion,
		"profile": profile, "attempts": attempts})
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// damageMiddle overwrites the first KiB of the page in the middle of a
// closed SQLite file.
func damageMiddle(tb testing.TB, path string) {
	tb.Helper()
	const page = 4096
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	if fi.Size() < 8*page {
		tb.Fatalf("the file is %d bytes: too small to damage only its middle", fi.Size())
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xa5}, 1024), fi.Size()/2/page*page); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestServeFlagRanges: every bound of the server is a flag; a value out
// of its range is a usage error that names the flag and the range.
func TestServeFlagRanges(t *testing.T) {
	data := filepath.Join(t.TempDir(), "progress.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--grace", "0s"}, "--grace 0s is out of range: it must be longer than 0"},
		{[]string{"--grace", "-5s"}, "--grace -5s is out of range: it must be longer than 0"},
		{[]string{"--grace", "soon"}, `invalid value "soon" for flag -grace`},
		{[]string{"--budget", "0"}, "--budget 0 is out of range: it must be at least 1"},
		{[]string{"--budget", "-3"}, "--budget -3 is out of range: it must be at least 1"},
		{[]string{"--budget", "many"}, `invalid value "many" for flag -budget`},
		{[]string{"--max-replays", "0"}, "--max-replays 0 is out of range: it must be at least 1"},
		{[]string{"--replay-wait", "0s"}, "--replay-wait 0s is out of range: it must be longer than 0"},
		{[]string{"--replay-wait", "-1ms"}, "--replay-wait -1ms is out of range: it must be longer than 0"},
		{[]string{"--cache-size", "-1"}, fmt.Sprintf("--cache-size -1 is out of range: it must be from 0 (no cache) to %d (MiB)", maxCacheMB)},
		{[]string{"--cache-size", fmt.Sprint(maxCacheMB + 1)}, "--cache-size 65537 is out of range"},
		{[]string{"--cache-size", "64MB"}, `invalid value "64MB" for flag -cache-size`},
		{[]string{"--max-rooms", "0"}, "--max-rooms 0 is out of range: it must be at least 1"},
		{[]string{"--room-idle", "0s"}, "--room-idle 0s is out of range: it must be longer than 0"},
	} {
		t.Run(strings.Join(tc.args, "="), func(t *testing.T) {
			code, out, errOut := lab(t, "", append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("stdout %q, stderr %q: want %q", out, errOut, tc.want)
			}
		})
	}
	_, _, help := lab(t, "", "serve", "--help")
	for _, flag := range []string{"-grace duration", "-budget int", "-max-replays int", "-replay-wait duration", "-cache-size int"} {
		if !strings.Contains(help, flag) {
			t.Errorf("serve --help does not describe %s:\n%s", flag, help)
		}
	}
	// Good values, the cache off included: serve starts, and stops at once
	// on a cancelled context.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--quiet", "--data", data, "--grace", "1s",
		"--budget", "1", "--max-replays", "1", "--replay-wait", "10ms", "--cache-size", "0"},
		strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", code, errOut.String())
	}
}

// syncBuffer is stderr for a server running in another goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startServe runs serve on a free port until the returned cancel is
// called; it returns the lab's address (http://127.0.0.1:PORT), the
// server's stderr and the channel its exit status arrives on.
func startServe(t *testing.T, args ...string) (base string, stderr *syncBuffer, cancel context.CancelFunc, exit <-chan int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	outR, outW := io.Pipe()
	stderr = &syncBuffer{}
	done := make(chan int, 1)
	args = append([]string{"--addr", "127.0.0.1:0", "--data", filepath.Join(t.TempDir(), "progress.db")}, args...)
	go func() {
		done <- cmdServe(ctx, args, outW, stderr)
		outW.Close()
	}()
	// The first line of stdout says where the lab is open.
	lines := bufio.NewScanner(outR)
	if !lines.Scan() {
		t.Fatalf("serve printed nothing; exit %d\nstderr: %s", <-done, stderr)
	}
	first := lines.Text()
	addr, ok := strings.CutPrefix(first, "The idempotency lab is open at ")
	addr, ok2 := strings.CutSuffix(addr, "/lab (Ctrl-C to stop)")
	if !ok || !ok2 {
		t.Fatalf("first line %q: want the lab's address", first)
	}
	go io.Copy(io.Discard, outR)
	return addr, stderr, cancel, done
}

// TestServeShutdownStopsStreams starts serve on a free port, opens a room
// and a student's event stream on it, and stops the server as Ctrl-C
// does: the stream gets "event: stopped" and ends, and the log says when
// the shutdown started, what was open, when it finished and what it cut.
func TestServeShutdownStopsStreams(t *testing.T) {
	base, stderr, cancel, exit := startServe(t, "--grace", "30s")

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(base+"/rooms", url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"0"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	code, ok := strings.CutSuffix(strings.TrimPrefix(resp.Header.Get("Location"), "/rooms/"), "/present")
	if resp.StatusCode != http.StatusSeeOther || !ok {
		t.Fatalf("POST /rooms: status %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	streamCtx, stopStream := context.WithTimeout(context.Background(), time.Minute)
	defer stopStream()
	req, err := http.NewRequestWithContext(streamCtx, http.MethodGet, base+"/rooms/"+code+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("events: status %d", stream.StatusCode)
	}
	// Wait for the room's state: the stream is open and counted.
	br := bufio.NewReader(stream.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		if strings.HasPrefix(line, "data: ") {
			break
		}
	}

	cancel() // Ctrl-C
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatalf("the stream ended with %v, want its end", err)
	}
	if !strings.Contains(string(rest), "event: stopped\ndata: {}\n\n") {
		t.Errorf("the stream did not say the lab stopped; after the state it sent %q", rest)
	}
	select {
	case status := <-exit:
		if status != exitOK {
			t.Errorf("exit %d, want 0\nstderr: %s", status, stderr)
		}
	case <-time.After(time.Minute): // a failsafe, not a synchronisation
		t.Fatalf("serve did not return after the shutdown\nstderr: %s", stderr)
	}
	logs := stderr.String()
	started, finished := logLine(logs, "shutdown started"), logLine(logs, "shutdown finished")
	if !strings.Contains(started, "level=INFO") || !strings.Contains(started, "grace=30s") || !strings.Contains(started, "streams=1") ||
		!strings.Contains(started, "requests=") {
		t.Errorf("shutdown started: %q; want INFO with the grace, the requests and the one stream open\n%s", started, logs)
	}
	if !strings.Contains(finished, "level=INFO") || !strings.Contains(finished, "cut_requests=0") || !strings.Contains(finished, "cut_streams=0") ||
		!strings.Contains(finished, "took=") {
		t.Errorf("shutdown finished: %q; want INFO, nothing cut\n%s", finished, logs)
	}
	if strings.Index(logs, "shutdown started") > strings.Index(logs, "shutdown finished") {
		t.Error("the shutdown finished before it started")
	}
}

// logLine is the log line whose message is msg, or "".
func logLine(logs, msg string) string {
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, `msg="`+msg+`"`) {
			return l
		}
	}
	return ""
}

// TestInFlight: the counter tells event streams from other requests, and
// counts each only while it is served.
func TestInFlight(t *testing.T) {
	var f inFlight
	entered, release := make(chan struct{}), make(chan struct{})
	h := f.count(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		entered <- struct{}{}
		<-release
	}))
	var wg sync.WaitGroup
	for _, target := range []string{"/lab", "/rooms/ABC234/events", "/practice/q/x", "/rooms/ABC234"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, target, nil))
		}()
		<-entered
	}
	if r, s := f.requests.Load(), f.streams.Load(); r != 3 || s != 1 {
		t.Errorf("in flight: %d requests, %d streams; want 3 and 1", r, s)
	}
	close(release)
	wg.Wait()
	if r, s := f.requests.Load(), f.streams.Load(); r != 0 || s != 0 {
		t.Errorf("after: %d requests, %d streams; want 0", r, s)
	}
}

// TestServeBudgetReachesTheLab: --budget is the web's replay budget: at 1,
// a preset that needs more deliveries is refused with 422.
func TestServeBudgetReachesTheLab(t *testing.T) {
	base, stderr, cancel, exit := startServe(t, "--quiet", "--budget", "1", "--cache-size", "0")
	resp, err := http.Get(base + "/lab?preset=crash-before-ack&step=4") // a preset opens at step 0
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("GET /lab?preset=crash-before-ack&step=4 with --budget 1: status %d, want 422", resp.StatusCode)
	}
	cancel()
	if status := <-exit; status != exitOK {
		t.Errorf("exit %d\nstderr: %s", status, stderr)
	}
}
