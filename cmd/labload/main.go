// Command labload measures the lab under load, on this machine: it starts
// a lab server on a free 127.0.0.1 port, drives it with many concurrent
// clients for a bounded time, and prints latencies, errors and the
// server's peak memory. `make load` runs every case; the README keeps the
// figures.
//
//	labload [-lab bin/lab] [-case all|lab|room|expensive] [-duration 30s]
//	        [-clients 200] [-students 300] [-heavy 20] [-redis URL]
//	        [-- extra lab serve flags]
//
// With -redis the room case runs across two lab servers that keep their
// rooms in that Redis (lab serve --redis URL): the instructor on the
// first, the students spread over both. For example, with a redis-server
// of your own on port 6390:
//
//	make load LOADFLAGS='-case room -duration 10s -students 100 -redis redis://127.0.0.1:6390/0'
//
// Everything stays on the loopback interface, and every case stops after
// -duration (at most 30 s).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idempotency-lab/lab/link"
)

func main() {
	lab := flag.String("lab", "bin/lab", "the lab binary to start")
	which := flag.String("case", "all", "which case to run: all, lab, room or expensive")
	duration := flag.Duration("duration", 30*time.Second, "how long each case runs (at most 30s)")
	clients := flag.Int("clients", 200, "concurrent clients in the lab case")
	students := flag.Int("students", 300, "students following the room in the room case")
	heavy := flag.Int("heavy", 20, "concurrent clients in the expensive case")
	redisURL := flag.String("redis", "", "a Redis `URL`: the room case runs across two lab servers keeping their rooms there")
	flag.Parse()
	if *duration <= 0 || *duration > 30*time.Second {
		fmt.Fprintln(os.Stderr, "labload: -duration must be more than 0 and at most 30s")
		os.Exit(2)
	}
	extra := flag.Args()
	cases := map[string]func(*server) error{
		"lab":       func(s *server) error { return labCase(s, *clients, *duration) },
		"room":      func(s *server) error { return roomCase(s, nil, *students, *duration) },
		"expensive": func(s *server) error { return expensiveCase(s, *heavy, *duration) },
	}
	names := []string{"lab", "room", "expensive"}
	if *which != "all" {
		if cases[*which] == nil {
			fmt.Fprintf(os.Stderr, "labload: unknown case %q; valid cases: all, %s\n", *which, strings.Join(names, ", "))
			os.Exit(2)
		}
		names = []string{*which}
	}
	for _, name := range names {
		// A fresh server per case, so that each peak memory figure is the
		// case's own.
		if name == "room" && *redisURL != "" {
			if err := twoServers(*lab, extra, *redisURL, *students, *duration); err != nil {
				fmt.Fprintf(os.Stderr, "labload: room across two servers: %v\n", err)
				os.Exit(1)
			}
			continue
		}
		s, err := start(*lab, extra)
		if err != nil {
			fmt.Fprintf(os.Stderr, "labload: %v\n", err)
			os.Exit(1)
		}
		err = cases[name](s)
		peak := s.peakRSS()
		s.stop()
		if err != nil {
			fmt.Fprintf(os.Stderr, "labload: %s: %v\n", name, err)
			os.Exit(1)
		}
		fmt.Printf("  server peak RSS: %d MB\n\n", peak>>20)
	}
}

// twoServers runs the room case across two lab servers sharing the rooms
// in the Redis at redisURL.
func twoServers(lab string, extra []string, redisURL string, students int, d time.Duration) error {
	extra = append(slices.Clone(extra), "--redis", redisURL)
	first, err := start(lab, extra)
	if err != nil {
		return err
	}
	defer first.stop()
	second, err := start(lab, extra)
	if err != nil {
		return err
	}
	defer second.stop()
	if err := roomCase(first, second, students, d); err != nil {
		return err
	}
	fmt.Printf("  servers' peak RSS: %d MB (first), %d MB (second)\n\n", first.peakRSS()>>20, second.peakRSS()>>20)
	return nil
}

// server is a lab process started for one case.
type server struct {
	cmd  *exec.Cmd
	base string
	dir  string
}

