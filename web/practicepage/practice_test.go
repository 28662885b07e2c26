package practicepage

import (
	"testing"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
)

// TestChoiceOptionsAreShuffled: the bank lists the right answer first; the
// page must not, or "always A" would be the winning strategy.
func TestChoiceOptionsAreShuffled(t *testing.T) {
	bank, err := practice.Load()
	if err != nil {
		t.Fatal(err)
	}
	positions := map[int]int{}
	for _, q := range bank.Questions() {
		if q.Kind != practice.KindChoice || len(q.Correct()) != 1 {
			continue
		}
		var opts []choiceView
		for _, o := range q.Options {
			opts = append(opts, choiceView{ID: o.ID})
		}
		again := shuffled(q.ID, append([]choiceView(nil), opts...))
		for i, o := range shuffled(q.ID, opts) {
			if again[i].ID != o.ID {
				t.Fatalf("%s: the order changes between visits", q.ID)
			}
			if o.Letter != string(rune('A'+i)) {
				t.Fatalf("%s: option %d lettered %s", q.ID, i, o.Letter)
			}
			if o.ID == q.Correct()[0] {
				positions[i]++
			}
		}
	}
	if len(positions) < 3 {
		t.Errorf("the right answer sits in only %d positions across the bank: %v", len(positions), positions)
	}
}

// TestPracticeOutcomeShowsRealMultiple checks the same on a graded
// prediction's engine verdict.
func TestPracticeOutcomeShowsRealMultiple(t *testing.T) {
	bank, err := practice.Load()
	if err != nil {
		t.Fatal(err)
	}
	shell := page.NewShell(page.MustCatalog(Catalog()), nil, nil, -1)
	s := New(shell, bank, nil, nil)
	var q practice.Question
	for _, x := range s.bank.Questions() {
		if x.Kind == practice.KindPredict {
			q = x
			break
		}
	}
	if q.ID == "" {
		t.Skip("no predict question in the bank")
	}
	g := practice.Grade{Question: q.ID, Kind: q.Kind, Outcome: &practice.Outcome{
		Handler: s.handlers[0].Name, PredictedVerdict: sim.Duplicate, Verdict: sim.Duplicate,
		PredictedBalance: 20000, Balance: 30000, Expected: 10000,
	}}
	a := s.resultView(page.NewText(page.EN, shell.Catalog), q, practiceMode{kind: modeTopic, topic: q.Topic}, practice.Progress{}, g)
	if a.Outcome == nil {
		t.Fatal("no outcome view")
	}
	if got := a.Outcome.EngineVerdictSymbol; got != "×3" {
		t.Errorf("engine verdict symbol %q, want ×3", got)
	}
}
