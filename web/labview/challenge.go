package labview

// Challenges (/challenges): goals to reach in the lab, judged by the
// engine (practice.Challenge). A challenge is a lab state like any other:
// ?challenge=ID travels in the address with the script, and the lab shows
// the goal above the cards with how far the script has got. A script that
// reaches the goal is saved in the reader's progress when it is built with
// the lab's controls (addStep, runScript), or with the banner's button
// when the reader came by a link.

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/web/page"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
)

// challengeView is the goal banner above the lab's cards.
type challengeView struct {
	ID, Title, Goal, Hint string
	Handler               string
	Number, Of            int
	Steps, Max            int
	// Status is open, solved, toolong, crashed or forbidden (the goal
	// reached, but against the rules).
	Status     string
	Message    string
	LessonURL  string
	NextURL    string // the next challenge, "" after the last
	ListURL    string
	SaveAction string       // the form that saves a solution to progress
	SaveFields []page.Field // its fields: the script and the step
	// CanSave offers the form: the challenge is solved and saving would
	// change the reader's progress (View.SetProgress).
	CanSave bool
	// SavedSteps is the length of the solve the reader's progress already
	// holds, in at most as many steps as this one (0: none, or unknown).
	SavedSteps int
	// Shared is a script's own goal (its goal: header), listed nowhere:
	// no number, hint, lesson, next or saving. GoalLine is its goal line
	// and ShareURL the address to share: the script without the steps
	// the person added (an API goal keeps its first request).
	Shared   bool
	GoalLine string
	ShareURL string
	// Items are the goal panel: each condition of the goal, then the
	// step limit and what is forbidden, beside the run's state at the
	// step shown.
	Items []goalItem
	// The solution (a listed challenge's): offered once the reader has
	// made a try (Tried: the script has a step beyond the challenge's
	// setup), shown when the address asks (solution=1) after a try.
	Tried         bool
	ShowAction    string       // the form that shows it (and marks it seen)
	ShowFields    []page.Field // the state to come back to
	SolutionShown bool
	Solution      string // the solution's script, in the page's language
	SolutionSteps int
	PlayURL       string // the lab with the solution, at its first step
	NoStore       bool   // this lab keeps no progress (SetProgress)
	HideURL       string // the same state without solution=1
}

// goalItem is one line of the goal panel: what the goal asks (Want),
// what the run has now (Have), and whether it is met.
type goalItem struct {
	Label, Want, Have string
	Met               bool
}

// SetProgress tells a challenge's banner what the reader's progress
// holds: store says whether this lab keeps progress at all, best is the
// number of steps of the reader's saved solve of the challenge (0: none).
// A solved challenge offers "Save to my progress" only when saving would
// change something: not without a store (the form would only fail), and
// not when the progress already has a solve as short (saving it again
// keeps the shorter one, so the button would do nothing).
func (v *View) SetProgress(store bool, best int) {
	c := v.Challenge
	if c != nil {
		c.NoStore = !store
	}
	if c == nil || c.Status != "solved" {
		return
	}
	if !store {
		// Nothing is kept, so the message does not promise it.
		c.CanSave, c.Message = false, v.T.F("ch.solved.nostore", c.Steps, c.Max)
		return
	}
	if best > 0 && best <= c.Steps {
		c.CanSave, c.SavedSteps = false, best
	}
}

// ChallengeIDs are the valid values of challenge=, for error messages.
func ChallengeIDs() []string {
	cs := practice.Challenges()
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}

// ChallengeStart is the lab address that starts a challenge: its
// handlers and a script of no steps, with the challenge's setup header
// when it has one.
func ChallengeStart(id string) string {
	l := link.Lab{Challenge: id}
	if c, err := practice.FindChallenge(id); err == nil {
		l.Script = c.Setup
	}
	return l.String()
}

