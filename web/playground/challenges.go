package playground

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/practice"
)

// Challenges lists the challenges, with the reader's solves.
func (s *Playground) Challenges(w http.ResponseWriter, r *http.Request) error {
	t := s.Shell.Text(r)
	var solved map[string]practice.Solve
	if p := page.ProfileOf(r); p != "" && s.Progress != nil {
		var err error
		if solved, err = s.Progress.Solved(r.Context(), p); err != nil {
			return err
		}
	}
	var seen map[string]time.Time
	if p := page.ProfileOf(r); p != "" && s.Progress != nil {
		var err error
		if seen, err = s.Progress.SolutionsSeen(r.Context(), p); err != nil {
			return err
		}
	}
	v := challengesView{T: t, Saved: s.Progress != nil}
	just := r.URL.Query().Get("saved")
	for i, c := range practice.Challenges() {
		item := challengeItem{N: i + 1, ID: c.ID, Title: c.Title.In(t.Lang()), Goal: c.Goal.In(t.Lang()),
			Handler: c.Handler, Max: c.MaxSteps, Start: labview.ChallengeStart(c.ID), LessonURL: "/lessons/" + c.Topic,
			Lesson: s.lessonTitle(t, c.Topic)}
		_, item.Seen = seen[c.ID]
		if sv, ok := solved[c.ID]; ok {
			if c.ID == just {
				v.JustSaved = item.Title
			}
			item.Solved, item.Steps = true, sv.Steps
			item.Solution = link.Lab{Script: sv.Script, Challenge: c.ID}.String()
			v.Done++
		}
		v.Items = append(v.Items, item)
	}
	w.Header().Set("Cache-Control", "private, no-cache")
	w.Header().Add("Vary", "Cookie")
	return s.Shell.Render(w, r, http.StatusOK, challengesPage(s.Shell.PageFor(t, r, t.S("ch.title")+" · "+t.S("app.name")), v))
}

type challengesView struct {
	T         page.Text
	Items     []challengeItem
	Done      int
	Saved     bool   // progress is kept (a store is open)
	JustSaved string // the title of the challenge just saved (?saved=ID), for the notice
}

type challengeItem struct {
	N                 int
	ID, Title, Goal   string
	Handler           string
	Max, Steps        int
	Solved            bool
	Seen              bool // the reader asked to see its solution
	Start, Solution   string
	LessonURL, Lesson string
}

// ChallengeGo is the short address of a challenge: /challenges/ID.
func (s *Playground) ChallengeGo(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	if _, err := practice.FindChallenge(id); err != nil {
		return &page.Error{Status: http.StatusNotFound, Key: "err.challenge", Args: []any{page.InputExcerpt(id), challengeList()}}
	}
	http.Redirect(w, r, labview.ChallengeStart(id), http.StatusSeeOther)
	return nil
}

func challengeList() string { return strings.Join(labview.ChallengeIDs(), ", ") }

// SolveChallenge saves a solution the reader brings (s=PERMALINK, the
// script up to the step that solved it) after the engine agrees, then
// redirects to the list.
func (s *Playground) SolveChallenge(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	c, err := practice.FindChallenge(id)
	if err != nil {
		return &page.Error{Status: http.StatusNotFound, Key: "err.challenge", Args: []any{page.InputExcerpt(id), challengeList()}}
	}
	if s.Progress == nil {
		return &page.Error{Status: http.StatusServiceUnavailable, Key: "pr.err.unavailable"}
	}
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	text, derr := link.Unpack(f.Get("s"))
	var le *link.Error
	if errors.As(derr, &le) {
		return page.BadRequest(le.Key, le.Args...)
	}
	sc, err := labview.ParseScript(text, "err.script")
	if err != nil {
		return err
	}
	back := link.Lab{Script: sc.String(), Challenge: c.ID}.String()
	if err := s.saveSolve(w, r, c, sc); err != nil {
		var he *page.Error
		if errors.As(err, &he) {
			he.Back = back
		}
		return err
	}
	http.Redirect(w, r, "/challenges?saved="+url.QueryEscape(c.ID)+"#ch-"+c.ID, http.StatusSeeOther)
	return nil
}

