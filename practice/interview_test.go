package practice

import (
	"slices"
	"strings"
	"testing"
)

func ids(qs []Question) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.ID
	}
	return out
}

func TestInterview(t *testing.T) {
	b := mustLoad(t)
	distinct := map[string]bool{}
	for seed := uint64(0); seed < 50; seed++ {
		qs := b.Interview(seed, 0)
		if len(qs) != InterviewSize {
			t.Fatalf("seed %d: %d items, want %d", seed, len(qs), InterviewSize)
		}
		if again := b.Interview(seed, 0); !slices.Equal(ids(again), ids(qs)) {
			t.Fatalf("seed %d: not deterministic: %v then %v", seed, ids(qs), ids(again))
		}
		topics, kinds, seen := map[string]bool{}, map[Kind]int{}, map[string]bool{}
		last := -1
		for _, q := range qs {
			if seen[q.ID] {
				t.Errorf("seed %d: %s twice", seed, q.ID)
			}
			seen[q.ID] = true
			topics[q.Topic] = true
			kinds[q.Kind]++
			if i := b.byID[q.ID]; i < last {
				t.Errorf("seed %d: not in course order: %v", seed, ids(qs))
			} else {
				last = i
			}
		}
		// One item per topic until the topics run out: with more topics
		// than items (a coding exercise takes the last), each item is
		// another topic.
		if want := min(InterviewSize-1, len(lessonSlugs())); len(topics) < want {
			t.Errorf("seed %d: covers %d topics, want at least %d", seed, len(topics), want)
		}
		if kinds[KindChoice] == 0 || kinds[KindOpen] == 0 || kinds[KindPredict] == 0 {
			t.Errorf("seed %d: kinds %v, want a mix of all three", seed, kinds)
		}
		distinct[strings.Join(ids(qs), ",")] = true
	}
	if len(distinct) < 40 {
		t.Errorf("50 seeds gave only %d different interviews", len(distinct))
	}
}

func TestInterviewSizes(t *testing.T) {
	b := mustLoad(t)
	if got := len(b.Interview(7, 3)); got != 3 {
		t.Errorf("n=3: %d items", got)
	}
	// Beyond the bank: every question, and one coding exercise (an
	// interview has at most one), in course order.
	all := b.Interview(7, 10000)
	var want []Question
	code := 0
	for _, q := range b.Questions() {
		if q.Kind == KindCode {
			code++
			if !slices.ContainsFunc(all, func(p Question) bool { return p.ID == q.ID }) {
				continue
			}
		}
		want = append(want, q)
	}
	if code == 0 {
		t.Fatal("the bank has no coding exercise")
	}
	if len(all) != len(want) || len(want) != len(b.Questions())-code+1 {
		t.Errorf("n beyond the bank: %d items, want the %d questions and one coding exercise", len(all), len(b.Questions())-code)
	}
	if !slices.Equal(ids(all), ids(want)) {
		t.Error("the whole bank as an interview should come back in course order")
	}
	// Every 10-item interview has exactly one coding exercise.
	for seed := range uint64(30) {
		n := 0
		for _, q := range b.Interview(seed, 0) {
			if q.Kind == KindCode {
				n++
			}
		}
		if n != 1 {
			t.Errorf("seed %d: %d coding exercises", seed, n)
		}
	}
}
