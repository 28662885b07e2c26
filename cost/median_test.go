package cost

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// deliveries is a run whose deliveries took the given times, as measure
// reads a run.
func deliveries(took ...time.Duration) sim.Result {
	var r sim.Result
	for i, d := range took {
		r.Trace = append(r.Trace, sim.Trace{Text: script.VerbPublish + " m-" + string(rune('a'+i%26))},
			sim.Trace{Text: script.VerbDeliver, Took: d})
	}
	return r
}

// TestPerSecondIsTheMedians: messages a second come from the median time
// per message, so one message descheduled for a long time moves p99, not
// the rate. The durations are synthetic: no clock is read.
func TestPerSecondIsTheMedians(t *testing.T) {
	ms := time.Millisecond
	steady := func(n int, d time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = d
		}
		return out
	}
	info := handlers.Info{Name: "naive"}
	for _, tc := range []struct {
		name          string
		took          []time.Duration
		perSec        float64
		p50, p99      float64
		meanWouldGive float64 // what the mean made of it before: the swing the median avoids
	}{
		{"steady", steady(100, ms), 1000, 1, 1, 1000},
		// One message of a hundred descheduled for half a second: the
		// mean would say 168/s, six times slower; the median does not
		// move, and p99 shows the tail.
		{"one outlier", append(steady(99, ms), 500*ms), 1000, 1, 1, 100 / 0.599},
		// p99 is the 99th of 100 by nearest rank: two slow messages
		// reach it, one does not.
		{"two outliers", append(steady(98, ms), 500*ms, 500*ms), 1000, 1, 500, 100 / 1.098},
		// The same times in another order: the same figures.
		{"outlier first", append([]time.Duration{500 * ms}, steady(99, ms)...), 1000, 1, 1, 100 / 0.599},
		// Half the messages slow: now the median moves, as it should.
		{"half slow", append(steady(50, ms), steady(50, 4*ms)...), 1000, 1, 4, 400},
		{"most slow", append(steady(49, ms), steady(51, 4*ms)...), 250, 4, 4, 100 / 0.253},
		{"one message", []time.Duration{2 * ms}, 500, 2, 2, 500},
		// Nothing timed (a fake clock that stands still): no rate, not
		// an infinite one.
		{"zero times", steady(3, 0), 0, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := measure(deliveries(tc.took...), info, deliveryTimes(deliveries(tc.took...)))
			if r.PerSecond != tc.perSec || r.P50 != tc.p50 || r.P99 != tc.p99 {
				t.Errorf("%v/s, p50 %v ms, p99 %v ms; want %v/s, p50 %v, p99 %v (the mean would have said %.0f/s)",
					r.PerSecond, r.P50, r.P99, tc.perSec, tc.p50, tc.p99, tc.meanWouldGive)
			}
			if r.Deliveries != 0 || len(tc.took) > 0 && r.SQLPer != 0 {
				t.Errorf("counters from a trace with no events: %+v", r)
			}
		})
	}
}

