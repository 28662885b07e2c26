package webtest

import (
	"context"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
)

// Clock is the practice pages' clock in tests: fixed until a test moves
// it.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock is a Clock at 2 March 2026, 10:00 UTC.
func NewClock() *Clock {
	return &Clock{t: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)}
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// MustBank is the built-in bank of practice questions.
func MustBank(tb testing.TB) *practice.Bank {
	tb.Helper()
	b, err := practice.Load()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// OpenProgress is the bank and a progress database at path (a fresh one
// in a temporary folder when path is ""), closed when the test ends.
func OpenProgress(tb testing.TB, path string) (*practice.Bank, *practice.Store) {
	tb.Helper()
	if path == "" {
		path = filepath.Join(tb.TempDir(), "progress.db")
	}
	bank := MustBank(tb)
	store, err := practice.Open(path, bank)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	return bank, store
}

// FindQuestion finds the first item of a kind that matches ok.
func FindQuestion(tb testing.TB, kind practice.Kind, ok func(practice.Question) bool) practice.Question {
	tb.Helper()
	for _, q := range MustBank(tb).Questions() {
		if q.Kind == kind && (ok == nil || ok(q)) {
			return q
		}
	}
	tb.Fatalf("no %s question fits", kind)
	return practice.Question{}
}

// WrongOption is the first option of q that is not correct.
func WrongOption(q practice.Question) string {
	for _, o := range q.Options {
		if !o.Correct {
			return o.ID
		}
	}
	return ""
}

// EngineResult runs a predict exercise on the engine directly, not through
// package practice, for an independent answer key.
func EngineResult(tb testing.TB, q practice.Question) sim.Result {
	tb.Helper()
	sc, err := script.Parse(q.Source())
	if err != nil {
		tb.Fatal(err)
	}
	run, err := sim.Execute(context.Background(), sc, sim.Options{Handlers: []string{q.Handler}})
	if err != nil {
		tb.Fatal(err)
	}
	return run.Results[0]
}

// OtherVerdict is a verdict that is not v.
func OtherVerdict(v sim.Verdict) sim.Verdict {
	if v == sim.OK {
		return sim.Duplicate
	}
	return sim.OK
}

// NewPracticeBrowser is a browser over a server with a progress file of
// its own.
func NewPracticeBrowser(t *testing.T) (*Browser, *Clock) {
	t.Helper()
	clock := NewClock()
	bank := MustBank(t)
	store, err := practice.Open(filepath.Join(t.TempDir(), "progress.db"), bank)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() }) // after the server, which closes first
	return NewBrowserWith(t, web.Config{Practice: store, Bank: bank, Now: clock.Now}), clock
}

// WaitResult waits until the practice page shows a graded result.
func WaitResult(result string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(`#result[data-result="` + result + `"]`))
}

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Form is a practice answer's form.
type Form url.Values

// With is the form with k set to v.
func (f Form) With(k, v string) url.Values {
	u := url.Values(f)
	u.Set(k, v)
	return u
}

// AnswerFor is a right or a wrong answer to q.
func AnswerFor(tb testing.TB, q practice.Question, right bool) Form {
	tb.Helper()
	f := Form{}
	switch q.Kind {
	case practice.KindChoice:
		if right {
			f["option"] = q.Correct()
		} else {
			f["option"] = []string{WrongOption(q)}
		}
	case practice.KindOpen:
		if right {
			f["point"] = AllPoints(q)
		}
	case practice.KindPredict:
		res := EngineResult(tb, q)
		f["balance"] = []string{practice.FormatMoney(res.Settled)}
		f["verdict"] = []string{string(res.Verdict)}
		if !right {
			f["balance"] = []string{practice.FormatMoney(res.Settled + 1)}
			f["verdict"] = []string{string(OtherVerdict(res.Verdict))}
		}
	case practice.KindCode:
		// The model solution is right (the sandbox grades it); a file
		// that parses but does not compile is wrong (a file that does
		// not parse would count nothing).
		f["code"] = []string{q.Code.Solution()}
		if !right {
			f["code"] = []string{NotCompiling}
		}
	}
	return f
}

// AllPoints ticks every point of an open question.
func AllPoints(q practice.Question) []string {
	var out []string
	for i := range q.Points {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

// NotCompiling parses (package handler, a Handle of the right shape, no
// forbidden import) but does not compile: a wrong answer, and a try.
const NotCompiling = `package handler

import (
	"context"

	"github.com/idempotency-lab/lab/handlers"
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	return notDefinedAnywhere
}
`
