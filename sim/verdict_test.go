package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/narration"
)

// TestVerdictWords: every verdict has its words in both languages, and
// the list of verdicts is the set the oracle gives.
func TestVerdictWords(t *testing.T) {
	var described []Verdict
	for _, k := range narration.Keys() {
		if v, ok := strings.CutPrefix(k, "verdict."); ok && !strings.HasSuffix(v, ".explain") {
			described = append(described, Verdict(v))
		}
	}
	if listed := slices.Sorted(slices.Values(Verdicts())); !slices.Equal(listed, described) {
		t.Fatalf("verdicts listed %v, described %v", listed, described)
	}
	for _, v := range Verdicts() {
		for _, lang := range []string{"en", "ru"} {
			if v.Word(lang) == "" || v.Explain(lang) == "" || v.Word(lang) == string(v) && lang == "ru" {
				t.Errorf("%s in %s: %q, %q", v, lang, v.Word(lang), v.Explain(lang))
			}
		}
	}
	if got := Duplicate.Word("ru"); got != "дубль" {
		t.Errorf("Duplicate.Word(ru) = %q", got)
	}
	if got := Verdict("odd").Word("en"); got != "odd" {
		t.Errorf("an unknown verdict's word: %q", got)
	}
}
