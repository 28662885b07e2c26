package playground

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// Show renders the lab's page (/lab), or only its region for htmx. The page is a
// pure function of the address, the language and the htmx flavour, so it
// is served from the replay cache when someone asked for it before.
func (s *Playground) Show(w http.ResponseWriter, r *http.Request) error {
	st, err := s.Replayer.ReadState(r.URL.Query())
	if err != nil {
		// A handler file that does not pass keeps the lab (code.go).
		return s.ShowCodeProblems(w, r, err)
	}
	// A challenge's banner depends on the reader's progress too (a solve
	// already saved is not offered again): that goes into the key.
	store, best := s.savedSolve(r, st)
	key := page.CacheKey(r, "lab")
	if st.Challenge != nil {
		key = page.CacheKey(r, "lab", fmt.Sprint(store, best))
	}
	return s.Shell.ServeCached(w, r, key, func(w http.ResponseWriter, r *http.Request) error {
		// The page is drawn in the replay's slot, into a buffer that is
		// dropped when the request ends (the timelines stop with it):
		// a long trace's layout is counted by the gate and stops with
		// the reader. A file that fails in the sandbox keeps the lab
		// too, after the slot is given back.
		return s.ShowCodeProblems(w, r, s.Replayer.ReplayAndShow(r.Context(), st, func(run *sim.Run) error {
			t := s.Shell.Text(r)
			v := s.Replayer.NewView(t, r, st, run)
			v.SetProgress(store, best)
			w.Header().Set("Vary", "HX-Request, HX-Request-Type, Accept-Language, Cookie")
			w.Header().Set("Cache-Control", "no-cache")
			if page.IsPartial(r) {
				// Forms send their fields in any order; the address bar gets
				// the canonical form of the same state.
				w.Header().Set("HX-Push-Url", v.URL)
				return s.Shell.Render(w, r, http.StatusOK, labview.Fragment(v))
			}
			return s.Shell.Render(w, r, http.StatusOK, labview.Page(s.Shell.PageFor(t, r, v.PageTitle), v))
		}))
	})
}

// AddStep appends the step a control describes after the step being shown
// (dropping any steps after it) and redirects to the new address.
func (s *Playground) AddStep(w http.ResponseWriter, r *http.Request) error {
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	st, err := s.Replayer.ReadState(f)
	if err != nil {
		return err
	}
	line, err := labview.StepLine(f, st.Script.API)
	if err != nil {
		return err
	}
	// The picture's clicks link to where this leads (labview.AppendStep).
	next, err := s.Replayer.AppendStep(st, line)
	if err != nil {
		var he *page.Error
		if errors.As(err, &he) {
			he.Back = labview.URL(s.Replayer.Link(st), st.Step, st.DefaultStep())
			return he
		}
		// The base script parsed, so the error is in the new line: show
		// the parser's words without a line number the reader never saw.
		e := page.BadRequest("err.newstep", page.ParseMessage(err, false))
		e.Back = labview.URL(s.Replayer.Link(st), st.Step, st.DefaultStep())
		return e
	}
	if err := s.checkPending(r.Context(), st, next.Script.Steps[next.Step-1]); err != nil {
		return err
	}
	s.autoSolve(w, r, next)
	return s.redirectTo(w, r, next, next.Step)
}

// checkPending refuses a deliver or drain step when no handler has a
// message ready at the step shown, a redeliver when none has one in
// flight, and a DLQ replay when every DLQ is empty: the step would change
// nothing, and its narration would say otherwise. A batch is refused as a
// delivery is; deliver OP also when no message of OP is ready. A relay
// needs nothing: with no pending outbox rows it says so.
func (s *Playground) checkPending(ctx context.Context, st labview.State, step script.Step) error {
	var key string
	verb := step.Verb
	switch verb {
	case script.VerbDeliver, script.VerbDeliverConcurrent, script.VerbDrain, script.VerbDeliverBatch:
		key = "err.nothingready"
	case script.VerbRedeliver:
		key = "err.nothinginflight"
	case script.VerbDLQReplay:
		key = "err.emptydlq"
	default:
		return nil
	}
	run, err := s.Replayer.Replay(ctx, st)
	if err != nil {
		return err
	}
	ready, inFlight := run.Pending()
	if verb == script.VerbDeliver && step.Op != "" && ready && !readyOf(run, step.Op) {
		return &page.Error{Status: http.StatusBadRequest, Key: "err.opnotready", Args: []any{st.Step, step.Op},
			Back: labview.URL(s.Replayer.Link(st), st.Step, st.DefaultStep())}
	}
	switch {
	case verb == script.VerbRedeliver && inFlight, verb == script.VerbDLQReplay && run.DeadLetters(),
		verb != script.VerbRedeliver && verb != script.VerbDLQReplay && ready:
		return nil
	}
	return &page.Error{Status: http.StatusBadRequest, Key: key, Args: []any{st.Step},
		Back: labview.URL(s.Replayer.Link(st), st.Step, st.DefaultStep())}
}

// readyOf says whether any handler has a message of operation op ready.
func readyOf(run *sim.Run, op string) bool {
	for _, res := range run.Results {
		for _, m := range res.Broker.Ready {
			if m.Op == op {
				return true
			}
		}
	}
	return false
}

// Undo drops the script's last step. The view stays on the step it showed,
// unless that step is the one removed.
func (s *Playground) Undo(w http.ResponseWriter, r *http.Request) error {
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	st, err := s.Replayer.ReadState(f)
	if err != nil {
		return err
	}
	n := st.Total()
	if n == 0 {
		return s.redirectTo(w, r, st, 0)
	}
	sc := labview.WithSteps(st.Script, n-1)
	return s.redirectTo(w, r, s.Replayer.Retarget(st, sc), min(st.Step, n-1))
}

// RunScript replaces the script with the text from the editor.
func (s *Playground) RunScript(w http.ResponseWriter, r *http.Request) error {
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	text := f.Get("script")
	// The state fields say where the reader came from; the script field
	// is the new script, so it is read on its own. The handlers are read
	// for the new script: it may be the other side (API or broker).
	f.Del("script")
	prefer := f["handlers"]
	f.Del("handlers")
	st, err := s.Replayer.ReadState(f)
	if err != nil {
		return err
	}
	sc, err := labview.ParseScript(text, "err.script")
	if err != nil {
		var he *page.Error
		if errors.As(err, &he) {
			he.Back = labview.URL(s.Replayer.Link(st), st.Step, st.DefaultStep())
		}
		return err
	}
	next := s.Replayer.Retarget(st, sc)
	if len(prefer) > 0 {
		// The handlers the page had, when they serve the new script's
		// side; else its default.
		next.Handlers = s.Replayer.DefaultHandlersOf(next)
		if hs, herr := s.Replayer.ReadHandlersFor(sc, prefer); herr == nil {
			next.Handlers = hs
		}
	}
	s.autoSolve(w, r, next)
	return s.redirectTo(w, r, next, len(sc.Steps))
}

// redirectTo answers a POST with 303 See Other to the lab at step. htmx
// follows the redirect with fetch and pushes the final address, so the
// same answer serves a page with or without JavaScript.
func (s *Playground) redirectTo(w http.ResponseWriter, r *http.Request, st labview.State, step int) error {
	http.Redirect(w, r, labview.URL(s.Replayer.Link(st), step, st.DefaultStep()), http.StatusSeeOther)
	return nil
}
