package web

import (
	"errors"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/room"
)

// LvLab is the lab as pages show it: the presets and handlers, their
// sources, and replays under the gate and the delivery budget.
type LvLab struct {
	*page.Shell
	Presets   []sim.Preset
	ByScript  map[string]string // canonical script text -> preset name
	Handlers  []handlers.Info
	Sources   map[string]sourceView // handler name -> highlighted source
	CoreNames []string
	Budget    int         // handler deliveries per replay; 0: sim.DefaultBudget
	Gate      *replayGate // replays running at once
}

// LbLab is the playground: the lab page, the verdict grid and the
// challenges.
type LbLab struct {
	*LvLab
	Progress    *practice.Store  // nil: challenges are judged but not saved
	Now         func() time.Time // dates saved solutions
	LessonTitle func(lang, slug string) string
}

// CrClassroom is instructor mode: the presenter view and live rooms.
type CrClassroom struct {
	*LvLab
	Hub       *room.Hub
	Heartbeat time.Duration   // between comments on a quiet event stream; <= 0: none
	Stop      <-chan struct{} // closed at shutdown: event streams end
	IDKey     []byte          // signs students' ids; random per process
}

// NewLvLab reads the handlers' sources and indexes the presets.
func NewLvLab(shell *page.Shell, presets []sim.Preset, budget, maxReplays int, replayWait time.Duration) (*LvLab, error) {
	l := &LvLab{
		Shell:    shell,
		Presets:  presets,
		ByScript: map[string]string{},
		Handlers: handlers.List(),
		Sources:  map[string]sourceView{},
		Budget:   budget,
		Gate:     newReplayGate(maxReplays, replayWait),
	}
	for _, p := range presets {
		if p.Script == nil {
			return nil, errors.New("preset " + p.Name + " has no script")
		}
		l.ByScript[p.Script.String()] = p.Name
	}
	for _, h := range l.Handlers {
		if h.Core {
			l.CoreNames = append(l.CoreNames, h.Name)
		}
		src, err := handlers.Source(h.File)
		if err != nil {
			return nil, err
		}
		if l.Sources[h.Name], err = highlight(h.File, h.Func, src); err != nil {
			return nil, err
		}
	}
	return l, nil
}
