// Package checkpage is the checker's pages: /check lists every handler with
// the shortest failure the schedule search finds for it, and
// /check/{handler} shows each minimal story with a button that opens it in
// the lab. The search (package check) is deterministic, so each handler's result is computed once
// and kept; it runs under the lab's replay gate and a time budget.
package checkpage

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// DefaultBudget is how long one handler's search may run when the server
// is given none.
const DefaultBudget = 2 * time.Second

// The web's search: every script of up to three steps, then a few hundred
// random ones, which finds every built-in handler's shortest failure
// within the budget on two cores. `lab check` goes deeper.
var webOptions = check.Options{Depth: 3, Runs: 300, Len: 6}

// Check is the checker's part of the lab.
type Check struct {
	Shell  *page.Shell
	lab    *labview.Replayer
	budget time.Duration

	mu      sync.Mutex
	reports map[string]check.Report // by handler (and "real/" and handler on the real engine), once computed
}

// New builds the checker's pages on the lab; budget bounds each handler's
// search (0: DefaultBudget).
func New(lv *labview.Replayer, budget time.Duration) *Check {
	if budget <= 0 {
		budget = DefaultBudget
	}
	return &Check{Shell: lv.Shell, lab: lv, budget: budget, reports: map[string]check.Report{}}
}

// report is a handler's search, run the first time it is asked for (one
// at a time, in a replay slot) and kept; real searches on the server's
// real engine (engine=real).
func (c *Check) report(ctx context.Context, handler string, real bool) (check.Report, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := reportKey(handler, real)
	if r, ok := c.reports[key]; ok {
		return r, nil
	}
	release, err := c.lab.Gate.Acquire(ctx)
	if err != nil {
		return check.Report{}, err
	}
	defer release()
	opt := webOptions
	opt.Budget = c.budget
	if real {
		opt.Engine = c.lab.Engine
	}
	r, err := check.Check(ctx, handler, opt)
	if err != nil {
		return check.Report{}, err
	}
	c.reports[key] = r
	return r, nil
}

// reportKey is where a handler's search is kept: by its name, or
// "real/" and its name on the real engine.
func reportKey(handler string, real bool) string {
	if real {
		return "real/" + handler
	}
	return handler
}

// handlers are the handlers the checker lists: the lab's message handlers,
// then the API handlers (searched with the API side's alphabet).
func (c *Check) handlers() []handlers.Info {
	return append(slices.Clip(c.lab.Handlers), sim.APIHandlers()...)
}

// view models

type indexView struct {
	T     page.Text
	Depth int
	Rows  []rowView
	// Model says how the search modelled the broker's redelivery after a
	// crash (check.Report.Redelivery): "redelivery at once" here.
	Model string
	engineView
	// Stream, when some searches are not kept yet, yields the rows as
	// their searches end (Rows is then empty); Interrupted says why the
	// stream stopped early, if it did.
	Stream      iter.Seq[rowView]
	Interrupted string
}

type rowView struct {
	Handler, Summary string
	URL              string // the handler's page
	Failed           bool
	Verdict          string // the shortest failure's, for styling
	Label            string // its badge
	Symbol           string
	Steps            int
	Others           string // the other verdicts found, with their steps
	Stories          string // how many distinct failures the handler's page lists
	Note             string // for a handler that passed: how far the search looked
}

type handlerView struct {
	T        page.Text
	Handler  string
	Summary  string
	Failures []failureView
	// Verdicts are the failures under their verdicts, in order: each
	// verdict's shortest story first, then its other causes.
	Verdicts []verdictView
	Omitted  int // distinct failures found beyond those listed
	Note     string
	Explored int
	Model    string // as indexView's
	engineView
}

// verdictView is one verdict and its stories, one for each cause.
type verdictView struct {
	Verdict, Label, Symbol string
	Stories                []failureView
}

type failureView struct {
	Verdict, Label, Symbol string
	Cause                  string // the kinds of step that make the difference
	N                      int    // the story's number on the page, from 1
	Steps                  int
	Lines                  []string
	LabURL                 string
	Settled, Expected      string
	// Provider says whether the story's payment provider deduplicates
	// repeated charges by reference (gateway dedup on) or takes each as
	// a new payment, for a story that reaches one: a verdict about a
	// repeated charge depends on it.
	Provider string
}

func (c *Check) row(t page.Text, h handlers.Info, r check.Report) rowView {
	row := rowView{Handler: h.Name, Summary: page.HandlerSummary(t, h), URL: "/check/" + url.PathEscape(h.Name)}
	if !r.Failed() {
		row.Note = passNote(t, r)
		return row
	}
	top := r.Failures[0]
	row.Failed, row.Verdict, row.Steps = true, string(top.Verdict), top.Steps
	row.Label, row.Symbol = t.S("v."+string(top.Verdict)), page.VerdictSymbol(top.Verdict)
	var others []string
	for i, f := range r.Failures {
		if i > 0 && f.Verdict != r.Failures[i-1].Verdict {
			others = append(others, t.F("chk.other", t.S("v."+string(f.Verdict)), f.Steps))
		}
	}
	row.Others = strings.Join(others, ", ")
	row.Stories = t.F("chk.count", len(r.Failures)+r.Omitted)
	return row
}

