package practice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/script"
)

// ErrBadSolve is a solve the store refuses: an unknown challenge, a step
// count outside the challenge's limit, a script that is too long or does
// not solve the challenge.
var ErrBadSolve = errors.New("not a solution")

// Solve is a challenge a profile solved, with its shortest solution so far.
type Solve struct {
	Challenge string
	Steps     int    // steps of Script
	Script    string // the solution, as script text (header and steps)
	At        time.Time
}

// VerifySolve checks a solve against its challenge by running the script
// on the engine: a solve is stored only if the engine agrees.
func VerifySolve(ctx context.Context, v Solve) error {
	c, err := FindChallenge(v.Challenge)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadSolve, err)
	}
	if len(v.Script) > script.MaxScriptBytes {
		return fmt.Errorf("%w: the script is %d bytes; the limit is %d", ErrBadSolve, len(v.Script), script.MaxScriptBytes)
	}
	if v.At.Year() < minYear || v.At.Year() >= maxYear {
		return fmt.Errorf("%w: time %v is not from year %d to %d", ErrBadSolve, v.At, minYear, maxYear-1)
	}
	sc, err := script.Parse(v.Script)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadSolve, err)
	}
	if len(sc.Steps) != v.Steps {
		return fmt.Errorf("%w: the script has %d steps, the solve says %d", ErrBadSolve, len(sc.Steps), v.Steps)
	}
	t, err := c.Check(ctx, sc, 0, 0)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%w: %w", ErrBadSolve, err)
	}
	if !t.Solved() {
		return fmt.Errorf("%w: the script does not solve %s in at most %d steps", ErrBadSolve, c.ID, c.MaxSteps)
	}
	return nil
}

// SaveSolve records a solved challenge for a profile, after VerifySolve.
// A profile keeps one solve per challenge, the one with the fewest steps
// (the earlier of two equal ones): saving the same solve twice, or a
// longer one, changes nothing. best says whether v is now the stored one.
func (s *Store) SaveSolve(ctx context.Context, profile string, v Solve) (best bool, err error) {
	if !ValidProfileID(profile) {
		return false, fmt.Errorf("%w %q", ErrBadProfile, profile)
	}
	v.At = millis(v.At)
	if err := VerifySolve(ctx, v); err != nil {
		return false, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("%w: save solve: %w", ErrNotSaved, err)
	}
	defer tx.Rollback()
	if err = ensureProfile(ctx, tx, profile, v.At); err == nil {
		if best, err = upsertSolve(ctx, tx, profile, v); err == nil {
			err = tx.Commit()
		}
	}
	if err != nil {
		if ctx.Err() == nil {
			err = fmt.Errorf("%w: save solve: %w", ErrNotSaved, err)
		}
		return false, err
	}
	return best, nil
}

// upsertSolve writes v unless the profile has a solve of the challenge in
// as few steps, and reports whether it wrote it.
func upsertSolve(ctx context.Context, tx *sql.Tx, profile string, v Solve) (bool, error) {
	res, err := tx.ExecContext(ctx, `
		INSERT INTO solved (profile, challenge, steps, script, solved_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (profile, challenge) DO UPDATE
		SET steps = excluded.steps, script = excluded.script, solved_at = excluded.solved_at
		WHERE excluded.steps < solved.steps`,
		profile, v.Challenge, v.Steps, v.Script, v.At.UnixMilli())
	if err != nil {
		return false, fmt.Errorf("insert solve: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Solved returns a profile's solves by challenge id, including solves of
// challenges the lab no longer has. An unknown profile has none.
func (s *Store) Solved(ctx context.Context, profile string) (map[string]Solve, error) {
	if !ValidProfileID(profile) {
		return nil, fmt.Errorf("%w %q", ErrBadProfile, profile)
	}
	rows, err := s.db.QueryContext(ctx,
		`SELECT challenge, steps, script, solved_at FROM solved WHERE profile = ? ORDER BY solved_at, challenge`, profile)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]Solve{}
	for rows.Next() {
		var v Solve
		var ms int64
		if err := rows.Scan(&v.Challenge, &v.Steps, &v.Script, &ms); err != nil {
			return nil, err
		}
		v.At = time.UnixMilli(ms).UTC()
		out[v.Challenge] = v
	}
	return out, rows.Err()
}
