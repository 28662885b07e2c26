package practice

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/sim"
)

// A coding exercise's grade costs a sandbox child and seconds of CPU, so
// the store keeps it: by profile, exercise and the SHA-256 of the file's
// text. The result page shows the kept grade instead of grading again, and
// the same file posted again by the same profile gets its kept grade
// without a child and without counting a new try. Grades are kept per
// profile: one learner's file never shows another learner's result or
// counts among their tries.

// MaxCodeGrades bounds the graded files one profile keeps. Each holds
// what the checks found (a few KB); past the bound the oldest go, and a
// file whose grade went is graded again, as a new try, when posted again.
const MaxCodeGrades = 500

// ErrBadCodeGrade is a grade SaveCodeGrade refuses: not a coding
// exercise's, or without its outcome.
var ErrBadCodeGrade = errors.New("not a coding exercise's grade")

// CodeHash is the key a graded file is kept under: the SHA-256 of its
// text, in hex.
func CodeHash(code string) string {
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:])
}

// keptOutcome is a CodeOutcome as the store keeps it, in JSON: without
// the file, which the caller has (its hash is the key).
type keptOutcome struct {
	Pass      bool           `json:"pass"`
	Presets   []keptPreset   `json:"presets,omitempty"`
	Failure   *keptFailure   `json:"failure,omitempty"`
	Explored  int            `json:"explored,omitempty"`
	Error     *keptErrorText `json:"error,omitempty"`
	ErrorLine int            `json:"error_line,omitempty"`
}

type keptPreset struct {
	Preset   string `json:"preset"`
	Verdict  string `json:"verdict"`
	Settled  int64  `json:"settled"`
	Expected int64  `json:"expected"`
	Reason   string `json:"reason,omitempty"`
}

type keptFailure struct {
	Verdict  string `json:"verdict"`
	Script   string `json:"script"`
	Steps    int    `json:"steps"`
	Settled  int64  `json:"settled"`
	Expected int64  `json:"expected"`
	LabURL   string `json:"lab_url"`
}

type keptErrorText struct {
	EN string `json:"en"`
	RU string `json:"ru"`
}

func keep(o CodeOutcome) keptOutcome {
	k := keptOutcome{Pass: o.Pass, Explored: o.Explored, ErrorLine: o.ErrorLine}
	for _, p := range o.Presets {
		k.Presets = append(k.Presets, keptPreset{Preset: p.Preset, Verdict: string(p.Verdict),
			Settled: p.Settled, Expected: p.Expected, Reason: p.Reason})
	}
	if f := o.Failure; f != nil {
		k.Failure = &keptFailure{Verdict: string(f.Verdict), Script: f.Script, Steps: f.Steps,
			Settled: f.Settled, Expected: f.Expected, LabURL: f.LabURL}
	}
	if o.Error != (Text{}) {
		k.Error = &keptErrorText{EN: o.Error.EN, RU: o.Error.RU}
	}
	return k
}

func (k keptOutcome) outcome(code string) CodeOutcome {
	o := CodeOutcome{Code: code, Pass: k.Pass, Explored: k.Explored, ErrorLine: k.ErrorLine}
	for _, p := range k.Presets {
		o.Presets = append(o.Presets, PresetResult{Preset: p.Preset, Verdict: sim.Verdict(p.Verdict),
			Settled: p.Settled, Expected: p.Expected, Reason: p.Reason})
	}
	if f := k.Failure; f != nil {
		o.Failure = &CodeFailure{Verdict: sim.Verdict(f.Verdict), Script: f.Script, Steps: f.Steps,
			Settled: f.Settled, Expected: f.Expected, LabURL: f.LabURL}
	}
	if k.Error != nil {
		o.Error = Text{EN: k.Error.EN, RU: k.Error.RU}
	}
	return o
}

