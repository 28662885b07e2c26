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
func challengeBanner(t page.Text, st State, run *sim.Run) *challengeView {
	c := st.Challenge
	if c == nil {
		return nil
	}
	all := practice.Challenges()
	v := &challengeView{ID: c.ID, Title: c.Title.In(t.Lang()), Goal: c.Goal.In(t.Lang()), Hint: c.Hint.In(t.Lang()),
		Handler: c.Handler, Of: len(all), Steps: st.Step, Max: c.MaxSteps, Status: "open",
		LessonURL: "/lessons/" + c.Topic, ListURL: "/challenges",
		SaveAction: "/challenges/" + url.PathEscape(c.ID) + "/solve"}
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
