package practice

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/sim"
)

// Errors of grading and of the progress store. They are wrapped with the
// details; compare with errors.Is. All of them are the caller's input, so
// the web answers them with 400 and the message.
var (
	ErrUnknownQuestion  = errors.New("unknown question")
	ErrUnknownTopic     = errors.New("unknown topic")
	ErrWrongKind        = errors.New("wrong kind of answer for this question")
	ErrBadOption        = errors.New("bad option")
	ErrBadPoint         = errors.New("bad key point")
	ErrMalformedBalance = errors.New("malformed balance")
	ErrUnknownVerdict   = errors.New("unknown verdict")
)

// Grade is the graded answer to one question, with everything the result
// page shows.
type Grade struct {
	Question string  // the question's id
	Kind     Kind    // the question's kind
	Score    float64 // 0 to 1; this is what the progress store records

	Options []OptionResult // choice: every option in order, with its explanation
	Points  []PointResult  // open: every key point in order
	Answer  Text           // open: the model answer
	Outcome *Outcome       // predict: what the engine did
	Code    *CodeOutcome   // code: what the checks found
}

// CodeOutcome is a coding exercise's checks on a person's handler file:
// each preset's verdict, the shortest forbidden failure the schedule
// search found, or the error that stopped the file (it did not compile,
// ran too long, used too much memory).
type CodeOutcome struct {
	Code      string // the file graded
	Pass      bool
	Presets   []PresetResult
	Failure   *CodeFailure
	Explored  int  // scripts the search ran
	Error     Text // the file did not run: why, in both languages
	ErrorLine int
}

// PresetResult is the person's handler on one of the exercise's presets.
type PresetResult struct {
	Preset            string
	Verdict           sim.Verdict
	Settled, Expected int64
	Reason            string
}

// CodeFailure is the shortest failure the search found, with the lab's
// address that replays it on the person's file.
type CodeFailure struct {
	Verdict           sim.Verdict
	Script            string
	Steps             int
	Settled, Expected int64
	LabURL            string
}

// GradeCode grades a coding exercise from what its checks found (the
// sandbox runs the person's file; the web hands its findings here): 1 for
// a pass, 0 otherwise.
func (b *Bank) GradeCode(id string, o CodeOutcome) (Grade, error) {
	q, err := b.questionOf(id, KindCode)
	if err != nil {
		return Grade{}, err
	}
	g := Grade{Question: q.ID, Kind: KindCode, Code: &o}
	if o.Pass && o.Error == (Text{}) {
		g.Score = 1
	}
	return g, nil
}

// Correct reports a full score.
func (g Grade) Correct() bool { return g.Score == 1 }

// OptionResult is one option of a graded choice question.
type OptionResult struct {
	Option      // its text, whether it is correct, and why
	Picked bool // the person chose it
}

// Right reports whether the person treated this option correctly: picked a
// correct one or left a wrong one.
func (o OptionResult) Right() bool { return o.Picked == o.Correct }

// PointResult is one key point of a graded open question.
type PointResult struct {
	Text   Text
	Ticked bool // the person says their answer covered it
}

// Outcome is a graded prediction next to what the engine did.
type Outcome struct {
	Handler          string
	PredictedBalance int64 // minor units
	PredictedVerdict sim.Verdict
	Balance          int64       // the engine's settled balance, minor units
	Expected         int64       // what the intents asked for
	Verdict          sim.Verdict // the engine's verdict
	Reason           string      // the engine's explanation of the verdict
	BalanceRight     bool
	VerdictRight     bool
	LabURL           string // open the script in the lab with this handler
}

// GradeChoice grades a multiple-choice answer: picked holds option IDs
// ("a", "b", ...). The score is 1 when the picked set equals the correct
// set exactly and 0 otherwise; every option comes back with its
// explanation. Picking nothing or an option the question does not have is
// ErrBadOption.
func (b *Bank) GradeChoice(id string, picked []string) (Grade, error) {
	q, err := b.questionOf(id, KindChoice)
	if err != nil {
		return Grade{}, err
	}
	if len(picked) == 0 {
		return Grade{}, fmt.Errorf("%w: pick at least one option", ErrBadOption)
	}
	chosen := map[string]bool{}
	for _, p := range picked {
		if !slices.ContainsFunc(q.Options, func(o Option) bool { return o.ID == p }) {
			return Grade{}, fmt.Errorf("%w %q: question %s has options a to %s", ErrBadOption, p, q.ID, q.Options[len(q.Options)-1].ID)
		}
		chosen[p] = true
	}
	g := Grade{Question: q.ID, Kind: KindChoice, Score: 1}
	for _, o := range q.Options {
		r := OptionResult{Option: o, Picked: chosen[o.ID]}
		if !r.Right() {
			g.Score = 0
		}
		g.Options = append(g.Options, r)
	}
	return g, nil
}

// GradeOpen grades a self-assessed open answer: ticked holds the 0-based
// indexes of the key points the person says they covered. The score is the
// share of key points ticked. An index out of range is ErrBadPoint;
// a repeated index counts once.
func (b *Bank) GradeOpen(id string, ticked []int) (Grade, error) {
	q, err := b.questionOf(id, KindOpen)
	if err != nil {
		return Grade{}, err
	}
	on := map[int]bool{}
	for _, i := range ticked {
		if i < 0 || i >= len(q.Points) {
			return Grade{}, fmt.Errorf("%w %d: question %s has key points 0 to %d", ErrBadPoint, i, q.ID, len(q.Points)-1)
		}
		on[i] = true
	}
	g := Grade{Question: q.ID, Kind: KindOpen, Answer: q.Answer,
		Score: float64(len(on)) / float64(len(q.Points))}
	for i, p := range q.Points {
		g.Points = append(g.Points, PointResult{Text: p, Ticked: on[i]})
	}
	return g, nil
}