// provider says which gateway mode a story assumes, for a story on the
// API side (every request reaches the provider) or one that sets the
// gateway's mode; "" for the others.
func provider(t page.Text, script string) string {
	api, gateway, dedup := false, false, false
	for _, line := range strings.Split(script, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case strings.HasPrefix(f[0], "request"):
			api = true
		case f[0] == "gateway":
			gateway = true
			if len(f) >= 3 && f[1] == "dedup" {
				dedup = f[2] == "on"
			}
		}
	}
	switch {
	case !api && !gateway:
		return ""
	case dedup:
		return t.S("chk.provider.dedup")
	}
	return t.S("chk.provider.plain")
}

func passNote(t page.Text, r check.Report) string {
	note := t.F("chk.none", r.Depth, r.Runs, r.Explored)
	if r.Partial {
		note += " " + t.S("chk.partial")
	}
	return note
}

// stories fills a handler's page with its report's stories, under their
// verdicts; labURL is the address that opens a story in the lab.
func (v *handlerView) stories(t page.Text, rep check.Report, labURL func(check.Failure) string) {
	v.Omitted = rep.Omitted
	for i, f := range rep.Failures {
		fv := failureView{Verdict: string(f.Verdict), Label: t.S("v." + string(f.Verdict)), Symbol: page.VerdictSymbol(f.Verdict),
			Cause: f.Cause, N: i + 1, Steps: f.Steps, Lines: strings.Split(strings.TrimRight(f.Script, "\n"), "\n"),
			LabURL: labURL(f), Settled: page.Money(f.Settled), Expected: page.Money(f.Expected), Provider: provider(t, f.Script)}
		v.Failures = append(v.Failures, fv)
		if n := len(v.Verdicts); n == 0 || v.Verdicts[n-1].Verdict != fv.Verdict {
			v.Verdicts = append(v.Verdicts, verdictView{Verdict: fv.Verdict, Label: fv.Label, Symbol: fv.Symbol})
		}
		last := &v.Verdicts[len(v.Verdicts)-1]
		last.Stories = append(last.Stories, fv)
	}
}

// Index is GET /check: every handler and its shortest failure. A search
// runs the first time its handler is asked for and is kept; while some
// are not kept yet, the page streams: its head at once, then each row as
// its search ends, so the first visitor watches the table fill instead of
// a blank page (and needs no JavaScript for it).
func (c *Check) Index(w http.ResponseWriter, r *http.Request) error {
	t := c.Shell.Text(r)
	real, err := c.real(r)
	if err != nil {
		return err
	}
	v := &indexView{T: t, Depth: webOptions.Depth, engineView: c.engineOf(t, "/check", real)}
	all := c.handlers()
	rows := c.rows(r.Context(), t, all, real, v, func() {})
	if !c.kept(all, real) {
		// Each row may take the whole budget: the server's write timeout
		// counts from the row before, not from the request.
		rc := http.NewResponseController(w)
		v.Stream = c.rows(r.Context(), t, all, real, v, func() { rc.SetWriteDeadline(time.Now().Add(time.Minute)) })
		return c.Shell.Stream(w, r, indexPage(c.Shell.PageFor(t, r, t.S("chk.title")+" · "+t.S("app.name")), v))
	}
	for row := range rows {
		v.Rows = append(v.Rows, row)
	}
	if v.Interrupted != "" { // cannot happen: every search is kept
		return errors.New("check: a kept search failed")
	}
	w.Header().Set("Cache-Control", "no-cache")
	return c.Shell.Render(w, r, http.StatusOK, indexPage(c.Shell.PageFor(t, r, t.S("chk.title")+" · "+t.S("app.name")), v))
}

// kept reports whether every handler's search is kept already.
func (c *Check) kept(all []handlers.Info, real bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range all {
		if _, ok := c.reports[reportKey(h.Name, real)]; !ok {
			return false
		}
	}
	return true
}

// rows yields the index's rows in order, running each search not kept
// yet. The first report names the redelivery model (v.Model); a search
// that cannot run (the server is busy, the reader left) ends the rows and
// says why in v.Interrupted. before runs before each search.
func (c *Check) rows(ctx context.Context, t page.Text, all []handlers.Info, real bool, v *indexView, before func()) iter.Seq[rowView] {
	return func(yield func(rowView) bool) {
		for _, h := range all {
			before()
			rep, err := c.report(ctx, h.Name, real)
			if err != nil {
				if ctx.Err() == nil {
					c.Shell.Log.Warn("check: search stopped", "handler", h.Name, "err", err)
				}
				v.Interrupted = t.S("chk.interrupted")
				return
			}
			if v.Model == "" {
				v.Model = rep.Redelivery(t.Lang())
			}
			row := c.row(t, h, rep)
			row.URL = withEngine(row.URL, real)
			if !yield(row) {
				return
			}
		}
	}
}

