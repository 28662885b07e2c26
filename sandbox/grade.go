package sandbox

import (
	"context"
	"fmt"
	"slices"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
)

// Exercise is a coding exercise's hidden checks, as the grader runs them.
// The question bank's code exercises (package practice) hold it as
// written in their YAML, so the checks a bank states are the checks the
// child runs, with no copy between the two.
type Exercise struct {
	Presets []string      `json:"presets" yaml:"presets"` // each must settle ok
	Forbid  []sim.Verdict `json:"forbid" yaml:"forbid"`   // the search must find none of these (depth Depth, the fixed seed); empty: none at all
	Depth   int           `json:"depth" yaml:"depth"`
	Header  string        `json:"header" yaml:"header"` // header lines every searched script starts with
	// NoRefunds keeps refunds out of the search (check.Options.NoRefunds):
	// an exercise about payments, whose handler need not know a refund
	// (lesson 11).
	NoRefunds bool `json:"no_refunds,omitempty" yaml:"no-refunds"`
}

// GradeSeed and GradeRuns fix the search of a grading: the same file, the
// same grade.
const (
	GradeSeed = 1
	GradeRuns = 200
)

// PresetGrade is how a handler did on one preset.
type PresetGrade struct {
	Preset   string      `json:"preset"`
	Verdict  sim.Verdict `json:"verdict"`
	Settled  int64       `json:"settled"`
	Expected int64       `json:"expected"`
	Reason   string      `json:"reason"`
}

// Grade is the outcome of an exercise's checks.
type Grade struct {
	Pass    bool          `json:"pass"`
	Presets []PresetGrade `json:"presets"`
	// Failure is the shortest forbidden failure the search found, nil
	// when none.
	Failure  *check.Failure `json:"failure,omitempty"`
	Explored int            `json:"explored"`
}

// GradeHandler runs an exercise's checks on a handler: every preset, then
// the schedule search. The sandbox child runs it on a person's file;
// tests run it in-process on the exercises' own files.
func GradeHandler(ctx context.Context, h handlers.Info, e Exercise) (Grade, error) {
	// The presets of both sides: a message handler runs on the broker's,
	// an API handler on the API side's.
	presets, err := sim.Presets()
	if err != nil {
		return Grade{}, err
	}
	api, err := sim.APIPresets()
	if err != nil {
		return Grade{}, err
	}
	presets = append(presets, api...)
	g := Grade{Pass: true}
	for _, name := range e.Presets {
		p, err := sim.FindPreset(presets, name)
		if err != nil {
			return Grade{}, err
		}
		if p.Script.API != (h.API != nil) {
			if p.Script.API {
				return Grade{}, fmt.Errorf("preset %s sends API requests: this exercise needs an API handler, %s", name, APIShape)
			}
			return Grade{}, fmt.Errorf("preset %s publishes messages: this exercise needs a message handler, %s", name, MessageShape)
		}
		run, err := sim.Execute(ctx, p.Script, sim.Options{Custom: []handlers.Info{h}, StepEvents: 1})
		if err != nil {
			return Grade{}, fmt.Errorf("preset %s: %w", name, err)
		}
		r := run.Results[0]
		g.Presets = append(g.Presets, PresetGrade{Preset: name, Verdict: r.Verdict, Settled: r.Settled, Expected: r.Expected, Reason: r.Reason})
		g.Pass = g.Pass && r.Verdict == sim.OK
	}
	rep, err := check.CheckHandler(ctx, h, check.Options{Depth: e.Depth, Runs: GradeRuns, Seed: GradeSeed, Header: e.Header, NoRefunds: e.NoRefunds})
	if err != nil {
		return Grade{}, err
	}
	g.Explored = rep.Explored
	for _, f := range rep.Failures { // the shortest first
		if len(e.Forbid) == 0 || slices.Contains(e.Forbid, f.Verdict) {
			g.Failure, g.Pass = &f, false
			break
		}
	}
	return g, nil
}
