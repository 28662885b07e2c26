package web

import (
	"testing"

	"github.com/idempotency-lab/lab/web/page"

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
	h := s.lab.Handlers[0].Name
	rows := []gridRow{{preset: presets[0], results: []gridResult{
		{handler: h, verdict: sim.Duplicate, settled: 30000, expected: 10000},
	}}, {preset: presets[0], results: []gridResult{
		{handler: h, verdict: sim.Duplicate, settled: 15000, expected: 10000},
	}}, {preset: presets[0], results: []gridResult{
		{handler: h, verdict: sim.OK, settled: 10000, expected: 10000},
	}}}
	v := s.lab.matrixView(page.NewText(page.EN, s.Catalog), rows)
	for i, want := range []string{"×3", "+" + page.Money(5000), "✓"} {
		if got := v.Rows[i].Cells[0].VerdictSymbol; got != want {
			t.Errorf("row %d: symbol %q, want %q", i, got, want)
		}
	}
}

