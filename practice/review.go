package practice

import (
	"cmp"
	"slices"
	"time"
)

// Spaced repetition with Leitner boxes. Every answered question sits in a
// box from 1 to Boxes and is due again after its box's interval. A miss
// sends it back to box 1, which comes back soonest; a hit moves it one box
// up. A first answer that hits lands in box 2, as if the question had
// started in box 1.
const (
	Boxes = 5
	// HitScore is the lowest score that counts as a hit. A choice question
	// scores 0 or 1; an open answer that covers 3 of 4 key points is a hit;
	// a prediction with only the balance or only the verdict right is not.
	HitScore = 0.75
)

// Interval is how long a question rests in a box before it is due again.
func Interval(box int) time.Duration {
	switch {
	case box <= 1:
		return 10 * time.Minute // still within the same sitting
	case box == 2:
		return 24 * time.Hour
	case box == 3:
		return 3 * 24 * time.Hour
	case box == 4:
		return 7 * 24 * time.Hour
	}
	return 30 * 24 * time.Hour
}

// Next is the box a question moves to after an answer scored score at time
// at, and when it is due again. box is its current box, 0 if never
// answered.
func Next(box int, score float64, at time.Time) (int, time.Time) {
	if score >= HitScore {
		box = min(max(box, 1)+1, Boxes)
	} else {
		box = 1
	}
	return box, at.Add(Interval(box))
}

// Review is the "review what I got wrong" mode: every question whose miss
// still stands (ItemState.MissedAt: answered wrong, and not yet answered
// right on a later day), oldest miss first, then the answered questions
// that are due at now, lowest box first, then the longest overdue, then by
// id. Questions never answered are not in it; they belong to the other
// modes.
func (p Progress) Review(now time.Time) []ItemState {
	var due []ItemState
	for _, it := range p.Items {
		if !it.MissedAt.IsZero() || !it.Due.After(now) {
			due = append(due, it)
		}
	}
	slices.SortFunc(due, func(a, b ItemState) int {
		return cmp.Or(cmp.Compare(missRank(a), missRank(b)), a.MissedAt.Compare(b.MissedAt),
			cmp.Compare(a.Box, b.Box), a.Due.Compare(b.Due), cmp.Compare(a.Question, b.Question))
	})
	return due
}

// missRank puts standing misses before the rest.
func missRank(it ItemState) int {
	if it.MissedAt.IsZero() {
		return 1
	}
	return 0
}