// GradePredict grades a prediction by running the exercise's script on its
// handler with the engine; nothing is stored in advance. balance is read by
// ParseMoney (major units) and verdict by ParseVerdict. The balance and the verdict are
// worth half the score each.
func (b *Bank) GradePredict(id, balance, verdict string) (Grade, error) {
	q, err := b.questionOf(id, KindPredict)
	if err != nil {
		return Grade{}, err
	}
	bal, err := ParseMoney(balance)
	if err != nil {
		return Grade{}, err
	}
	v, err := q.ParseVerdict(verdict)
	if err != nil {
		return Grade{}, err
	}
	res, err := b.Run(q.ID)
	if err != nil {
		return Grade{}, err
	}
	o := &Outcome{Handler: q.Handler, PredictedBalance: bal, PredictedVerdict: v,
		Balance: res.Settled, Expected: res.Expected, Verdict: res.Verdict, Reason: res.Reason,
		BalanceRight: bal == res.Settled, VerdictRight: v == res.Verdict, LabURL: q.LabURL()}
	g := Grade{Question: q.ID, Kind: KindPredict, Outcome: o}
	if o.BalanceRight {
		g.Score += 0.5
	}
	if o.VerdictRight {
		g.Score += 0.5
	}
	return g, nil
}

// Run runs a predict exercise's script on its handler and returns the
// engine's result: the same run that grading uses.
func (b *Bank) Run(id string) (sim.Result, error) {
	q, err := b.questionOf(id, KindPredict)
	if err != nil {
		return sim.Result{}, err
	}
	run, err := sim.Execute(context.Background(), q.script, sim.Options{Handlers: []string{q.Handler}})
	if err != nil {
		return sim.Result{}, fmt.Errorf("exercise %s: %w", q.ID, err)
	}
	return run.Results[0], nil
}

func (b *Bank) questionOf(id string, k Kind) (Question, error) {
	q, ok := b.Question(id)
	if !ok {
		return Question{}, fmt.Errorf("%w %q", ErrUnknownQuestion, id)
	}
	if q.Kind != k {
		return Question{}, fmt.Errorf("%w: %s is a %s question, not %s", ErrWrongKind, id, q.Kind, k)
	}
	return q, nil
}

// Verdicts lists the verdicts a prediction about message handlers may
// name, in the order a form should offer them.
func Verdicts() []sim.Verdict { return sim.MessageVerdicts() }

// APIVerdicts are the verdicts a prediction about an API handler may name:
// the answers are judged too (wrong-status), and nothing loops into a
// dead-letter queue (no poison).
func APIVerdicts() []sim.Verdict {
	return []sim.Verdict{sim.OK, sim.Duplicate, sim.Lost, sim.SilentConflict, sim.WrongStatus}
}

// Verdicts lists the verdicts a prediction of this question may name: the
// API side's for a script of requests, the message side's otherwise.
func (q Question) Verdicts() []sim.Verdict {
	if q.script != nil && q.script.API {
		return APIVerdicts()
	}
	return Verdicts()
}

// VerdictLabel is a short explanation of a verdict for a form or a result,
// from sim's words for it: the engine's name (what a person types), then,
// in Russian, the word the lab's badges use, such as «зацикливание» for
// poison.
func VerdictLabel(v sim.Verdict) Text {
	return Text{EN: string(v) + ": " + v.Explain("en"),
		RU: string(v) + " (" + v.Word("ru") + "): " + v.Explain("ru")}
}

// ParseVerdict reads a predicted verdict: one of Verdicts, in any case, with
// spaces or underscores allowed for the dash ("silent conflict").
// Anything else is ErrUnknownVerdict.
func ParseVerdict(s string) (sim.Verdict, error) { return parseVerdict(s, Verdicts()) }

// ParseVerdict reads a predicted verdict among the question's choices
// (Question.Verdicts), as the package's ParseVerdict does.
func (q Question) ParseVerdict(s string) (sim.Verdict, error) { return parseVerdict(s, q.Verdicts()) }

func parseVerdict(s string, choices []sim.Verdict) (sim.Verdict, error) {
	norm := strings.ToLower(strings.TrimSpace(s))
	norm = strings.NewReplacer(" ", "-", "_", "-").Replace(norm)
	for _, v := range choices {
		if norm == string(v) {
			return v, nil
		}
	}
	names := make([]string, 0, len(choices))
	for _, v := range choices {
		names = append(names, string(v))
	}
	return "", fmt.Errorf("%w %q; valid verdicts: %s", ErrUnknownVerdict, s, strings.Join(names, ", "))
}

// PredictHint tells the person how to answer a predict exercise; the page
// shows it next to every exercise's prompt.
func PredictHint() Text { return textOf(narration.T("practice.predict-hint")) }

// textOf is a message of package narration as a Text, in both languages.
func textOf(t narration.Text) Text { return Text{EN: t.In("en"), RU: t.In("ru")} }
