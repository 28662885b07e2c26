package readme

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestEngineWritesNoWords: words live in one layer. The engine (sim), the
// script language (script), the real brokers' adapters (brokers), the
// checker (check), the cost charts (cost), the lessons' renderer
// (lessons), the practice (practice), the timeline (web/labview/timeline)
// and the pages' shell (web/page) name a message
// by key and arguments, and package narration, or a web part's message
// files, writes it in English and Russian; so no Russian appears in their
// code (tests may spell the Russian they expect), but for what
// wordsAllowed lists. A Russian word found here is a message that belongs
// in narration or in a part's messages/ru.json.
func TestEngineWritesNoWords(t *testing.T) {
	used := map[string]bool{}
	for _, dir := range []string{"sim", "script", "brokers", "check", "cost", "lessons", "practice", "web/labview/timeline", "web/page"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, f)
			rel = filepath.ToSlash(rel)
			for i, line := range strings.Split(string(b), "\n") {
				rest := line
				for _, a := range wordsAllowed[rel] {
					if strings.Contains(rest, a) {
						used[rel+" "+a] = true
						rest = strings.ReplaceAll(rest, a, "")
					}
				}
				if strings.ContainsFunc(rest, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) {
					t.Errorf("%s:%d: Russian in %s's code: move the words to package narration or the part's message files: %s", rel, i+1, dir, strings.TrimSpace(line))
				}
			}
		}
	}
	// An allowance nothing needs any more goes, so the list stays the
	// exceptions there are.
	for file, allowed := range wordsAllowed {
		for _, a := range allowed {
			if !used[file+" "+a] {
				t.Errorf("wordsAllowed: %s no longer has %q: drop it from the list", file, a)
			}
		}
	}
}

// wordsAllowed is the Russian a file that TestEngineWritesNoWords reads
// may hold, because it is code or a name, not words the lab writes.
var wordsAllowed = map[string][]string{
	// Fold treats ё as е, as Russian readers do when they search: a rule
	// about two letters (code and its comments), not words.
	"lessons/lessons.go": {"ё", "е"},
	// The language switch names each language in itself, so a reader who
	// cannot read the page's language still finds their own: a name, the
	// same on every page.
	"web/page/view.go": {"Русский"},
	// The currency marks a person may type around an amount (руб., р.):
	// what ParseMoney reads, not what the lab writes.
	"practice/money.go": {"руб", "р"},
	// VerdictLabel's comment quotes the Russian badge word it shows (the
	// word itself is narration's verdict.poison).
	"practice/grade.go": {"«зацикливание»"},
}
