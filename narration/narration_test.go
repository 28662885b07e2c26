package narration

import (
	"slices"
	"strings"
	"testing"
)

// TestBothLanguagesSayTheSame: every message written by formats has both
// languages, and they read the same arguments, so a Russian page never
// drops a key or an amount the English one shows.
func TestBothLanguagesSayTheSame(t *testing.T) {
	for _, k := range Keys() {
		m := messages[k]
		if m.write != nil {
			continue
		}
		if m.en == "" || m.ru == "" {
			t.Errorf("%s: a language is missing (en %q, ru %q)", k, m.en, m.ru)
			continue
		}
		if en, ru := argsUsed(m.en), argsUsed(m.ru); !slices.Equal(en, ru) {
			t.Errorf("%s: English reads arguments %v, Russian %v", k, en, ru)
		}
		if strings.ContainsAny(m.en, "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ") {
			t.Errorf("%s: the English text has Cyrillic: %q", k, m.en)
		}
	}
}

func TestUnknownKeyShows(t *testing.T) {
	if got := T("no.such.key", "a").In("ru"); got != `no.such.key["a"]` {
		t.Errorf("got %q", got)
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "many"}, {1, "one"}, {2, "few"}, {4, "few"}, {5, "many"}, {11, "many"}, {12, "many"}, {14, "many"}, {21, "one"}, {22, "few"}, {25, "many"}, {111, "many"}, {101, "one"}} {
		if got := Plural("ru", c.n, "one", "few", "many"); got != c.want {
			t.Errorf("ru %d: %s, want %s", c.n, got, c.want)
		}
	}
	if Plural("en", 1, "one", "few", "many") != "one" || Plural("en", 2, "one", "few", "many") != "many" {
		t.Error("English plural")
	}
}

func TestArgsUsed(t *testing.T) {
	if got := argsUsed("%[2]s then %s, %[1]s"); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("got %v", got)
	}
}
