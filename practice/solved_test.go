package practice

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var day = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func TestSaveSolveKeepsTheShortest(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), mustLoad(t))
	p := NewProfileID()
	two := Solve{Challenge: "unique-error-dlq", Steps: 2, Script: pub + "deliver crash=before-ack\n", At: day}
	three := Solve{Challenge: "unique-error-dlq", Steps: 3, Script: pub + "deliver\nretry pay-1\n", At: day.Add(time.Hour)}
	for _, step := range []struct {
		v    Solve
		best bool
	}{
		{three, true},
		{three, false}, // the same solve again changes nothing: saving is idempotent
		{two, true},    // a shorter solution replaces it
		{three, false}, // a longer one does not
	} {
		best, err := s.SaveSolve(ctx, p, step.v)
		if err != nil || best != step.best {
			t.Fatalf("SaveSolve(%d steps) = %v, %v; want %v", step.v.Steps, best, err, step.best)
		}
	}
	got, err := s.Solved(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if v := got["unique-error-dlq"]; len(got) != 1 || v.Steps != 2 || v.Script != two.Script || !v.At.Equal(day) {
		t.Errorf("stored %+v", got)
	}
}

func TestSaveSolveRefuses(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), mustLoad(t))
	p := NewProfileID()
	for _, tc := range []struct {
		name string
		v    Solve
		want string
	}{
		{"unknown challenge", Solve{Challenge: "win", Steps: 1, Script: pub, At: day}, "valid challenges"},
		{"not a solution", Solve{Challenge: "naive-twice", Steps: 1, Script: pub, At: day}, "does not solve"},
		{"steps miscounted", Solve{Challenge: "naive-twice", Steps: 1, Script: pub + "deliver crash=before-ack\n", At: day}, "has 2 steps"},
		{"too many steps", Solve{Challenge: "naive-twice", Steps: 3, Script: pub + "deliver crash=before-ack\nredeliver\n", At: day}, "at most 2 steps"},
		{"bad script", Solve{Challenge: "naive-twice", Steps: 1, Script: "fly away\n", At: day}, "fly"},
		{"no time", Solve{Challenge: "naive-twice", Steps: 2, Script: pub + "deliver crash=before-ack\n"}, "time"},
		{"too long", Solve{Challenge: "naive-twice", Steps: 2, Script: strings.Repeat("#", 1<<20), At: day}, "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.SaveSolve(ctx, p, tc.v)
			if !errors.Is(err, ErrBadSolve) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadSolve mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := s.SaveSolve(ctx, "alice", Solve{}); !errors.Is(err, ErrBadProfile) {
		t.Errorf("bad profile: %v", err)
	}
	if got, _ := s.Solved(ctx, p); len(got) != 0 {
		t.Errorf("refused solves were stored: %v", got)
	}
}

func TestExportImportSolves(t *testing.T) {
	ctx := context.Background()
	b := mustLoad(t)
	src := mustOpen(t, filepath.Join(t.TempDir(), "a.db"), b)
	p := NewProfileID()
	v := Solve{Challenge: "naive-twice", Steps: 2, Script: pub + "deliver crash=before-ack\n", At: day}
	if _, err := src.SaveSolve(ctx, p, v); err != nil {
		t.Fatal(err)
	}
	data, err := src.Export(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"challenges"`) || !strings.Contains(string(data), `"version": 3`) {
		t.Fatalf("export without challenges:\n%s", data)
	}
	dst := mustOpen(t, filepath.Join(t.TempDir(), "b.db"), b)
	q := NewProfileID()
	r, err := dst.Import(ctx, q, data)
	if err != nil || r.Solved != 1 {
		t.Fatalf("import: %+v, %v", r, err)
	}
	// Importing the same file again changes nothing.
	if r, err = dst.Import(ctx, q, data); err != nil || r.Solved != 0 {
		t.Fatalf("second import: %+v, %v", r, err)
	}
	got, _ := dst.Solved(ctx, q)
	if g := got["naive-twice"]; g.Steps != 2 || g.Script != v.Script || !g.At.Equal(day) {
		t.Errorf("imported %+v", got)
	}
}

func TestImportRejectsSolves(t *testing.T) {
	b := mustLoad(t)
	p := NewProfileID()
	file := func(version int, solves ...string) string {
		return fmt.Sprintf(`{"format": "idempotency-lab-progress", "version": %d, "profile": %q, "attempts": [], "challenges": [%s]}`,
			version, p, strings.Join(solves, ","))
	}
	solve := func(id string, steps int, script string) string {
		return fmt.Sprintf(`{"challenge": %q, "steps": %d, "script": %q, "at": "2026-03-01T10:00:00Z"}`, id, steps, script)
	}
	good := solve("naive-twice", 2, pub+"deliver crash=before-ack\n")
	for _, tc := range []struct{ name, file, want string }{
		{"in a version 1 file", file(1, good), "need version 2"},
		{"unknown challenge", file(2, solve("win", 1, pub)), "unknown challenge"},
		{"twice", file(2, good, good), "appears twice"},
		{"steps over the limit", file(2, solve("naive-twice", 3, pub)), "not from 1 to 2"},
		// The file says solved, but the engine disagrees: a forged or
		// outdated solve does not import.
		{"not a solution", file(2, solve("naive-twice", 1, pub)), "does not solve"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), b)
			_, err := s.Import(context.Background(), p, []byte(tc.file))
			if !errors.Is(err, ErrBadImport) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadImport mentioning %q", err, tc.want)
			}
			if got, _ := s.Solved(context.Background(), p); len(got) != 0 {
				t.Errorf("a rejected import stored %v", got)
			}
		})
	}
}
