package sim_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/sim"
)

// TestWireRoundTrip: a Result that crosses a process boundary in its wire
// form comes back whole, the parts its public JSON leaves out included
// (the snapshots per step, which steps crashed, the final queues and
// state, the storage), on presets that crash workers and keep state.
func TestWireRoundTrip(t *testing.T) {
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	var clock time.Duration
	tried := 0
	for _, p := range presets {
		run, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"core"}, Snapshots: true, Storage: true,
			Stopwatch: func() time.Duration { clock += time.Millisecond; return clock }})
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		for _, res := range run.Results {
			b, err := json.Marshal(res.Wire())
			if err != nil {
				t.Fatalf("%s/%s: %v", p.Name, res.Handler, err)
			}
			var w sim.Wire
			if err := json.Unmarshal(b, &w); err != nil {
				t.Fatalf("%s/%s: %v", p.Name, res.Handler, err)
			}
			back := w.Unwire()
			if !reflect.DeepEqual(sim.Comparable(back), sim.Comparable(res)) {
				t.Errorf("%s/%s: the result does not survive its wire form", p.Name, res.Handler)
			}
			tried++
		}
	}
	if tried == 0 {
		t.Fatal("no result was tried")
	}
}
