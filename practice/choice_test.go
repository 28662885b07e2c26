package practice

import (
	"math"
	"testing"
	"unicode/utf8"
)

// extremeIsRight reports whether one option of a choice question is, in
// lang, strictly longer (longest) or strictly shorter (!longest) than every
// other option, and that option is a right one: the tell that lets a reader
// who knows nothing pick the answer by its look.
func extremeIsRight(q Question, lang string, longest bool) bool {
	best, n, right := 0, 0, false
	for i, o := range q.Options {
		l := utf8.RuneCountInString(o.Text.In(lang))
		if !longest {
			l = -l
		}
		switch {
		case i == 0 || l > best:
			best, n, right = l, 1, o.Correct
		case l == best:
			n++
		}
	}
	return n == 1 && right
}

// TestChoiceLengthGivesNothingAway: "pick the longest option" must not be a
// winning strategy, nor "pick the shortest". Picking at random, the strictly
// longest option is a right one in about a third of the bank's questions
// (the sum over questions of right options / options); the bank fails if,
// in either language, it is a right one in more than half of them. Wrong
// options must be as long and as specific as the right ones.
func TestChoiceLengthGivesNothingAway(t *testing.T) {
	b := mustLoad(t)
	for _, lang := range []string{"en", "ru"} {
		for _, longest := range []bool{true, false} {
			what := "longest"
			if !longest {
				what = "shortest"
			}
			total, hits := 0, 0
			var chance float64
			for _, q := range b.Questions() {
				if q.Kind != KindChoice {
					continue
				}
				total++
				chance += float64(len(q.Correct())) / float64(len(q.Options))
				if extremeIsRight(q, lang, longest) {
					hits++
				}
			}
			t.Logf("%s: the strictly %s option is a right one in %d of %d choice questions (by chance: %.1f)", lang, what, hits, total, chance)
			if total == 0 || 2*hits > total {
				t.Errorf("%s: the strictly %s option is a right one in %d of %d choice questions, more than half; rewrite the options so that length gives nothing away", lang, what, hits, total)
			}
		}
	}
}

// TestChoiceRightOptionNotFirst: the page shuffles the options, but the
// bank's order still shows in the form's values and in the result's
// address (?option=a), so the bank must not list a right option first
// much more often than chance would: at most two standard deviations
// above the expected count.
func TestChoiceRightOptionNotFirst(t *testing.T) {
	b := mustLoad(t)
	total, first := 0, 0
	var mean, variance float64
	for _, q := range b.Questions() {
		if q.Kind != KindChoice {
			continue
		}
		total++
		p := float64(len(q.Correct())) / float64(len(q.Options))
		mean += p
		variance += p * (1 - p)
		if q.Options[0].Correct {
			first++
		}
	}
	limit := mean + 2*math.Sqrt(variance)
	t.Logf("a right option is listed first in %d of %d choice questions (by chance: %.1f; limit %.1f)", first, total, mean, limit)
	if float64(first) > limit {
		t.Errorf("a right option is listed first in %d of %d choice questions; chance would give about %.0f", first, total, mean)
	}
}
