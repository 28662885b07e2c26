package sim

import "testing"

// TestVerdictWords: every verdict has its words in both languages, and
// the list of verdicts is the set the oracle gives.
func TestVerdictWords(t *testing.T) {
	if len(Verdicts()) != len(verdictText) {
		t.Fatalf("%d verdicts listed, %d described", len(Verdicts()), len(verdictText))
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