// TestBenchIsRobustToStalls: the whole bench with a stopwatch that
// stalls twice for two seconds during the first handler's deliveries (a
// descheduled worker) reports the same rates as without the stalls; the
// stalls show in that handler's p99 and nowhere else. With the mean, the
// two stalls would have cut its rate from 1,000/s to 24/s.
func TestBenchIsRobustToStalls(t *testing.T) {
	// The engine reads the stopwatch before and after each step, so
	// step k's second reading is call 2k, and with one message after
	// another (no copies) every even step is a delivery: calls 152 and
	// 156 end the 38th and 39th deliveries.
	stalling := func(at ...int) func() time.Duration {
		var now time.Duration
		calls := 0
		return func() time.Duration {
			calls++
			now += time.Millisecond
			if slices.Contains(at, calls) {
				now += 2 * time.Second
			}
			return now
		}
	}
	opt := Options{Handlers: []string{"naive", "unique"}, Messages: 100, Duplicates: -1, Rounds: 1}
	opt.Clock = tick()
	calm, err := Bench(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Clock = stalling(152, 156)
	stalled, err := Bench(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range calm.Handlers {
		s := stalled.Handlers[i]
		if c.PerSecond != 1000 || c.P99 != 1 {
			t.Errorf("%s without stalls: %v/s, p99 %v ms; want 1000/s, 1 ms (a fake millisecond a step)", c.Handler, c.PerSecond, c.P99)
		}
		if s.PerSecond != c.PerSecond || s.P50 != c.P50 {
			t.Errorf("%s: %v/s, p50 %v ms with two stalls; %v/s, p50 %v ms without", c.Handler, s.PerSecond, s.P50, c.PerSecond, c.P50)
		}
	}
	// p99 of 100 deliveries is the second slowest by nearest rank: both
	// stalls are needed for it to show.
	if p99 := stalled.Handlers[0].P99; p99 != 2001 {
		t.Errorf("naive's p99 with two stalls of 2 s: %v ms, want 2001", p99)
	}
	if p99 := stalled.Handlers[1].P99; p99 != 1 {
		t.Errorf("unique's p99: %v ms, want 1: the stalls were in naive's run", p99)
	}
}

// TestPlans: SQLite's own plan for statemachine's UPDATE of the order is
// a scan, because its WHERE names the id without the tenant that leads
// the primary key; its credit and unique's statements search an index.
func TestPlans(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		handler string
		prefix  string   // the statement checked
		scans   []string // the tables its plan reads whole
		search  string   // a step the plan must have, if any
	}{
		{"statemachine", "UPDATE orders SET status", []string{"orders"}, ""},
		{"statemachine", "UPDATE accounts", nil, "SEARCH accounts USING INDEX"},
		{"unique", "UPDATE accounts", nil, "SEARCH accounts USING INDEX"},
		{"inbox", "SELECT", nil, "SEARCH inbox USING INDEX"},
	} {
		plans, err := Plans(ctx, tc.handler)
		if err != nil {
			t.Fatalf("%s: %v", tc.handler, err)
		}
		var p *Plan
		for i := range plans {
			if strings.HasPrefix(plans[i].Statement, tc.prefix) {
				p = &plans[i]
				break
			}
		}
		if p == nil {
			t.Errorf("%s: no statement starts %q in %+v", tc.handler, tc.prefix, plans)
			continue
		}
		if !slices.Equal(p.Scans(), tc.scans) {
			t.Errorf("%s: %s\nscans %v, want %v; plan %q", tc.handler, p.Statement, p.Scans(), tc.scans, p.Steps)
		}
		if tc.search != "" && !slices.ContainsFunc(p.Steps, func(s string) bool { return strings.Contains(s, tc.search) }) {
			t.Errorf("%s: %s\nplan %q has no %q", tc.handler, p.Statement, p.Steps, tc.search)
		}
		for _, q := range plans {
			// BEGIN and COMMIT have no plan; nor has an INSERT of VALUES,
			// which reads no table.
			if q.Statement == "BEGIN" || q.Statement == "COMMIT" || strings.HasPrefix(q.Statement, "INSERT") || len(q.Steps) == 0 {
				t.Errorf("%s: %q has no plan and should not be listed", tc.handler, q.Statement)
			}
		}
	}
}

// Plans refuses what it cannot explain, with the valid choices.
func TestPlansRefuses(t *testing.T) {
	for _, tc := range []struct{ handler, want string }{
		{"nope", `unknown handler "nope"; valid handlers:`},
		{"core", "names 5 handlers; give one"},
		{"setnx", "no SQL"},
	} {
		_, err := Plans(context.Background(), tc.handler)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !IsBadInput(err) {
			t.Errorf("Plans(%q): %v, want bad input %q", tc.handler, err, tc.want)
		}
	}
}

// placeholders counts the values a statement takes, and refuses the
// forms it does not read rather than explain a statement wrongly.
func TestPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		q    string
		n    int
		fail string
	}{
		{"UPDATE orders SET status = ? WHERE id = ? AND status = ?", 3, ""},
		{"SELECT 1", 0, ""},
		// A ? inside a string or a quoted name is text, not a value.
		{"SELECT '?', \"a?b\" FROM t WHERE x = ?", 1, ""},
		{"SELECT 'it''s' WHERE x = ?", 1, ""},
		{"SELECT ?1", 0, "numbered placeholder"},
		{"SELECT :name", 0, "named placeholder"},
		{"SELECT $1", 0, "named placeholder"},
		{"SELECT 'open", 0, "unclosed '"},
	} {
		n, err := placeholders(tc.q)
		switch {
		case tc.fail != "" && (err == nil || !strings.Contains(err.Error(), tc.fail)):
			t.Errorf("%q: %d, %v; want an error saying %q", tc.q, n, err, tc.fail)
		case tc.fail == "" && (err != nil || n != tc.n):
			t.Errorf("%q: %d, %v; want %d", tc.q, n, err, tc.n)
		}
	}
}

// TestRoundsOutlastABurst: a burst of load that slows a handler's whole
// run (here every step of naive's first run takes 3 ms instead of 1)
// decides its figure when the run is timed once, and not when three
// rounds are pooled: the burst is then a third of the times, below the
// median.
func TestRoundsOutlastABurst(t *testing.T) {
	// The stopwatch is read before and after each step: naive's first
	// run, 200 steps, is readings 1 to 400.
	burst := func() func() time.Duration {
		var now time.Duration
		calls := 0
		return func() time.Duration {
			calls++
			now += time.Millisecond
			if calls <= 400 {
				now += 2 * time.Millisecond
			}
			return now
		}
	}
	for _, tc := range []struct {
		rounds       int
		naive, uniq  float64 // msg/s
		naiveP99     float64
		reportRounds int
	}{
		{1, 1000.0 / 3, 1000, 3, 1},
		{3, 1000, 1000, 3, 3},
		// Rounds 0 is the default, five.
		{0, 1000, 1000, 3, DefaultRounds},
	} {
		rep, err := Bench(context.Background(), Options{Handlers: []string{"naive", "unique"}, Messages: 100, Duplicates: -1,
			Rounds: tc.rounds, Clock: burst()})
		if err != nil {
			t.Fatal(err)
		}
		n, u := rep.Handlers[0], rep.Handlers[1]
		if n.PerSecond != tc.naive || u.PerSecond != tc.uniq || n.P99 != tc.naiveP99 || rep.Rounds != tc.reportRounds {
			t.Errorf("rounds %d: naive %v/s (p99 %v ms), unique %v/s, %d rounds reported; want %v/s (p99 %v), %v/s, %d",
				tc.rounds, n.PerSecond, n.P99, u.PerSecond, rep.Rounds, tc.naive, tc.naiveP99, tc.uniq, tc.reportRounds)
		}
		// The counters are the same however many rounds ran.
		if n.SQL != 100 || u.SQL != 400 {
			t.Errorf("rounds %d: naive %d, unique %d SQL statements; want 100 and 400", tc.rounds, n.SQL, u.SQL)
		}
	}
}
