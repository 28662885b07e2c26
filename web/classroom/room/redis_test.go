package room

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// pair is two hubs that should behave as one: two servers on one Redis,
// or, in memory, the same hub twice. pass moves time for both the hubs'
// clock and, with Redis, the server's TTLs.
type pair struct {
	a, b  *Hub
	clock *fakeClock
	pass  func(time.Duration)
	mr    *miniredis.Miniredis // nil in memory
}

// redisHub is a hub on the Redis server at addr, closed with the test.
func redisHub(t *testing.T, addr string, cfg Config) *Hub {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	h, err := NewRedisHub(cfg, rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(); rdb.Close() })
	return h
}

func newRedisPair(t *testing.T, cfg Config) *pair {
	t.Helper()
	mr := miniredis.RunT(t)
	clock := &fakeClock{now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	cfg.Now = clock.Now
	p := &pair{clock: clock, mr: mr}
	p.a, p.b = redisHub(t, mr.Addr(), cfg), redisHub(t, mr.Addr(), cfg)
	p.pass = func(d time.Duration) { clock.Advance(d); mr.FastForward(d) }
	return p
}

func newMemPair(t *testing.T, cfg Config) *pair {
	h, clock := newTestHub(t, cfg)
	return &pair{a: h, b: h, clock: clock, pass: clock.Advance}
}

// backends runs a test on a hub in memory and on two hubs sharing a
// (miniredis) Redis server.
func backends(t *testing.T, cfg Config, test func(t *testing.T, p *pair)) {
	t.Run("memory", func(t *testing.T) { test(t, newMemPair(t, cfg)) })
	t.Run("redis", func(t *testing.T) { test(t, newRedisPair(t, cfg)) })
}

// next is the subscription's next state. With Redis, states from another
// server arrive a moment later: the timeout only keeps a broken test from
// hanging.
func next(t *testing.T, s *Subscription) State {
	t.Helper()
	select {
	case st, ok := <-s.C:
		if !ok {
			t.Fatal("the subscription closed")
		}
		return st
	case <-time.After(10 * time.Second):
		t.Fatal("no state within 10 s")
	}
	return State{}
}

// waitFor reads states until one satisfies ok, and returns it.
func waitFor(t *testing.T, s *Subscription, what string, ok func(State) bool) State {
	t.Helper()
	for {
		st := next(t, s)
		if ok(st) {
			return st
		}
		t.Logf("waiting for %s; got version %d, step %d, students %d", what, st.Version, st.Step, st.Students)
	}
}

// TestBackendsLifecycle: a room opened on one server, followed on the
// other, moves there step by step, in order.
func TestBackendsLifecycle(t *testing.T) {
	backends(t, Config{}, func(t *testing.T, p *pair) {
		code, secret := mustCreate(t, p.a)
		sub, err := p.b.Subscribe(strings.ToLower(code[:3]) + "-" + code[3:])
		if err != nil {
			t.Fatalf("join with a typed code: %v", err)
		}
		first := next(t, sub)
		if first.Step != 0 || first.Students != 1 {
			t.Fatalf("first state %+v: want step 0, 1 student", first)
		}
		last := first.Version
		for step := 1; step <= 20; step++ {
			if _, err := p.a.Update(code, secret, "", step, nil); err != nil {
				t.Fatal(err)
			}
		}
		for step := 1; step <= 20; step++ {
			got := next(t, sub)
			if got.Step != step || got.Version <= last {
				t.Fatalf("got step %d (version %d after %d), want step %d", got.Step, got.Version, last, step)
			}
			last = got.Version
		}
		if _, err := p.b.SetVerdicts(code, secret, true); err != nil {
			t.Fatal(err)
		}
		if st := next(t, sub); !st.HideVerdicts {
			t.Fatalf("after V: %+v, want the verdicts hidden", st)
		}
		sub.Close()
		if st, _ := p.a.State(code, true); st.Students != 0 {
			t.Fatalf("students after leaving = %d, want 0", st.Students)
		}
	})
}

// TestBackendsSecret: only the instructor's secret moves the room, on
// whichever server.
func TestBackendsSecret(t *testing.T) {
	backends(t, Config{}, func(t *testing.T, p *pair) {
		code, secret := mustCreate(t, p.a)
		if !p.b.IsInstructor(code, secret) || p.b.IsInstructor(code, "guess") {
			t.Fatal("IsInstructor on the other server is wrong")
		}
		for _, bad := range []string{"", "guess", strings.Repeat("0", 32)} {
			if _, err := p.b.Update(code, bad, "", 1, nil); !errors.Is(err, ErrForbidden) {
				t.Errorf("Update with secret %q: err = %v, want ErrForbidden", bad, err)
			}
			if _, err := p.b.Watch(code, bad); !errors.Is(err, ErrForbidden) {
				t.Errorf("Watch with secret %q: err = %v, want ErrForbidden", bad, err)
			}
			if _, _, err := p.b.Results(code, bad); !errors.Is(err, ErrForbidden) {
				t.Errorf("Results with secret %q: err = %v, want ErrForbidden", bad, err)
			}
		}
		if st, err := p.b.Update(code, secret, "", 1, nil); err != nil || st.Step != 1 {
			t.Fatalf("the instructor on the other server: %+v, %v", st, err)
		}
		if _, err := p.a.State("NOPE22", false); !errors.Is(err, ErrNotFound) {
			t.Fatalf("unknown room: err = %v, want ErrNotFound", err)
		}
	})
}

// TestBackendsVotes: students vote on one server; the instructor, on the
// other, hears each vote with the tally; the students are not woken for
// votes, and the reveal reaches them with the distribution.
func TestBackendsVotes(t *testing.T) {
	backends(t, Config{}, func(t *testing.T, p *pair) {
		code, secret := mustCreate(t, p.a)
		teacher, err := p.a.Watch(code, secret)
		if err != nil {
			t.Fatal(err)
		}
		next(t, teacher)
		student, err := p.b.SubscribeStudent(code, "s1")
		if err != nil {
			t.Fatal(err)
		}
		next(t, student)
		st, err := p.a.Ask(code, secret, Question{Kind: KindChoice, Text: "Which key?", Options: []string{"id", "hash"}, Answer: answer(0)})
		if err != nil {
			t.Fatal(err)
		}
		if got := next(t, student); got.Poll == nil || got.Poll.ID != st.Poll.ID || got.Poll.Answer != nil {
			t.Fatalf("student's poll %+v: want the poll, without its answer", got.Poll)
		}
		for s, a := range map[string]int64{"s1": 0, "s2": 1, "s3": 0} {
			if err := p.b.Vote(code, s, st.Poll.ID, a); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.b.Vote(code, "s4", st.Poll.ID, 7); !errors.Is(err, ErrBadAnswer) {
			t.Fatalf("an answer past the options: %v, want ErrBadAnswer", err)
		}
		got := waitFor(t, teacher, "3 votes", func(s State) bool { return s.Poll != nil && s.Poll.Votes == 3 })
		if fmt.Sprint(got.Poll.Counts) != "[{0 2} {1 1}]" {
			t.Fatalf("the instructor's tally %v, want [{0 2} {1 1}]", got.Poll.Counts)
		}
		if _, err := p.a.Reveal(code, secret); err != nil {
			t.Fatal(err)
		}
		rev := next(t, student)
		if !rev.Poll.Revealed || fmt.Sprint(rev.Poll.Counts) != "[{0 2} {1 1}]" || rev.Poll.Answer == nil {
			t.Fatalf("student after the reveal: %+v, want the distribution and the answer", rev.Poll)
		}
		res, _, err := p.b.Results(code, secret)
		if err != nil || len(res) != 1 || res[0].Status != StatusRevealed || len(res[0].Answers) != 3 {
			t.Fatalf("results on the other server: %+v, %v", res, err)
		}
	})
}

// TestBackendsPlaces: students count once on every server, however many
// streams they have; a full room refuses newcomers on either server and
// keeps its own students.
func TestBackendsPlaces(t *testing.T) {
	backends(t, Config{MaxStudents: 3}, func(t *testing.T, p *pair) {
		code, _ := mustCreate(t, p.a)
		subscribe := func(h *Hub, student string) *Subscription {
			t.Helper()
			s, err := h.SubscribeStudent(code, student)
			if err != nil {
				t.Fatalf("%q: %v", student, err)
			}
			t.Cleanup(s.Close)
			return s
		}
		subscribe(p.b, "ann")
		bob := subscribe(p.a, "bob")
		subscribe(p.a, "ann") // a second tab, on the other server
		if st, _ := p.a.State(code, false); st.Students != 2 {
			t.Fatalf("%d students, want 2 (one per student, not per stream)", st.Students)
		}
		anon := subscribe(p.b, "")
		if n, _ := p.a.Places(code); n != 0 {
			t.Fatalf("Places = %d, want 0", n)
		}
		for _, h := range []*Hub{p.a, p.b} {
			if _, err := h.SubscribeStudent(code, "cat"); !errors.Is(err, ErrRoomFull) || !strings.Contains(err.Error(), "3 of 3") {
				t.Errorf("a fourth student: %v, want ErrRoomFull, 3 of 3", err)
			}
			if ok, _ := h.HasPlace(code, "ann"); !ok {
				t.Error("a following student has no place in a full room")
			}
		}
		subscribe(p.b, "bob") // bob's second tab gets in
		anon.Close()
		bob.Close() // bob still follows on the other server
		if st, _ := p.b.State(code, false); st.Students != 2 {
			t.Fatalf("%d students after the anonymous one left, want 2", st.Students)
		}
		subscribe(p.a, "cat")
	})
}

// TestBackendsExpiry: a room left alone for its idle time is gone on
// every server; the sweep closes its subscriptions; the room's place
// among Config.MaxRooms comes free.
func TestBackendsExpiry(t *testing.T) {
	backends(t, Config{IdleTTL: time.Hour, MaxRooms: 2}, func(t *testing.T, p *pair) {
		code, secret := mustCreate(t, p.a)
		mustCreate(t, p.b)
		if _, _, err := p.b.Create("deliver", 0, nil); !errors.Is(err, ErrTooManyRooms) {
			t.Fatalf("a third room: err = %v, want ErrTooManyRooms", err)
		}
		if n := p.a.Rooms(); n != 2 {
			t.Fatalf("Rooms = %d, want 2", n)
		}
		sub, err := p.b.Subscribe(code)
		if err != nil {
			t.Fatal(err)
		}
		next(t, sub)
		p.pass(59 * time.Minute)
		if _, err := p.a.Update(code, secret, "", 1, nil); err != nil {
			t.Fatalf("a room used within its idle time must live: %v", err)
		}
		if st := next(t, sub); st.Step != 1 {
			t.Fatalf("step %d, want 1", st.Step)
		}
		p.pass(61 * time.Minute)
		for _, h := range []*Hub{p.a, p.b} {
			if _, err := h.State(code, false); !errors.Is(err, ErrNotFound) {
				t.Fatalf("idle room: err = %v, want ErrNotFound", err)
			}
		}
		if n := p.b.Sweep(); n != 2 {
			t.Fatalf("Sweep closed %d rooms, want 2", n)
		}
		if _, ok := <-sub.C; ok {
			t.Fatal("a student's channel must close when the room expires")
		}
		if n := p.a.Rooms(); n != 0 {
			t.Fatalf("Rooms = %d after the sweep, want 0", n)
		}
		mustCreate(t, p.a)
	})
}

// TestRedisInstructorHearsStudentsArrive: with Redis the instructor's
// page learns the count as students come and go on another server.
func TestRedisInstructorHearsStudentsArrive(t *testing.T) {
	p := newRedisPair(t, Config{})
	code, secret := mustCreate(t, p.a)
	teacher, err := p.a.Watch(code, secret)
	if err != nil {
		t.Fatal(err)
	}
	next(t, teacher)
	s, err := p.b.SubscribeStudent(code, "ann")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, teacher, "1 student", func(st State) bool { return st.Students == 1 })
	s.Close()
	waitFor(t, teacher, "0 students", func(st State) bool { return st.Students == 0 })
}

// TestRedisCrashedServerStopsCounting: the places of a server that stops
// renewing them lapse; a live server's do not.
func TestRedisCrashedServerStopsCounting(t *testing.T) {
	p := newRedisPair(t, Config{MaxStudents: 2})
	code, _ := mustCreate(t, p.a)
	if _, err := p.a.SubscribeStudent(code, "ann"); err != nil {
		t.Fatal(err)
	}
	crashed := redisHub(t, p.mr.Addr(), Config{MaxStudents: 2, Now: p.clock.Now})
	if _, err := crashed.SubscribeStudent(code, "bob"); err != nil {
		t.Fatal(err)
	}
	crashed.Close() // no more renewals; its subscription is never closed
	if _, err := p.b.SubscribeStudent(code, "cat"); !errors.Is(err, ErrRoomFull) {
		t.Fatalf("cat: %v, want ErrRoomFull", err)
	}
	for range 3 { // 30 s past the crash, in steps shorter than placeTTL
		p.pass(placeTTL / 3)
		p.a.renewPlaces()
		p.b.renewPlaces()
	}
	p.pass(time.Second)
	st, err := p.b.State(code, false)
	if err != nil || st.Students != 1 {
		t.Fatalf("%d students, %v; want 1: ann, whose server renews her place", st.Students, err)
	}
	if _, err := p.b.SubscribeStudent(code, "cat"); err != nil {
		t.Fatalf("bob's place should have come free: %v", err)
	}
}

// TestRedisSlowStudentIsDropped: a student on the other server who falls
// Buffer states behind is let go, and gives up the place.
func TestRedisSlowStudentIsDropped(t *testing.T) {
	p := newRedisPair(t, Config{Buffer: 2})
	code, secret := mustCreate(t, p.a)
	// The instructor watches from a third server, with room to spare.
	teacher, err := redisHub(t, p.mr.Addr(), Config{Now: p.clock.Now}).Watch(code, secret)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := p.b.Subscribe(code) // holds the first state, never reads
	if err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= 5; step++ {
		if _, err := p.a.Update(code, secret, "", step, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The drop gives up the place, and the instructor hears of it.
	waitFor(t, teacher, "the slow student dropped", func(st State) bool { return st.Step >= 3 && st.Students == 0 })
	n := 0
	for range slow.C {
		n++
	}
	if n != 2 {
		t.Fatalf("slow student received %d states before being dropped, want 2", n)
	}
	if st, _ := p.a.State(code, false); st.Students != 0 {
		t.Fatalf("%d students after the drop, want 0", st.Students)
	}
}

// TestRedisUnreachable: a hub needs its Redis server to answer.
func TestRedisUnreachable(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: time.Second, MaxRetries: -1})
	defer rdb.Close()
	if _, err := NewRedisHub(Config{}, rdb); err == nil || !strings.Contains(err.Error(), "rooms in Redis") {
		t.Fatalf("err = %v, want a rooms in Redis error", err)
	}
}

// TestRedisStudentKey: every server signs students' ids with one key; in
// memory there is none to share.
func TestRedisStudentKey(t *testing.T) {
	p := newRedisPair(t, Config{})
	if k := p.a.StudentKey(); len(k) != 32 || string(k) != string(p.b.StudentKey()) {
		t.Fatalf("keys %x and %x: want one 32-byte key", k, p.b.StudentKey())
	}
	if NewHub(Config{}).StudentKey() != nil {
		t.Fatal("a hub in memory has no shared key")
	}
}
