package practicepage

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// A coding exercise is answered with a handler file. The form posts it raw
// (code=); the result's address carries it packed like a permalink (c=).
// A grade costs a sandbox child and seconds of CPU, so it is kept in the
// progress store by profile, exercise and the SHA-256 of the file: the
// result page shows the kept grade and never runs the file, and the same
// file posted again by the same profile gets its kept grade, with no child
// and no new try. A file that does not parse (sandbox.Parse) runs nothing
// and counts nothing: its result says why and leaves the tries as they
// were. Only a file that parses is a try, whether it then fails to
// compile, fails the checks or passes.

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
		text, err := link.Unpack(packed)
		var le *link.Error
		if errors.As(err, &le) {
			return "", page.BadRequest(le.Key, le.Args...)
		}
		return text, nil
	}
	code := strings.ReplaceAll(get("code"), "\r\n", "\n")
	if strings.TrimSpace(code) == "" {
		return "", page.BadRequest("pr.err.nocode")
	}
	return code, nil
}

// codeResultURL is the address of a file's result in the mode.
func codeResultURL(m practiceMode, id, code string) string {
	return m.itemURL(id, "/result", url.Values{"c": {link.Pack(code)}})
}

// GradeRuns is how many files this server has handed to the sandbox to
// grade: a kept grade, a file that does not parse and a result page run
// none (the tests count on it).
func (s *Practice) GradeRuns() int64 { return s.gradeRuns.Load() }

// answerCode is Answer for a coding exercise: the file is graded once per
// profile, kept with its grade and recorded as a try, then 303 to its
// result. A file the profile had graded already is not graded again and
// counts no new try; a file that does not parse is neither graded nor
// counted. A reader who leaves while the grade waits for a free child
// (the sandbox queues grades) or runs gets nothing recorded.
func (s *Practice) answerCode(w http.ResponseWriter, r *http.Request, q practice.Question, m practiceMode, f url.Values) error {
	switch action := f.Get("action"); action {
	case "format":
		return s.formatCode(w, r, q, m, f)
	case "":
	default:
		return page.BadRequest("pr.err.codeaction", action)
	}
	if s.Sandbox == nil && s.run == nil && s.NoCode != "" {
		return labview.NoIsolation(errors.New(s.NoCode))
	}
	if s.Sandbox == nil && s.run == nil {
		return &page.Error{Status: http.StatusServiceUnavailable, Key: "pr.err.nosandbox", Title: "pr.title.unavailable"}
	}
	code, err := codeOf(f)
	if err != nil {
		return err
	}
	ctx := r.Context()
	done := func() error {
		http.Redirect(w, r, codeResultURL(m, q.ID, code), http.StatusSeeOther)
		return nil
	}
	if _, err := sandbox.Parse(code); err != nil {
		return done() // the result page says why; no child, no try
	}
	if profile := page.ProfileOf(r); profile != "" {
		_, kept, err := s.progress.KeptCodeGrade(ctx, profile, q.ID, code)
		if err != nil {
			return err
		}
		if kept {
			return done()
		}
	}
	g, err := s.gradeCode(ctx, q, code)
	if ctx.Err() != nil {
		return nil // the reader has gone: nothing graded is kept or counted
	}
	if err != nil {
		return err
	}
	if _, _, err := s.progress.SaveCodeGrade(ctx, page.EnsureProfile(w, r), g, s.now()); err != nil {
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, practice.ErrNotSaved):
			return s.Shell.NotSaved(r, err)
		}
		return err
	}
	return done()
}

// formatCode is the Format button without JavaScript (action=format):
// the exercise again, its editor holding the file as go/format prints it
// (labview.FormatCode, the lab's formatter), or holding the file as it
// was with why it could not be formatted, listed and marked at its line.
// Nothing runs and nothing counts as a try. With JavaScript the editor
// asks POST /lab/format instead and stays where it is.
func (s *Practice) formatCode(w http.ResponseWriter, r *http.Request, q practice.Question, m practiceMode, f url.Values) error {
	p, err := s.progressOf(r)
	if err != nil {
		return err
	}
	code := strings.ReplaceAll(f.Get("code"), "\r\n", "\n")
	t := s.Shell.Text(r)
	v := s.questionView(t, q, m, p)
	a := s.askView(t, q, m)
	status := http.StatusOK
	out, fe := labview.FormatCode(code)
	if fe != nil {
		a.Code, status = code, fe.Status
		a.Problems = []labview.CodeProblem{{Line: fe.CodeLine, Text: t.F(fe.Key, page.BoundArgs(fe.Args)...)}}
	} else {
		a.Code = out
	}
	v.Answer = a
	w.Header().Set("Cache-Control", "no-store")
	if page.IsPartial(r) {
		// htmx puts the form back into #answer (before the editor's own
		// Format took over): a swap, so 200 whatever the formatter said.
		return s.Shell.Render(w, r, http.StatusOK, answerFragment(v))
	}
	return s.Shell.Render(w, r, status, practiceItemPage(s.practicePage(t, r, v.PageTitle), v))
}

