package practice

import (
	"cmp"
	"slices"
	"time"
)

// Attempt is one recorded answer: the store keeps the attempts, and all
// progress (latest scores, Leitner boxes) is computed from them, so merging
// two histories is just a union.
type Attempt struct {
	ID       string    // random, unique within a profile; makes import idempotent
	Question string    // question id
	Score    float64   // 0 to 1
	At       time.Time // when it was answered, as the caller said (millisecond precision)
}

// ItemState is where one answered question stands for a profile.
type ItemState struct {
	Question  string
	Topic     string
	Attempts  int
	LastScore float64 // the latest attempt's score: what the person knows now
	LastAt    time.Time
	// FirstScore is the first attempt's score: what the person knew before
	// trying again. The averages count it, so retrying until right does not
	// make a topic look known.
	FirstScore float64
	// MissedAt is when the question was last answered wrong, while that
	// miss still stands; zero when there is none. A miss stands until the
	// question is answered right on a later calendar day than the miss
	// (SameDay): a right answer straight after a miss, on the same day, only
	// shows it was just read. Review lists the question while it stands.
	MissedAt time.Time
	Box      int       // Leitner box, 1 to Boxes
	Due      time.Time // when the review mode asks it again
}

// TopicProgress is one progress bar: a lesson's, or the overall one.
type TopicProgress struct {
	Topic    string  // slug; "" for the overall bar
	Total    int     // questions and exercises in the topic
	Answered int     // of them, answered at least once
	Mastered int     // of them, with a latest score of at least HitScore
	Average  float64 // mean first-try score over the answered ones; 0 if none
}

// AnsweredPercent is Answered as a whole percentage of Total: the length
// of the bar.
func (t TopicProgress) AnsweredPercent() int { return percent(float64(t.Answered), t.Total) }

// ScorePercent is the sum of first-try scores as a whole percentage of
// Total: how well the whole topic was known, counting unanswered items as 0.
func (t TopicProgress) ScorePercent() int {
	return percent(t.Average*float64(t.Answered), t.Total)
}

func percent(part float64, total int) int {
	if total == 0 {
		return 0
	}
	return int(part*100/float64(total) + 0.5)
}

// Progress is a profile's standing: a bar per topic in course order, an
// overall bar, and the state of every answered question by id.
type Progress struct {
	Topics  []TopicProgress
	Overall TopicProgress
	Items   map[string]ItemState
}

// Topic returns the bar of one topic (zero if the slug is unknown).
func (p Progress) Topic(slug string) TopicProgress {
	for _, t := range p.Topics {
		if t.Topic == slug {
			return t
		}
	}
	return TopicProgress{Topic: slug}
}

// Progress folds a history of attempts, in any order, into progress.
// Attempts at questions the bank no longer has are ignored. Attempts are
// replayed in time order (ties by id) through Next, so the Leitner state is
// the same whichever device recorded them.
func (b *Bank) Progress(attempts []Attempt) Progress {
	sorted := slices.Clone(attempts)
	slices.SortFunc(sorted, func(x, y Attempt) int {
		return cmp.Or(x.At.Compare(y.At), cmp.Compare(x.ID, y.ID))
	})
	p := Progress{Items: map[string]ItemState{}}
	for _, a := range sorted {
		q, ok := b.Question(a.Question)
		if !ok {
			continue
		}
		it := p.Items[a.Question]
		it.Question, it.Topic = q.ID, q.Topic
		if it.Attempts == 0 {
			it.FirstScore = a.Score
		}
		it.Attempts++
		switch {
		case a.Score < HitScore:
			it.MissedAt = a.At
		case !it.MissedAt.IsZero() && !SameDay(it.MissedAt, a.At):
			it.MissedAt = time.Time{}
		}
		it.LastScore, it.LastAt = a.Score, a.At
		it.Box, it.Due = Next(it.Box, a.Score, a.At)
		p.Items[a.Question] = it
	}
	var overallSum float64
	for _, t := range b.topics {
		tp := TopicProgress{Topic: t.Slug}
		var sum float64
		for _, q := range b.questions {
			if q.Topic != t.Slug {
				continue
			}
			tp.Total++
			if it, ok := p.Items[q.ID]; ok {
				tp.Answered++
				sum += it.FirstScore
				if it.LastScore >= HitScore {
					tp.Mastered++
				}
			}
		}
		if tp.Answered > 0 {
			tp.Average = sum / float64(tp.Answered)
		}
		p.Topics = append(p.Topics, tp)
		p.Overall.Total += tp.Total
		p.Overall.Answered += tp.Answered
		p.Overall.Mastered += tp.Mastered
		overallSum += sum
	}
	if p.Overall.Answered > 0 {
		p.Overall.Average = overallSum / float64(p.Overall.Answered)
	}
	return p
}

// SameDay reports whether a and b fall on the same calendar day, in b's
// time zone (the caller's clock says which day it is).
func SameDay(a, b time.Time) bool {
	ay, am, ad := a.In(b.Location()).Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// FirstTries is the score of the first attempt at each of ids made at or
// after since, for the ids attempted: an interview run's result, in which
// a retry after seeing the model answer does not count. A zero since
// counts every attempt.
func FirstTries(attempts []Attempt, ids []string, since time.Time) map[string]float64 {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	first := map[string]Attempt{}
	for _, a := range attempts {
		if !want[a.Question] || a.At.Before(since) {
			continue
		}
		if f, ok := first[a.Question]; !ok || a.At.Before(f.At) || (a.At.Equal(f.At) && a.ID < f.ID) {
			first[a.Question] = a
		}
	}
	out := make(map[string]float64, len(first))
	for id, a := range first {
		out[id] = a.Score
	}
	return out
}
