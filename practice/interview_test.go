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
		if len(topics) != len(lessonSlugs()) {
			t.Errorf("seed %d: covers %d topics, want all %d", seed, len(topics), len(lessonSlugs()))
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
	all := b.Interview(7, 10000)
	if len(all) != len(b.Questions()) {
		t.Errorf("n beyond the bank: %d items, want all %d", len(all), len(b.Questions()))
	}
	if !slices.Equal(ids(all), ids(b.Questions())) {
		t.Error("the whole bank as an interview should come back in course order")
	}
}
