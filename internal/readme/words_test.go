package readme

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestEngineWritesNoWords: words live in one layer. The engine (sim),
// the script language (script) and the real brokers' adapters (brokers)
// name a message by key and arguments, and package narration writes it
// in English and Russian; so no Russian appears in their code (tests may
// spell the Russian they expect). A Russian word found here is a message
// that belongs in narration.
func TestEngineWritesNoWords(t *testing.T) {
	for _, dir := range []string{"sim", "script", "brokers"} {
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
			for i, line := range strings.Split(string(b), "\n") {
				if strings.ContainsFunc(line, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) {
					rel, _ := filepath.Rel(root, f)
					t.Errorf("%s:%d: Russian in the engine's code: move the words to package narration: %s", rel, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}
