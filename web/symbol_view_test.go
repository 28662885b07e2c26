package web

import (
	"github.com/idempotency-lab/lab/web/page"
	"testing"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
)

// TestMatrixCellShowsRealMultiple checks that a verdict-grid cell shows
// how big a duplicate really is (×3, +50.00), not always ×2.
func TestMatrixCellShowsRealMultiple(t *testing.T) {
	s, err := newServer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	h := s.handlers[0].Name
	rows := []gridRow{{preset: presets[0], results: []gridResult{
		{handler: h, verdict: sim.Duplicate, settled: 30000, expected: 10000},
	}}, {preset: presets[0], results: []gridResult{
		{handler: h, verdict: sim.Duplicate, settled: 15000, expected: 10000},
	}}, {preset: presets[0], results: []gridResult{
		{handler: h, verdict: sim.OK, settled: 10000, expected: 10000},
	}}}
	v := s.matrixView(page.NewText(page.EN, s.Catalog), rows)
	for i, want := range []string{"×3", "+" + page.Money(5000), "✓"} {
		if got := v.Rows[i].Cells[0].VerdictSymbol; got != want {
			t.Errorf("row %d: symbol %q, want %q", i, got, want)
		}
	}
}

// TestPracticeOutcomeShowsRealMultiple checks the same on a graded
// prediction's engine verdict.
func TestPracticeOutcomeShowsRealMultiple(t *testing.T) {
	s, err := newServer(Config{})
	if err != nil {
		t.Fatal(err)
	}
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
	a := s.resultView(page.NewText(page.EN, s.Catalog), q, practiceMode{kind: modeTopic, topic: q.Topic}, practice.Progress{}, g)
	if a.Outcome == nil {
		t.Fatal("no outcome view")
	}
	if got := a.Outcome.EngineVerdictSymbol; got != "×3" {
		t.Errorf("engine verdict symbol %q, want ×3", got)
	}
}
