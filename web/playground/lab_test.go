package playground

import (
	"context"
	"testing"

	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// newTestLab is the playground on a shell with the lab's words, no static
// files and no cache: enough for its view models.
func newTestLab(t *testing.T) *Playground {
	t.Helper()
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	lv, err := labview.New(page.NewShell(page.MustCatalog(labview.Catalog()), nil, nil, -1), presets, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &Playground{Shell: lv.Shell, Replayer: lv}
}

// TestMatrixGridComputedOnce: the verdict grid runs the engine once for
// the server's life, and holds every preset.
func TestMatrixGridComputedOnce(t *testing.T) {
	s := newTestLab(t)
	g := &verdictGrid{}
	a, err := s.grid(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.grid(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(s.Replayer.AllPresets()) || len(a) == 0 || &a[0] != &b[0] {
		t.Errorf("the grid was computed twice or is incomplete: %d rows for %d presets", len(a), len(s.Replayer.AllPresets()))
	}
}

// TestMatrixCellShowsRealMultiple checks that a verdict-grid cell shows
// how big a duplicate really is (×3, +50.00), not always ×2.
func TestMatrixCellShowsRealMultiple(t *testing.T) {
	s := newTestLab(t)
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	h := s.Replayer.Handlers[0].Name
	rows := []gridRow{{preset: presets[0], results: []gridResult{
		{handler: h, verdict: sim.Duplicate, settled: 30000, expected: 10000},
	}}, {preset: presets[0], results: []gridResult{
		{handler: h, verdict: sim.Duplicate, settled: 15000, expected: 10000},
	}}, {preset: presets[0], results: []gridResult{
		{handler: h, verdict: sim.OK, settled: 10000, expected: 10000},
	}}}
	v := s.matrixView(page.NewText(page.EN, s.Shell.Catalog), rows)
	for i, want := range []string{"×3", "+" + page.Money(5000), "✓"} {
		if got := v.Rows[i].Cells[0].VerdictSymbol; got != want {
			t.Errorf("row %d: symbol %q, want %q", i, got, want)
		}
	}
}
