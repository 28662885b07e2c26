package playground

// The verdict grid (/matrix): every preset against every handler, each
// cell the verdict and the settled balance against the expected one, and a
// link to that run in the lab. The engine is deterministic, so the grid is
// computed once, on the first request, and kept for the server's life; the
// rendered page goes through the replay cache like any other.

import (
	"cmp"
	"context"
	"net/http"
	"sync"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
)

// verdictGrid holds the engine's outcome of every preset on every handler,
// computed at most once (a computation that fails, say because its request
// went away, is tried again by the next request).
type verdictGrid struct {
	mu   sync.Mutex
	rows []gridRow // nil until computed
}

// gridRow is one preset's outcome on every handler, in sim.Handlers order.
type gridRow struct {
	preset  sim.Preset
	results []gridResult
}

// gridResult keeps what a cell shows of a sim.Result, not its traces.
type gridResult struct {
	handler           string
	verdict           sim.Verdict
	settled, expected int64
}

// grid returns the outcome of every preset, running the engine the first
// time. It takes one replay slot for the whole computation.
func (s *Playground) grid(ctx context.Context, g *verdictGrid) ([]gridRow, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.rows != nil {
		return g.rows, nil
	}
	release, err := s.Replayer.Gate.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	all := s.Replayer.AllPresets()
	rows := make([]gridRow, 0, len(all))
	for _, p := range all {
		// The presets are the lab's own scripts: no budget applies to them.
		// "all" is every handler of the script's side.
		run, err := sim.Execute(ctx, p.Script, sim.Options{Handlers: []string{"all"}, Budget: -1, StepEvents: 1})
		if err != nil {
			return nil, err
		}
		row := gridRow{preset: p}
		for _, res := range run.Results {
			row.results = append(row.results, gridResult{handler: res.Handler, verdict: res.Verdict,
				settled: res.Settled, expected: res.Expected})
		}
		rows = append(rows, row)
	}
	g.rows = rows
	return rows, nil
}

// matrixView is the verdict grid's page.
type matrixView struct {
	T        page.Text
	Handlers []matrixHandler
	Rows     []matrixRow
	// The API side's table: its presets on the API handlers.
	APIHandlers []matrixHandler
	APIRows     []matrixRow
}

type matrixHandler struct {
	Name, Summary string
	Core          bool
	// FirstExtra marks the first handler after the core ones, where the
	// table draws a line.
	FirstExtra bool
}

type matrixRow struct {
	Name, Title, URL string
	Cells            []matrixCell
}

type matrixCell struct {
	Handler       string
	Verdict       string
	VerdictLabel  string
	VerdictSymbol string
	Settled       string
	Expected      string
	Label         string // the whole cell in words, for its link's title
	URL           string
	FirstExtra    bool
}

// matrixURL is the lab's address of a preset run on one handler, at its
// last step: the outcome the cell shows, with the steps before it a click
// away.
func matrixURL(preset, handler string, steps int) string {
	return link.Lab{Preset: preset, Handlers: []string{handler}, Step: steps, HasStep: true}.Sorted()
}

// matrixHandlerFor returns a handler for /matrix over g.
func (s *Playground) matrixHandlerFor(g *verdictGrid) page.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		return s.Shell.ServeCached(w, r, page.CacheKey(r, "matrix"), func(w http.ResponseWriter, r *http.Request) error {
			rows, err := s.grid(r.Context(), g)
			if err != nil {
				return err
			}
			t := s.Shell.Text(r)
			v := s.matrixView(t, rows)
			w.Header().Set("Vary", "Accept-Language, Cookie")
			w.Header().Set("Cache-Control", "no-cache")
			return s.Shell.Render(w, r, http.StatusOK, matrixPage(s.Shell.PageFor(t, r, t.S("mx.title")+" · "+t.S("app.name")), v))
		})
	}
}

func (s *Playground) matrixView(t page.Text, rows []gridRow) matrixView {
	v := matrixView{T: t}
	extra := map[string]bool{} // the first handler that is not core
	seenExtra := false
	for _, h := range s.Replayer.Handlers {
		mh := matrixHandler{Name: h.Name, Summary: page.HandlerSummary(t, h), Core: h.Core}
		if !h.Core && !seenExtra {
			mh.FirstExtra, seenExtra = true, true
			extra[h.Name] = true
		}
		v.Handlers = append(v.Handlers, mh)
	}
	for _, h := range s.Replayer.APIHandlers {
		v.APIHandlers = append(v.APIHandlers, matrixHandler{Name: h.Name, Summary: page.HandlerSummary(t, h), Core: true})
	}
	for _, row := range rows {
		sc := row.preset.Script
		title := cmp.Or(sc.Title, row.preset.Name)
		if t.Is(page.RU) {
			title = cmp.Or(sc.TitleRU, title)
		}
		mr := matrixRow{Name: row.preset.Name, Title: title, URL: link.Lab{Preset: row.preset.Name}.String()}
		for _, res := range row.results {
			c := matrixCell{
				Handler:       res.handler,
				Verdict:       string(res.verdict),
				VerdictLabel:  t.S("v." + string(res.verdict)),
				VerdictSymbol: page.ResultSymbol(sim.Result{Verdict: res.verdict, Settled: res.settled, Expected: res.expected}),
				Settled:       page.Money(res.settled),
				Expected:      page.Money(res.expected),
				URL:           matrixURL(row.preset.Name, res.handler, len(sc.Steps)),
				FirstExtra:    extra[res.handler],
			}
			c.Label = t.F("mx.cell", title, res.handler, c.VerdictLabel, c.Settled, c.Expected)
			mr.Cells = append(mr.Cells, c)
		}
		if sc.API {
			v.APIRows = append(v.APIRows, mr)
		} else {
			v.Rows = append(v.Rows, mr)
		}
	}
	return v
}
