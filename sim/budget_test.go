package sim_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// publishes returns n publish lines, pay-1 to pay-n, one amount each.
func publishes(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "publish pay-%d amount=1\n", i+1)
	}
	return b.String()
}

// budgetError runs s and fails the test unless Execute returns a
// *sim.BudgetError; it returns that error.
func budgetError(t *testing.T, s *script.Script, opt sim.Options) *sim.BudgetError {
	t.Helper()
	run, err := sim.Execute(context.Background(), s, opt)
	var be *sim.BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("Execute = %v, %v; want a *sim.BudgetError", run, err)
	}
	if run != nil {
		t.Errorf("Execute returned a run together with %v", err)
	}
	return be
}

// TestBudget runs scripts against budgets just below and at what they need.
// Each world gets budget / handlers deliveries (at least one); the
// settlement's deliveries count too.
func TestBudget(t *testing.T) {
	// unique-error fails every repeat until the DLQ: with max-deliveries 3
	// its drain on line 5 makes 3 deliveries where naive makes 1.
	const poison = "max-deliveries: 3\npublish pay-1 amount=1\ndeliver\nretry pay-1\ndrain\n" // 4 deliveries vs 2
	tests := []struct {
		name     string
		src      string
		handlers []string
		budget   int
		line     int // 0: runs; else the line of the BudgetError, -1 for the settlement
	}{
		{"three deliveries in a budget of three", publishes(3) + "drain", []string{"naive"}, 3, 0},
		{"three deliveries in a budget of two", publishes(3) + "drain", []string{"naive"}, 2, 4},
		{"the share is the budget over the handlers", publishes(3) + "drain", []string{"naive", "unique"}, 6, 0},
		{"a share of 2 for each of two handlers", publishes(3) + "drain", []string{"naive", "unique"}, 5, 4},
		{"the share rounds down", publishes(3) + "drain", []string{"naive", "unique", "inbox"}, 8, 4},
		{"a share is at least one delivery", "publish pay-1 amount=1\ndeliver", []string{"naive", "unique", "inbox"}, 1, 0},
		{"a single deliver over the share names its line", publishes(2) + "deliver\ndeliver\n", []string{"naive"}, 1, 4},
		{"deliver-concurrent needs room for both workers", publishes(2) + "deliver-concurrent\n", []string{"naive"}, 1, 3},
		{"the settlement counts", publishes(3), []string{"naive"}, 2, -1},
		{"the settlement within the budget", publishes(3), []string{"naive"}, 3, 0},
		{"no limit", publishes(50) + "drain", []string{"naive"}, -1, 0},
		{"0 is the default budget", publishes(50) + "drain", []string{"naive"}, 0, 0},
		{"the handler that needs more runs out", poison, []string{"naive", "unique-error"}, 6, 5},
		// naive runs out on line 9, after unique-error on line 5.
		{"the earliest line wins, whatever the handler order", poison + "publish pay-2 amount=1\npublish pay-3 amount=1\npublish pay-4 amount=1\ndrain\n",
			[]string{"naive", "unique-error"}, 6, 5},
		// naive runs out settling pay-2 and pay-3, unique-error on line 7
		// (its fourth delivery): the settlement runs after every line.
		{"a line beats the settlement", "max-deliveries: 3\npublish pay-1 amount=1\nretry pay-1\ndeliver\ndeliver\ndeliver\ndeliver\n" +
			"publish pay-2 amount=1\npublish pay-3 amount=1\n", []string{"naive", "unique-error"}, 6, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := parseOK(t, tc.src)
			opt := sim.Options{Handlers: tc.handlers, Budget: tc.budget}
			if tc.line == 0 {
				if _, err := sim.Execute(context.Background(), s, opt); err != nil {
					t.Fatalf("Execute: %v", err)
				}
				return
			}
			be := budgetError(t, s, opt)
			want := max(tc.line, 0)
			if be.Line != want || be.Budget != tc.budget {
				t.Errorf("BudgetError{Line: %d, Budget: %d}, want {Line: %d, Budget: %d}", be.Line, be.Budget, want, tc.budget)
			}
			// The same script stops at the same place every time.
			for range 3 {
				if again := budgetError(t, s, opt); *again != *be {
					t.Fatalf("second run: %+v, first %+v", *again, *be)
				}
			}
		})
	}
}

