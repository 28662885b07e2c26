package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
)

// lab renders the lab page, or only its region for htmx. The page is a
// pure function of the address, the language and the htmx flavour, so it
// is served from the replay cache when someone asked for it before.
func (s *LbLab) lab(w http.ResponseWriter, r *http.Request) error {
	st, err := s.readState(r.URL.Query())
	if err != nil {
		return err
	}
	return s.ServeCached(w, r, page.CacheKey(r, "lab"), func(w http.ResponseWriter, r *http.Request) error {
		run, err := s.replay(r.Context(), st)
		if err != nil {
			return err
		}
		t := s.Text(r)
		v := s.labView(t, r, st, run)
		w.Header().Set("Vary", "HX-Request, HX-Request-Type, Accept-Language, Cookie")
		w.Header().Set("Cache-Control", "no-cache")
		if page.IsPartial(r) {
			// Forms send their fields in any order; the address bar gets the
			// canonical form of the same state.
			w.Header().Set("HX-Push-Url", v.URL)
			return s.Render(w, r, http.StatusOK, labFragment(v))
		}
		return s.Render(w, r, http.StatusOK, labPage(s.PageFor(t, r, v.PageTitle), v))
	})
}


// addStep appends the step a control describes after the step being shown
// (dropping any steps after it) and redirects to the new address.
func (s *LbLab) addStep(w http.ResponseWriter, r *http.Request) error {
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	st, err := s.readState(f)
	if err != nil {
		return err
	}
	line, err := stepLine(f)
	if err != nil {
		return err
	}
	base := withSteps(st.script, st.step)
	text := base.String() + line + "\n"
	sc, err := sim.Parse(text)
	if err == nil {
		err = checkCanonical(sc)
	}
	if err != nil {
		var he *page.Error
		if errors.As(err, &he) {
			he.Back = labURL(s.query(st), st.step, st.defaultStep())
			return he
		}
		// The base script parsed, so the error is in the new line: show
		// the parser's words without a line number the reader never saw.
		e := page.BadRequest("err.newstep", page.ParseMessage(err, false))
		e.Back = labURL(s.query(st), st.step, st.defaultStep())
		return e
	}
	if err := s.checkPending(r.Context(), st, f.Get("verb")); err != nil {
		return err
	}
	next := s.retarget(st, sc)
	s.autoSolve(w, r, next)
	return s.redirectTo(w, r, next, len(sc.Steps))
}

// checkPending refuses a deliver or drain step when no handler has a
// message ready at the step shown, a redeliver when none has one in
// flight, and a DLQ replay when every DLQ is empty: the step would change
// nothing, and its narration would say otherwise.
func (s *LbLab) checkPending(ctx context.Context, st labState, verb string) error {
	var key string
	switch verb {
	case sim.VerbDeliver, sim.VerbDeliverConcurrent, sim.VerbDrain:
		key = "err.nothingready"
	case sim.VerbRedeliver:
		key = "err.nothinginflight"
	case sim.VerbDLQReplay:
		key = "err.emptydlq"
	default:
		return nil
	}
	run, err := s.replay(ctx, st)
	if err != nil {
		return err
	}
	ready, inFlight := run.Pending()
	switch {
	case verb == sim.VerbRedeliver && inFlight, verb == sim.VerbDLQReplay && run.DeadLetters(),
		verb != sim.VerbRedeliver && verb != sim.VerbDLQReplay && ready:
		return nil
	}
	return &page.Error{Status: http.StatusBadRequest, Key: key, Args: []any{st.step},
		Back: labURL(s.query(st), st.step, st.defaultStep())}
}

// undo drops the script's last step. The view stays on the step it showed,
// unless that step is the one removed.
func (s *LbLab) undo(w http.ResponseWriter, r *http.Request) error {
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	st, err := s.readState(f)
	if err != nil {
		return err
	}
	n := st.total()
	if n == 0 {
		return s.redirectTo(w, r, st, 0)
	}
	sc := withSteps(st.script, n-1)
	return s.redirectTo(w, r, s.retarget(st, sc), min(st.step, n-1))
}

// runScript replaces the script with the text from the editor.
func (s *LbLab) runScript(w http.ResponseWriter, r *http.Request) error {
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	text := f.Get("script")
	// The state fields say where the reader came from; the script field
	// is the new script, so it is read on its own.
	f.Del("script")
	st, err := s.readState(f)
	if err != nil {
		return err
	}
	sc, err := parseScript(text, "err.script")
	if err != nil {
		var he *page.Error
		if errors.As(err, &he) {
			he.Back = labURL(s.query(st), st.step, st.defaultStep())
		}
		return err
	}
	next := s.retarget(st, sc)
	s.autoSolve(w, r, next)
	return s.redirectTo(w, r, next, len(sc.Steps))
}

// retarget is st with a new script, recognising a preset when the script
// is one unchanged.
func (s *LbLab) retarget(st labState, sc *sim.Script) labState {
	st.script, st.preset = sc, s.ByScript[sc.String()]
	return st
}

// redirectTo answers a POST with 303 See Other to the lab at step. htmx
// follows the redirect with fetch and pushes the final address, so the
// same answer serves a page with or without JavaScript.
func (s *LbLab) redirectTo(w http.ResponseWriter, r *http.Request, st labState, step int) error {
	http.Redirect(w, r, labURL(s.query(st), step, st.defaultStep()), http.StatusSeeOther)
	return nil
}
