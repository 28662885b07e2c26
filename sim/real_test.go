package sim_test

import (
	"context"
	"os"
	"testing"

	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/sim"
)

func TestMain(m *testing.M) {
	code := m.Run()
	servers.Stop()
	os.Exit(code)
}

// realEngine connects to throwaway PostgreSQL and Redis servers.
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

func TestZZRealExplore(t *testing.T) {
	e := realEngine(t)
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range presets {
		emb, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"all"}})
		if err != nil {
			t.Fatal(p.Name, err)
		}
		real, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"all"}, Engine: e})
		if err != nil {
			t.Fatal(p.Name, err)
		}
		for i, r := range real.Results {
			a := emb.Results[i]
			if a.Verdict != r.Verdict || a.Settled != r.Settled {
				t.Logf("%s %s: embedded %s %d, real %s %d (%s)", p.Name, r.Handler, a.Verdict, a.Settled, r.Verdict, r.Settled, r.Reason)
			}
		}
	}
}

func TestZZRealTrace(t *testing.T) {
	e := realEngine(t)
	run, err := sim.Execute(context.Background(), sim.MustParse("publish a amount=100\nchange-payload a amount=70\ndeliver\ndeliver\n"), sim.Options{Handlers: []string{"inbox"}, Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range run.Results {
		for _, tr := range append(r.Trace, r.Settlement) {
			for _, ev := range tr.Events {
				t.Logf("%s %s %s #%d %s [%s] -> %s", r.Handler, ev.Actor, ev.Kind, ev.Call, ev.Text, ev.Args, ev.Result)
			}
		}
	}
}