// Handler is GET /check/{handler}: each minimal story of one handler.
func (c *Check) Handler(w http.ResponseWriter, r *http.Request) error {
	name := chi.URLParam(r, "handler")
	all := c.handlers()
	i := slices.IndexFunc(all, func(h handlers.Info) bool { return h.Name == name })
	if i < 0 {
		names := make([]string, len(all))
		for j, h := range all {
			names[j] = h.Name
		}
		return &page.Error{Status: http.StatusNotFound, Key: "chk.err.handler", Args: []any{page.InputExcerpt(name), strings.Join(names, ", ")}}
	}
	h := all[i]
	real, err := c.real(r)
	if err != nil {
		return err
	}
	rep, err := c.report(r.Context(), h.Name, real)
	if err != nil {
		return err
	}
	t := c.Shell.Text(r)
	v := handlerView{T: t, Handler: h.Name, Summary: page.HandlerSummary(t, h), Explored: rep.Explored, Model: rep.Redelivery(t.Lang()),
		engineView: c.engineOf(t, "/check/"+url.PathEscape(h.Name), real)}
	if !rep.Failed() {
		v.Note = passNote(t, rep)
	}
	v.stories(t, rep, func(f check.Failure) string {
		return link.Lab{Script: f.Script, Handlers: []string{h.Name}, Engine: labEngine(real)}.String()
	})
	w.Header().Set("Cache-Control", "no-cache")
	return c.Shell.Render(w, r, http.StatusOK, handlerPage(c.Shell.PageFor(t, r, h.Name+" · "+t.S("chk.title")+" · "+t.S("app.name")), v))
}

// Code is GET /check/code?code=…[&name=…]: the search for a handler file a
// person wrote, run in the sandbox (a child process under its limits, and
// the same time budget as the lab's handlers). The page's cache keeps the
// answer, since the search depends only on the address.
func (c *Check) Code(w http.ResponseWriter, r *http.Request) error {
	lv := c.lab
	if lv.Sandbox == nil {
		return lv.CodeOff()
	}
	// engine= is read for its errors only: the sandbox's child never gets
	// the server's real engine, so a visitor's file is searched on the
	// embedded one, and the page says so.
	if _, err := c.real(r); err != nil {
		return err
	}
	q := r.URL.Query()
	st, err := lv.ReadState(url.Values{"code": {q.Get("code")}, "name": {q.Get("name")}})
	if err != nil {
		// An API handler's file is refused on the broker side's empty
		// script; on an API story it reads, and the search (in the
		// sandbox) takes the API side's alphabet from the file.
		api, apiErr := lv.ReadState(url.Values{"code": {q.Get("code")}, "name": {q.Get("name")}, "preset": {"api-lost-response"}})
		if apiErr != nil {
			return err
		}
		st = api
	}
	if st.Code == "" {
		return page.BadRequest("chk.err.nocode")
	}
	release, err := lv.Gate.Acquire(r.Context())
	if err != nil {
		return err
	}
	defer release()
	opt := webOptions
	resp, err := lv.Sandbox.Run(r.Context(), sandbox.Request{Op: "check", Name: st.CodeName, Code: st.Code,
		Check: check.Options{Depth: opt.Depth, Runs: opt.Runs, Len: opt.Len, Budget: c.budget}})
	var se *sandbox.Error
	switch {
	case errors.Is(err, sandbox.ErrBusy):
		return &page.Error{Status: http.StatusServiceUnavailable, Key: "err.busy", RetryAfter: 2}
	case errors.Is(err, sandbox.ErrNoIsolation):
		return labview.NoIsolation(err)
	case errors.As(err, &se):
		return labview.CodeError(se, st.Code, st.CodeName, "")
	case err != nil:
		return err
	case resp.Error != nil:
		return labview.CodeError(resp.Error, st.Code, st.CodeName, "")
	}
	rep := *resp.Report
	t := c.Shell.Text(r)
	v := handlerView{T: t, Handler: st.CodeName, Summary: t.S("code.summary"), Explored: rep.Explored, Model: rep.Redelivery(t.Lang())}
	if lv.Engine != nil {
		v.Engine = t.S("chk.eng.code")
	}
	if !rep.Failed() {
		v.Note = passNote(t, rep)
	}
	v.stories(t, rep, func(f check.Failure) string {
		return link.Lab{Script: f.Script, Code: st.Code, Name: st.CodeName}.String()
	})
	return c.Shell.Render(w, r, http.StatusOK, handlerPage(c.Shell.PageFor(t, r, st.CodeName+" · "+t.S("chk.title")+" · "+t.S("app.name")), v))
}