// KeptCodeGrade returns the grade a profile's file got at a coding
// exercise, if the store keeps one: ok is false for a file this profile
// never had graded there (or whose grade went past MaxCodeGrades), and
// for an unknown profile. It runs nothing.
func (s *Store) KeptCodeGrade(ctx context.Context, profile, question, code string) (g Grade, ok bool, err error) {
	if !ValidProfileID(profile) {
		return Grade{}, false, fmt.Errorf("%w %q", ErrBadProfile, profile)
	}
	if _, err := s.bank.questionOf(question, KindCode); err != nil {
		return Grade{}, false, err
	}
	var raw string
	err = s.db.QueryRowContext(ctx, `SELECT outcome FROM code_grades WHERE profile = ? AND question = ? AND hash = ?`,
		profile, question, CodeHash(code)).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return Grade{}, false, nil
	}
	if err != nil {
		return Grade{}, false, err
	}
	return s.gradeOf(question, code, raw)
}

// gradeOf grades a kept outcome again (Bank.GradeCode: the score follows
// from what the checks found).
func (s *Store) gradeOf(question, code, raw string) (Grade, bool, error) {
	var k keptOutcome
	if err := json.Unmarshal([]byte(raw), &k); err != nil {
		return Grade{}, false, fmt.Errorf("kept grade of %s: %w", question, err)
	}
	g, err := s.bank.GradeCode(question, k.outcome(code))
	if err != nil {
		return Grade{}, false, err
	}
	return g, true, nil
}

// SaveCodeGrade keeps a coding exercise's grade (from Bank.GradeCode, its
// Code holding the file) for a profile and records it as an attempt, in
// one transaction: a try. If the profile already keeps a grade of the same
// file at the exercise (the same file posted twice at once), nothing is
// written and that grade comes back with counted false. The profile is
// created on its first answer. A write the database refuses is
// ErrNotSaved; a context that ends first writes nothing.
func (s *Store) SaveCodeGrade(ctx context.Context, profile string, g Grade, at time.Time) (kept Grade, counted bool, err error) {
	if g.Kind != KindCode || g.Code == nil {
		return Grade{}, false, ErrBadCodeGrade
	}
	a := Attempt{ID: rand.Text(), Question: g.Question, Score: g.Score, At: millis(at)}
	if err := s.check(profile, a); err != nil {
		return Grade{}, false, err
	}
	raw, err := json.Marshal(keep(*g.Code))
	if err != nil {
		return Grade{}, false, err
	}
	code := g.Code.Code
	hash := CodeHash(code)
	err = func() error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := ensureProfile(ctx, tx, profile, a.At); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `
			INSERT INTO code_grades (profile, question, hash, outcome, graded_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (profile, question, hash) DO NOTHING`,
			profile, g.Question, hash, string(raw), a.At.UnixMilli())
		if err != nil {
			return fmt.Errorf("keep grade: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			// Kept already: that grade stands, and this is no new try.
			var stored string
			if err := tx.QueryRowContext(ctx, `SELECT outcome FROM code_grades WHERE profile = ? AND question = ? AND hash = ?`,
				profile, g.Question, hash).Scan(&stored); err != nil {
				return err
			}
			raw = []byte(stored)
			return nil
		}
		counted = true
		if _, err := insertAttempt(ctx, tx, profile, a); err != nil {
			return err
		}
		if err := trimAttempts(ctx, tx, profile, a.ID); err != nil {
			return err
		}
		if err := trimCodeGrades(ctx, tx, profile); err != nil {
			return err
		}
		return tx.Commit()
	}()
	if err != nil {
		if ctx.Err() == nil {
			err = fmt.Errorf("%w: keep grade: %w", ErrNotSaved, err)
		}
		return Grade{}, false, err
	}
	if !counted {
		kept, _, err := s.gradeOf(g.Question, code, string(raw))
		return kept, false, err
	}
	return g, true, nil
}

// trimCodeGrades brings a profile back to MaxCodeGrades kept grades,
// dropping the oldest.
func trimCodeGrades(ctx context.Context, tx *sql.Tx, profile string) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM code_grades WHERE profile = ?`, profile).Scan(&n); err != nil {
		return err
	}
	if n <= MaxCodeGrades {
		return nil
	}
	_, err := tx.ExecContext(ctx, `
		DELETE FROM code_grades WHERE profile = ? AND (question, hash) IN (
			SELECT question, hash FROM code_grades WHERE profile = ?
			ORDER BY graded_at, question, hash
			LIMIT ?)`, profile, profile, n-MaxCodeGrades)
	if err != nil {
		return fmt.Errorf("drop old grades: %w", err)
	}
	return nil
}
