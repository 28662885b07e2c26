package practice

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// A Goal is a challenge's rules in one line of words, the way a person
// could write it in a script's header:
//
//	handler=setnx verdict=duplicate steps<=3 without=crash
//
// Every term is NAME, an operator and a value, separated by spaces:
//
//   - handler=NAME: the handler whose result is judged (required).
//   - steps<=N: at most N steps of the script count (required in a
//     challenge file; without it a goal has no step limit).
//   - without=WHAT,...: no step may use these: crash (crash= on any step)
//     or a verb (publish, retry, gateway, ...).
//   - verdict=V or verdict!=V: the handler's verdict after settlement.
//   - MEASURE OP VALUE: a figure of the handler's result, compared with a
//     whole number or another measure (settled>expected). OP is one of
//     = != < <= > >=; the measures are in goalMeasures.
//
// The conditions (verdict and measures) must all hold; a goal has at
// least one, so that the empty script never wins.
type Goal struct {
	Handler  string
	MaxSteps int      // 0: no limit
	Without  []string // "crash" and verbs, in the order written
	Conds    []Cond
}

// Cond is one condition on a handler's result: Measure Op Value, where
// Value is a number or, when Other is set, another measure.
type Cond struct {
	Measure string
	Op      string
	Value   int64
	Other   string
	Verdict sim.Verdict // for the verdict measure
}

// goalMeasures are the figures of a sim.Result a goal can compare, by
// the name a goal uses. Amounts are in minor units (10000 is 100.00).
var goalMeasures = []struct {
	name string
	get  func(sim.Result) int64
}{
	{"balance", func(r sim.Result) int64 { return r.Balance }},   // credited by the end of the script
	{"settled", func(r sim.Result) int64 { return r.Settled }},   // credited after settlement
	{"expected", func(r sim.Result) int64 { return r.Expected }}, // what the intents asked for
	{"deliveries", func(r sim.Result) int64 { return int64(r.Deliveries) }},
	{"dlq", func(r sim.Result) int64 { return int64(r.DeadLettered) }},
	{"quarantined", func(r sim.Result) int64 { return int64(r.Quarantined) }},
	{"gateway-calls", func(r sim.Result) int64 { return int64(r.GatewayCalls) }},
	{"conflicts", func(r sim.Result) int64 { return int64(r.Conflicts) }},
	{"timeouts", func(r sim.Result) int64 { return int64(r.Timeouts) }},
}

const (
	termHandler = "handler"
	termSteps   = "steps"
	termWithout = "without"
	termVerdict = "verdict"
	// WithoutCrash in without= forbids crash= on every step.
	WithoutCrash = "crash"
	// WithoutFreshKey in without= forbids key=fresh: a new random key on
	// every send makes any handler credit a retry again, which would
	// solve many goals the same way.
	WithoutFreshKey = "fresh-key"
)

// goalOps are the operators, longest first so that <= is not read as <.
var goalOps = []string{"<=", ">=", "!=", "=", "<", ">"}

func measureNames() []string {
	names := make([]string, len(goalMeasures))
	for i, m := range goalMeasures {
		names[i] = m.name
	}
	return names
}

func measureOf(name string) func(sim.Result) int64 {
	for _, m := range goalMeasures {
		if m.name == name {
			return m.get
		}
	}
	return nil
}

func termNames() []string {
	return append([]string{termHandler, termSteps, termWithout, termVerdict}, measureNames()...)
}

func verdictNames() []string {
	var s []string
	for _, v := range sim.Verdicts() {
		s = append(s, string(v))
	}
	return s
}

// withoutChoices are the valid words of without=.
func withoutChoices() []string {
	return append([]string{WithoutCrash, WithoutFreshKey}, script.Verbs()...)
}

// GoalError is a goal line that cannot be read: what is wrong, a message
// of package narration (a goal: header is a learner's text, shown in
// their language).
type GoalError struct{ Text narration.Text }

func (e *GoalError) Error() string { return e.Text.String() }

// In is the message in a language ("ru" or anything else for English).
func (e *GoalError) In(lang string) string { return e.Text.In(lang) }

// goalErr makes a GoalError of narration's message key, its arguments
// written as fmt's %v writes them.
func goalErr(key string, args ...any) *GoalError {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = fmt.Sprint(a)
	}
	return &GoalError{Text: narration.T(key, words...)}
}

