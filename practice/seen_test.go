package practice

import (
	"context"
	"errors"
	"path/filepath"
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
