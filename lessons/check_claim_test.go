package lessons_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
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

// TestFailuresLessonCallCrashClaim: the lesson's second story kills
// effect-first right after its second call (the credit) and calls the
// outcome a duplicate; the same crash right after unique's COMMIT (its
// fourth call) is harmless. Both languages show the same script.
func TestFailuresLessonCallCrashClaim(t *testing.T) {
	const want = "publish a amount=10000\ndeliver crash=after-call:2"
	for _, name := range []string{"content/07-failures.en.md", "content/07-failures.ru.md"} {
		blocks := fences(t, name, "text")
		if len(blocks) < 2 {
			t.Fatalf("%s: no second text block", name)
		}
		if got := strings.TrimSpace(blocks[1]); got != want {
			t.Errorf("%s shows\n%s\nwant\n%s", name, got, want)
		}
	}
	for _, c := range []struct {
		handler, script string
		verdict         sim.Verdict
	}{
		{"effect-first", want, sim.Duplicate},
		{"unique", "publish a amount=10000\ndeliver crash=after-call:4", sim.OK},
	} {
		run, err := sim.Execute(context.Background(), script.MustParse(c.script), sim.Options{Handlers: []string{c.handler}})
		if err != nil {
			t.Fatal(err)
		}
		if got := run.Results[0].Verdict; got != c.verdict {
			t.Errorf("%s on %s: %s, the lesson says %s", c.script, c.handler, got, c.verdict)
		}
	}
	// The calls are the ones the lesson names: effect-first's second is
	// the credit, unique's fourth its COMMIT.
	for _, c := range []struct {
		handler, text string
		call          int
	}{{"effect-first", "UPDATE accounts", 2}, {"unique", "COMMIT", 4}} {
		run, err := sim.Execute(context.Background(), script.MustParse("publish a amount=10000\ndeliver"), sim.Options{Handlers: []string{c.handler}})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range run.Results[0].Trace[1].Events {
			found = found || (e.Call == c.call && strings.HasPrefix(e.Text, c.text))
		}
		if !found {
			t.Errorf("%s's call %d is not %s", c.handler, c.call, c.text)
		}
	}
}

// TestAPILessonRecoveryPointClaim: the API lesson kills
// api-idempotency-key right after its seventh call, the write of the
// recovery point "charged", and says the retry charges once even with a
// provider that deduplicates nothing (the default gateway); the same
// crash right after the charge, before that write, charges twice. Both
// languages show the same script.
func TestAPILessonRecoveryPointClaim(t *testing.T) {
	const want = "request pay-1 amount=10000 crash=after-call:7"
	for _, name := range []string{"content/09-api.en.md", "content/09-api.ru.md"} {
		if got := textBlock(t, name); got != want {
			t.Errorf("%s shows\n%s\nwant\n%s", name, got, want)
		}
	}
	for _, c := range []struct {
		script  string
		verdict sim.Verdict
	}{
		{want, sim.OK},
		{"request pay-1 amount=10000 crash=after-effect", sim.Duplicate},
	} {
		run, err := sim.Execute(context.Background(), script.MustParse(c.script), sim.Options{Handlers: []string{"api-idempotency-key"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := run.Results[0].Verdict; got != c.verdict {
			t.Errorf("%s on api-idempotency-key: %s, the lesson says %s (%s)", c.script, got, c.verdict, run.Results[0].Reason)
		}
	}
	// The seventh call is the write of "charged".
	run, err := sim.Execute(context.Background(), script.MustParse("request pay-1 amount=10000"), sim.Options{Handlers: []string{"api-idempotency-key"}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range run.Results[0].Trace[0].Events {
		found = found || (e.Call == 7 && strings.HasPrefix(e.Text, "UPDATE idempotency_keys SET recovery_point"))
	}
	if !found {
		t.Error("api-idempotency-key's call 7 is not the write of its recovery point")
	}
}

// TestRealEngineClaims runs the claims marked "engine: real" on a
// throwaway PostgreSQL and Redis (skipped without them, except in CI).
func TestRealEngineClaims(t *testing.T) {
	c, err := lessons.Load(lessons.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	e, err := sim.NewEngine(context.Background(), servers.Postgres(t), servers.Redis(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	apiPresets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	presets = append(presets, apiPresets...)
	n := 0
	var all []*lessons.Lesson
	for _, lang := range lessons.Langs() {
		all = append(all, c.Lessons(lang)...)
	}
	for _, l := range all {
		for _, cl := range l.Claims {
			if cl.Engine != "real" {
				continue
			}
			n++
			p, err := sim.FindPreset(presets, cl.Preset)
			if err != nil {
				t.Fatal(err)
			}
			run, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: cl.Handlers(), Engine: e})
			if err != nil {
				t.Fatal(err)
			}
			for i, hv := range cl.Verdicts {
				if got := run.Results[i].Verdict; got != hv.Verdict {
					t.Errorf("%s:%d: %s on %s is %s on PostgreSQL, the lesson says %s", l.Source, cl.Line, hv.Handler, cl.Preset, got, hv.Verdict)
				}
			}
		}
	}
	if n < 2 {
		t.Errorf("%d claims about the real engine, want the lesson's in both languages", n)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	servers.Stop()
	os.Exit(code)
}
