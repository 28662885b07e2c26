package web

// Challenges (/challenges): goals to reach in the lab, judged by the
// engine (practice.Challenge). A challenge is a lab state like any other:
// ?challenge=ID travels in the address with the script, and the lab shows
// the goal above the cards with how far the script has got. A script that
// reaches the goal is saved in the reader's progress when it is built with
// the lab's controls (addStep, runScript), or with the banner's button
// when the reader came by a link.

import (
	"errors"
	"github.com/idempotency-lab/lab/web/page"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
)

// challengeView is the goal banner above the lab's cards.
type challengeView struct {
	ID, Title, Goal, Hint string
	Handler               string
	Number, Of            int
	Steps, Max            int
	// Status is open, solved, toolong or crashed (the goal reached, but
	// against the rules).
	Status     string
	Message    string
	LessonURL  string
	NextURL    string // the next challenge, "" after the last
	ListURL    string
	SaveAction string  // the form that saves a solution to progress
	SaveFields []page.Field // its fields: the script and the step
}

// challengeIDs are the valid values of challenge=, for error messages.
func challengeIDs() []string {
	cs := practice.Challenges()
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}

// challengeStart is the lab address that starts a challenge: its
// handlers and an empty script.
func challengeStart(id string) string { return "/lab?challenge=" + url.QueryEscape(id) }

// challengeBanner judges the lab's run against the state's challenge.
func challengeBanner(t page.Text, st labState, run *sim.Run) *challengeView {
	c := st.challenge
	if c == nil {
		return nil
	}
	all := practice.Challenges()
	v := &challengeView{ID: c.ID, Title: c.Title.In(t.Lang()), Goal: c.Goal.In(t.Lang()), Hint: c.Hint.In(t.Lang()),
		Handler: c.Handler, Of: len(all), Steps: st.step, Max: c.MaxSteps, Status: "open",
		LessonURL: "/lessons/" + c.Topic, ListURL: "/challenges",
		SaveAction: "/challenges/" + url.PathEscape(c.ID) + "/solve"}
	for i, o := range all {
		if o.ID == c.ID {
			v.Number = i + 1
			if i+1 < len(all) {
				v.NextURL = challengeStart(all[i+1].ID)
			}
		}
	}
	for _, res := range run.Results {
		if res.Handler != c.Handler {
			continue
		}
		try := c.Judge(st.script, st.step, res)
		switch {
		case try.Solved():
			v.Status, v.Message = "solved", t.F("ch.solved", st.step, c.MaxSteps)
			v.SaveFields = []page.Field{{Name: "s", Value: encodePermalink(withSteps(st.script, st.step).String())}}
		case try.Reached && try.Crashed:
			v.Status, v.Message = "crashed", t.S("ch.crashed")
		case try.Reached:
			v.Status, v.Message = "toolong", t.F("ch.toolong", st.step, c.MaxSteps)
		default:
			v.Message = t.F("ch.open", st.step, c.MaxSteps)
		}
	}
	return v
}

// challengesIndex lists the challenges, with the reader's solves.
func (s *LbLab) challengesIndex(w http.ResponseWriter, r *http.Request) error {
	t := s.Text(r)
	var solved map[string]practice.Solve
	if p := page.ProfileOf(r); p != "" && s.Progress != nil {
		var err error
		if solved, err = s.Progress.Solved(r.Context(), p); err != nil {
			return err
		}
	}
	v := challengesView{T: t, Saved: s.Progress != nil}
	just := r.URL.Query().Get("saved")
	for i, c := range practice.Challenges() {
		item := challengeItem{N: i + 1, ID: c.ID, Title: c.Title.In(t.Lang()), Goal: c.Goal.In(t.Lang()),
			Handler: c.Handler, Max: c.MaxSteps, Start: challengeStart(c.ID), LessonURL: "/lessons/" + c.Topic,
			Lesson: s.lessonTitle(t, c.Topic)}
		if sv, ok := solved[c.ID]; ok {
			if c.ID == just {
				v.JustSaved = item.Title
			}
			item.Solved, item.Steps = true, sv.Steps
			item.Solution = item.Start + "&s=" + encodePermalink(sv.Script)
			v.Done++
		}
		v.Items = append(v.Items, item)
	}
	w.Header().Set("Cache-Control", "private, no-cache")
	w.Header().Add("Vary", "Cookie")
	return s.Render(w, r, http.StatusOK, challengesPage(s.PageFor(t, r, t.S("ch.title")+" · "+t.S("app.name")), v))
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
	Start, Solution   string
	LessonURL, Lesson string
}

// challengeGo is the short address of a challenge: /challenges/ID.
func (s *LbLab) challengeGo(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	if _, err := practice.FindChallenge(id); err != nil {
		return &page.Error{Status: http.StatusNotFound, Key: "err.challenge", Args: []any{page.InputExcerpt(id), challengeList()}}
	}
	http.Redirect(w, r, challengeStart(id), http.StatusSeeOther)
	return nil
}

func challengeList() string {
	out := ""
	for i, id := range challengeIDs() {
		if i > 0 {
			out += ", "
		}
		out += id
	}
	return out
}

// solveChallenge saves a solution the reader brings (s=PERMALINK, the
// script up to the step that solved it) after the engine agrees, then
// redirects to the list.
func (s *LbLab) solveChallenge(w http.ResponseWriter, r *http.Request) error {
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
	text, derr := decodePermalink(f.Get("s"))
	var pe *permalinkError
	if errors.As(derr, &pe) {
		return page.BadRequest(pe.key, pe.args...)
	}
	sc, err := parseScript(text, "err.script")
	if err != nil {
		return err
	}
	back := challengeStart(c.ID) + "&s=" + encodePermalink(sc.String())
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
func (s *LbLab) saveSolve(w http.ResponseWriter, r *http.Request, c practice.Challenge, sc *sim.Script) error {
	v := practice.Solve{Challenge: c.ID, Steps: len(sc.Steps), Script: sc.String(), At: s.Now()}
	if err := practice.VerifySolve(r.Context(), v); err != nil {
		if errors.Is(err, practice.ErrBadSolve) {
			return &page.Error{Status: http.StatusUnprocessableEntity, Key: "ch.err.notsolved", Args: []any{c.ID, c.MaxSteps}}
		}
		return err
	}
	_, err := s.Progress.SaveSolve(r.Context(), page.EnsureProfile(w, r), v)
	if errors.Is(err, practice.ErrNotSaved) {
		return s.NotSaved(r, err)
	}
	return err
}

// autoSolve saves a challenge's solution reached with the lab's controls:
// st is the state the POST leads to, at its last step. Nothing happens
// unless the script solves the challenge; a failure to save is logged
// and the lab goes on (the banner still offers to save).
func (s *LbLab) autoSolve(w http.ResponseWriter, r *http.Request, st labState) {
	if st.challenge == nil || s.Progress == nil || st.total() > st.challenge.MaxSteps {
		return
	}
	try, err := st.challenge.Check(r.Context(), st.script, 0, s.Budget)
	if err != nil || !try.Solved() {
		return
	}
	if err := s.saveSolve(w, r, *st.challenge, st.script); err != nil {
		s.Log.Warn("challenge solve not saved", "challenge", st.challenge.ID, "err", err)
	}
}

// lessonTitle is the title of the lesson with a slug, or the slug when
// the course does not load.
func (s *LbLab) lessonTitle(t page.Text, slug string) string {
	return s.LessonTitle(t.Lang(), slug)
}
