package practice

import (
	"context"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
)

const pub = "publish pay-1 amount=10000\n"

// ret is the retention-too-short challenge's setup.
const ret = "inbox-retention: 24h\n"

// req is the API challenges' setup: the request the client already sent.
const req = "request pay-1 amount=10000\n"

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
		// Lesson 8, the cost: storage and memory saved by forgetting keys.
		{"retention-too-short", ret + pub + "deliver\nadvance 2d\nretry pay-1\n", map[string]string{
			// Within the 24 hours the row is still there.
			"inside the window": ret + pub + "deliver\nadvance 12h\nretry pay-1\n",
			// A fresh key makes any handler credit a retry: not this lesson.
			"fresh key": ret + "publish pay-1 amount=10000 key=fresh\nretry pay-1\n",
			"too long":  ret + pub + "deliver\nadvance 1d\nadvance 1d\nretry pay-1\n",
		}},
		{"done-key-expired", pub + "deliver\nadvance 25h\nretry pay-1\n", map[string]string{
			"before the TTL": pub + "deliver\nadvance 23h\nretry pay-1\n",
			// The gateway's ambiguous timeout is lesson 4's challenge.
			"gateway timeout": pub + "gateway timeout\ndeliver\n",
			"fresh key":       "publish pay-1 amount=10000 key=fresh\nretry pay-1\n",
		}},
		// Lesson 10, the producer.
		{"dual-write-lost", "produce pay-1 amount=10000 mode=dual-write crash=after-commit\n", map[string]string{
			// The outbox commits the order and its message together.
			"outbox": "produce pay-1 amount=10000 mode=outbox crash=after-commit\nrelay\n",
			// Surprising: publishing first never loses the payment; it
			// credits one that was rolled back (the next challenge).
			"publish first": "produce pay-1 amount=10000 mode=publish-first crash=after-publish\n",
		}},
		{"phantom-payment", "produce pay-1 amount=10000 mode=publish-first crash=after-publish\ndeliver\n", map[string]string{
			"dual write": "produce pay-1 amount=10000 mode=dual-write crash=after-commit\ndeliver\n",
			"fresh key":  "publish pay-1 amount=10000 key=fresh\nretry pay-1\n",
		}},
		{"outbox-twice", "produce pay-1 amount=10000 mode=outbox\nrelay crash=after-publish\nrelay\n", map[string]string{
			// The relay that dies before publishing leaves the row for the
			// next run, which publishes it once.
			"crash after commit": "produce pay-1 amount=10000 mode=outbox crash=after-commit\nrelay\n",
			"producer retry":     pub + "retry pay-1\n",
		}},
		// Lesson 11, brokers.
		{"commit-before", "publish pay-1 amount=100\npublish pay-2 amount=200\ndeliver-batch 2 commit=before crash=after-message:1\n", map[string]string{
			// Committing after the batch replays it: inbox absorbs that.
			"commit after": "publish pay-1 amount=100\npublish pay-2 amount=200\ndeliver-batch 2 crash=after-message:1\n",
			"dual write":   "produce pay-1 amount=10000 mode=dual-write crash=after-commit\n",
		}},
		{"redelivered-flag", pub + "retry pay-1\n", map[string]string{
			// The broker's own redelivery carries the flag, and the handler
			// looks the key up.
			"broker redelivery": pub + "deliver crash=before-ack\n",
			"fresh key":         "publish pay-1 amount=10000 key=fresh\nretry pay-1\n",
		}},
		{"offset-out-of-order", "publish pay-1 amount=100\npublish pay-2 amount=200\ndeliver crash=call:1\ndeliver\n", map[string]string{
			// The older message is skipped all the same, but its credit
			// committed before the crash: nothing is lost.
			"crash after the credit": "publish pay-1 amount=100\npublish pay-2 amount=200\ndeliver crash=before-ack\ndeliver\n",
			"batch":                  "publish pay-1 amount=100\npublish pay-2 amount=200\ndeliver-batch 2 commit=before crash=after-message:1\n",
		}},
		// Lesson 9, the API side: each starts from one request the client
		// already sent (the setup), which counts as a step.
		{"api-race-charges-twice", req + "request-concurrent pay-2 amount=10000\n", map[string]string{
			// pay-1's key is saved: its copies find it and replay the answer.
			"copies of the answered request": req + "request-concurrent pay-1\n",
			"a plain retry":                  req + "retry pay-1\n",
			// A server dying after the charge makes every handler charge
			// the retry again (api-idempotency-key too): the rules forbid it.
			"crash":    req + "request pay-2 amount=10000 crash=after-effect\nretry pay-2\n",
			"too long": req + "retry pay-1\nrequest-concurrent pay-2 amount=10000\n",
		}},
		{"api-reused-key-silent", req + "retry pay-1 amount=12000\n", map[string]string{
			"the same body": req + "retry pay-1\n",
			"another key":   req + "request pay-2 amount=12000\n",
			"too long":      req + "retry pay-1\nretry pay-1 amount=12000\n",
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
			// The empty script (the challenge's setup) never wins: every
			// goal needs a story.
			o, err = c.Check(ctx, mustParse(t, c.Setup), 0, 0)
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
	// without= names steps too: the goal reached through a gateway step
	// that the challenge rules out; Forbidden says which word.
	d, _ := FindChallenge("done-key-expired")
	o, _ = d.Check(ctx, mustParse(t, pub+"gateway timeout\ndeliver\n"), 0, 0)
	if !o.Reached || o.Forbidden != "gateway" || o.Crashed || o.Solved() {
		t.Errorf("a forbidden verb: %+v", o)
	}
	o, _ = d.Check(ctx, mustParse(t, "publish pay-1 amount=10000 key=fresh\nretry pay-1\n"), 0, 0)
	if !o.Reached || o.Forbidden != WithoutFreshKey || o.Solved() {
		t.Errorf("a forbidden fresh key: %+v", o)
	}
}

func TestChallengeContent(t *testing.T) {
	known := map[string]bool{}
	for _, h := range handlers.List() {
		known[h.Name] = true
	}
	for _, h := range handlers.APIList() {
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

func mustParse(t *testing.T, text string) *script.Script {
	t.Helper()
	sc, err := script.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
