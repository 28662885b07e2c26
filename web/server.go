// Package web serves the lab in a browser: the playground where a script
// of broker events runs on several handlers side by side.
//
// The server keeps no state of its own between requests: the URL carries
// the script (see permalink.go), and each request replays it through the
// engine. Every page works without JavaScript; with it, htmx swaps only
// the lab's own region and keeps the address bar in step.
package web

import (
	"errors"
	"github.com/idempotency-lab/lab/web/course"
	practicepart "github.com/idempotency-lab/lab/web/practice"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/static"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/room"
)

// Config is what the server needs.
type Config struct {
	// Presets are the scenarios offered in the picker; nil means
	// sim.Presets().
	Presets []sim.Preset
	// Dev reads static files from StaticDir on every request instead of
	// the copy embedded in the binary, so CSS edits show on reload.
	Dev       bool
	StaticDir string // default "static", relative to the working directory
	// Logger receives one line per request and every server error; nil
	// discards them.
	Logger *slog.Logger
	// Practice keeps the /practice progress of every anonymous profile;
	// the caller opens and closes it. nil leaves the practice pages
	// answering 503 (the playground needs no database).
	Practice *practice.Store
	// Bank is the question bank Practice was opened with; nil means the
	// embedded one (practice.Load).
	Bank *practice.Bank
	// Now is the clock that dates answers and schedules reviews; nil
	// means time.Now. Tests pass a fixed clock.
	Now func() time.Time
	// Course is the course the lessons pages show; nil means the one
	// embedded in the binary, or with Dev the files under LessonsDir,
	// read again on every request.
	Course     *lessons.Course
	LessonsDir string // default "lessons", relative to the working directory
	// Rooms holds the live classrooms of instructor mode; nil makes a hub
	// with the room package's default limits. The caller sweeps it
	// (cmd/lab runs a ticker); tests pass one with a fake clock.
	Rooms *room.Hub
	// Heartbeat is how often a quiet room event stream sends a comment so
	// proxies keep it open: 0 means every 15 s, a negative value never.
	Heartbeat time.Duration
	// Stop, once closed, ends the room event streams, so that a graceful
	// shutdown does not wait for them; nil means they end only with
	// their requests.
	Stop <-chan struct{}

	// Budget bounds the handler deliveries one replay may make, over all
	// its handlers; 0 means sim.DefaultBudget. A script past it gets 422.
	Budget int
	// MaxReplays bounds the replays running at once; 0 means
	// 2 × GOMAXPROCS. A request that cannot start one within ReplayWait
	// (0: half a second) gets 503 with Retry-After.
	MaxReplays int
	ReplayWait time.Duration
	// CacheBytes bounds the cache of rendered, compressed pages; 0 means
	// 64 MiB, a negative value turns the cache off.
	CacheBytes int64
}

// server holds what every request reads and nothing it writes: all of it is
// built once in NewServer.
type server struct {
	*page.Shell // the catalogue, static files, log and page cache
	presets     []sim.Preset
	byScript    map[string]string // canonical script text -> preset name
	handlers    []handlers.Info
	sources     map[string]sourceView // handler name -> highlighted source
	coreNames   []string
	bank        *practice.Bank         // practice questions; see practice.go
	progress    *practice.Store        // nil: the practice pages answer 503
	now         func() time.Time       // dates practice answers
	course      *course.Course         // the lessons (web/course)
	practice    *practicepart.Practice // the drill; see practice.go
	hub         *room.Hub              // live rooms; see rooms.go
	heartbeat   time.Duration          // between comments on a quiet event stream; <= 0: none
	stop        <-chan struct{}        // closed at shutdown: event streams end
	idKey       []byte                 // signs students' ids (rooms.go); random per process
	budget      int                    // handler deliveries per replay; see Config.Budget
	gate        *replayGate            // replays running at once; see replay.go
}

// NewServer builds the lab's HTTP handler. It fails only when what it was
// given is broken: a preset that does not parse, a handler whose source is
// missing, static files that cannot be read.
func NewServer(cfg Config) (http.Handler, error) {
	s, err := newServer(cfg)
	if err != nil {
		return nil, err
	}
	return s.routes(), nil
}

func newServer(cfg Config) (*server, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	presets := cfg.Presets
	if presets == nil {
		var err error
		if presets, err = sim.Presets(); err != nil {
			return nil, err
		}
	}
	s := &server{
		presets:  presets,
		byScript: map[string]string{},
		handlers: handlers.List(),
		sources:  map[string]sourceView{},
		idKey:    newIDKey(),
	}
	for _, p := range presets {
		if p.Script == nil {
			return nil, errors.New("preset " + p.Name + " has no script")
		}
		s.byScript[p.Script.String()] = p.Name
	}
	for _, h := range s.handlers {
		if h.Core {
			s.coreNames = append(s.coreNames, h.Name)
		}
		src, err := handlers.Source(h.File)
		if err != nil {
			return nil, err
		}
		if s.sources[h.Name], err = highlight(h.File, h.Func, src); err != nil {
			return nil, err
		}
	}
	if s.bank, s.progress, s.now = cfg.Bank, cfg.Practice, cfg.Now; s.bank == nil {
		var err error
		if s.bank, err = practice.Load(); err != nil {
			return nil, err
		}
	}
	if s.now == nil {
		s.now = time.Now
	}
	var files fs.FS = static.FS
	if cfg.Dev {
		dir := cfg.StaticDir
		if dir == "" {
			dir = "static"
		}
		files = os.DirFS(dir)
	}
	assets, err := page.NewAssets(files, cfg.Dev)
	if err != nil {
		return nil, err
	}
	cacheBytes := cfg.CacheBytes
	if cfg.Dev {
		cacheBytes = -1 // in development pages follow edits to CSS and lessons
	}
	s.Shell = page.NewShell(newCatalog(), assets, log, cacheBytes)
	// The lessons' bars come from practice.
	s.practice = practicepart.New(s.Shell, s.bank, s.progress, s.now)
	if s.course, err = course.New(s.Shell, course.Config{Course: cfg.Course, Dev: cfg.Dev, Dir: cfg.LessonsDir, Progress: s.practice.TopicPercents}); err != nil {
		return nil, err
	}
	if s.hub, s.heartbeat, s.stop = cfg.Rooms, cfg.Heartbeat, cfg.Stop; s.hub == nil {
		s.hub = room.NewHub(room.Config{})
	}
	if s.heartbeat == 0 {
		s.heartbeat = defaultHeartbeat
	}
	s.budget = cfg.Budget
	s.gate = newReplayGate(cfg.MaxReplays, cfg.ReplayWait)
	return s, nil
}
