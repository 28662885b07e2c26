// Package web serves the lab in a browser: the playground where a script
// of broker events runs on several handlers side by side.
//
// The server keeps no state of its own between requests: the URL carries
// the script (package link owns the address), and each request replays
// it through the engine. Every page works without JavaScript; with it,
// htmx swaps only the lab's own region and keeps the address bar in step.
package web

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/static"
	"github.com/idempotency-lab/lab/web/checkpage"
	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/costpage"
	"github.com/idempotency-lab/lab/web/course"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/playground"
	"github.com/idempotency-lab/lab/web/practicepage"
	"github.com/idempotency-lab/lab/web/tryapi"
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
	// CheckBudget bounds how long the checker (/check) searches one
	// handler's schedules; 0 means 2 s.
	CheckBudget time.Duration
	// Sandbox runs the handler files people write in the lab's editor,
	// each in a child process under its limits; nil hides the editor.
	Sandbox *sandbox.Runner
	// NoCode, with Sandbox nil, says why: this machine cannot isolate a
	// child (lab serve's self-test failed). The pages that would run a
	// file say so instead of running it.
	NoCode string
	// Engine is a real PostgreSQL and Redis the lab may run its handlers
	// on (engine=real); nil: the embedded engine only.
	Engine *sim.Engine
	// Brokers are the real brokers the lab's pages offer (broker=: nats,
	// kafka), and OpenBroker starts or reaches one when a page first asks
	// for it (lab serve wires brokers.Lazy: no broker server starts
	// before). Nil: the lab's own broker model only.
	Brokers    []string
	OpenBroker func(ctx context.Context, name string) (sim.RealBroker, error)
	// MaxLedgers bounds the live API endpoint's ledgers (/try-api) at
	// once: 0 means 200. LedgerIdle is how long one lives after its last
	// payment: 0 means an hour.
	MaxLedgers int
	LedgerIdle time.Duration
	// NoBench turns off the cost page's bench runs (lab serve
	// --bench=false): the page shows the reference run only.
	NoBench bool
}

// server holds what every request reads and nothing it writes: all of it is
// built once in NewServer. Each part of the lab is a package of its own;
// the server builds them on one shell and routes.go mounts their pages.
type server struct {
	shell     *page.Shell            // the catalogue, static files, log and page cache
	Now       func() time.Time       // dates answers and throttles
	lab       *playground.Playground // the playground, the verdict grid, challenges
	classroom *classroom.Classroom   // the presenter view and live rooms
	course    *course.Course         // the lessons (web/course)
	practice  *practicepage.Practice // the practice pages (web/practicepage)
	check     *checkpage.Check       // the checker (web/checkpage)
	tryAPI    *tryapi.TryAPI         // the live API endpoint and its pages (web/tryapi)
	cost      *costpage.Cost         // the cost lab (web/costpage)
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
	bank, store, now := cfg.Bank, cfg.Practice, cfg.Now
	if bank == nil {
		var err error
		if bank, err = practice.Load(); err != nil {
			return nil, err
		}
	}
	if now == nil {
		now = time.Now
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
	catalog, err := page.NewCatalog(catalogParts()...)
	if err != nil {
		return nil, err
	}
	s := &server{shell: page.NewShell(catalog, assets, log, cacheBytes), Now: now}
	lv, err := labview.New(s.shell, presets, cfg.Budget, cfg.MaxReplays, cfg.ReplayWait)
	if err != nil {
		return nil, err
	}
	lv.Sandbox, lv.Engine, lv.NoCode = cfg.Sandbox, cfg.Engine, cfg.NoCode
	lv.Brokers, lv.OpenBroker = cfg.Brokers, cfg.OpenBroker
	s.practice = practicepage.New(s.shell, bank, store, now)
	s.practice.Sandbox, s.practice.NoCode = cfg.Sandbox, cfg.NoCode
	// The lessons' bars come from practice.
	if s.course, err = course.New(s.shell, course.Config{Course: cfg.Course, Dev: cfg.Dev, Dir: cfg.LessonsDir, Progress: s.practice.TopicPercents, Editor: cfg.Sandbox != nil}); err != nil {
		return nil, err
	}
	s.lab = &playground.Playground{Shell: s.shell, Replayer: lv, Progress: store, Now: now, LessonTitle: s.course.LessonTitle}
	s.classroom = classroom.New(lv, cfg.Rooms, cfg.Heartbeat, cfg.Stop)
	s.check = checkpage.New(lv, cfg.CheckBudget)
	s.tryAPI = tryapi.New(s.shell, tryapi.Config{MaxLedgers: cfg.MaxLedgers, Idle: cfg.LedgerIdle, Now: now})
	s.cost = costpage.New(s.shell, !cfg.NoBench)
	return s, nil
}

// newCatalog is the table the server builds, for tests.
func newCatalog() page.Catalog { return page.MustCatalog(catalogParts()...) }
