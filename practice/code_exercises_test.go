package practice_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
)

// Every coding exercise is gradable as shipped: its starter, interpreted
// in-process as the sandbox child would, fails the exercise's checks, and
// its model solution passes them.
func TestCodeExercises(t *testing.T) {
	b, err := practice.Load()
	if err != nil {
		t.Fatal(err)
	}
	type file struct {
		what string // "starter" or "solution"
		info handlers.Info
		pass bool // the grade it must get
	}
	var (
		qs     []practice.Question
		files  = map[string][]file{}
		topics = map[string]bool{}
	)
	// Load everything first, with stderr silenced (see quietLoad), and
	// only then grade, in parallel.
	for _, q := range b.Questions() {
		if q.Kind != practice.KindCode {
			continue
		}
		qs = append(qs, q)
		topics[q.Topic] = true
		for _, f := range []struct {
			what, src string
			pass      bool
		}{{"starter", q.Code.Starter(), false}, {"solution", q.Code.Solution(), true}} {
			parsed, err := sandbox.Parse(f.src)
			if err != nil {
				t.Fatalf("%s: %s: Parse: %v", q.ID, f.what, err)
			}
			info, err := quietLoad(parsed)
			if err != nil {
				t.Fatalf("%s: %s: Load: %v", q.ID, f.what, err)
			}
			info.Name = "yours"
			files[q.ID] = append(files[q.ID], file{f.what, info, f.pass})
		}
	}
	if len(qs) < 8 {
		t.Errorf("%d code exercises, want at least 8", len(qs))
	}
	if len(topics) < 6 {
		t.Errorf("the code exercises cover %d topics, want at least 6", len(topics))
	}
	for _, q := range qs {
		t.Run(q.ID, func(t *testing.T) {
			t.Parallel()
			ex := q.Code.Exercise
			for _, f := range files[q.ID] {
				g, err := sandbox.GradeHandler(context.Background(), f.info, ex)
				if err != nil {
					t.Fatalf("%s: %v", f.what, err)
				}
				if g.Pass != f.pass {
					t.Errorf("%s (exercises/%s): pass %v, want %v\n%s", f.what, q.Code.Files, g.Pass, f.pass, describe(g))
				}
			}
		})
	}
}

// quietLoad is sandbox.LoadHandler (a message or an API handler) with
// os.Stderr pointed at /dev/null: the interpreter keeps the stderr it was
// created with and writes a line to it each time a panic unwinds through
// interpreted code, which the engine's crash points do all the time.
func quietLoad(f *sandbox.File) (handlers.Info, error) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return handlers.Info{}, err
	}
	saved := os.Stderr
	os.Stderr = null
	defer func() { os.Stderr = saved }()
	return sandbox.LoadHandler(f)
}

// describe is a grade as a person would read it: each preset's verdict,
// then the failure the search found.
func describe(g sandbox.Grade) string {
	var s strings.Builder
	for _, p := range g.Presets {
		fmt.Fprintf(&s, "\tpreset %s: %s (settled %d, expected %d) %s\n", p.Preset, p.Verdict, p.Settled, p.Expected, p.Reason)
	}
	if g.Failure != nil {
		fmt.Fprintf(&s, "\tsearch (%d scripts): %s, %s\n\t\t%s", g.Explored, g.Failure.Verdict, g.Failure.Reason,
			strings.ReplaceAll(strings.TrimSpace(g.Failure.Script), "\n", "\n\t\t"))
	} else {
		fmt.Fprintf(&s, "\tsearch (%d scripts): no forbidden failure", g.Explored)
	}
	return s.String()
}
