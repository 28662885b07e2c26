package practice

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// clock is an injected clock for schedule tests: it starts at a fixed
// instant and moves only when told.
type clock struct{ now time.Time }

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) advance(d time.Duration) time.Time { c.now = c.now.Add(d); return c.now }

func TestNext(t *testing.T) {
	at := newClock().now
	for _, tc := range []struct {
		box     int
		score   float64
		wantBox int
		wantIn  time.Duration
	}{
		{0, 0, 1, 10 * time.Minute},            // first answer, a miss
		{0, 1, 2, 24 * time.Hour},              // first answer, a hit
		{0, HitScore, 2, 24 * time.Hour},       // the threshold is a hit
		{0, 0.5, 1, 10 * time.Minute},          // half a prediction is a miss
		{1, 1, 2, 24 * time.Hour},              //
		{2, 1, 3, 3 * 24 * time.Hour},          //
		{3, 1, 4, 7 * 24 * time.Hour},          //
		{4, 1, 5, 30 * 24 * time.Hour},         //
		{Boxes, 1, Boxes, 30 * 24 * time.Hour}, // the top box stays
		{Boxes, 0, 1, 10 * time.Minute},        // a miss from the top goes to box 1
	} {
		box, due := Next(tc.box, tc.score, at)
		if box != tc.wantBox || due != at.Add(tc.wantIn) {
			t.Errorf("Next(%d, %v) = box %d due +%v; want box %d due +%v",
				tc.box, tc.score, box, due.Sub(at), tc.wantBox, tc.wantIn)
		}
	}
}

// TestReviewSchedule plays a learner's week against an injected clock: a
// miss comes back within the sitting, a hit moves it out to days, and the
// review list puts the misses first.
func TestReviewSchedule(t *testing.T) {
	b := mustLoad(t)
	c := newClock()
	var history []Attempt
	answer := func(q string, score float64) {
		history = append(history, Attempt{ID: NewProfileID(), Question: q, Score: score, At: c.now})
	}
	review := func() []string {
		var out []string
		for _, it := range b.Progress(history).Review(c.now) {
			out = append(out, it.Question)
		}
		return out
	}

	answer("dup-sources", 0)     // miss: box 1, in review at once
	answer("keys-broker-ids", 1) // hit: box 2, due tomorrow
	c.advance(time.Minute)
	answer("unique-return-nil", 0) // miss, a minute later
	if got := review(); !reflect.DeepEqual(got, []string{"dup-sources", "unique-return-nil"}) {
		t.Fatalf("right after two misses review = %v, want both, the older first", got)
	}
	c.advance(10 * time.Minute)
	answer("dup-sources", 1) // right, but on the day of the miss: it stays
	if got := review(); !reflect.DeepEqual(got, []string{"dup-sources", "unique-return-nil"}) {
		t.Fatalf("after a same-day retry review = %v", got)
	}
	c.advance(24 * time.Hour)
	// The standing misses first, oldest first, then the due keys-broker-ids (box 2).
	want := []string{"dup-sources", "unique-return-nil", "keys-broker-ids"}
	if got := review(); !reflect.DeepEqual(got, want) {
		t.Fatalf("a day later review = %v, want %v", got, want)
	}
	answer("dup-sources", 1) // right on a later day: the miss is cleared
	if got := review(); !reflect.DeepEqual(got, []string{"unique-return-nil", "keys-broker-ids"}) {
		t.Fatalf("after a next-day hit review = %v", got)
	}
	if st := b.Progress(history).Items["dup-sources"]; st.Box != 3 || !st.MissedAt.IsZero() || st.FirstScore != 0 {
		t.Fatalf("dup-sources: %+v", st)
	}
	answer("keys-broker-ids", 1) // box 3: three days
	st := b.Progress(history).Items["keys-broker-ids"]
	if st.Box != 3 || st.Due != c.now.Add(3*24*time.Hour) || st.Attempts != 2 {
		t.Fatalf("keys-broker-ids: %+v", st)
	}
	c.advance(time.Minute)
	answer("keys-broker-ids", 0.2) // a miss sends it back to box 1
	if st := b.Progress(history).Items["keys-broker-ids"]; st.Box != 1 || st.Due != c.now.Add(10*time.Minute) {
		t.Fatalf("after a miss: %+v", st)
	}
}

func TestProgress(t *testing.T) {
	b := mustLoad(t)
	at := newClock().now
	history := []Attempt{
		{ID: "A", Question: "dup-sources", Score: 0, At: at},
		{ID: "B", Question: "dup-sources", Score: 1, At: at.Add(time.Hour)}, // the latest counts
		{ID: "C", Question: "dup-explain-junior", Score: 0.5, At: at},
		{ID: "D", Question: "unique-return-nil", Score: 1, At: at},
		{ID: "E", Question: "removed-question", Score: 1, At: at}, // content that no longer exists
	}
	p := b.Progress(history)
	dup, _ := b.ByTopic("duplicates")
	uniq, _ := b.ByTopic("unique")
	if got := p.Topic("duplicates"); got.Total != len(dup) || got.Answered != 2 || got.Mastered != 1 || got.Average != 0.25 { // first tries: 0 and 0.5
		t.Errorf("duplicates: %+v", got)
	}
	if got := p.Topic("unique"); got.Total != len(uniq) || got.Answered != 1 || got.Average != 1 {
		t.Errorf("unique: %+v", got)
	}
	if got := p.Topic("cost"); got.Answered != 0 || got.Average != 0 || got.AnsweredPercent() != 0 {
		t.Errorf("cost: %+v", got)
	}
	o := p.Overall
	if o.Total != len(b.Questions()) || o.Answered != 3 || o.Mastered != 2 || o.Average != 0.5 {
		t.Errorf("overall: %+v", o)
	}
	if len(p.Topics) != len(lessonSlugs()) {
		t.Errorf("%d topic bars", len(p.Topics))
	}
	if _, ok := p.Items["removed-question"]; ok {
		t.Error("an attempt at a removed question shows up")
	}
	d := p.Topic("duplicates")
	if d.AnsweredPercent() != percent(2, d.Total) || d.ScorePercent() != percent(0.5, d.Total) {
		t.Errorf("percentages %d %d", d.AnsweredPercent(), d.ScorePercent())
	}

	// The order attempts arrive in does not matter.
	r := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		shuffled := append([]Attempt(nil), history...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if !reflect.DeepEqual(b.Progress(shuffled), p) {
			t.Fatal("progress depends on the order of the attempts")
		}
	}
}

