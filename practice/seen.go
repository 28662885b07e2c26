package practice

import (
	"context"
	"fmt"
	"time"
)

// MarkSolutionSeen records that a profile asked to see a challenge's
// solution, at the first time it did (asking again changes nothing). It
// records no solve: a solve is stored only when the person's own script
// reaches the goal (SaveSolve). An unknown challenge is ErrBadSolve.
func (s *Store) MarkSolutionSeen(ctx context.Context, profile, challenge string, at time.Time) error {
	if !ValidProfileID(profile) {
		return fmt.Errorf("%w %q", ErrBadProfile, profile)
	}
	if _, err := FindChallenge(challenge); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSolve, err)
	}
	at = millis(at)
	if at.Year() < minYear || at.Year() >= maxYear {
		return fmt.Errorf("%w (from year %d to %d), got %v", ErrBadTime, minYear, maxYear-1, at)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%w: mark solution seen: %w", ErrNotSaved, err)
	}
	defer tx.Rollback()
	if err = ensureProfile(ctx, tx, profile, at); err == nil {
		_, err = tx.ExecContext(ctx, `
			INSERT INTO solutions_seen (profile, challenge, seen_at) VALUES (?, ?, ?)
			ON CONFLICT (profile, challenge) DO NOTHING`, profile, challenge, at.UnixMilli())
		if err == nil {
			err = tx.Commit()
		}
	}
	if err != nil {
		if ctx.Err() == nil {
			err = fmt.Errorf("%w: mark solution seen: %w", ErrNotSaved, err)
		}
		return err
	}
	return nil
}

// SolutionsSeen returns when a profile first saw each challenge's
// solution, by challenge id. An unknown profile has seen none.
func (s *Store) SolutionsSeen(ctx context.Context, profile string) (map[string]time.Time, error) {
	if !ValidProfileID(profile) {
		return nil, fmt.Errorf("%w %q", ErrBadProfile, profile)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT challenge, seen_at FROM solutions_seen WHERE profile = ?`, profile)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var c string
		var ms int64
		if err := rows.Scan(&c, &ms); err != nil {
			return nil, err
		}
		out[c] = time.UnixMilli(ms).UTC()
	}
	return out, rows.Err()
}
