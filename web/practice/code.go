package practice

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/idempotency-lab/lab/check"
	drill "github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// A coding exercise is answered with a handler file. The form posts it raw
// (code=); the result's address carries it packed like a permalink (c=),
// so the result grades it again, the same, when opened.

// codeOf reads the answer's file: the form's code, or the result
// address's c.
func codeOf(v map[string][]string) (string, error) {
	get := func(k string) string {
		if vs := v[k]; len(vs) > 0 {
			return vs[0]
		}
		return ""
	}
	if packed := get("c"); packed != "" {
		text, err := labview.DecodePermalink(packed)
		var pe *labview.PermalinkError
		if errors.As(err, &pe) {
			return "", page.BadRequest(pe.Key, pe.Args...)
		}
		return text, nil
	}
	code := strings.ReplaceAll(get("code"), "\r\n", "\n")
	if strings.TrimSpace(code) == "" {
		return "", page.BadRequest("pr.err.nocode")
	}
	return code, nil
}

// gradeCode runs the exercise's hidden checks on the file in the sandbox
// and grades what they found. A file that does not compile, or stops on a
// limit, is a wrong answer that says why.
func (s *Practice) gradeCode(ctx context.Context, q drill.Question, code string) (drill.Grade, error) {
	if s.Sandbox == nil {
		return drill.Grade{}, &page.Error{Status: http.StatusServiceUnavailable, Key: "pr.err.nosandbox"}
	}
	e := q.Code
	o := drill.CodeOutcome{Code: code}
	resp, err := s.Sandbox.Run(ctx, sandbox.Request{Op: "grade", Name: "yours", Code: code,
		Exercise: sandbox.Exercise{Presets: e.Presets, Forbid: e.Forbid, Depth: e.Depth, Header: e.Header, NoRefunds: e.NoRefunds}})
	var se *sandbox.Error
	switch {
	case errors.Is(err, sandbox.ErrBusy):
		return drill.Grade{}, &page.Error{Status: http.StatusServiceUnavailable, Key: "err.busy", RetryAfter: 2}
	case errors.As(err, &se):
		o.Error, o.ErrorLine = drill.Text{EN: se.In("en"), RU: se.In("ru")}, se.Line
	case err != nil:
		return drill.Grade{}, err
	case resp.Error != nil:
		o.Error, o.ErrorLine = drill.Text{EN: resp.Error.In("en"), RU: resp.Error.In("ru")}, resp.Error.Line
	default:
		g := resp.Grade
		o.Pass, o.Explored = g.Pass, g.Explored
		for _, p := range g.Presets {
			o.Presets = append(o.Presets, drill.PresetResult{Preset: p.Preset, Verdict: p.Verdict,
				Settled: p.Settled, Expected: p.Expected, Reason: p.Reason})
		}
		if f := g.Failure; f != nil {
			o.Failure = &drill.CodeFailure{Verdict: f.Verdict, Script: f.Script, Steps: f.Steps,
				Settled: f.Settled, Expected: f.Expected, LabURL: sandbox.LabURL(f.Script, code, labview.DefaultCodeName)}
		}
	}
	return s.bank.GradeCode(q.ID, o)
}

// codeResult is a graded file as the result shows it.
type codeResult struct {
	Error     string
	ErrorLine int
	Presets   []presetRow
	Failure   *failureRow
	Passed    string // what the search covered, when it found nothing forbidden
	Solution  string // the model solution, after a pass or three tries
	SolNote   string
}

type presetRow struct {
	Preset, Verdict, Label, Symbol, Settled, Expected, Reason string
	OK                                                        bool
}

type failureRow struct {
	Verdict, Label, Symbol, Settled, Expected string
	Steps                                     int
	Lines                                     []string
	LabURL                                    string
}

func (s *Practice) codeResultView(t page.Text, q drill.Question, g drill.Grade, tries int) *codeResult {
	o := g.Code
	lang := t.Lang()
	r := &codeResult{Error: o.Error.In(lang), ErrorLine: o.ErrorLine}
	for _, p := range o.Presets {
		res := sim.Result{Verdict: p.Verdict, Settled: p.Settled, Expected: p.Expected}
		r.Presets = append(r.Presets, presetRow{Preset: p.Preset, Verdict: string(p.Verdict), Label: t.S("v." + string(p.Verdict)),
			Symbol: page.ResultSymbol(res), Settled: page.Money(p.Settled), Expected: page.Money(p.Expected),
			Reason: p.Reason, OK: p.Verdict == sim.OK})
	}
	if f := o.Failure; f != nil {
		r.Failure = &failureRow{Verdict: string(f.Verdict), Label: t.S("v." + string(f.Verdict)), Symbol: page.VerdictSymbol(f.Verdict),
			Settled: page.Money(f.Settled), Expected: page.Money(f.Expected), Steps: f.Steps,
			Lines: strings.Split(strings.TrimRight(f.Script, "\n"), "\n"), LabURL: f.LabURL}
	} else if r.Error == "" {
		r.Passed = t.F("pr.code.searched", q.Code.Depth, check.DefaultSeed, o.Explored)
	}
	switch {
	case g.Correct():
		r.Solution, r.SolNote = q.Code.Solution(), t.S("pr.code.solution.pass")
	case tries >= 3:
		r.Solution, r.SolNote = q.Code.Solution(), t.S("pr.code.solution.tries")
	}
	return r
}
