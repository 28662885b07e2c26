package brokers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/idempotency-lab/lab/sim"
)

// Row is one preset and handler whose runs differ between the model,
// under the broker's profile, and the real broker.
type Row struct {
	Preset, Handler string
	Model, Real     sim.Result
	Documented      bool
	Why             string // the documented reason, if any
}

// Report is what Conform found.
type Report struct {
	Broker  string
	Presets int
	Runs    int // handler runs on each side
	Rows    []Row
	// Skipped are the presets that cannot run on the real broker
	// (ErrCannotPick), each with the table's reason ("" when it has none:
	// undocumented).
	Skipped []Row
}

// Undocumented counts the differences Differences does not name.
func (r *Report) Undocumented() int {
	n := 0
	for _, d := range append(r.Rows[:len(r.Rows):len(r.Rows)], r.Skipped...) {
		if !d.Documented {
			n++
		}
	}
	return n
}

// Stale lists the rows of Differences about this broker and one of
// presets that the run did not meet: a difference documented that no
// longer happens (the model or the broker changed), so the table would
// tell a reader something false.
func (r *Report) Stale(presets []sim.Preset) []Difference {
	met := map[[2]string]bool{}
	for _, d := range append(r.Rows[:len(r.Rows):len(r.Rows)], r.Skipped...) {
		met[[2]string{d.Preset, d.Handler}] = true
		met[[2]string{d.Preset, ""}] = true
	}
	var stale []Difference
	for _, d := range Differences {
		ran := slices.ContainsFunc(presets, func(p sim.Preset) bool { return p.Name == d.Preset })
		if d.Broker == r.Broker && ran && !met[[2]string{d.Preset, d.Handler}] {
			stale = append(stale, d)
		}
	}
	return stale
}

// Workers is how many presets Conform runs at once.
const Workers = 4

// Conform runs every preset on every message handler twice over: on the
// model under srv's profile, and on srv itself, twice, the two real runs'
// traces required to match (a real broker's story is as deterministic as
// the model's). It reports where the model and the real broker differ
// (Differ), each row marked documented when Differences names it.
func Conform(ctx context.Context, srv sim.RealBroker, presets []sim.Preset) (*Report, error) {
	type pair struct {
		model, real *sim.Run
		err         error
	}
	pairs := make([]pair, len(presets))
	next := make(chan int)
	var wg sync.WaitGroup
	for range Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				pairs[i].model, pairs[i].real, pairs[i].err = conformOne(ctx, srv, presets[i])
			}
		}()
	}
	for i := range presets {
		next <- i
	}
	close(next)
	wg.Wait()
	rep := &Report{Broker: srv.Name(), Presets: len(presets)}
	for i, p := range presets {
		if err := pairs[i].err; errors.Is(err, ErrCannotPick) {
			why, ok := Documented(rep.Broker, p.Name, "")
			rep.Skipped = append(rep.Skipped, Row{Preset: p.Name, Documented: ok, Why: why})
			continue
		} else if err != nil {
			return nil, err
		}
		model, real := pairs[i].model, pairs[i].real
		for j, r := range real.Results {
			rep.Runs++
			m := model.Results[j]
			if !Differ(m, r) {
				continue
			}
			why, ok := Documented(rep.Broker, p.Name, r.Handler)
			rep.Rows = append(rep.Rows, Row{Preset: p.Name, Handler: r.Handler, Model: m, Real: r, Documented: ok, Why: why})
		}
	}
	return rep, nil
}

// conformOne runs one preset on the model and twice on the real broker.
func conformOne(ctx context.Context, srv sim.RealBroker, p sim.Preset) (model, real *sim.Run, err error) {
	if err := CheckPastLimit(p.Script, srv.Name()); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	s, err := WithProfile(p.Script, srv.Name())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	all := []string{"all"}
	if model, err = sim.Execute(ctx, s, sim.Options{Handlers: all}); err != nil {
		return nil, nil, fmt.Errorf("%s, model: %w", p.Name, err)
	}
	if real, err = sim.Execute(ctx, s, sim.Options{Handlers: all, RealBroker: srv}); err != nil {
		return nil, nil, fmt.Errorf("%s, %s: %w", p.Name, srv.Name(), err)
	}
	again, err := sim.Execute(ctx, s, sim.Options{Handlers: all, RealBroker: srv})
	if err != nil {
		return nil, nil, fmt.Errorf("%s, %s (again): %w", p.Name, srv.Name(), err)
	}
	if err := SameTraces(real, again); err != nil {
		return nil, nil, fmt.Errorf("%s, %s: two runs differ: %w", p.Name, srv.Name(), err)
	}
	return model, real, nil
}

// SameTraces says where two runs of one script differ, step by step: nil
// when every handler's trace, settlement and outcome are the same.
func SameTraces(a, b *sim.Run) error {
	if len(a.Results) != len(b.Results) {
		return fmt.Errorf("%d handlers against %d", len(a.Results), len(b.Results))
	}
	for i := range a.Results {
		ra, rb := a.Results[i], b.Results[i]
		for j := range max(len(ra.Trace), len(rb.Trace)) {
			if j >= len(ra.Trace) || j >= len(rb.Trace) {
				return fmt.Errorf("%s: %d steps against %d", ra.Handler, len(ra.Trace), len(rb.Trace))
			}
			if x, y := mustJSON(ra.Trace[j]), mustJSON(rb.Trace[j]); !bytes.Equal(x, y) {
				return fmt.Errorf("%s, step %d: %s\nagainst %s", ra.Handler, j+1, x, y)
			}
		}
		if x, y := mustJSON(ra), mustJSON(rb); !bytes.Equal(x, y) {
			return fmt.Errorf("%s, settlement or outcome: %s\nagainst %s", ra.Handler, x, y)
		}
	}
	return nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(err.Error())
	}
	return b
}
