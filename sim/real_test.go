package sim_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

func TestMain(m *testing.M) {
	code := m.Run()
	servers.Stop() // the throwaway PostgreSQL and Redis, if a test started them
	os.Exit(code)
}

// realEngine connects to throwaway PostgreSQL and Redis servers (skipped
// without them, except in CI).
func realEngine(t *testing.T) *sim.Engine {
	t.Helper()
	pg, rd := servers.Postgres(t), servers.Redis(t)
	e, err := sim.NewEngine(context.Background(), pg, rd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestRealEngineConforms: every preset on every handler gives the same
// verdict and balances on PostgreSQL + Redis as on SQLite + miniredis,
// except where sim.EngineDifferences documents why not, and there the
// difference does show (a documented difference that never shows is a
// claim nobody checks).
func TestRealEngineConforms(t *testing.T) {
	e := realEngine(t)
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	api, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	presets = append(presets, api...) // the API side's, on the API handlers
	// The presets run four at a time: their worlds share nothing (the
	// real engine gives each a schema and a Redis database of its own and
	// makes a world wait for a free one), and the real engine's time is
	// mostly waiting on the servers. They are judged in their order
	// afterwards, so the test says the same as one after another.
	type pair struct {
		emb, real *sim.Run
		err       error
	}
	pairs := make([]pair, len(presets))
	next := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := presets[i]
				emb, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"all"}})
				if err != nil {
					pairs[i].err = err
					continue
				}
				real, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"all"}, Engine: e})
				pairs[i] = pair{emb: emb, real: real, err: err}
			}
		}()
	}
	for i := range presets {
		next <- i
	}
	close(next)
	wg.Wait()
	shown := map[string]bool{}
	for pi, p := range presets {
		if err := pairs[pi].err; err != nil {
			t.Fatal(p.Name, err)
		}
		emb, real := pairs[pi].emb, pairs[pi].real
		for i, r := range real.Results {
			a := emb.Results[i]
			if !sim.Differ(a, r) {
				continue
			}
			if _, ok := sim.EngineDifferences[r.Handler]; ok {
				shown[r.Handler] = true
				continue
			}
			t.Errorf("%s on %s: embedded %s %d, real %s %d (%s)", r.Handler, p.Name, a.Verdict, a.Settled, r.Verdict, r.Settled, r.Reason)
		}
	}
	for h := range sim.EngineDifferences {
		if !shown[h] {
			t.Errorf("%s: documented as differing between the engines, but no preset shows it", h)
		}
	}
}

// events joins a result's events, the settlement's included.
func realEvents(r sim.Result) string {
	var b strings.Builder
	for _, tr := range append(r.Trace, r.Settlement) {
		for _, e := range tr.Events {
			b.WriteString(e.Actor + " " + e.Kind + " " + e.Text + " -> " + e.Result + "\n")
		}
	}
	return b.String()
}

