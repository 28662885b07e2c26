package sim

import (
	"slices"

	"github.com/idempotency-lab/lab/narration"
)

// The words for verdicts, in the two languages of the lab, are narration's
// (verdict.NAME): the web's badges, the lessons' claim boxes and
// practice's verdict choices all read them through Word and Explain.

// Verdicts lists every verdict, in the order a form offers them.
func Verdicts() []Verdict {
	return []Verdict{OK, Duplicate, Lost, Poison, SilentConflict, WrongStatus}
}

// MessageVerdicts are the verdicts a run of message handlers can reach:
// all but the API's wrong-status.
func MessageVerdicts() []Verdict {
	return []Verdict{OK, Duplicate, Lost, Poison, SilentConflict}
}

// Word is the verdict's name in lang ("en" or "ru"; anything else reads
// as English), in lower case: "silent conflict", in Russian its
// narration message verdict.NAME. An unknown verdict is its own string.
func (v Verdict) Word(lang string) string {
	if !slices.Contains(Verdicts(), v) {
		return string(v)
	}
	return narration.T("verdict." + string(v)).In(lang)
}

// Explain says what the verdict means, in lang: "credited too much".
func (v Verdict) Explain(lang string) string {
	if !slices.Contains(Verdicts(), v) {
		return string(v)
	}
	return narration.T("verdict." + string(v) + ".explain").In(lang)
}