func start(lab string, extra []string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	dir, err := os.MkdirTemp("", "labload-")
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--addr", addr, "--quiet", "--data", filepath.Join(dir, "progress.db")}, extra...)
	cmd := exec.Command(lab, args...)
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", lab, err)
	}
	s := &server{cmd: cmd, base: "http://" + addr, dir: dir}
	for range 600 { // up to a minute for a cold start
		if resp, err := http.Get(s.base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.stop()
	return nil, errors.New("the lab did not answer /healthz within a minute")
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(s.dir)
}

// peakRSS is the server's high-water mark of resident memory (VmHWM).
func (s *server) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func newClient(jar http.CookieJar) *http.Client {
	return &http.Client{
		Jar:     jar,
		Timeout: 60 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        2000,
			MaxIdleConnsPerHost: 2000,
			IdleConnTimeout:     time.Minute,
		},
		// Redirects are followed by hand where a case needs them.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// samples collects latencies and statuses from many goroutines.
type samples struct {
	mu       sync.Mutex
	lat      []time.Duration
	statuses map[int]int
	failures int
	lastErr  error
}

func (s *samples) add(d time.Duration, status int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.statuses == nil {
		s.statuses = map[int]int{}
	}
	if err != nil {
		s.failures++
		s.lastErr = err
		return
	}
	s.lat = append(s.lat, d)
	s.statuses[status]++
}

func (s *samples) report(name string, elapsed time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lat := slices.Clone(s.lat)
	slices.Sort(lat)
	q := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	var codes []string
	for code, n := range s.statuses {
		codes = append(codes, fmt.Sprintf("%d×%d", n, code))
	}
	slices.Sort(codes)
	fmt.Printf("  %s: %d responses in %s (%.0f/s); p50 %s, p99 %s, max %s; statuses %s; transport errors %d\n",
		name, len(lat), elapsed.Round(time.Millisecond), float64(len(lat))/elapsed.Seconds(),
		ms(q(0.50)), ms(q(0.99)), ms(q(1)), strings.Join(codes, " "), s.failures)
	if s.lastErr != nil {
		fmt.Printf("    last transport error: %v\n", s.lastErr)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// get fetches a page whole and reports how long it took. It asks for gzip
// itself, as a browser does, so the transport leaves the body compressed:
// inflating it is the reader's work, not the server's, and on this shared
// machine it would slow the server being measured.
func get(c *http.Client, u string) (int, time.Duration, error) {
	t0 := time.Now()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := c.Do(req)
	if err != nil {
		return 0, 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, time.Since(t0), err
}

// labCase: many clients on the same lab page, as a class opening the link
// the instructor shared.
func labCase(s *server, clients int, d time.Duration) error {
	fmt.Printf("lab: %d concurrent clients on /lab?preset=crash-before-ack for %s\n", clients, d)
	target := s.base + link.Lab{Preset: "crash-before-ack"}.String()
	return hammer(s, clients, d, func(int) string { return target }, "lab page")
}

// hammer runs clients goroutines that fetch next(i) in a loop until d is
// over.
func hammer(s *server, clients int, d time.Duration, next func(i int) string, name string) error {
	c := newClient(nil)
	var res samples
	var n atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	t0 := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				status, lat, err := get(c, next(int(n.Add(1))))
				res.add(lat, status, err)
			}
		}()
	}
	wg.Wait()
	res.report(name, time.Since(t0))
	return nil
}

// expensiveCase: clients sending the costliest scripts the limits allow,
// each one different so that no cache can help.
func expensiveCase(s *server, clients int, d time.Duration) error {
	fmt.Printf("expensive: %d concurrent clients, each request a different costly script, for %s\n", clients, d)
	deliveries := func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "max-deliveries: 100\ngateway down\n")
		for k := range 50 {
			fmt.Fprintf(&b, "publish r%d-%d amount=%d\n", i, k, k+1)
		}
		for range 20 {
			b.WriteString("drain\ndlq-replay\n")
		}
		return b.String()
	}
	kinds := []struct {
		name, handlers string
		script         func(i int) string
	}{
		// The gateway handlers fail every delivery while the gateway is
		// down, so each message is delivered 100 times, then replayed.
		{"deliveries (50 publishes, gateway down, 20 × drain + dlq-replay, all handlers)", "all", deliveries},
		{"the same on setnx alone (the whole budget on one Redis handler)", "setnx", deliveries},
		// On all handlers this script is over the budget (setnx-token's
		// Lua scripts weigh eight deliveries each), so it runs on the core
		// handlers, the lab's default: the longest page a script can make.
		{"1,000 steps (core handlers)", "core", func(i int) string {
			var b strings.Builder
			for k := range 250 {
				fmt.Fprintf(&b, "publish s%d-%d amount=%d\ndeliver crash=before-ack\nredeliver\ndeliver\n", i, k, k+1)
			}
			return b.String()
		}},
		{"64 KiB of narration (all handlers)", "all", func(i int) string {
			var b strings.Builder
			note := strings.Repeat("narration ", 60)
			for k := 0; b.Len() < 60<<10; k++ {
				fmt.Fprintf(&b, "#en: %s\npublish n%d-%d amount=1\n", note, i, k)
			}
			return b.String()
		}},
	}
	for _, k := range kinds {
		err := hammer(s, clients, d/time.Duration(len(kinds)), func(i int) string {
			return s.base + link.Lab{Script: k.script(i), Plain: true, Handlers: []string{k.handlers}}.String()
		}, k.name)
		if err != nil {
			return err
		}
	}
	return nil
}