func TestBudgetErrorText(t *testing.T) {
	tests := []struct {
		err      *sim.BudgetError
		en, ru   string
		enPrefix string
	}{
		{&sim.BudgetError{Line: 7, Budget: 20000},
			"line 7: the run needs more than 20000 handler deliveries, the limit for one run; shorten the script (fewer publishes, drains or DLQ replays); a Lua script a handler runs in Redis counts as 8 deliveries",
			"строка 7: прогону нужно больше 20000 доставок обработчикам, а это предел одного прогона; сократите сценарий (меньше публикаций, drain или переотправок из DLQ); Lua-скрипт, который обработчик выполняет в Redis, считается за 8 доставок",
			"line 7: "},
		{&sim.BudgetError{Line: 0, Budget: 12},
			"settling after the script: the run needs more than 12 handler deliveries, the limit for one run; shorten the script (fewer publishes, drains or DLQ replays); a Lua script a handler runs in Redis counts as 8 deliveries",
			"доведение до конца после сценария: прогону нужно больше 12 доставок обработчикам, а это предел одного прогона; сократите сценарий (меньше публикаций, drain или переотправок из DLQ); Lua-скрипт, который обработчик выполняет в Redis, считается за 8 доставок",
			"settling after the script: "},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.en {
			t.Errorf("Error() = %q\nwant      %q", got, tc.en)
		}
		if got := tc.err.In("en"); got != tc.en {
			t.Errorf("In(en) = %q, want Error()", got)
		}
		if got := tc.err.In("ru"); got != tc.ru {
			t.Errorf("In(ru) = %q\nwant      %q", got, tc.ru)
		}
		if got, want := tc.err.Message("en"), strings.TrimPrefix(tc.en, tc.enPrefix); got != want {
			t.Errorf("Message(en) = %q, want %q", got, want)
		}
		if got := tc.err.Message("ru"); !strings.HasPrefix(got, "прогону нужно") {
			t.Errorf("Message(ru) = %q, want the Russian message without the line", got)
		}
	}
	// Wrapped, it is still found.
	var be *sim.BudgetError
	if err := fmt.Errorf("replay: %w", &sim.BudgetError{Line: 3, Budget: 1}); !errors.As(err, &be) || be.Line != 3 {
		t.Errorf("errors.As on a wrapped BudgetError: %v", be)
	}
}

// TestDefaultBudgetFitsThePresets: no preset comes near the default budget.
func TestDefaultBudgetFitsThePresets(t *testing.T) {
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range presets {
		run := execute(t, p.Script, sim.Options{Handlers: []string{"all"}})
		total := 0
		for _, r := range run.Results {
			total += r.Deliveries
		}
		if total > sim.DefaultBudget/10 {
			t.Errorf("preset %s makes %d deliveries, more than a tenth of the default budget", p.Name, total)
		}
	}
}

// TestCancelStopsTheEngine cancels a run of thousands of deliveries after
// its tenth: every world checks the context before each delivery, so at
// most one more delivery per world running may start.
func TestCancelStopsTheEngine(t *testing.T) {
	s := parseOK(t, publishes(400)+"drain\n") // 400 deliveries on each of 12 handlers
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int64
	opt := sim.WithDeliveryHook(sim.Options{Handlers: []string{"all"}}, func() {
		if n.Add(1) == 10 {
			cancel()
		}
	})
	run, err := sim.Execute(ctx, s, opt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute = %v, %v; want context.Canceled", run, err)
	}
	if run != nil {
		t.Error("a cancelled Execute returned a run")
	}
	// One world cancelled at its tenth delivery; each of the others running
	// at that moment may have started one more.
	if got, most := n.Load(), int64(10+runtime.GOMAXPROCS(0)); got > most {
		t.Errorf("%d deliveries after cancelling at the 10th, want at most %d", got, most)
	}

	t.Run("a context cancelled before the run makes no delivery", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var n atomic.Int64
		_, err := sim.Execute(ctx, s, sim.WithDeliveryHook(sim.Options{Handlers: []string{"all"}}, func() { n.Add(1) }))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Execute error = %v, want context.Canceled", err)
		}
		if n.Load() != 0 {
			t.Errorf("%d deliveries with a cancelled context", n.Load())
		}
	})
	t.Run("the hook counts every delivery of a whole run", func(t *testing.T) {
		var n atomic.Int64
		run := execute(t, s, sim.WithDeliveryHook(sim.Options{Handlers: []string{"naive", "unique"}}, func() { n.Add(1) }))
		want := 0
		for _, r := range run.Results {
			want += r.Deliveries
		}
		if n.Load() != int64(want) || want != 800 {
			t.Errorf("hook counted %d deliveries, results say %d, want 800", n.Load(), want)
		}
	})
}

// TestStepEvents: with StepEvents each step keeps its first events, and
// Omitted counts the rest; the engine's other results do not change.
func TestStepEvents(t *testing.T) {
	s := parseOK(t, keysScript)
	full := execute(t, s, sim.Options{Handlers: []string{"all"}})
	for _, r := range full.Results {
		for _, tr := range append(r.Trace, r.Settlement) {
			if tr.Omitted != 0 {
				t.Fatalf("%s step %d: Omitted %d without StepEvents", r.Handler, tr.Step, tr.Omitted)
			}
		}
	}
	for _, limit := range []int{1, 3, 10, 1000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			capped := execute(t, s, sim.Options{Handlers: []string{"all"}, StepEvents: limit})
			cut := 0
			for i, r := range capped.Results {
				f := full.Results[i]
				check := func(got, want sim.Trace) {
					t.Helper()
					keep := min(limit, len(want.Events))
					if !reflect.DeepEqual(got.Events, want.Events[:keep]) {
						t.Errorf("%s step %d: events are not the first %d of the full trace", r.Handler, want.Step, keep)
					}
					if got.Omitted != len(want.Events)-keep {
						t.Errorf("%s step %d: Omitted %d, want %d", r.Handler, want.Step, got.Omitted, len(want.Events)-keep)
					}
					cut += got.Omitted
					got.Events, got.Omitted = want.Events, 0
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s step %d: the rest of the trace differs:\n%+v\n%+v", r.Handler, want.Step, got, want)
					}
				}
				for j := range f.Trace {
					check(r.Trace[j], f.Trace[j])
				}
				check(r.Settlement, f.Settlement)
				r.Trace, r.Settlement, f.Trace, f.Settlement = nil, sim.Trace{}, nil, sim.Trace{}
				r.Final, f.Final = nil, nil
				if !reflect.DeepEqual(r, f) {
					t.Errorf("%s: results differ with StepEvents %d:\n%+v\n%+v", r.Handler, limit, r, f)
				}
			}
			if limit < 10 && cut == 0 {
				t.Errorf("StepEvents %d omitted nothing", limit)
			}
		})
	}
}

