// Package labview is the lab as pages show it: a lab state read from the
// URL (a preset, a permalink or a script, the handlers, the step), its
// replay under the gate and the delivery budget, the view models made from
// the run, and the components that draw them (the cards, the step
// controls, the timeline in labview/timeline). The playground (web/lab)
// and the classroom (web/classroom) both build on it: the projector shows
// the lab's own cards, not a copy.
package labview

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
)

// Replayer replays lab states for the pages: it resolves a state's preset
// and handlers, runs it under the gate and the delivery budget (a person's
// handler file in the sandbox, or on the real engine and brokers), and
// keeps the handlers' sources the views show.
type Replayer struct {
	Shell   *page.Shell
	Presets []sim.Preset
	// APIPresets are the API side's presets (sim.APIPresets): scripts of
	// requests, offered after Presets and run by the API handlers.
	APIPresets []sim.Preset
	ByScript   map[string]string // canonical script text -> preset name
	Handlers   []handlers.Info
	// APIHandlers serve the API side's scripts (sim.APIHandlers).
	APIHandlers []handlers.Info
	Sources     map[string]sourceView // handler name -> highlighted source
	CoreNames   []string
	Budget      int         // handler deliveries per replay; 0: sim.DefaultBudget
	Gate        *replayGate // replays running at once
	// Sandbox runs handler files people write; nil turns the editor off.
	Sandbox *sandbox.Runner
	// NoCode says why Sandbox is nil when this machine cannot isolate a
	// child (the pages say so); "" when it was turned off by a flag.
	NoCode string
	// Engine is the server's real PostgreSQL and Redis, which a page may
	// run on (engine=real); nil: the embedded engine only.
	Engine *sim.Engine
	// Brokers are the real brokers this server offers (broker=), in the
	// picker's order; OpenBroker starts one, or reaches the one it
	// started, when a page first asks for it. Both nil: the lab's own
	// broker model only.
	Brokers    []string
	OpenBroker func(ctx context.Context, name string) (sim.RealBroker, error)
}

// New reads the handlers' sources and indexes the presets.
func New(shell *page.Shell, presets []sim.Preset, budget, maxReplays int, replayWait time.Duration) (*Replayer, error) {
	l := &Replayer{
		Shell:    shell,
		Presets:  presets,
		ByScript: map[string]string{},
		Handlers: handlers.List(),
		// The API handlers, in their own list: a script is one side, and
		// the lab resolves its handlers among that side's.
		APIHandlers: sim.APIHandlers(),
		Sources:     map[string]sourceView{},
		Budget:      budget,
		Gate:        newReplayGate(maxReplays, replayWait),
	}
	api, err := sim.APIPresets()
	if err != nil {
		return nil, err
	}
	for _, p := range api {
		// A list given to New that has the API presets already keeps them
		// where they are.
		if !slices.ContainsFunc(presets, func(q sim.Preset) bool { return q.Name == p.Name }) {
			l.APIPresets = append(l.APIPresets, p)
		}
	}
	for _, p := range append(slices.Clone(presets), l.APIPresets...) {
		if p.Script == nil {
			return nil, errors.New("preset " + p.Name + " has no script")
		}
		l.ByScript[p.Script.String()] = p.Name
	}
	for _, h := range l.Handlers {
		if h.Core {
			l.CoreNames = append(l.CoreNames, h.Name)
		}
	}
	for _, h := range append(slices.Clone(l.Handlers), l.APIHandlers...) {
		src, err := handlers.Source(h.File)
		if err != nil {
			return nil, err
		}
		if l.Sources[h.Name], err = highlightSource(h.File, h.Func, src); err != nil {
			return nil, err
		}
	}
	return l, nil
}
