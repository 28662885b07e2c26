package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Every built-in handler, copied into a handler file
// (testdata/builtin/NAME.go) and interpreted, runs every preset exactly
// as the compiled one does: the same verdict and balances, and the same
// trace event for event. A difference is the interpreter's (or the
// copy's) unfaithfulness.
func TestFaithfulCopiesOfTheBuiltins(t *testing.T) {
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	// Load every copy first, with stderr silenced: yaegi writes a line
	// ("13:24: panic: handler.Handle(...)") to the stderr it was given at
	// New each time a panic unwinds through interpreted code, and the
	// engine crashes a worker with a panic at every crash point.
	fns := map[string]handlers.Func{}
	files := map[string]*sandbox.File{}
	for _, h := range handlers.List() {
		src, err := os.ReadFile(filepath.Join("testdata", "builtin", h.Name+".go"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := sandbox.Parse(string(src))
		if err != nil {
			t.Fatalf("%s: Parse: %v", h.Name, err)
		}
		fn, err := loadQuietly(f)
		if err != nil {
			t.Fatalf("%s: Load: %v", h.Name, err)
		}
		files[h.Name], fns[h.Name] = f, fn
	}
	for _, h := range handlers.List() {
		t.Run(h.Name, func(t *testing.T) {
			t.Parallel()
			f, fn := files[h.Name], fns[h.Name]
			if f.Redis != h.Redis {
				t.Errorf("Redis %v, the built-in's %v", f.Redis, h.Redis)
			}
			if f.Schema != h.Schema {
				t.Errorf("Schema %q, the built-in's %q", f.Schema, h.Schema)
			}
			if f.Absolute != h.Absolute {
				t.Errorf("Absolute %v, the built-in's %v", f.Absolute, h.Absolute)
			}
			copied := handlers.Info{Name: h.Name, Schema: f.Schema, Redis: f.Redis, Absolute: f.Absolute, Handle: fn}
			for _, p := range presets {
				sc, err := script.Parse(p.Source)
				if err != nil {
					t.Fatalf("%s: %v", p.Name, err)
				}
				ctx := context.Background()
				want, werr := sim.Execute(ctx, sc, sim.Options{Handlers: []string{h.Name}})
				got, gerr := sim.Execute(ctx, sc, sim.Options{Custom: []handlers.Info{copied}})
				if werr != nil || gerr != nil {
					if fmt.Sprint(werr) != fmt.Sprint(gerr) {
						t.Errorf("%s: error %v, the built-in's %v", p.Name, gerr, werr)
					}
					continue
				}
				sameRun(t, p.Name, want.Results[0], got.Results[0])
			}
		})
	}
}

// loadQuietly is sandbox.Load with os.Stderr, which the interpreter keeps
// for its panic lines, pointed at /dev/null.
func loadQuietly(f *sandbox.File) (handlers.Func, error) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	saved := os.Stderr
	os.Stderr = null
	defer func() { os.Stderr = saved }()
	return sandbox.Load(f)
}

// sameRun reports the first way the copy's run differs from the built-in's.
func sameRun(t *testing.T, preset string, want, got sim.Result) {
	t.Helper()
	if got.Verdict != want.Verdict || got.Settled != want.Settled || got.Expected != want.Expected || got.Balance != want.Balance {
		t.Errorf("%s: verdict %s, settled %d, expected %d, balance %d; the built-in's %s, %d, %d, %d", preset,
			got.Verdict, got.Settled, got.Expected, got.Balance, want.Verdict, want.Settled, want.Expected, want.Balance)
	}
	if got.Reason != want.Reason || got.Deliveries != want.Deliveries || got.DeadLettered != want.DeadLettered ||
		got.Quarantined != want.Quarantined || got.GatewayCalls != want.GatewayCalls {
		t.Errorf("%s: reason %q, deliveries %d, dead-lettered %d, quarantined %d, gateway calls %d; the built-in's %q, %d, %d, %d, %d",
			preset, got.Reason, got.Deliveries, got.DeadLettered, got.Quarantined, got.GatewayCalls,
			want.Reason, want.Deliveries, want.DeadLettered, want.Quarantined, want.GatewayCalls)
	}
	if len(got.Trace) != len(want.Trace) {
		t.Errorf("%s: %d steps traced, the built-in's %d", preset, len(got.Trace), len(want.Trace))
		return
	}
	traces := append(append([]sim.Trace{}, want.Trace...), want.Settlement)
	gotTraces := append(append([]sim.Trace{}, got.Trace...), got.Settlement)
	for i, w := range traces {
		g := gotTraces[i]
		where := fmt.Sprintf("step %d (%s)", w.Step, w.Text)
		if i == len(want.Trace) {
			where = "the settlement"
		}
		if msg := firstDifference(w.Events, g.Events); msg != "" {
			t.Errorf("%s, %s: %s", preset, where, msg)
			return
		}
		if g.Balance != w.Balance {
			t.Errorf("%s, %s: balance %d, the built-in's %d", preset, where, g.Balance, w.Balance)
			return
		}
	}
}

// event is the part of an event the comparison covers.
type event struct {
	Actor, Kind, Text, Args, Result string
	Call                            int
}

func (e event) String() string {
	return fmt.Sprintf("%s %s %q args=%q result=%q call=%d", e.Actor, e.Kind, e.Text, e.Args, e.Result, e.Call)
}

func firstDifference(want, got []sim.Event) string {
	for i := range max(len(want), len(got)) {
		var w, g *event
		if i < len(want) {
			w = &event{want[i].Actor, want[i].Kind, want[i].Text, want[i].Args, want[i].Result, want[i].Call}
		}
		if i < len(got) {
			g = &event{got[i].Actor, got[i].Kind, got[i].Text, got[i].Args, got[i].Result, got[i].Call}
		}
		switch {
		case w == nil:
			return fmt.Sprintf("event %d: extra %v", i+1, g)
		case g == nil:
			return fmt.Sprintf("event %d: missing %v", i+1, w)
		case *w != *g:
			return fmt.Sprintf("event %d: %v\n\tthe built-in's: %v", i+1, g, w)
		}
	}
	return ""
}

// Every built-in API handler, copied into an API handler file
// (testdata/builtin/NAME.go) and interpreted, serves every API preset
// exactly as the compiled one: the same verdict, balances, answers and
// trace, event for event. A handler file has no completer (the sandbox
// takes a Handle and nothing else), so for api-idempotency-key, whose
// compiled handler has one (handlers.APIIdempotencyKeyComplete), a
// preset with a complete step is compared with the compiled Handle
// alone: the trace says the handler has no completer in both runs, and
// the test checks that the completer is the only difference (with it the
// compiled run differs).
func TestFaithfulCopiesOfTheAPIBuiltins(t *testing.T) {
	presets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	infos := map[string]handlers.Info{}
	for _, h := range handlers.APIList() {
		src, err := os.ReadFile(filepath.Join("testdata", "builtin", h.Name+".go"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := sandbox.Parse(string(src))
		if err != nil {
			t.Fatalf("%s: Parse: %v", h.Name, err)
		}
		if !f.API {
			t.Fatalf("%s: the file is not an API handler's", h.Name)
		}
		info, err := loadHandlerQuietly(f)
		if err != nil {
			t.Fatalf("%s: Load: %v", h.Name, err)
		}
		if f.Schema != h.Schema || f.Redis || f.Absolute {
			t.Errorf("%s: Schema %q, Redis %v, Absolute %v; the built-in's Schema %q", h.Name, f.Schema, f.Redis, f.Absolute, h.Schema)
		}
		info.Name = h.Name
		infos[h.Name] = info
	}
	for _, h := range handlers.APIList() {
		t.Run(h.Name, func(t *testing.T) {
			t.Parallel()
			copied := infos[h.Name]
			compiled := handlers.Info{Name: h.Name, Schema: h.Schema, API: h.Handle}
			for _, p := range presets {
				sc, err := script.Parse(p.Source)
				if err != nil {
					t.Fatalf("%s: %v", p.Name, err)
				}
				ctx := context.Background()
				completes := hasComplete(sc)
				var want sim.Result
				if h.Complete != nil && completes {
					full, err := sim.Execute(ctx, sc, sim.Options{Handlers: []string{h.Name}})
					if err != nil {
						t.Fatalf("%s: %v", p.Name, err)
					}
					alone, err := sim.Execute(ctx, sc, sim.Options{Custom: []handlers.Info{compiled}})
					if err != nil {
						t.Fatalf("%s: %v", p.Name, err)
					}
					if full.Results[0].Verdict == alone.Results[0].Verdict && full.Results[0].Balance == alone.Results[0].Balance &&
						len(full.Results[0].Trace) == len(alone.Results[0].Trace) {
						t.Errorf("%s: the compiled handler settles alike with its completer and without: the comparison without it proves less than it says", p.Name)
					}
					want = alone.Results[0]
				} else {
					res, err := sim.Execute(ctx, sc, sim.Options{Handlers: []string{h.Name}})
					if err != nil {
						t.Fatalf("%s: %v", p.Name, err)
					}
					want = res.Results[0]
				}
				got, err := sim.Execute(ctx, sc, sim.Options{Custom: []handlers.Info{copied}})
				if err != nil {
					t.Fatalf("%s on the copy: %v", p.Name, err)
				}
				sameRun(t, p.Name, want, got.Results[0])
			}
		})
	}
}

// hasComplete says whether a script runs the server's completer.
func hasComplete(sc *script.Script) bool {
	for _, st := range sc.Steps {
		if st.Verb == script.VerbComplete {
			return true
		}
	}
	return false
}

// loadHandlerQuietly is sandbox.LoadHandler with os.Stderr pointed at
// /dev/null, as loadQuietly.
func loadHandlerQuietly(f *sandbox.File) (handlers.Info, error) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return handlers.Info{}, err
	}
	defer null.Close()
	saved := os.Stderr
	os.Stderr = null
	defer func() { os.Stderr = saved }()
	return sandbox.LoadHandler(f)
}
