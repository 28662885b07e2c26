package lessons

import (
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
)

// FuzzLesson feeds arbitrary lesson files to the front-matter, fence and
// Markdown pipeline. It must never panic; an error must name the file; and
// a lesson that loads must carry no markup of its own into the page.
// The seeds are in testdata/fuzz/FuzzLesson.
func FuzzLesson(f *testing.F) {
	presets, err := sim.Presets()
	if err != nil {
		f.Fatal(err)
	}
	b := newBuilder(presetsByName(presets), handlerNames(handlers.List()), handlers.Source)
	const name = "content/01-fuzz.en.md"
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := b.lesson(name, data)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, name+":") {
					t.Fatalf("error line does not name the file: %q", line)
				}
			}
			return
		}
		html := strings.ToLower(string(l.HTML))
		for _, bad := range []string{"<script", "<iframe", "<style", "<object", `href="javascript:`, `src="javascript:`} {
			if strings.Contains(html, bad) {
				t.Fatalf("HTML contains %q:\n%s", bad, l.HTML)
			}
		}
		for _, c := range l.Claims {
			if c.Preset == "" || len(c.Verdicts) == 0 {
				t.Fatalf("accepted an incomplete claim %+v", c)
			}
		}
		if l.ReadingMinutes < 1 {
			t.Fatalf("ReadingMinutes = %d", l.ReadingMinutes)
		}
	})
}
