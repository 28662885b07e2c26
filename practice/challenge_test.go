package practice

import (
	"context"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
)

const pub = "publish pay-1 amount=10000\n"

// TestChallenges runs, for every challenge, a script that solves it and
// scripts that must not count, on the real engine.
func TestChallenges(t *testing.T) {
	cases := []struct {
		id       string
		solution string
		// misses are scripts that do not solve the challenge, and why.
		misses map[string]string
	}{
		{"naive-twice", pub + "deliver crash=before-ack\n", map[string]string{
			// Surprising: a crash before the effect is no duplicate; the
			// settlement redelivers and the one credit is right.
			"crash before effect": pub + "deliver crash=before-effect\n",
			"too long":            pub + "deliver crash=before-ack\nredeliver\n",
		}},
		{"broker-id-is-not-a-key", pub + "retry pay-1\n", map[string]string{
			// A crash redelivers the same transport id, which broker-key
			// recognises; and crashing is against this challenge's rules.
			"crash": pub + "deliver crash=before-ack\n",
		}},
		{"unique-error-dlq", pub + "deliver crash=before-ack\n", map[string]string{
			"one clean delivery": pub + "deliver\n",
		}},
		{"check-then-insert-race", pub + "deliver-concurrent same\n", map[string]string{
			// Two different messages to two workers do not race on one key.
			"two messages": pub + "deliver-concurrent\n",
		}},
		{"setnx-loses", pub + "deliver crash=before-effect\n", map[string]string{
			// After the effect the charge happened: the stuck claim then
			// only skips a copy that needed skipping.
			"crash after effect": pub + "deliver crash=after-effect\n",
		}},
		{"setnx-gateway-twice", pub + "gateway timeout\ndeliver\n", map[string]string{
			// A gateway that is down charges nothing, so the retry is the
			// first charge, not the second.
			"gateway down": pub + "gateway down\ndeliver\n",
			"crash":        pub + "deliver crash=after-effect\n",
		}},
		{"statemachine-silent", pub + "change-payload pay-1 amount=15000\n", map[string]string{
			"same amount": pub + "retry pay-1\n",
		}},
		{"inbox-quarantine", pub + "deliver\nchange-payload pay-1 amount=15000\ndeliver\n", map[string]string{
			"a plain repeat": pub + "deliver crash=before-ack\n",
		}},
		{"effect-first-twice", pub + "deliver crash=after-effect\n", map[string]string{
			"crash before ack": pub + "deliver crash=before-ack\n",
		}},
		{"marker-first-loses", pub + "deliver crash=before-effect\n", map[string]string{
			"crash after effect": pub + "deliver crash=after-effect\n",
		}},
	}
	ctx := context.Background()
	seen := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			c, err := FindChallenge(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			seen[tc.id] = true
			sc := mustParse(t, tc.solution)
			o, err := c.Check(ctx, sc, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !o.Solved() {
				t.Errorf("solution not accepted: %+v (verdict %s)", o, o.Result.Verdict)
			}
			// The empty script never wins: every goal needs a story.
			o, err = c.Check(ctx, mustParse(t, ""), 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if o.Solved() || o.Reached {
				t.Errorf("the empty script reaches the goal: %+v", o)
			}
			for why, script := range tc.misses {
				o, err := c.Check(ctx, mustParse(t, script), 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				if o.Solved() {
					t.Errorf("%s: solved by %q", why, script)
				}
			}
		})
	}
	for _, c := range Challenges() {
		if !seen[c.ID] {
			t.Errorf("challenge %s has no test case", c.ID)
		}
	}
}

// TestChallengeRules checks the two rules besides the goal: the step limit
// and the ban on crashes, and that Judge counts only the steps shown.
func TestChallengeRules(t *testing.T) {
	ctx := context.Background()
	c, _ := FindChallenge("naive-twice")
	long := mustParse(t, pub+"deliver crash=before-ack\nredeliver\n")
	o, err := c.Check(ctx, long, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Reached || !o.TooLong || o.Solved() {
		t.Errorf("3 steps on a 2-step challenge: %+v", o)
	}
	// The same script looked at after its 2nd step is solved.
	if o, _ = c.Check(ctx, long, 2, 0); !o.Solved() {
		t.Errorf("the first 2 steps: %+v", o)
	}
	g, _ := FindChallenge("setnx-gateway-twice")
	o, _ = g.Check(ctx, mustParse(t, pub+"gateway timeout\ndeliver crash=before-ack\n"), 0, 0)
	if !o.Reached || !o.Crashed || o.Solved() {
		t.Errorf("a crash in a no-crash challenge: %+v", o)
	}
}

func TestChallengeContent(t *testing.T) {
	known := map[string]bool{}
	for _, h := range handlers.List() {
		known[h.Name] = true
	}
	ids := map[string]bool{}
	for _, c := range Challenges() {
		if ids[c.ID] {
			t.Errorf("challenge id %s twice", c.ID)
		}
		ids[c.ID] = true
		for _, tx := range []Text{c.Title, c.Goal, c.Hint} {
			if tx.EN == "" || tx.RU == "" {
				t.Errorf("%s: a text lacks a language: %+v", c.ID, tx)
			}
		}
		if !known[c.Handler] || len(c.Handlers) == 0 || c.Handlers[0] != c.Handler {
			t.Errorf("%s: handler %q must be known and shown first in %v", c.ID, c.Handler, c.Handlers)
		}
		for _, h := range c.Handlers {
			if !known[h] {
				t.Errorf("%s: unknown handler %s", c.ID, h)
			}
		}
		if c.MaxSteps < 1 || c.Won == nil || c.Topic == "" {
			t.Errorf("%s: incomplete", c.ID)
		}
	}
	if _, err := FindChallenge("nope"); err == nil || !strings.Contains(err.Error(), "naive-twice") {
		t.Errorf("unknown id: %v", err)
	}
}

func mustParse(t *testing.T, text string) *sim.Script {
	t.Helper()
	sc, err := sim.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
