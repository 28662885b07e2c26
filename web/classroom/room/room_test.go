package room

import (
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newTestHub(t *testing.T, cfg Config) (*Hub, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	cfg.Now = clock.Now
	return NewHub(cfg), clock
}

func mustCreate(t *testing.T, h *Hub) (string, string) {
	t.Helper()
	code, secret, err := h.Create("publish pay-1 amount=100\ndeliver\n", 0, []string{"naive", "inbox"})
	if err != nil {
		t.Fatal(err)
	}
	return code, secret
}

func TestLifecycle(t *testing.T) {
	h, _ := newTestHub(t, Config{})
	code, secret := mustCreate(t, h)
	if len(code) != 6 {
		t.Fatalf("code %q: want 6 characters", code)
	}
	sub, err := h.Subscribe(strings.ToLower(code[:3]) + "-" + code[3:])
	if err != nil {
		t.Fatalf("join with a typed code: %v", err)
	}
	first := <-sub.C
	if first.Step != 0 || first.Version != 1 {
		t.Fatalf("first state %+v: want step 0, version 1", first)
	}
	for step := 1; step <= 2; step++ {
		if _, err := h.Update(code, secret, "", step, nil); err != nil {
			t.Fatal(err)
		}
		got := <-sub.C
		if got.Step != step {
			t.Fatalf("got step %d, want %d", got.Step, step)
		}
	}
	sub.Close()
	if st, _ := h.State(code, true); st.Students != 0 {
		t.Fatalf("students after leaving = %d, want 0", st.Students)
	}
}

func TestStudentCannotStep(t *testing.T) {
	h, _ := newTestHub(t, Config{})
	code, _ := mustCreate(t, h)
	for _, secret := range []string{"", "guess", strings.Repeat("0", 32)} {
		if _, err := h.Update(code, secret, "", 1, nil); !errors.Is(err, ErrForbidden) {
			t.Errorf("Update with secret %q: err = %v, want ErrForbidden", secret, err)
		}
		if _, err := h.OpenPoll(code, secret, "naive", 1); !errors.Is(err, ErrForbidden) {
			t.Errorf("OpenPoll with secret %q: err = %v, want ErrForbidden", secret, err)
		}
		if _, err := h.Reveal(code, secret); !errors.Is(err, ErrForbidden) {
			t.Errorf("Reveal with secret %q: err = %v, want ErrForbidden", secret, err)
		}
	}
	if h.IsInstructor(code, "guess") {
		t.Error("IsInstructor accepted a wrong secret")
	}
}

func TestUnknownRoom(t *testing.T) {
	h, _ := newTestHub(t, Config{})
	if _, err := h.Subscribe("NOPE22"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if _, err := h.State("NOPE22", false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

func TestExpiry(t *testing.T) {
	h, clock := newTestHub(t, Config{IdleTTL: time.Hour})
	code, secret := mustCreate(t, h)
	sub, err := h.Subscribe(code)
	if err != nil {
		t.Fatal(err)
	}
	<-sub.C
	clock.Advance(59 * time.Minute)
	if _, err := h.Update(code, secret, "", 1, nil); err != nil {
		t.Fatalf("a room used within its idle time must live: %v", err)
	}
	<-sub.C
	clock.Advance(61 * time.Minute)
	if _, err := h.State(code, false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("idle room: err = %v, want ErrNotFound", err)
	}
	if n := h.Sweep(); n != 1 {
		t.Fatalf("Sweep closed %d rooms, want 1", n)
	}
	if _, ok := <-sub.C; ok {
		t.Fatal("a student's channel must close when the room expires")
	}
}

func TestLimits(t *testing.T) {
	h, _ := newTestHub(t, Config{MaxRooms: 2, MaxStudents: 3})
	mustCreate(t, h)
	code, _ := mustCreate(t, h)
	if _, _, err := h.Create("deliver", 0, nil); !errors.Is(err, ErrTooManyRooms) {
		t.Fatalf("third room: err = %v, want ErrTooManyRooms", err)
	}
	for i := 0; i < 3; i++ {
		if _, err := h.Subscribe(code); err != nil {
			t.Fatal(err)
		}
	}
	_, err := h.Subscribe(code)
	if !errors.Is(err, ErrRoomFull) {
		t.Fatalf("fourth student: err = %v, want ErrRoomFull", err)
	}
	if !strings.Contains(err.Error(), "3 of 3") {
		t.Errorf("full-room message %q should say how many places there are", err)
	}
}

func TestPoll(t *testing.T) {
	h, _ := newTestHub(t, Config{})
	code, secret := mustCreate(t, h)
	if err := h.Vote(code, "s1", 1, 100); !errors.Is(err, ErrNoPoll) {
		t.Fatalf("vote without a poll: err = %v, want ErrNoPoll", err)
	}
	st, err := h.OpenPoll(code, secret, "naive", 2)
	if err != nil {
		t.Fatal(err)
	}
	id := st.Poll.ID
	for student, b := range map[string]int64{"s1": 100, "s2": 200, "s3": 200, "s4": 100} {
		if err := h.Vote(code, student, id, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Vote(code, "s4", id, 200); err != nil { // s4 changes their mind
		t.Fatal(err)
	}
	student, _ := h.State(code, false)
	if student.Poll.Votes != 4 || student.Poll.Counts != nil {
		t.Fatalf("student view %+v: want 4 votes and no distribution before the reveal", student.Poll)
	}
	teacher, _ := h.State(code, true)
	want := []VoteCount{{Balance: 100, Count: 1}, {Balance: 200, Count: 3}}
	if fmt.Sprint(teacher.Poll.Counts) != fmt.Sprint(want) {
		t.Fatalf("distribution %v, want %v", teacher.Poll.Counts, want)
	}
	if _, err := h.Update(code, secret, "", 2, nil); err != nil {
		t.Fatal(err)
	}
	after, _ := h.State(code, false)
	if !after.Poll.Revealed || fmt.Sprint(after.Poll.Counts) != fmt.Sprint(want) {
		t.Fatalf("after stepping onto the predicted step: %+v, want revealed with %v", after.Poll, want)
	}
	if err := h.Vote(code, "s5", id, 100); !errors.Is(err, ErrNoPoll) {
		t.Fatalf("vote after the reveal: err = %v, want ErrNoPoll", err)
	}
}

// TestManyStudentsGetEveryStepInOrder follows 200 students through 30 steps.
func TestManyStudentsGetEveryStepInOrder(t *testing.T) {
	const students, steps = 200, 30
	h, _ := newTestHub(t, Config{MaxStudents: students, Buffer: steps + 1})
	code, secret := mustCreate(t, h)
	subs := make([]*Subscription, students)
	for i := range subs {
		s, err := h.Subscribe(code)
		if err != nil {
			t.Fatal(err)
		}
		subs[i] = s
	}
	var wg sync.WaitGroup
	errs := make(chan error, students)
	for i, s := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := 0
			for st := range s.C {
				if st.Step != want {
					errs <- fmt.Errorf("student %d: got step %d, want %d", i, st.Step, want)
					return
				}
				if want == steps {
					return
				}
				want++
			}
			errs <- fmt.Errorf("student %d: channel closed at step %d", i, want)
		}()
	}
	for step := 1; step <= steps; step++ {
		if _, err := h.Update(code, secret, "", step, nil); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestSlowStudentIsDroppedNotBlocking(t *testing.T) {
	h, _ := newTestHub(t, Config{Buffer: 2})
	code, secret := mustCreate(t, h)
	slow, err := h.Subscribe(code) // holds the initial state, never reads
	if err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= 5; step++ {
		if _, err := h.Update(code, secret, "", step, nil); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for range slow.C {
		n++
	}
	if n != 2 {
		t.Fatalf("slow student received %d states before being dropped, want 2", n)
	}
	again, err := h.Subscribe(code)
	if err != nil {
		t.Fatal(err)
	}
	if st := <-again.C; st.Step != 5 {
		t.Fatalf("reconnecting student starts at step %d, want the current step 5", st.Step)
	}
}

func TestQRSVG(t *testing.T) {
	svg, err := QRSVG("http://127.0.0.1:8080/join/ABC234")
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("QR SVG is not well-formed XML: %v", err)
			}
			break
		}
	}
	if !strings.Contains(svg, "<path") {
		t.Fatal("QR SVG has no modules")
	}
}

// TestInstructorWatches: the instructor's page takes no student's place
// and hears each vote; the students are not woken for votes.
func TestInstructorWatches(t *testing.T) {
	h, _ := newTestHub(t, Config{MaxStudents: 1})
	code, secret := mustCreate(t, h)
	if _, err := h.Watch(code, "guess"); !errors.Is(err, ErrForbidden) {
		t.Fatalf("Watch with a wrong secret: err = %v, want ErrForbidden", err)
	}
	teacher, err := h.Watch(code, secret)
	if err != nil {
		t.Fatal(err)
	}
	<-teacher.C
	if n, err := h.Places(code); err != nil || n != 1 {
		t.Fatalf("Places = %d, %v; want 1: the instructor takes no place", n, err)
	}
	student, err := h.Subscribe(code)
	if err != nil {
		t.Fatalf("the one student place must be free: %v", err)
	}
	<-student.C
	if n, _ := h.Places(code); n != 0 {
		t.Fatalf("Places = %d after a student joined, want 0", n)
	}
	st, err := h.OpenPoll(code, secret, "naive", 1)
	if err != nil {
		t.Fatal(err)
	}
	<-teacher.C
	<-student.C
	if err := h.Vote(code, "s1", st.Poll.ID, 200); err != nil {
		t.Fatal(err)
	}
	got := <-teacher.C
	if got.Poll == nil || got.Poll.Votes != 1 || len(got.Poll.Counts) != 1 {
		t.Fatalf("instructor's state after a vote: %+v, want 1 vote with its count", got.Poll)
	}
	select {
	case st := <-student.C:
		t.Fatalf("a student was sent a state for a vote: %+v", st)
	default:
	}
	if _, err := h.Update(code, secret, "", 1, nil); err != nil {
		t.Fatal(err)
	}
	if st := <-student.C; st.Step != 1 || !st.Poll.Revealed || st.Students != 1 {
		t.Fatalf("student after the step: %+v, want step 1, poll revealed, 1 student", st)
	}
}

// A full room still serves the students who follow it: after each step
// every one of them fetches the page again, and a student whose stream
// reconnects keeps their place.
func TestFullRoomKeepsItsOwnStudents(t *testing.T) {
	h := NewHub(Config{MaxStudents: 2})
	code, _, err := h.Create("publish p amount=1\n", 0, []string{"naive"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := h.SubscribeStudent(code, "ann")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := h.SubscribeStudent(code, "bob")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, c := range []struct {
		student string
		want    bool
	}{{"ann", true}, {"bob", true}, {"cat", false}, {"", false}} {
		if ok, err := h.HasPlace(code, c.student); err != nil || ok != c.want {
			t.Errorf("HasPlace(%q) = %v, %v; want %v", c.student, ok, err, c.want)
		}
	}
	again, err := h.SubscribeStudent(code, "ann") // a second tab
	if err != nil {
		t.Fatalf("a following student was refused a second stream: %v", err)
	}
	defer again.Close()
	if st, _ := h.State(code, false); st.Students != 2 {
		t.Errorf("%d students counted, want 2 (one per student, not per stream)", st.Students)
	}
	if _, err := h.SubscribeStudent(code, "cat"); !errors.Is(err, ErrRoomFull) {
		t.Errorf("a third student in a room of two: %v, want ErrRoomFull", err)
	}
}
