package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/idempotency-lab/lab/sim"
)

// engineFlags choose where a run keeps its data: --engine embedded (SQLite
// and miniredis, the default) or real (--postgres and --redis servers,
// also read from LAB_POSTGRES_URL and LAB_REDIS_URL).
type engineFlags struct {
	engine, postgres, redis *string
}

func addEngineFlags(fs *flag.FlagSet) engineFlags {
	return engineFlags{
		engine:   fs.String("engine", "embedded", "where the handlers keep their data: embedded (SQLite + miniredis) or real (--postgres and --redis)"),
		postgres: fs.String("postgres", os.Getenv("LAB_POSTGRES_URL"), "with --engine real: a PostgreSQL URL (default $LAB_POSTGRES_URL); each run gets a schema of its own, dropped after"),
		redis:    fs.String("redis", os.Getenv("LAB_REDIS_URL"), "with --engine real: a Redis URL (default $LAB_REDIS_URL); each run gets a database of its own (1 to 15), emptied after"),
	}
}

// open connects to the real servers, or returns nil for the embedded
// engine. Every error is bad input: a wrong flag, URL or server.
func (f engineFlags) open(ctx context.Context) (*sim.Engine, error) {
	switch *f.engine {
	case "embedded":
		return nil, nil
	case "real":
	default:
		return nil, fmt.Errorf("--engine %q: valid engines: embedded, real", *f.engine)
	}
	if *f.postgres == "" || *f.redis == "" {
		return nil, fmt.Errorf("--engine real needs --postgres URL and --redis URL (or LAB_POSTGRES_URL and LAB_REDIS_URL)")
	}
	return sim.NewEngine(ctx, *f.postgres, *f.redis)
}
