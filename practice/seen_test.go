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

// TestSolutionsSeen: asking to see a solution is recorded once, at the
// first time, per profile and challenge; it records no solve; an unknown
// challenge, profile or time is refused.
func TestSolutionsSeen(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), mustLoad(t))
	p, other := NewProfileID(), NewProfileID()
	for _, at := range []time.Time{day, day.Add(time.Hour)} {
		if err := s.MarkSolutionSeen(ctx, p, "naive-twice", at); err != nil {
			t.Fatal(err)
		}
	}
	seen, err := s.SolutionsSeen(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || !seen["naive-twice"].Equal(day) {
		t.Errorf("seen %v, want naive-twice at %v", seen, day)
	}
	if solved, err := s.Solved(ctx, p); err != nil || len(solved) != 0 {
		t.Errorf("a seen solution counts as a solve: %v, %v", solved, err)
	}
	if seen, err := s.SolutionsSeen(ctx, other); err != nil || len(seen) != 0 {
		t.Errorf("another profile has seen %v, %v", seen, err)
	}
	if err := s.MarkSolutionSeen(ctx, p, "no-such", day); !errors.Is(err, ErrBadSolve) {
		t.Errorf("an unknown challenge: %v", err)
	}
	if err := s.MarkSolutionSeen(ctx, "bad id", "naive-twice", day); !errors.Is(err, ErrBadProfile) {
		t.Errorf("a bad profile: %v", err)
	}
	if err := s.MarkSolutionSeen(ctx, p, "naive-twice", time.Time{}); !errors.Is(err, ErrBadTime) {
		t.Errorf("the zero time: %v", err)
	}
	if _, err := s.SolutionsSeen(ctx, "bad id"); !errors.Is(err, ErrBadProfile) {
		t.Errorf("a bad profile: %v", err)
	}
}

// TestSolutionsSeenExport: the solutions seen travel in the progress
// file (version 3) and merge by challenge, keeping the first time; a file
// of an older version with them, an unknown challenge or one twice is
// refused.
func TestSolutionsSeenExport(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), mustLoad(t))
	p, q := NewProfileID(), NewProfileID()
	if err := s.MarkSolutionSeen(ctx, p, "setnx-loses", day); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSolutionSeen(ctx, q, "setnx-loses", day.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	data, err := s.Export(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"solutions_seen"`) || !strings.Contains(string(data), `"version": 3`) {
		t.Fatalf("the export:\n%s", data)
	}
	r, err := s.Import(ctx, q, data)
	if err != nil || r.Seen != 1 {
		t.Fatalf("import: %+v, %v", r, err)
	}
	seen, err := s.SolutionsSeen(ctx, q)
	if err != nil || len(seen) != 1 || !seen["setnx-loses"].Equal(day) {
		t.Errorf("after the import, seen %v, %v; want setnx-loses at %v", seen, err, day)
	}
	if r, err := s.Import(ctx, q, data); err != nil || r.Seen != 0 {
		t.Errorf("the same file again: %+v, %v", r, err)
	}
	file := func(version int, seen string) []byte {
		return []byte(fmt.Sprintf(`{"format": "idempotency-lab-progress", "version": %d, "profile": %q, "attempts": [], "solutions_seen": [%s]}`, version, p, seen))
	}
	one := `{"challenge": "naive-twice", "at": "2026-03-01T10:00:00Z"}`
	if _, err := ParseExport(file(3, one), mustLoad(t)); err != nil {
		t.Errorf("a good file: %v", err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"an older version", file(2, one), "solutions_seen needs version 3"},
		{"an unknown challenge", file(3, `{"challenge": "fly", "at": "2026-03-01T10:00:00Z"}`), `solutions_seen[0]: unknown challenge "fly"`},
		{"twice", file(3, one+","+one), "solutions_seen[1]: naive-twice appears twice"},
		{"no time", file(3, `{"challenge": "naive-twice"}`), "solutions_seen[0]: time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseExport(tc.data, mustLoad(t))
			if !errors.Is(err, ErrBadImport) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
