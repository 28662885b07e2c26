package script

import (
	"strings"
	"testing"
)

// TestGoalHeader: goal: keeps a goal line (spaces collapsed, judged by
// practice.ParseGoal, not here), remembers its line, and is written back
// by the canonical form; an empty one is an error in both languages.
func TestGoalHeader(t *testing.T) {
	sc, err := Parse("title: mine\ngoal:   handler=naive   verdict=duplicate steps<=2 \npublish pay-1 amount=100\n")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Goal != "handler=naive verdict=duplicate steps<=2" || sc.GoalLine != 2 {
		t.Errorf("goal %q on line %d", sc.Goal, sc.GoalLine)
	}
	again, err := Parse(sc.String())
	if err != nil || again.Goal != sc.Goal || again.String() != sc.String() {
		t.Errorf("the canonical form %q reads back as %+v, %v", sc.String(), again, err)
	}
	if !strings.Contains(sc.String(), "goal: handler=naive verdict=duplicate steps<=2\n") {
		t.Errorf("canonical form without the goal: %q", sc.String())
	}
	if sc, _ := Parse("publish pay-1 amount=100\n"); sc.Goal != "" || strings.Contains(sc.String(), "goal:") {
		t.Errorf("a script without a goal has one: %q", sc.String())
	}
	for _, src := range []string{"goal:\n", "goal:    \npublish pay-1 amount=100\n"} {
		_, err := Parse(src)
		e, ok := err.(*Error)
		if !ok || e.Line != 1 || !strings.Contains(e.Message("en"), "goal: needs a goal line") || e.Text.Key != "script.goal-empty" || e.In("ru") == e.Error() {
			t.Errorf("%q: %v", src, err)
		}
	}
	if _, err := Parse("publish pay-1 amount=100\ngoal: handler=naive verdict=ok\n"); err == nil || !strings.Contains(err.Error(), "must come before the first step") {
		t.Errorf("a goal after a step: %v", err)
	}
}
