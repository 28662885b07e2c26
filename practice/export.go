package practice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/idempotency-lab/lab/script"
)

// The export file format. A file states its format and version so that a
// later lab can read old files and refuse files it does not understand.
const (
	ExportFormat = "idempotency-lab-progress"
	// ExportVersion 2 added the solved challenges, 3 the solutions seen;
	// version 1 files (attempts only) and 2 still import.
	ExportVersion = 3
	// MaxImportBytes and MaxImportAttempts bound an import; the web should
	// read at most MaxImportBytes+1 bytes of an upload. A file holds no
	// more attempts than a profile may keep (MaxAttempts), and 1 MiB holds
	// the export of a full profile (about 170 bytes an attempt, indented)
	// with room to spare: every file the lab exports imports again.
	MaxImportBytes    = 1 << 20
	MaxImportAttempts = MaxAttempts
)

// Errors of import. Every problem with the file is ErrBadImport, with the
// field that is wrong; ErrImportConflict is a file that contradicts what is
// stored.
var (
	ErrBadImport      = errors.New("bad progress file")
	ErrImportConflict = errors.New("progress file conflicts with stored progress")
	// ErrTooManyAttempts is what a *TooManyAttemptsError wraps.
	ErrTooManyAttempts = errors.New("too many attempts for one profile")
)

// TooManyAttemptsError is an import that would take the profile past
// MaxAttempts. Nothing of the file is written.
type TooManyAttemptsError struct {
	Have  int // attempts the profile has stored
	Added int // new attempts in the file (those not stored already)
	Max   int // MaxAttempts
}

func (e *TooManyAttemptsError) Error() string {
	return fmt.Sprintf("%v: the profile has %d attempts and the file adds %d; a profile keeps at most %d",
		ErrTooManyAttempts, e.Have, e.Added, e.Max)
}

func (e *TooManyAttemptsError) Unwrap() error { return ErrTooManyAttempts }

// Export is the content of a progress file: a profile's attempts and
// solved challenges.
type Export struct {
	Profile  string
	Attempts []Attempt
	Solved   []Solve
	Seen     []SolutionSeen
}

// SolutionSeen is a challenge whose solution a profile asked to see, and
// when it first did (seen.go).
type SolutionSeen struct {
	Challenge string
	At        time.Time
}

// The JSON form of Export:
//
//	{"format": "idempotency-lab-progress", "version": 2,
//	 "profile": "ABC…", "attempts": [
//	   {"id": "…", "question": "unique-poison-loop", "score": 0.5,
//	    "at": "2026-03-01T10:00:00.123Z"}],
//	 "challenges": [
//	   {"challenge": "naive-twice", "steps": 2, "script": "publish …",
//	    "at": "2026-03-01T10:05:00Z"}]}
type exportFile struct {
	Format     string          `json:"format"`
	Version    int             `json:"version"`
	Profile    string          `json:"profile"`
	Attempts   []exportAttempt `json:"attempts"`
	Challenges []exportSolve   `json:"challenges,omitempty"`
	Seen       []exportSeen    `json:"solutions_seen,omitempty"`
}

type exportSeen struct {
	Challenge string    `json:"challenge"`
	At        time.Time `json:"at"`
}

type exportSolve struct {
	Challenge string    `json:"challenge"`
	Steps     int       `json:"steps"`
	Script    string    `json:"script"`
	At        time.Time `json:"at"`
}

type exportAttempt struct {
	ID       string    `json:"id"`
	Question string    `json:"question"`
	Score    *float64  `json:"score"` // a pointer, so that a missing score is an error, not 0
	At       time.Time `json:"at"`
}

