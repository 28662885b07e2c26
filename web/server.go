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
	"io/fs"
	"log/slog"
	"net/http"
	"os"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/static"
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
}

// server holds what every request reads and nothing it writes: all of it is
// built once in NewServer.
type server struct {
	presets   []sim.Preset
	byScript  map[string]string // canonical script text -> preset name
	handlers  []handlers.Info
	sources   map[string]sourceView // handler name -> highlighted source
	catalog   catalog
	assets    *assets
	log       *slog.Logger
	coreNames []string
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
		catalog:  newCatalog(),
		log:      log,
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
	var files fs.FS = static.FS
	if cfg.Dev {
		dir := cfg.StaticDir
		if dir == "" {
			dir = "static"
		}
		files = os.DirFS(dir)
	}
	var err error
	if s.assets, err = newAssets(files, cfg.Dev); err != nil {
		return nil, err
	}
	return s, nil
}
