package lessons

import (
	"regexp"
	"strings"
	"testing"
)

// TestPlanFence: lesson 8 shows SQLite's own plan for statemachine, made
// by the lab, in both languages; its expect lines are claims the loader
// checks (statemachine's UPDATE of the order is a SCAN).
func TestPlanFence(t *testing.T) {
	for _, lang := range []string{"en", "ru"} {
		l := mustLesson(t, mustLoad(t, "."), "cost", lang)
		// The block's text, without the highlighter's spans.
		html := regexp.MustCompile(`<span[^>]*>|</span>`).ReplaceAllString(string(l.HTML), "")
		for _, w := range []string{`<figure class="plan" id="plan-statemachine">`, "WHERE id = ? AND status = ?\n  └─ SCAN orders\n",
			"└─ SEARCH accounts USING INDEX", "EXPLAIN QUERY PLAN"} {
			if !strings.Contains(html, w) {
				t.Errorf("%s: the lesson lacks %q", lang, w)
			}
		}
	}
}

// A plan fence that names no handler, one without SQL, an expect line the
// plan does not bear out, or a line that is not expect: fails the load,
// naming the line and what the engine says.
func TestPlanFenceErrors(t *testing.T) {
	for _, tc := range []struct{ fence, want string }{
		{"", "a plan fence names a handler"},
		{"nope", `plan: unknown handler "nope"; valid handlers: naive,`},
		{"setnx", "setnx runs no SQL"},
		{"statemachine\nexpect: SEARCH orders", `no step of statemachine's plans starts with "SEARCH orders"; the engine says:`},
		{"statemachine\nSCAN orders", `want expect: STEP`},
		{"statemachine\nexpect:", `want expect: STEP`},
	} {
		e := &errList{file: "x.md"}
		var lines []fenceLine
		for i, s := range strings.Split(tc.fence, "\n") {
			lines = append(lines, fenceLine{s, 10 + i})
		}
		if b, ok := planFence(lines, 9, "en", e); ok || b != nil {
			t.Errorf("%q: accepted", tc.fence)
			continue
		}
		if len(e.errs) == 0 || !strings.Contains(e.errs[0].Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.fence, e.errs, tc.want)
		}
	}
}
