package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// everything is a run's result with what its JSON leaves out: the world
// after the last step, the broker's queues and the storage.
func everything(t *testing.T, r sim.Result) string {
	t.Helper()
	b, err := json.Marshal(struct {
		R       sim.Result
		Final   *sim.State
		Broker  sim.BrokerState
		Storage *sim.Storage
	}{r, r.Final, r.Broker, r.Storage})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWorldsReusedRunsAsFresh runs every preset, one after the other, on
// every handler of its side with worlds lent from one run to the next, and
// each result must be byte for byte the result of the same preset on fresh
// worlds: whatever the preset before left (rows, Redis keys, loaded Lua
// scripts, the outbox's table, rowids), the next never sees it. Every
// step's state and the storage are compared too.
func TestWorldsReusedRunsAsFresh(t *testing.T) {
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	api, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	ws := sim.NewWorlds()
	defer ws.Close()
	runs := 0
	// Twice over, so that each preset also follows every other.
	for round := range 2 {
		for _, p := range append(presets, api...) {
			hs, err := sim.HandlersFor(p.Script, []string{"all"})
			if err != nil {
				t.Fatal(err)
			}
			opt := sim.Options{Custom: hs, Snapshots: true, Storage: true}
			fresh, ferr := sim.Execute(context.Background(), p.Script, opt)
			opt.Worlds = ws
			reused, rerr := sim.Execute(context.Background(), p.Script, opt)
			if fmt.Sprint(ferr) != fmt.Sprint(rerr) {
				t.Fatalf("%s, round %d: fresh worlds: %v; reused: %v", p.Name, round, ferr, rerr)
			}
			if ferr != nil {
				continue
			}
			for i := range hs {
				if f, r := everything(t, fresh.Results[i]), everything(t, reused.Results[i]); f != r {
					t.Errorf("%s on %s, round %d: a reused world differs from a fresh one:\nfresh  %s\nreused %s", p.Name, hs[i].Name, round, f, r)
				}
			}
			runs += len(hs)
		}
	}
	made, reused := ws.Counts()
	// Most runs must have had a reused world, or the test proves nothing.
	if made+reused != runs || reused < runs/2 {
		t.Errorf("%d runs: %d worlds made, %d reused; want most reused", runs, made, reused)
	}
	if ws.Redone() != 0 {
		t.Errorf("%d runs redone: no handler of the lab reads the connection's history", ws.Redone())
	}
}

// TestWorldsScriptAThenB is the isolation the checker relies on: script B
// after script A in a reused world gives what B gives in a fresh world.
func TestWorldsScriptAThenB(t *testing.T) {
	const a = `publish a amount=100
publish b amount=200 tenant=globex
deliver-concurrent
deliver crash=after-effect
redeliver
advance 2h
publish c amount=300
deliver
`
	const b = `publish a amount=100
deliver crash=before-ack
redeliver
deliver
`
	hs, err := sim.Handlers([]string{"naive", "unique", "setnx", "statemachine", "inbox", "setnx-token", "broker-key"})
	if err != nil {
		t.Fatal(err)
	}
	// A script loaded by A stays in miniredis' cache unless the world
	// flushes it: B's EVALSHA would then find it, where on a fresh world
	// it meets NOSCRIPT and go-redis sends EVAL.
	lua := redis.NewScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`)
	hs = append(hs, handlers.Info{Name: "lua", Redis: true, Handle: func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		return lua.Run(ctx, d.Redis, []string{"seen:" + m.Key}, m.Amount).Err()
	}})
	for _, h := range hs {
		t.Run(h.Name, func(t *testing.T) {
			ws := sim.NewWorlds()
			defer ws.Close()
			run := func(src string, worlds *sim.Worlds) sim.Result {
				sc, err := script.Parse(src)
				if err != nil {
					t.Fatal(err)
				}
				r, err := sim.Execute(context.Background(), sc, sim.Options{Custom: []handlers.Info{h}, Snapshots: true, Worlds: worlds})
				if err != nil {
					t.Fatal(err)
				}
				return r.Results[0]
			}
			run(a, ws)
			got, want := everything(t, run(b, ws)), everything(t, run(b, nil))
			if got != want {
				t.Errorf("B after A:\n%s\nB alone:\n%s", got, want)
			}
			if made, reused := ws.Counts(); made != 1 || reused != 1 {
				t.Errorf("%d worlds made, %d reused; want B on A's world", made, reused)
			}
		})
	}
}

// TestWorldsNotReused: a run that leaves more than rows on its connection
// closes its world, and one that reads the connection's history is
// counted for the caller to run again, its schema's next worlds fresh.
func TestWorldsNotReused(t *testing.T) {
	exec := func(q string) handlers.Func {
		return func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
			_, err := d.DB.ExecContext(ctx, q)
			return err
		}
	}
	history := func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		var n int64
		return d.DB.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&n)
	}
	tests := []struct {
		name   string
		handle handlers.Func
		// made and reused after three runs; redone after them.
		made, reused, redone int
	}{
		{"rows only", exec(`UPDATE accounts SET balance = balance + 1`), 1, 2, 0},
		{"a table made", exec(`CREATE TABLE IF NOT EXISTS seen (k TEXT)`), 3, 0, 0},
		{"a pragma set", exec(`PRAGMA case_sensitive_like = ON`), 3, 0, 0},
		{"a pragma read", exec(`PRAGMA user_version`), 3, 0, 0},
		{"a temporary trigger", exec(`CREATE TEMP TRIGGER IF NOT EXISTS t AFTER INSERT ON accounts BEGIN SELECT 1; END`), 3, 0, 0},
		{"a savepoint left open", exec(`SAVEPOINT s`), 3, 0, 0},
		// The first run is on a new world: its history is its own. Its
		// world is not reused, so no run is redone.
		{"history read", history, 3, 0, 0},
	}
	sc, err := script.Parse("publish a amount=100\ndeliver\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := sim.NewWorlds()
			defer ws.Close()
			h := handlers.Info{Name: "probe", Handle: tt.handle}
			for range 3 {
				if _, err := sim.Execute(context.Background(), sc, sim.Options{Custom: []handlers.Info{h}, Worlds: ws}); err != nil {
					t.Fatal(err)
				}
			}
			if made, reused := ws.Counts(); made != tt.made || reused != tt.reused {
				t.Errorf("%d worlds made, %d reused; want %d and %d", made, reused, tt.made, tt.reused)
			}
			if ws.Redone() != tt.redone {
				t.Errorf("%d runs redone, want %d", ws.Redone(), tt.redone)
			}
		})
	}
}

// TestWorldsHistoryRedone: a handler that reads the connection's history
// only on some runs (here the second) is counted the first time it does
// on a reused world, and its schema gets fresh worlds from then on.
func TestWorldsHistoryRedone(t *testing.T) {
	calls := 0
	h := handlers.Info{Name: "probe", Handle: func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		calls++
		if calls < 2 {
			return nil
		}
		var n int64
		return d.DB.QueryRowContext(ctx, `SELECT last_insert_rowid()`).Scan(&n)
	}}
	sc, err := script.Parse("publish a amount=100\ndeliver\n")
	if err != nil {
		t.Fatal(err)
	}
	ws := sim.NewWorlds()
	defer ws.Close()
	for range 3 {
		if _, err := sim.Execute(context.Background(), sc, sim.Options{Custom: []handlers.Info{h}, Worlds: ws}); err != nil {
			t.Fatal(err)
		}
	}
	// Run 1 on a new world, run 2 on it again (it reads the history:
	// redone), run 3 on a new one.
	if made, reused := ws.Counts(); made != 2 || reused != 1 || ws.Redone() != 1 {
		t.Errorf("%d worlds made, %d reused, %d redone; want 2, 1 and 1", made, reused, ws.Redone())
	}
}

// TestWorldsNil: a nil *Worlds makes a fresh world for every run.
func TestWorldsNil(t *testing.T) {
	var ws *sim.Worlds
	ws.Close()
	if made, reused := ws.Counts(); made != 0 || reused != 0 || ws.Redone() != 0 {
		t.Errorf("a nil Worlds counts %d, %d, %d", made, reused, ws.Redone())
	}
}