// resultCode is Result for a coding exercise. It runs nothing: a file
// that does not parse shows why (not counted); a file this reader had
// graded shows its kept grade; any other file (a result address from
// someone else, or a grade that was dropped) opens in the editor with a
// note, to grade with the button, which counts as a try. A GET that
// graded would spend a child on every visit to a shared address and
// count tries the reader never asked for.
func (s *Practice) resultCode(w http.ResponseWriter, r *http.Request, q practice.Question, m practiceMode, p practice.Progress, query url.Values) error {
	code, err := codeOf(query)
	if err != nil {
		return err
	}
	t := s.Shell.Text(r)
	v := s.questionView(t, q, m, p)
	if _, err := sandbox.Parse(code); err != nil {
		se := &sandbox.Error{Text: narration.T("sandbox.error", err.Error())}
		errors.As(err, &se)
		g, err := s.bank.GradeCode(q.ID, practice.CodeOutcome{Code: code, Error: practice.Text{EN: se.In("en"), RU: se.In("ru")}, ErrorLine: se.Line})
		if err != nil {
			return err
		}
		a := s.resultView(t, q, m, p, g)
		a.Result, a.Headline, a.ScoreText = "unparsed", t.S("pr.code.unparsed"), t.S("pr.code.notcounted")
		v.Answer = a
		return s.renderItem(w, r, v)
	}
	if profile := page.ProfileOf(r); profile != "" {
		g, kept, err := s.progress.KeptCodeGrade(r.Context(), profile, q.ID, code)
		if err != nil {
			return err
		}
		if kept {
			v.Answer = s.resultView(t, q, m, p, g)
			return s.renderItem(w, r, v)
		}
	}
	a := s.askView(t, q, m)
	a.Code, a.Note = code, t.S("pr.code.ungraded")
	v.Answer = a
	return s.renderItem(w, r, v)
}

// gradeCode runs the exercise's hidden checks on the file in the sandbox
// and grades what they found. A file that does not compile, or stops on a
// limit (CPU, memory), is a wrong answer that says why. The sandbox queues
// a grade until a child is free; ctx ending, while it waits or runs, is
// ctx's error.
func (s *Practice) gradeCode(ctx context.Context, q practice.Question, code string) (practice.Grade, error) {
	e := q.Code
	o := practice.CodeOutcome{Code: code}
	run := s.run
	if run == nil {
		run = s.Sandbox.Run
	}
	s.gradeRuns.Add(1)
	resp, err := run(ctx, sandbox.Request{Op: "grade", Name: "yours", Code: code,
		Exercise: e.Exercise})
	var se *sandbox.Error
	switch {
	case ctx.Err() != nil:
		return practice.Grade{}, ctx.Err()
	case errors.Is(err, sandbox.ErrBusy):
		return practice.Grade{}, &page.Error{Status: http.StatusServiceUnavailable, Key: "err.busy", RetryAfter: 2}
	case errors.Is(err, sandbox.ErrNoIsolation):
		return practice.Grade{}, labview.NoIsolation(err)
	case errors.As(err, &se):
		o.Error, o.ErrorLine = practice.Text{EN: se.In("en"), RU: se.In("ru")}, se.Line
	case err != nil:
		return practice.Grade{}, err
	case resp.Error != nil:
		o.Error, o.ErrorLine = practice.Text{EN: resp.Error.In("en"), RU: resp.Error.In("ru")}, resp.Error.Line
	default:
		g := resp.Grade
		o.Pass, o.Explored = g.Pass, g.Explored
		for _, p := range g.Presets {
			o.Presets = append(o.Presets, practice.PresetResult{Preset: p.Preset, Verdict: p.Verdict,
				Settled: p.Settled, Expected: p.Expected, Reason: p.Reason})
		}
		if f := g.Failure; f != nil {
			o.Failure = &practice.CodeFailure{Verdict: f.Verdict, Script: f.Script, Steps: f.Steps,
				Settled: f.Settled, Expected: f.Expected, LabURL: link.Lab{Script: f.Script, Code: code, Name: labview.DefaultCodeName}.String()}
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
	Solution  string // the model solution, after a pass or three tries (files that parse)
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

func (s *Practice) codeResultView(t page.Text, q practice.Question, g practice.Grade, tries int) *codeResult {
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
