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
	Box       int       // Leitner box, 1 to Boxes
	Due       time.Time // when the review mode asks it again
}

// TopicProgress is one progress bar: a lesson's, or the overall one.
type TopicProgress struct {
	Topic    string  // slug; "" for the overall bar
	Total    int     // questions and exercises in the topic
	Answered int     // of them, answered at least once
	Mastered int     // of them, with a latest score of at least HitScore
	Average  float64 // mean latest score over the answered ones; 0 if none
}

// AnsweredPercent is Answered as a whole percentage of Total: the length
// of the bar.
func (t TopicProgress) AnsweredPercent() int { return percent(float64(t.Answered), t.Total) }

// ScorePercent is the sum of latest scores as a whole percentage of Total:
// how well the whole topic is known, counting unanswered items as 0.
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
		it.Attempts++
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
				sum += it.LastScore
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
