package sim

import (
	"errors"
	"strconv"

	"github.com/idempotency-lab/lab/narration"
)

// DefaultBudget is the handler deliveries one run may make when
// Options.Budget is 0: far more than any preset needs (the longest makes a
// few hundred over all handlers), few enough that a pasted script cannot
// keep a web request busy for long.
const DefaultBudget = 20000

// luaCost is what one Lua script run in Redis (EVAL) counts against the
// budget, in deliveries: miniredis starts a fresh Lua interpreter for
// every script, which costs about what six ordinary deliveries do. Without
// it a script on setnx-token could spend several times the CPU the budget
// means to allow.
const luaCost = 8

// BudgetError says a run needed more handler deliveries than its budget.
// Execute returns it when a world used up its share of the budget; Line is
// the script line being executed then, or 0 when it was the settlement.
type BudgetError struct {
	Line   int
	Budget int
}

// msg is the message without the line.
func (e *BudgetError) msg() narration.Text {
	return narration.T("budget.over", strconv.Itoa(e.Budget), strconv.Itoa(luaCost))
}

// Error is the message in English, with the line.
func (e *BudgetError) Error() string { return e.In("en") }

// In returns the message in a language ("ru" or anything else for
// English), with the line, as (*Error).In does.
func (e *BudgetError) In(lang string) string {
	if e.Line == 0 {
		return narration.T("budget.settling", e.msg().In(lang)).In(lang)
	}
	return narration.T("budget.at-line", strconv.Itoa(e.Line), e.msg().In(lang)).In(lang)
}

// Message is the message alone, without the line, in a language.
func (e *BudgetError) Message(lang string) string { return e.msg().In(lang) }

// earlier reports whether e ran out at an earlier point of the script than
// o. The settlement (line 0) runs after every line.
func (e *BudgetError) earlier(o *BudgetError) bool {
	switch {
	case e.Line == 0:
		return false
	case o.Line == 0:
		return true
	}
	return e.Line < o.Line
}

// errOverBudget stops a world that would exceed its share of the budget;
// runHandler turns it into a *BudgetError naming the line.
var errOverBudget = errors.New("over the delivery budget")

// share is each world's part of a run's budget, at least one delivery: the
// worlds run in parallel, so a shared counter would make the line where a
// run stops depend on scheduling. An equal share for every world keeps it a
// function of the script alone. A negative budget, and share, is no limit.
func share(budget, worlds int) int {
	if budget < 0 {
		return -1
	}
	return max(1, budget/max(1, worlds))
}
