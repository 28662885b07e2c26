package practice

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/script"
)

// TestChallengeSolutions: every challenge has a solution, it starts from
// the challenge's setup, and the engine says it solves the challenge
// within its rules. No challenge is unsolvable, and none shows a wrong
// solution.
func TestChallengeSolutions(t *testing.T) {
	ctx := context.Background()
	for _, c := range Challenges() {
		t.Run(c.ID, func(t *testing.T) {
			if c.Solution == "" {
				t.Fatal("no solution")
			}
			sc := mustParse(t, c.Solution)
			if sc.String() != c.Solution {
				t.Errorf("the solution is not in canonical form:\n%s", c.Solution)
			}
			setup := mustParse(t, c.Setup)
			if len(sc.Steps) <= len(setup.Steps) {
				t.Fatalf("the solution adds no step to the setup")
			}
			head := *sc
			head.Steps = head.Steps[:len(setup.Steps)]
			if head.String() != setup.String() {
				t.Errorf("the solution does not start from the setup:\n%s\nwant a start of:\n%s", head.String(), setup.String())
			}
			o, err := c.Check(ctx, sc, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !o.Solved() {
				t.Errorf("the solution does not solve it: %+v (verdict %s)", o, o.Result.Verdict)
			}
			// The store would accept it as a solve too.
			if err := VerifySolve(ctx, Solve{Challenge: c.ID, Steps: len(sc.Steps), Script: c.Solution, At: day}); err != nil {
				t.Errorf("VerifySolve: %v", err)
			}
		})
	}
}

// TestSharedChallenge: a goal: header makes a challenge of any script,
// judged like a file's; a goal line that cannot be read, or whose handler
// serves the other side, is a *GoalError naming the problem in both
// languages.
func TestSharedChallenge(t *testing.T) {
	ctx := context.Background()
	c, err := SharedChallenge("handler=setnx verdict=lost steps<=2", mustParse(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Shared || c.ID != "" || c.Solution != "" || c.Handler != "setnx" || c.MaxSteps != 2 || c.API {
		t.Errorf("shared challenge %+v", c)
	}
	for _, tc := range []struct {
		script string
		solved bool
	}{
		{pub + "deliver crash=before-effect\n", true},
		{pub + "deliver\n", false},
		{pub + "deliver\ndeliver crash=before-effect\n", false}, // nothing left to lose
	} {
		o, err := c.Check(ctx, mustParse(t, tc.script), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if o.Solved() != tc.solved {
			t.Errorf("%q: solved %v, want %v (%+v)", tc.script, o.Solved(), tc.solved, o)
		}
	}
	// Without steps<=N there is no limit: a long script is not too long.
	free, err := SharedChallenge("handler=naive verdict=duplicate", mustParse(t, pub))
	if err != nil {
		t.Fatal(err)
	}
	if o, err := free.Check(ctx, mustParse(t, pub+"deliver\nadvance 1h\nretry pay-1\ndeliver crash=before-ack\n"), 0, 0); err != nil || o.TooLong {
		t.Errorf("no limit: %+v, %v", o, err)
	}
	if api, err := SharedChallenge("handler=api-naive verdict=duplicate", mustParse(t, req)); err != nil || !api.API {
		t.Errorf("an API goal on an API script: %+v, %v", api, err)
	}
	// The script of no steps is either side's start.
	if api, err := SharedChallenge("handler=api-naive verdict=duplicate", mustParse(t, "title: mine\n")); err != nil || !api.API {
		t.Errorf("an API goal on the empty script: %+v, %v", api, err)
	}

	for _, tc := range []struct {
		name, line string
		script     string
		en, ru     string
	}{
		{"empty", " ", "", "the goal is empty", "цель пуста"},
		{"unknown verdict", "handler=naive verdict=twice", "", "verdict=twice: unknown verdict; valid verdicts: ok, duplicate", "verdict=twice: нет такого вердикта; есть: ok, duplicate"},
		{"unknown handler", "handler=magic verdict=ok", "", "handler=magic: unknown handler", "handler=magic: нет такого обработчика"},
		{"unknown term", "handler=naive colour=red", "", `unknown term "colour"`, `неизвестное условие "colour"`},
		{"no operator", "handler=naive duplicate", "", `term "duplicate" has no operator`, `в условии "duplicate" нет оператора`},
		{"no condition", "handler=naive steps<=2", "", "no condition on the outcome", "нет условия на исход"},
		{"no handler", "verdict=duplicate", "", "the goal names no handler", "не назван обработчик"},
		{"bad steps", "handler=naive verdict=ok steps<=0", "", "steps<=0: not a whole number from 1 to 1000", "steps<=0: не целое число от 1 до 1000"},
		{"bad without", "handler=naive verdict=ok without=fly", "", `"fly" is neither crash`, `"fly" — не crash`},
		{"bad measure value", "handler=naive dlq>=lots", "", `"lots" is neither a whole number`, `"lots" — не целое число от 0`},
		{"an API handler on messages", "handler=api-naive verdict=duplicate", pub, "handler=api-naive serves API requests", "handler=api-naive обслуживает запросы к API"},
		{"a message handler on requests", "handler=naive verdict=duplicate", req, "handler=naive handles messages, and this script sends API requests", "handler=naive обрабатывает сообщения"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := SharedChallenge(tc.line, mustParse(t, tc.script))
			var ge *GoalError
			if !errors.As(err, &ge) {
				t.Fatalf("err = %v (%T), want a *GoalError", err, err)
			}
			if !strings.Contains(ge.In("en"), tc.en) || !strings.Contains(ge.In("ru"), tc.ru) {
				t.Errorf("en %q\nru %q\nwant %q and %q", ge.In("en"), ge.In("ru"), tc.en, tc.ru)
			}
			if ge.Error() != ge.In("en") {
				t.Errorf("Error() %q is not the English", ge.Error())
			}
		})
	}
}

// The goal line in a script's header reaches SharedChallenge as sim
// keeps it.
func TestSharedChallengeFromHeader(t *testing.T) {
	sc, err := script.Parse("goal: handler=naive  verdict=duplicate steps<=2\n" + pub + "deliver crash=before-ack\n")
	if err != nil {
		t.Fatal(err)
	}
	c, err := SharedChallenge(sc.Goal, sc)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := c.Check(context.Background(), sc, 0, 0); err != nil || !o.Solved() {
		t.Errorf("%+v, %v", o, err)
	}
}
