package webtest

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// AxeFile is the vendored axe-core, the one scripts/vendor.sh fetches
// into web/testdata.
var AxeFile = func() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "testdata", "axe-core-4.14.1.min.js")
}()

// AxeViolation is one rule a page breaks, as the test reports it.
type AxeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Nodes   int      `json:"nodes"`
	Targets []string `json:"targets"`
	Summary string   `json:"summary"`
}

// RunAxe injects axe-core into the page, unless it is there already, and
// returns the serious and critical violations it finds.
func RunAxe(t *testing.T, ctx context.Context, source string) []AxeViolation {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`window.axe || (function(){`+source+"\n})()")); err != nil {
		t.Fatalf("inject axe-core: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]AxeViolation](`axe.run(document, {resultTypes: ["violations"]}).then(r =>
		r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({
			id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
			targets: v.nodes.slice(0, 4).map(n => n.target.map(String).join(" ")),
			summary: ((v.nodes[0] && v.nodes[0].failureSummary) || "").replace(/\s+/g, " ").slice(0, 300),
		})))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe.run: %v", err)
	}
	return got
}
