package lessons_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/lessons"
)

// TestFailuresLessonCheckClaim: the failures lesson shows the story the
// checker finds for naive; the test runs the checker (as `lab check naive`
// does, to depth 2) and compares, in both languages.
func TestFailuresLessonCheckClaim(t *testing.T) {
	rep, err := check.Check(context.Background(), "naive", check.Options{Depth: 2, Runs: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() {
		t.Fatal("the checker finds no failure of naive")
	}
	found := strings.TrimSpace(rep.Failures[0].Script)
	for _, name := range []string{"content/07-failures.en.md", "content/07-failures.ru.md"} {
		src, err := lessons.Embedded().Open(name)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		buf := make([]byte, 1<<16)
		for {
			n, err := src.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		text := b.String()
		i := strings.Index(text, "```text\n")
		if i < 0 {
			t.Fatalf("%s: no text block with the checker's story", name)
		}
		block := text[i+len("```text\n"):]
		block = strings.TrimSpace(block[:strings.Index(block, "```")])
		if block != found {
			t.Errorf("%s shows\n%s\nthe checker finds\n%s", name, block, found)
		}
	}
}