// saveSolve stores sc as the reader's solution of c, minting a profile on
// the first save. A script that does not solve c is a 422 that says so.
func (s *Playground) saveSolve(w http.ResponseWriter, r *http.Request, c practice.Challenge, sc *script.Script) error {
	v := practice.Solve{Challenge: c.ID, Steps: len(sc.Steps), Script: sc.String(), At: s.Now()}
	if err := practice.VerifySolve(r.Context(), v); err != nil {
		if errors.Is(err, practice.ErrBadSolve) {
			return &page.Error{Status: http.StatusUnprocessableEntity, Key: "ch.err.notsolved", Args: []any{c.ID, c.MaxSteps}}
		}
		return err
	}
	_, err := s.Progress.SaveSolve(r.Context(), page.EnsureProfile(w, r), v)
	if errors.Is(err, practice.ErrNotSaved) {
		return s.Shell.NotSaved(r, err)
	}
	return err
}

// autoSolve saves a challenge's solution reached with the lab's controls:
// st is the state the POST leads to, at its last step. Nothing happens
// unless the script solves the challenge; a failure to save is logged
// and the lab goes on (the banner still offers to save).
func (s *Playground) autoSolve(w http.ResponseWriter, r *http.Request, st labview.State) {
	if st.Challenge == nil || st.Challenge.Shared || s.Progress == nil || st.Total() > st.Challenge.MaxSteps {
		return
	}
	try, err := st.Challenge.Check(r.Context(), st.Script, 0, s.Replayer.Budget)
	if err != nil || !try.Solved() {
		return
	}
	if err := s.saveSolve(w, r, *st.Challenge, st.Script); err != nil {
		s.Shell.Log.Warn("challenge solve not saved", "challenge", st.Challenge.ID, "err", err)
	}
}

// lessonTitle is the title of the lesson with a slug, or the slug when
// the course does not load.
func (s *Playground) lessonTitle(t page.Text, slug string) string {
	return s.LessonTitle(t.Lang(), slug)
}

// savedSolve says whether this lab keeps progress and how many steps the
// reader's saved solve of st's challenge has (0: none, no challenge, or
// a progress that could not be read: then the banner offers to save, and
// saving says what is wrong).
func (s *Playground) savedSolve(r *http.Request, st labview.State) (store bool, best int) {
	if s.Progress == nil {
		return false, 0
	}
	p := page.ProfileOf(r)
	if st.Challenge == nil || st.Challenge.Shared || p == "" {
		return true, 0
	}
	solved, err := s.Progress.Solved(r.Context(), p)
	if err != nil {
		s.Shell.Log.Warn("challenge solves not read", "challenge", st.Challenge.ID, "err", err)
		return true, 0
	}
	return true, solved[st.Challenge.ID].Steps
}

// ShowSolution shows a challenge's solution after a try: the form sends
// the lab's state (the script the reader has tried and the step), the
// reader's progress notes the solution seen (not a solve: that needs the
// reader's own run of the steps), and the lab comes back at the same
// state with solution=1. Before a try (no step beyond the setup) it is a
// 409 that says to try first.
func (s *Playground) ShowSolution(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	c, err := practice.FindChallenge(id)
	if err != nil {
		return &page.Error{Status: http.StatusNotFound, Key: "err.challenge", Args: []any{page.InputExcerpt(id), challengeList()}}
	}
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	f.Set("challenge", c.ID)
	f.Del("solution")
	st, err := s.Replayer.ReadState(f)
	if err != nil {
		return err
	}
	st.ShowSolution = true
	back := labview.URL(s.Replayer.Link(st), st.Step, st.DefaultStep())
	if !labview.Tried(st) {
		return &page.Error{Status: http.StatusConflict, Key: "ch.err.notried", Args: []any{c.ID}, Back: link.Lab{Script: c.Setup, Challenge: c.ID}.String()}
	}
	if s.Progress != nil {
		err := s.Progress.MarkSolutionSeen(r.Context(), page.EnsureProfile(w, r), c.ID, s.Now())
		if errors.Is(err, practice.ErrNotSaved) {
			return s.Shell.NotSaved(r, err)
		}
		if err != nil {
			return err
		}
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}