// ParseGoal reads a goal line. Its errors (a *GoalError) name the term
// that is wrong and the valid choices, in both languages.
func ParseGoal(line string) (Goal, error) {
	var g Goal
	words := strings.Fields(line)
	if len(words) == 0 {
		return g, goalErr("goal.empty")
	}
	seen := map[string]bool{}
	for _, w := range words {
		name, op, value := splitTerm(w)
		if op == "" {
			return g, goalErr("goal.no-operator", strconv.Quote(w), strings.Join(goalOps, " "))
		}
		if value == "" {
			return g, goalErr("goal.no-value", strconv.Quote(w), op)
		}
		once := name == termHandler || name == termSteps || name == termWithout
		if once && seen[name] {
			return g, goalErr("goal.twice", name)
		}
		seen[name] = true
		switch {
		case name == termHandler:
			if op != "=" {
				return g, goalErr("goal.handler-operator", op)
			}
			if !slices.Contains(handlerNames(), value) {
				return g, goalErr("goal.unknown-handler", value, strings.Join(handlerNames(), ", "))
			}
			g.Handler = value
		case name == termSteps:
			if op != "<=" {
				return g, goalErr("goal.steps-operator", op)
			}
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > script.MaxSteps {
				return g, goalErr("goal.steps-value", value, script.MaxSteps)
			}
			g.MaxSteps = n
		case name == termWithout:
			if op != "=" {
				return g, goalErr("goal.without-operator", op)
			}
			for _, x := range strings.Split(value, ",") {
				if !slices.Contains(withoutChoices(), x) {
					return g, goalErr("goal.without-value", value, strconv.Quote(x), strings.Join(withoutChoices(), ", "))
				}
				if slices.Contains(g.Without, x) {
					return g, goalErr("goal.without-twice", value, x)
				}
				g.Without = append(g.Without, x)
			}
		case name == termVerdict:
			if op != "=" && op != "!=" {
				return g, goalErr("goal.verdict-operator", op)
			}
			v := sim.Verdict(value)
			if !slices.Contains(sim.Verdicts(), v) {
				return g, goalErr("goal.unknown-verdict", op, value, strings.Join(verdictNames(), ", "))
			}
			g.Conds = append(g.Conds, Cond{Measure: termVerdict, Op: op, Verdict: v})
		case measureOf(name) != nil:
			c := Cond{Measure: name, Op: op}
			if measureOf(value) != nil {
				c.Other = value
			} else if n, err := strconv.ParseInt(value, 10, 64); err == nil && n >= 0 {
				c.Value = n
			} else {
				return g, goalErr("goal.measure-value", w, strconv.Quote(value), strings.Join(measureNames(), ", "))
			}
			g.Conds = append(g.Conds, c)
		default:
			return g, goalErr("goal.unknown-term", strconv.Quote(name), strings.Join(termNames(), ", "))
		}
	}
	if g.Handler == "" {
		return g, goalErr("goal.no-handler", strings.Join(handlerNames(), ", "))
	}
	if len(g.Conds) == 0 {
		return g, goalErr("goal.no-outcome", strings.Join(append([]string{termVerdict}, measureNames()...), ", "))
	}
	return g, nil
}

// splitTerm cuts a term at its first operator.
func splitTerm(w string) (name, op, value string) {
	i := strings.IndexAny(w, "<>=!")
	if i < 0 {
		return w, "", ""
	}
	for _, o := range goalOps {
		if strings.HasPrefix(w[i:], o) {
			return w[:i], o, w[i+len(o):]
		}
	}
	return w, "", "" // a lone "!"
}

// handlerNames are the lab's handlers, message and API ones: a goal may
// name either (LoadChallenges checks that it serves the challenge's side).
func handlerNames() []string {
	var names []string
	for _, h := range handlers.List() {
		names = append(names, h.Name)
	}
	for _, h := range handlers.APIList() {
		names = append(names, h.Name)
	}
	return names
}

// String writes the goal in its canonical form: the handler, the
// conditions in their order, then the step limit and what is forbidden.
// ParseGoal reads it back to the same Goal.
func (g Goal) String() string {
	words := []string{termHandler + "=" + g.Handler}
	for _, c := range g.Conds {
		words = append(words, c.String())
	}
	if g.MaxSteps > 0 {
		words = append(words, termSteps+"<="+strconv.Itoa(g.MaxSteps))
	}
	if len(g.Without) > 0 {
		words = append(words, termWithout+"="+strings.Join(g.Without, ","))
	}
	return strings.Join(words, " ")
}

func (c Cond) String() string {
	switch {
	case c.Measure == termVerdict:
		return c.Measure + c.Op + string(c.Verdict)
	case c.Other != "":
		return c.Measure + c.Op + c.Other
	}
	return c.Measure + c.Op + strconv.FormatInt(c.Value, 10)
}

// Met says whether a handler's result meets every condition. It does not
// look at the handler's name, the steps or the steps' kinds: Judge does.
func (g Goal) Met(r sim.Result) bool {
	for _, c := range g.Conds {
		if !c.holds(r) {
			return false
		}
	}
	return true
}

func (c Cond) holds(r sim.Result) bool {
	if c.Measure == termVerdict {
		return (r.Verdict == c.Verdict) == (c.Op == "=")
	}
	a, b := measureOf(c.Measure)(r), c.Value
	if c.Other != "" {
		b = measureOf(c.Other)(r)
	}
	switch c.Op {
	case "=":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	}
	return a >= b
}

// Breaks returns the first of the goal's without= words a step breaks,
// "" for none: crash for crash= on any step, fresh-key for key=fresh, or
// the step's verb.
func (g Goal) Breaks(s script.Step) string {
	for _, x := range g.Without {
		if x == WithoutCrash && s.Crash != "" || x == WithoutFreshKey && s.KeyMode == script.KeyFresh || x == s.Verb {
			return x
		}
	}
	return ""
}

// Holds says whether the condition holds for a result: the goal panel
// marks each condition met or not.
func (c Cond) Holds(r sim.Result) bool { return c.holds(r) }

// Figure is a measure's value in a result (a goal measure's name, not
// verdict); 0 for a name that is not a measure.
func Figure(measure string, r sim.Result) int64 {
	if get := measureOf(measure); get != nil {
		return get(r)
	}
	return 0
}

// MoneyMeasure says a measure is an amount in minor units (balance,
// settled, expected), to be written as money.
func MoneyMeasure(name string) bool {
	return name == "balance" || name == "settled" || name == "expected"
}

// Measures are the names of the measures a goal can compare.
func Measures() []string { return measureNames() }