// TestFirstTriesCount is the reported case: two questions answered wrong
// and at once retried right. Review keeps both and the average counts the
// first tries, until each is answered right on a later day.
func TestFirstTriesCount(t *testing.T) {
	b := mustLoad(t)
	c := &clock{now: time.Date(2026, 3, 1, 23, 40, 0, 0, time.UTC)}
	var history []Attempt
	answer := func(q string, score float64) {
		history = append(history, Attempt{ID: NewProfileID(), Question: q, Score: score, At: c.now})
	}
	review := func() []string {
		var out []string
		for _, it := range b.Progress(history).Review(c.now) {
			out = append(out, it.Question)
		}
		return out
	}
	answer("dup-sources", 0)
	answer("unique-return-nil", 0)
	c.advance(time.Minute)
	answer("dup-sources", 1)
	answer("unique-return-nil", 1)
	p := b.Progress(history)
	if got := review(); !reflect.DeepEqual(got, []string{"dup-sources", "unique-return-nil"}) {
		t.Fatalf("review after same-day retries = %v, want both", got)
	}
	if p.Overall.Average != 0 || p.Overall.ScorePercent() != 0 || p.Overall.Mastered != 2 {
		t.Fatalf("overall after wrong first tries: %+v", p.Overall)
	}
	c.advance(30 * time.Minute) // 00:11 the next day
	answer("dup-sources", 1)
	if got := review(); !reflect.DeepEqual(got, []string{"unique-return-nil"}) {
		t.Fatalf("review after a right answer on the next day = %v", got)
	}
	answer("unique-return-nil", 0.5) // a new miss on the next day
	c.advance(time.Hour)
	answer("unique-return-nil", 1) // right the same day as that miss: stays
	if got := review(); !reflect.DeepEqual(got, []string{"unique-return-nil"}) {
		t.Fatalf("a same-day fix of a new miss cleared it: review = %v", got)
	}
	if avg := b.Progress(history).Overall.Average; avg != 0 {
		t.Fatalf("later answers changed the first-try average to %v", avg)
	}
}

func TestSameDay(t *testing.T) {
	at := time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC)
	msk := time.FixedZone("MSK", 3*3600)
	for _, tc := range []struct {
		a, b time.Time
		want bool
	}{
		{at, at.Add(time.Minute - time.Nanosecond), true},
		{at, at.Add(time.Minute), false},
		{at, at.Add(-24 * time.Hour), false},
		// The caller's zone decides the day: 20:30 and 21:30 UTC are one
		// day in UTC, but 23:30 and 00:30 in Moscow.
		{at.Add(-3*time.Hour - 29*time.Minute), at.Add(-2*time.Hour - 29*time.Minute), true},
		{at.Add(-3*time.Hour - 29*time.Minute), at.Add(-2*time.Hour - 29*time.Minute).In(msk), false},
	} {
		if got := SameDay(tc.a, tc.b); got != tc.want {
			t.Errorf("SameDay(%v, %v) = %v", tc.a, tc.b, got)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		part  float64
		total int
		want  int
	}{{0, 0, 0}, {0, 5, 0}, {1, 3, 33}, {2, 3, 67}, {5, 5, 100}} {
		if got := percent(tc.part, tc.total); got != tc.want {
			t.Errorf("percent(%v, %d) = %d, want %d", tc.part, tc.total, got, tc.want)
		}
	}
}

// TestFirstTries: an interview counts each question's first answer in the
// run, whatever came before the run or after the first answer.
func TestFirstTries(t *testing.T) {
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return start.Add(time.Duration(min) * time.Minute) }
	attempts := []Attempt{
		{ID: "1", Question: "a", Score: 1, At: at(-60)}, // before the run: not counted
		{ID: "3", Question: "a", Score: 1, At: at(5)},   // a retry, listed first: order does not matter
		{ID: "2", Question: "a", Score: 0, At: at(2)},   // the first try in the run
		{ID: "4", Question: "b", Score: 0.5, At: at(3)},
		{ID: "5", Question: "c", Score: 1, At: at(4)}, // not in the run
	}
	got := FirstTries(attempts, []string{"a", "b", "d"}, start)
	if len(got) != 2 || got["a"] != 0 || got["b"] != 0.5 {
		t.Errorf("FirstTries = %v, want a:0 b:0.5", got)
	}
	if got := FirstTries(attempts, []string{"a"}, time.Time{}); got["a"] != 1 {
		t.Errorf("from the beginning: %v, want a:1 (the attempt an hour before)", got)
	}
}