// challengeBanner judges the lab's run against the state's challenge.
func (s *Replayer) challengeBanner(t page.Text, st State, run *sim.Run) *challengeView {
	c := st.Challenge
	if c == nil {
		return nil
	}
	if c.Shared {
		return s.sharedBanner(t, st, run)
	}
	all := practice.Challenges()
	v := &challengeView{ID: c.ID, Title: c.Title.In(t.Lang()), Goal: c.Goal.In(t.Lang()), Hint: c.Hint.In(t.Lang()),
		Handler: c.Handler, Of: len(all), Steps: st.Step, Max: c.MaxSteps, Status: "open",
		LessonURL: "/lessons/" + c.Topic, ListURL: "/challenges",
		SaveAction: "/challenges/" + url.PathEscape(c.ID) + "/solve"}
	s.solutionOf(t, st, v)
	for i, o := range all {
		if o.ID == c.ID {
			v.Number = i + 1
			if i+1 < len(all) {
				v.NextURL = ChallengeStart(all[i+1].ID)
			}
		}
	}
	for _, res := range run.Results {
		if res.Handler != c.Handler {
			continue
		}
		v.Items = goalItems(t, *c, st, res)
		try := c.Judge(st.Script, st.Step, res)
		switch {
		case try.Solved():
			v.Status, v.Message = "solved", t.F("ch.solved", st.Step, c.MaxSteps)
			v.SaveFields = []page.Field{{Name: "s", Value: link.Pack(WithSteps(st.Script, st.Step).String())}}
			v.CanSave = true
		case try.Reached && try.Crashed:
			v.Status, v.Message = "crashed", t.S("ch.crashed")
		case try.Reached && try.Forbidden != "":
			v.Status, v.Message = "forbidden", t.F("ch.forbidden", try.Forbidden)
		case try.Reached:
			v.Status, v.Message = "toolong", t.F("ch.toolong", st.Step, c.MaxSteps)
		default:
			v.Message = t.F("ch.open", st.Step, c.MaxSteps)
		}
	}
	return v
}

// sharedBanner is the banner of a script's own goal (goal: header): the
// goal line and the panel, judged like a listed challenge's, with no
// place in the list, no solution and nothing saved.
func (s *Replayer) sharedBanner(t page.Text, st State, run *sim.Run) *challengeView {
	c := st.Challenge
	v := &challengeView{Shared: true, Title: t.S("ch.shared.title"), Goal: t.S("ch.shared.goal"), GoalLine: c.Rules.String(),
		Handler: c.Handler, Steps: st.Step, Max: c.MaxSteps, Status: "open", ListURL: "/challenges"}
	keep := 0
	if st.Script.API {
		keep = 1 // an API script is told by its first request
	}
	share := st
	share.Script = WithSteps(st.Script, min(keep, st.Total()))
	share.Handlers = s.defaultHandlersOf(share)
	v.ShareURL = s.Link(share).String()
	// An API goal on the script of no steps is judged once a request
	// puts the lab on the API side.
	v.Message = t.F("ch.open.free", st.Step)
	if c.MaxSteps > 0 {
		v.Message = t.F("ch.open", st.Step, c.MaxSteps)
	}
	for _, res := range run.Results {
		if res.Handler != c.Handler {
			continue
		}
		v.Items = goalItems(t, *c, st, res)
		try := c.Judge(st.Script, st.Step, res)
		switch {
		case try.Solved():
			v.Status, v.Message = "solved", t.F("ch.shared.solved", st.Step)
		case try.Reached && try.Crashed:
			v.Status, v.Message = "crashed", t.S("ch.crashed")
		case try.Reached && try.Forbidden != "":
			v.Status, v.Message = "forbidden", t.F("ch.forbidden", try.Forbidden)
		case try.Reached:
			v.Status, v.Message = "toolong", t.F("ch.toolong", st.Step, c.MaxSteps)
		case c.MaxSteps > 0:
			v.Message = t.F("ch.open", st.Step, c.MaxSteps)
		default:
			v.Message = t.F("ch.open.free", st.Step)
		}
	}
	return v
}