// TestResultBroker: Result.Broker is the broker after the last step run,
// before settlement, here for each prefix of crash-before-ack.
func TestResultBroker(t *testing.T) {
	s := parseOK(t, "publish pay-1 amount=100\ndeliver crash=before-ack\nredeliver\ndeliver\n")
	msg := func(deliveries int, redelivered bool) []sim.Message {
		return []sim.Message{{TransportID: "topups/0/1", Key: "pay-1", Tenant: "acme", Op: "pay-1", Account: "alice",
			Amount: 100, Version: 1, Balance: 100, Deliveries: deliveries, Redelivered: redelivered}}
	}
	none := []sim.Message{}
	tests := []struct {
		steps int
		want  sim.BrokerState
	}{
		{1, sim.BrokerState{Ready: msg(0, false), InFlight: none, Acked: none, DLQ: none}},
		{2, sim.BrokerState{Ready: none, InFlight: msg(1, false), Acked: none, DLQ: none}},
		{3, sim.BrokerState{Ready: msg(1, true), InFlight: none, Acked: none, DLQ: none}},
		{4, sim.BrokerState{Ready: none, InFlight: none, Acked: msg(2, true), DLQ: none}},
	}
	for _, tc := range tests {
		run := execute(t, s, sim.Options{Handlers: []string{"naive", "inbox"}, Steps: tc.steps})
		for _, r := range run.Results {
			if !reflect.DeepEqual(r.Broker, tc.want) {
				t.Errorf("%s after %d steps: Broker =\n %+v\nwant\n %+v", r.Handler, tc.steps, r.Broker, tc.want)
			}
			if r.Settled == 0 {
				t.Errorf("%s after %d steps: settlement delivered nothing", r.Handler, tc.steps)
			}
		}
	}
	t.Run("no steps", func(t *testing.T) {
		r := execute(t, parseOK(t, ""), sim.Options{}).Results[0]
		if want := (&sim.Broker{}).State(); !reflect.DeepEqual(r.Broker, want) {
			t.Errorf("Broker = %+v, want the empty broker", r.Broker)
		}
	})
}

// TestResultConflicts: Result.Conflicts counts the conflict events, the
// settlement's included.
func TestResultConflicts(t *testing.T) {
	s := parseOK(t, "publish pay-1 amount=100\ndeliver\nchange-payload pay-1 amount=150\ndeliver\n"+
		"change-payload pay-1 amount=7\nchange-payload pay-1 amount=8\n")
	run := execute(t, s, sim.Options{Handlers: []string{"all"}})
	seen := 0
	for _, r := range run.Results {
		n := 0
		for _, tr := range append(r.Trace, r.Settlement) {
			for _, e := range tr.Events {
				if e.Kind == sim.KindConflict {
					n++
				}
			}
		}
		if r.Conflicts != n {
			t.Errorf("%s: Conflicts = %d, the trace has %d conflict events", r.Handler, r.Conflicts, n)
		}
		if r.Verdict == sim.SilentConflict && n == 0 {
			t.Errorf("%s: silent-conflict without a conflict event", r.Handler)
		}
		seen = max(seen, n)
	}
	if seen < 2 {
		t.Errorf("no handler acked more than one changed payload (most: %d): the test proves little", seen)
	}
}

// A Lua script run in Redis weighs luaCost deliveries: miniredis starts an
// interpreter for each, so setnx-token, which releases its claim with one
// on every failure, reaches the budget after fewer deliveries than setnx.
func TestLuaScriptsWeighOnTheBudget(t *testing.T) {
	src := "max-deliveries: 100\ngateway down\npublish a amount=1\ndrain\n"
	for _, tc := range []struct {
		handler string
		over    bool
	}{
		{"setnx", false},      // 100 deliveries, no script: within 300
		{"setnx-token", true}, // 100 deliveries and 100 releases in Lua: 900
	} {
		_, err := sim.Execute(context.Background(), script.MustParse(src), sim.Options{Handlers: []string{tc.handler}, Budget: 300})
		var be *sim.BudgetError
		if got := errors.As(err, &be); got != tc.over {
			t.Errorf("%s with a budget of 300: over budget %v (%v), want %v", tc.handler, got, err, tc.over)
		}
	}
}