// Export returns a profile's progress as a JSON file, attempts oldest
// first. Attempts at questions the bank no longer has are left out, so the
// file always imports into the same lab. A profile with no answers gives a
// valid file with no attempts.
func (s *Store) Export(ctx context.Context, profile string) ([]byte, error) {
	as, err := s.Attempts(ctx, profile)
	if err != nil {
		return nil, err
	}
	e := Export{Profile: profile}
	for _, a := range as {
		if _, ok := s.bank.Question(a.Question); ok {
			e.Attempts = append(e.Attempts, a)
		}
	}
	solved, err := s.Solved(ctx, profile)
	if err != nil {
		return nil, err
	}
	seen, err := s.SolutionsSeen(ctx, profile)
	if err != nil {
		return nil, err
	}
	for _, c := range challenges() {
		if v, ok := solved[c.ID]; ok {
			e.Solved = append(e.Solved, v)
		}
		if at, ok := seen[c.ID]; ok {
			e.Seen = append(e.Seen, SolutionSeen{Challenge: c.ID, At: at})
		}
	}
	return encodeExport(e)
}

func encodeExport(e Export) ([]byte, error) {
	f := exportFile{Format: ExportFormat, Version: ExportVersion, Profile: e.Profile,
		Attempts: make([]exportAttempt, len(e.Attempts))}
	for i, a := range e.Attempts {
		f.Attempts[i] = exportAttempt{ID: a.ID, Question: a.Question, Score: &a.Score, At: a.At.UTC()}
	}
	for _, v := range e.Solved {
		f.Challenges = append(f.Challenges, exportSolve{Challenge: v.Challenge, Steps: v.Steps, Script: v.Script, At: v.At.UTC()})
	}
	for _, v := range e.Seen {
		f.Seen = append(f.Seen, exportSeen{Challenge: v.Challenge, At: v.At.UTC()})
	}
	return json.MarshalIndent(f, "", "  ")
}