// Tried says the reader has made a try at the state's listed challenge:
// its script has a step of the reader's own beyond the challenge's setup
// (an API challenge's request is the setup's). Only then is a solution
// offered or shown.
func Tried(st State) bool {
	c := st.Challenge
	if c == nil || c.Shared || st.Script.API != c.API {
		return false
	}
	setup := 0
	if sc, err := script.Parse(c.Setup); err == nil {
		setup = len(sc.Steps)
	}
	return st.Total() > setup
}

// solutionOf fills the banner's solution: offered after a try (a step
// of the reader's own beyond the setup), shown when the address asks.
func (s *Replayer) solutionOf(t page.Text, st State, v *challengeView) {
	c := st.Challenge
	setup := 0
	if sc, err := script.Parse(c.Setup); err == nil {
		setup = len(sc.Steps)
	}
	v.Tried = Tried(st)
	v.ShowAction = "/challenges/" + url.PathEscape(c.ID) + "/solution"
	shown := st
	shown.ShowSolution = false
	l := s.Link(shown)
	for k, vs := range l.Values() {
		v.ShowFields = append(v.ShowFields, page.Field{Name: k, Value: vs[0]})
	}
	v.ShowFields = append(v.ShowFields, page.Field{Name: "step", Value: strconv.Itoa(st.Step)})
	slices.SortFunc(v.ShowFields, func(a, b page.Field) int { return strings.Compare(a.Name, b.Name) })
	v.HideURL = URL(l, st.Step, st.DefaultStep())
	if !v.Tried || !st.ShowSolution || c.Solution == "" {
		return
	}
	sol, err := script.Parse(c.Solution)
	if err != nil {
		return
	}
	v.SolutionShown, v.SolutionSteps = true, len(sol.Steps)
	v.Solution = scriptInLang(c.Solution, t.Is(page.RU))
	play := State{Script: sol, Challenge: c, ShowSolution: true}
	play.Handlers = s.defaultHandlersOf(play)
	v.PlayURL = URL(s.Link(play), setup, len(sol.Steps))
}

// goalItems sets the goal's conditions, its step limit and what it
// forbids beside a run's result after st.Step steps.
func goalItems(t page.Text, c practice.Challenge, st State, res sim.Result) []goalItem {
	var out []goalItem
	figure := func(measure string) string {
		n := practice.Figure(measure, res)
		if practice.MoneyMeasure(measure) {
			return page.Money(n)
		}
		return strconv.FormatInt(n, 10)
	}
	for _, cond := range c.Rules.Conds {
		it := goalItem{Label: t.S("goal.m." + cond.Measure), Met: cond.Holds(res)}
		op := goalOp(cond.Op)
		switch {
		case cond.Measure == "verdict":
			it.Want = op + " " + t.S("v."+string(cond.Verdict))
			it.Have = t.S("v." + string(res.Verdict))
		case cond.Other != "":
			it.Want = op + " " + t.S("goal.m."+cond.Other) + " (" + figure(cond.Other) + ")"
			it.Have = figure(cond.Measure)
		default:
			want := strconv.FormatInt(cond.Value, 10)
			if practice.MoneyMeasure(cond.Measure) {
				want = page.Money(cond.Value)
			}
			it.Want = op + " " + want
			it.Have = figure(cond.Measure)
		}
		out = append(out, it)
	}
	if c.MaxSteps > 0 {
		out = append(out, goalItem{Label: t.S("goal.steps"), Want: "≤ " + strconv.Itoa(c.MaxSteps),
			Have: strconv.Itoa(st.Step), Met: st.Step <= c.MaxSteps})
	}
	for _, w := range c.Rules.Without {
		it := goalItem{Label: t.F("goal.without", w), Want: t.S("goal.none"), Have: t.S("goal.none"), Met: true}
		for i, stp := range st.Script.Steps[:st.Step] {
			if (practice.Goal{Without: []string{w}}).Breaks(stp) != "" {
				it.Have, it.Met = t.F("goal.atstep", i+1), false
				break
			}
		}
		out = append(out, it)
	}
	return out
}

// goalOp writes a goal's operator for reading.
func goalOp(op string) string {
	switch op {
	case "!=":
		return "≠"
	case "<=":
		return "≤"
	case ">=":
		return "≥"
	}
	return op
}