// roomCase: an instructor steps through a scenario while students follow
// over server-sent events; after each step every student fetches the new
// page. The figure is the time from the instructor's step to each
// student holding the new page. With a second server (rooms in Redis),
// every other student follows on that one.
func roomCase(s, second *server, students int, d time.Duration) error {
	if second != nil {
		fmt.Printf("room: %d students following an instructor for %s, across two servers sharing a Redis (half the students on the second)\n", students, d)
	} else {
		fmt.Printf("room: %d students following an instructor for %s\n", students, d)
	}
	jar, _ := cookiejar.New(nil)
	inst := newClient(jar)
	resp, err := inst.PostForm(s.base+"/rooms", url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"0"}})
	if err != nil {
		return err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	code, ok := strings.CutSuffix(strings.TrimPrefix(loc, "/rooms/"), "/present")
	if resp.StatusCode != http.StatusSeeOther || !ok {
		return fmt.Errorf("opening a room: %s, Location %q", resp.Status, loc)
	}
	roomURL := s.base + "/rooms/" + code

	type arrival struct {
		step   int
		at     time.Time
		second bool // on the second server
	}
	arrivals := make(chan arrival, students*4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var joined, joinedSecond, failed atomic.Int64
	var wg sync.WaitGroup
	for i := range students {
		onSecond := second != nil && i%2 == 1
		roomURL := roomURL
		if onSecond {
			roomURL = second.base + "/rooms/" + code
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			jar, _ := cookiejar.New(nil)
			c := newClient(jar)
			if status, _, err := get(c, roomURL); err != nil || status != http.StatusOK {
				failed.Add(1)
				return
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, roomURL+"/events", nil)
			stream := &http.Client{Jar: jar, Transport: c.Transport}
			resp, err := stream.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				failed.Add(1)
				return
			}
			defer resp.Body.Close()
			joined.Add(1)
			if onSecond {
				joinedSecond.Add(1)
			}
			sc := bufio.NewScanner(resp.Body)
			version := -1
			for sc.Scan() {
				data, ok := strings.CutPrefix(sc.Text(), "data: ")
				if !ok {
					continue
				}
				var ev struct{ Version, Step int }
				if json.Unmarshal([]byte(data), &ev) != nil {
					continue
				}
				if version >= 0 && ev.Version != version {
					// The view changed: fetch the page, as present.js does.
					if status, _, err := get(c, roomURL); err == nil && status == http.StatusOK {
						arrivals <- arrival{ev.Step, time.Now(), onSecond}
					} else {
						failed.Add(1)
					}
				}
				version = ev.Version
			}
		}()
	}
	for deadline := time.Now().Add(30 * time.Second); joined.Load()+failed.Load() < int64(students); {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d students joined", joined.Load(), students)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if second != nil {
		fmt.Printf("  %d students joined (%d on the second server), %d could not\n", joined.Load(), joinedSecond.Load(), failed.Load())
	} else {
		fmt.Printf("  %d students joined, %d could not\n", joined.Load(), failed.Load())
	}

	var perStudent, allStudents []time.Duration
	steps := []int{1, 2, 3, 4, 0}
	t0 := time.Now()
	rounds := 0
	// sawSecond: per step, how many students on the second server had it.
	var sawSecond []int
	for i := 0; time.Since(t0) < d; i++ {
		step := steps[i%len(steps)]
		sent := time.Now()
		resp, err := inst.PostForm(roomURL+"/step", url.Values{"step": {strconv.Itoa(step)}})
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			return fmt.Errorf("instructor step: %s", resp.Status)
		}
		got, gotSecond := 0, 0
		var last time.Duration
		timeout := time.After(10 * time.Second)
	wait:
		for got < int(joined.Load()) {
			select {
			case a := <-arrivals:
				if a.step != step {
					continue
				}
				got++
				if a.second {
					gotSecond++
				}
				last = a.at.Sub(sent)
				perStudent = append(perStudent, last)
			case <-timeout:
				fmt.Printf("  step %d: only %d of %d students had the page after 10 s\n", step, got, joined.Load())
				break wait
			}
		}
		allStudents = append(allStudents, last)
		sawSecond = append(sawSecond, gotSecond)
		rounds++
	}
	cancel()
	wg.Wait()
	slices.Sort(perStudent)
	slices.Sort(allStudents)
	q := func(x []time.Duration, p float64) time.Duration {
		if len(x) == 0 {
			return 0
		}
		return x[min(len(x)-1, int(p*float64(len(x))))]
	}
	fmt.Printf("  %d steps; step → a student holds the new page: p50 %s, p99 %s, max %s\n",
		rounds, ms(q(perStudent, 0.5)), ms(q(perStudent, 0.99)), ms(q(perStudent, 1)))
	fmt.Printf("  step → all %d students hold it: p50 %s, p99 %s, max %s; failed fetches %d\n",
		joined.Load(), ms(q(allStudents, 0.5)), ms(q(allStudents, 0.99)), ms(q(allStudents, 1)), failed.Load())
	if second != nil && len(sawSecond) > 0 {
		all := 0
		for _, n := range sawSecond {
			if n == int(joinedSecond.Load()) {
				all++
			}
		}
		fmt.Printf("  second server: all %d of its students had the page in %d of %d steps; fewest in a step: %d\n",
			joinedSecond.Load(), all, len(sawSecond), slices.Min(sawSecond))
	}
	return nil
}