// ParseExport reads and validates a progress file against the bank: its
// size, format and version, the profile id, and every attempt (id format,
// known question, score from 0 to 1, a time from year 2000 to 2199, no id
// twice). Unknown fields and trailing data are errors too. Every error is
// ErrBadImport and names what is wrong.
func ParseExport(data []byte, b *Bank) (Export, error) {
	bad := func(format string, args ...any) (Export, error) {
		return Export{}, fmt.Errorf("%w: %s", ErrBadImport, fmt.Sprintf(format, args...))
	}
	if len(data) > MaxImportBytes {
		return bad("the file is %d bytes; the limit is %d", len(data), MaxImportBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f exportFile
	if err := dec.Decode(&f); err != nil {
		var te *time.ParseError
		if errors.As(err, &te) {
			return bad("not a progress file: time %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", te.Value)
		}
		return bad("not a progress file: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("unexpected data after the progress object")
	}
	switch {
	case f.Format != ExportFormat:
		return bad("format is %q, want %q", f.Format, ExportFormat)
	case f.Version < 1:
		return bad("version is missing")
	case f.Version > ExportVersion:
		return bad("version %d was written by a newer lab; this one reads version %d", f.Version, ExportVersion)
	case !ValidProfileID(f.Profile):
		return bad("profile %q is not a profile id", f.Profile)
	case len(f.Attempts) > MaxImportAttempts:
		return bad("%d attempts; the limit is %d", len(f.Attempts), MaxImportAttempts)
	}
	e := Export{Profile: f.Profile, Attempts: make([]Attempt, 0, len(f.Attempts))}
	seen := map[string]bool{}
	for i, fa := range f.Attempts {
		a := Attempt{ID: fa.ID, Question: fa.Question, At: millis(fa.At)}
		switch {
		case !ValidProfileID(fa.ID):
			return bad("attempts[%d]: id %q is not an attempt id", i, fa.ID)
		case seen[fa.ID]:
			return bad("attempts[%d]: id %s appears twice", i, fa.ID)
		case fa.Score == nil:
			return bad("attempts[%d]: score is missing", i)
		case math.IsNaN(*fa.Score) || *fa.Score < 0 || *fa.Score > 1:
			return bad("attempts[%d]: score %v is not from 0 to 1", i, *fa.Score)
		case a.At.Year() < minYear || a.At.Year() >= maxYear:
			return bad("attempts[%d]: time %s is missing or not from year %d to %d", i, fa.At.Format(time.RFC3339), minYear, maxYear-1)
		}
		if _, ok := b.Question(fa.Question); !ok {
			return bad("attempts[%d]: unknown question %q", i, fa.Question)
		}
		seen[fa.ID] = true
		a.Score = *fa.Score
		e.Attempts = append(e.Attempts, a)
	}
	if f.Version < 2 && f.Challenges != nil {
		return bad("challenges need version 2; the file says version %d", f.Version)
	}
	if len(f.Challenges) > len(challenges()) {
		return bad("%d challenges; this lab has %d", len(f.Challenges), len(challenges()))
	}
	solved := map[string]bool{}
	for i, fs := range f.Challenges {
		v := Solve{Challenge: fs.Challenge, Steps: fs.Steps, Script: fs.Script, At: millis(fs.At)}
		c, err := FindChallenge(v.Challenge)
		switch {
		case err != nil:
			return bad("challenges[%d]: %v", i, err)
		case solved[v.Challenge]:
			return bad("challenges[%d]: %s appears twice", i, v.Challenge)
		case v.Steps < 1 || v.Steps > c.MaxSteps:
			return bad("challenges[%d]: steps %d is not from 1 to %d", i, v.Steps, c.MaxSteps)
		case len(v.Script) > script.MaxScriptBytes:
			return bad("challenges[%d]: the script is %d bytes; the limit is %d", i, len(v.Script), script.MaxScriptBytes)
		case v.At.Year() < minYear || v.At.Year() >= maxYear:
			return bad("challenges[%d]: time %s is missing or not from year %d to %d", i, fs.At.Format(time.RFC3339), minYear, maxYear-1)
		}
		solved[v.Challenge] = true
		e.Solved = append(e.Solved, v)
	}
	if f.Version < 3 && f.Seen != nil {
		return bad("solutions_seen needs version 3; the file says version %d", f.Version)
	}
	if len(f.Seen) > len(challenges()) {
		return bad("%d solutions seen; this lab has %d challenges", len(f.Seen), len(challenges()))
	}
	seenOf := map[string]bool{}
	for i, fs := range f.Seen {
		v := SolutionSeen{Challenge: fs.Challenge, At: millis(fs.At)}
		_, err := FindChallenge(v.Challenge)
		switch {
		case err != nil:
			return bad("solutions_seen[%d]: %v", i, err)
		case seenOf[v.Challenge]:
			return bad("solutions_seen[%d]: %s appears twice", i, v.Challenge)
		case v.At.Year() < minYear || v.At.Year() >= maxYear:
			return bad("solutions_seen[%d]: time %s is missing or not from year %d to %d", i, fs.At.Format(time.RFC3339), minYear, maxYear-1)
		}
		seenOf[v.Challenge] = true
		e.Seen = append(e.Seen, v)
	}
	return e, nil
}

// ImportResult says what an import did.
type ImportResult struct {
	From    string // the profile named in the file
	Added   int    // attempts written
	Skipped int    // attempts already stored (the same file imported again)
	Solved  int    // challenges solved, or solved in fewer steps, by the file
	Seen    int    // solutions seen that the profile had not (or seen earlier)
}

// Import merges a progress file into the target profile (usually the one
// in the visitor's cookie; pass the file's own profile to restore it as it
// was). The rule: attempts are a history, and the merge is their union by
// attempt id. An attempt already stored with the same content is skipped,
// so importing a file twice changes nothing; one stored under the same id
// with different content is ErrImportConflict. Progress and review
// schedules are recomputed from the union. An import that would take
// the profile past MaxAttempts is a *TooManyAttemptsError (unlike Record,
// it drops nothing: a file is not what the person just did, and they can
// choose what to import). The whole import is one transaction: on any
// error, nothing is written. A write the database refuses is ErrNotSaved.
func (s *Store) Import(ctx context.Context, target string, data []byte) (ImportResult, error) {
	if !ValidProfileID(target) {
		return ImportResult{}, fmt.Errorf("%w %q", ErrBadProfile, target)
	}
	e, err := ParseExport(data, s.bank)
	if err != nil {
		return ImportResult{}, err
	}
	r := ImportResult{From: e.Profile}
	// A solve counts only if the engine agrees, as when it was saved.
	for _, v := range e.Solved {
		if err := VerifySolve(ctx, v); err != nil {
			if errors.Is(err, ErrBadSolve) {
				return r, fmt.Errorf("%w: challenge %s: %w", ErrBadImport, v.Challenge, err)
			}
			return r, err
		}
	}
	if len(e.Attempts) == 0 && len(e.Solved) == 0 && len(e.Seen) == 0 {
		return r, nil
	}
	r, err = s.importAttempts(ctx, target, e)
	if err != nil && ctx.Err() == nil && !errors.Is(err, ErrImportConflict) && !errors.Is(err, ErrTooManyAttempts) {
		err = fmt.Errorf("%w: import: %w", ErrNotSaved, err)
	}
	return r, err
}

func (s *Store) importAttempts(ctx context.Context, target string, e Export) (ImportResult, error) {
	r := ImportResult{From: e.Profile}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return ImportResult{}, err
	}
	defer tx.Rollback()
	have, err := countAttempts(ctx, tx, target)
	if err != nil {
		return ImportResult{}, err
	}
	var first time.Time
	for _, a := range e.Attempts {
		if first.IsZero() || a.At.Before(first) {
			first = a.At
		}
	}
	for _, v := range e.Solved {
		if first.IsZero() || v.At.Before(first) {
			first = v.At
		}
	}
	for _, v := range e.Seen {
		if first.IsZero() || v.At.Before(first) {
			first = v.At
		}
	}
	if err := ensureProfile(ctx, tx, target, first); err != nil {
		return ImportResult{}, err
	}
	for _, a := range e.Attempts {
		added, err := insertAttempt(ctx, tx, target, a)
		if err != nil {
			return ImportResult{}, err
		}
		if added {
			r.Added++
			continue
		}
		var stored Attempt
		var ms int64
		err = tx.QueryRowContext(ctx, `SELECT question, score, answered_at FROM attempts WHERE profile = ? AND id = ?`,
			target, a.ID).Scan(&stored.Question, &stored.Score, &ms)
		if err != nil {
			return ImportResult{}, err
		}
		if stored.Question != a.Question || stored.Score != a.Score || ms != a.At.UnixMilli() {
			return ImportResult{}, fmt.Errorf("%w: attempt %s is stored for %s (score %v) but the file says %s (score %v)",
				ErrImportConflict, a.ID, stored.Question, stored.Score, a.Question, a.Score)
		}
		r.Skipped++
	}
	// Counted after the inserts, which skip what is stored already: a
	// file imported again adds nothing and passes whatever the count.
	if r.Added > 0 && have+r.Added > MaxAttempts {
		return ImportResult{}, &TooManyAttemptsError{Have: have, Added: r.Added, Max: MaxAttempts}
	}
	// Solves merge by challenge, keeping the shorter solution.
	for _, v := range e.Solved {
		best, err := upsertSolve(ctx, tx, target, v)
		if err != nil {
			return ImportResult{}, err
		}
		if best {
			r.Solved++
		}
	}
	// Solutions seen merge by challenge, keeping the first time.
	for _, v := range e.Seen {
		res, err := tx.ExecContext(ctx, `
			INSERT INTO solutions_seen (profile, challenge, seen_at) VALUES (?, ?, ?)
			ON CONFLICT (profile, challenge) DO UPDATE SET seen_at = excluded.seen_at
			WHERE excluded.seen_at < solutions_seen.seen_at`, target, v.Challenge, v.At.UnixMilli())
		if err != nil {
			return ImportResult{}, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return ImportResult{}, err
		} else if n == 1 {
			r.Seen++
		}
	}
	if err := tx.Commit(); err != nil {
		return ImportResult{}, err
	}
	return r, nil
}