// TestRealCrashClosesTheConnection: a worker that dies before COMMIT on
// PostgreSQL loses its connection, and the server rolls its transaction
// back: the redelivery credits once.
func TestRealCrashClosesTheConnection(t *testing.T) {
	e := realEngine(t)
	run, err := sim.Execute(context.Background(), script.MustParse("publish a amount=100\ndeliver crash=call:4\n"),
		sim.Options{Handlers: []string{"unique"}, Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	r := run.Results[0]
	ev := realEvents(r)
	if r.Verdict != sim.OK || r.Settled != 100 || !strings.Contains(ev, "postgres sql ROLLBACK -> the connection closed: PostgreSQL rolled the transaction back") {
		t.Errorf("%s %d\n%s", r.Verdict, r.Settled, ev)
	}
}

// TestRealAbortedTransaction: the handler that goes on in its transaction
// after a unique violation works on SQLite and fails on PostgreSQL with
// 25P02, which the trace shows coming from the server.
func TestRealAbortedTransaction(t *testing.T) {
	e := realEngine(t)
	sc := script.MustParse("publish a amount=100\ndeliver crash=before-ack\nredeliver\ndeliver\n")
	emb, err := sim.Execute(context.Background(), sc, sim.Options{Handlers: []string{"unique-same-tx"}})
	if err != nil {
		t.Fatal(err)
	}
	real, err := sim.Execute(context.Background(), sc, sim.Options{Handlers: []string{"unique-same-tx"}, Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	if v := emb.Results[0].Verdict; v != sim.OK {
		t.Errorf("on SQLite: %s, want ok", v)
	}
	ev := realEvents(real.Results[0])
	if v := real.Results[0].Verdict; v != sim.Poison || !strings.Contains(ev, "error 23505") || !strings.Contains(ev, "error 25P02") {
		t.Errorf("on PostgreSQL: %s, want poison with 23505 then 25P02\n%s", v, ev)
	}
}

// TestRealRedisClock: advance shortens a real Redis key's lifetime as the
// lab's clock moves, so a TTL story replays the same on a real server.
func TestRealRedisClock(t *testing.T) {
	e := realEngine(t)
	sc := script.MustParse("processing-ttl: 1h\npublish a amount=100\ndeliver crash=before-effect\nadvance 30m\nredeliver\ndeliver\nadvance 31m\nredeliver\ndeliver\n")
	emb, err := sim.Execute(context.Background(), sc, sim.Options{Handlers: []string{"setnx"}, Snapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	real, err := sim.Execute(context.Background(), sc, sim.Options{Handlers: []string{"setnx"}, Engine: e, Snapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	a, r := emb.Results[0], real.Results[0]
	if a.Verdict != r.Verdict || a.Settled != r.Settled {
		t.Errorf("embedded %s %d, real %s %d", a.Verdict, a.Settled, r.Verdict, r.Settled)
	}
	// After 30 minutes the claim has 30 minutes left on both; after 61
	// it is gone on both.
	for _, step := range []int{3, 7} {
		ek, rk := a.Trace[step-1].State.Redis, r.Trace[step-1].State.Redis
		if len(ek) != len(rk) || (len(ek) > 0 && ek[0].TTL != rk[0].TTL) {
			t.Errorf("step %d: embedded keys %+v, real %+v", step, ek, rk)
		}
	}
}

// TestRealBlockedWorker: two workers on two PostgreSQL connections. The
// first pauses inside its transaction, after its INSERT of the key; the
// second's INSERT of the same key waits inside PostgreSQL for the first
// transaction. The lab sees the wait (pg_blocking_pids), runs the first
// worker on to its COMMIT, and only then lets the second go on: its INSERT
// returns 23505 and it acks. On SQLite the first worker cannot pause
// there: it holds the write lock, so it runs its transaction to the end.
func TestRealBlockedWorker(t *testing.T) {
	e := realEngine(t)
	cases := []struct {
		name, script string
		settled      int64
		result       string // the blocked statement's answer, once released
	}{
		// unique: BEGIN (1), INSERT (2), credit (3), COMMIT (4). The
		// second worker delivers the same message and blocks on the key.
		{"same key", "publish a amount=100\ndeliver-concurrent same switch=3\n", 100, "error 23505"},
		// Two keys, one account: the second worker's credit waits for
		// the row the first one updated and has not committed.
		{"same row", "publish a amount=100\npublish b amount=50\ndeliver-concurrent switch=4\n", 150, "1 row"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := script.MustParse(c.script)
			var first string
			for range 2 { // the same run twice: the same trace, byte for byte
				run, err := sim.Execute(context.Background(), sc, sim.Options{Handlers: []string{"unique"}, Engine: e})
				if err != nil {
					t.Fatal(err)
				}
				r := run.Results[0]
				ev := realEvents(r)
				if r.Verdict != sim.OK || r.Settled != c.settled || !strings.Contains(ev, "waits inside PostgreSQL for a lock") ||
					!strings.Contains(ev, "statement returns: the transaction it waited for has ended") {
					t.Fatalf("%s %d\n%s", r.Verdict, r.Settled, ev)
				}
				// The blocked statement is worker-2's; its answer came
				// after worker-1's COMMIT.
				blocked := strings.Index(ev, "waits inside PostgreSQL")
				commit := strings.Index(ev[blocked:], "worker-1 sql COMMIT -> ok")
				if commit < 0 {
					t.Errorf("worker-1 does not commit after worker-2 blocks\n%s", ev)
				}
				if !strings.Contains(ev[:blocked], c.result) {
					t.Errorf("the blocked statement's answer is not %q\n%s", c.result, ev)
				}
				if first == "" {
					first = ev
				} else if ev != first {
					t.Errorf("two runs of the same script differ:\n%s\n---\n%s", first, ev)
				}
			}
		})
	}
}

// TestRealEnginesShareARedis: two engines on one Redis, as two lab servers
// behind a load balancer would be, run Redis handlers at once. Each world
// claims its database in database 0, so neither empties the other's keys
// and both get the embedded engine's verdicts.
func TestRealEnginesShareARedis(t *testing.T) {
	a, b := realEngine(t), realEngine(t)
	sc := script.MustParse("processing-ttl: 1h\npublish a amount=100\ndeliver crash=after-effect\nadvance 30m\nredeliver\ndeliver\n")
	opt := sim.Options{Handlers: []string{"setnx", "setnx-token", "setnx-no-release"}}
	want, err := sim.Execute(context.Background(), sc, opt)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for i := range 8 {
		e := a
		if i%2 == 1 {
			e = b
		}
		go func() {
			o := opt
			o.Engine = e
			run, err := sim.Execute(context.Background(), sc, o)
			if err == nil {
				for j, r := range run.Results {
					if w := want.Results[j]; r.Verdict != w.Verdict || r.Settled != w.Settled {
						err = fmt.Errorf("%s: real %s %d, embedded %s %d", r.Handler, r.Verdict, r.Settled, w.Verdict, w.Settled)
					}
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
