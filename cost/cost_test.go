package cost

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/script"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// tick is a fake stopwatch: every reading is a millisecond after the last,
// so every step takes exactly 1 ms and a report depends only on its
// options.
func tick() func() time.Duration {
	var now time.Duration
	return func() time.Duration {
		now += time.Millisecond
		return now
	}
}

func TestScript(t *testing.T) {
	for _, tc := range []struct{ n, dup, copies int }{
		{10, 0, 0}, {10, 10, 1}, {10, 100, 10}, {1000, 10, 100}, {7, 50, 3}, {1, 100, 1},
	} {
		s, copies := Script(tc.n, tc.dup)
		if copies != tc.copies || len(s.Steps) != 2*(tc.n+tc.copies) {
			t.Errorf("Script(%d, %d%%): %d copies, %d steps; want %d copies, %d steps", tc.n, tc.dup, copies, len(s.Steps), tc.copies, 2*(tc.n+tc.copies))
		}
		// The script is one the parser reads back the same (where it is
		// within the parser's limit on steps).
		if len(s.Steps) > script.MaxSteps {
			continue
		}
		again, err := script.Parse(s.String())
		if err != nil || again.String() != s.String() {
			t.Errorf("Script(%d, %d%%) does not round-trip: %v", tc.n, tc.dup, err)
		}
	}
}

// TestBenchCounters: the counters are exact. unique runs BEGIN, INSERT,
// UPDATE, COMMIT for a new message and BEGIN, INSERT (refused), ROLLBACK
// for a copy; naive one UPDATE; setnx a SET NX and a SET (the done mark)
// for a new message and the SET NX alone for a copy.
func TestBenchCounters(t *testing.T) {
	rep, err := Bench(context.Background(), Options{Handlers: []string{"naive", "unique", "setnx", "statemachine", "inbox"},
		Messages: 40, Duplicates: 25, Clock: tick()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Copies != 10 {
		t.Fatalf("%d copies, want 10", rep.Copies)
	}
	by := map[string]Result{}
	for _, r := range rep.Handlers {
		by[r.Handler] = r
	}
	for _, tc := range []struct {
		handler                 string
		sql, redis, tx, verdict any
		rows, redisKeys         any
	}{
		{"naive", 50, 0, 0, "duplicate", int64(0), 0},
		{"unique", 40*4 + 10*3, 0, 50, "ok", int64(40), 0},
		{"setnx", 0, 40*2 + 10, 0, "ok", int64(0), 40},
		// The order's state is the marker: no table of its own.
		{"statemachine", 40*4 + 10*3, 0, 50, "ok", int64(0), 0},
	} {
		r := by[tc.handler]
		got := []any{r.SQL, r.Redis, r.Transactions, r.Verdict, r.Rows, r.RedisKeys}
		want := []any{tc.sql, tc.redis, tc.tx, tc.verdict, tc.rows, tc.redisKeys}
		if !slices.Equal(got, want) {
			t.Errorf("%s: SQL, Redis, transactions, verdict, rows, Redis keys = %v, want %v", tc.handler, got, want)
		}
		if r.Deliveries != 50 || r.P50 != 1 || r.P99 != 1 || r.PerSecond != 1000 {
			t.Errorf("%s: %d deliveries, p50 %v, p99 %v, %v/s; want 50, 1, 1, 1000 (a fake millisecond a step)", tc.handler, r.Deliveries, r.P50, r.P99, r.PerSecond)
		}
	}
	// Pages are whole: the bytes are a multiple of SQLite's 4096.
	if u := by["unique"]; u.Bytes == 0 || u.Bytes%4096 != 0 || u.Tables[0].Table != "transactions" || u.Tables[0].Rows != 40 {
		t.Errorf("unique's storage: %d bytes, tables %+v", u.Bytes, u.Tables)
	}
	if in := by["inbox"]; in.Bytes <= by["unique"].Bytes {
		t.Errorf("inbox stores %d bytes, unique %d: the saved response and the hash should cost more", in.Bytes, by["unique"].Bytes)
	}
}

// TestBenchGolden: with a fake clock the whole report is a function of
// its options: its JSON is compared with a golden file.
func TestBenchGolden(t *testing.T) {
	rep, err := Bench(context.Background(), Options{Messages: 20, Duplicates: 10, Clock: tick()})
	if err != nil {
		t.Fatal(err)
	}
	rep.Machine = Machine{}
	golden(t, "bench.json", rep)
}

func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != string(got)+"\n" {
		t.Errorf("%s differs from the report:\n%s", path, got)
	}
}

func TestBenchRefuses(t *testing.T) {
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Messages: MaxMessages + 1}, "messages: 20001 is out of range: from 1 to 20000"},
		{Options{Messages: -1}, "messages: -1 is out of range"},
		{Options{Duplicates: 101}, "duplicates: 101% is out of range: from 0% to 100%"},
		{Options{Rounds: MaxRounds + 1}, "rounds: 21 is out of range: from 1 to 20"},
		{Options{Rounds: -1}, "rounds: -1 is out of range"},
		{Options{Handlers: []string{"nave"}}, `unknown handler "nave"; valid handlers: naive`},
	} {
		_, err := Bench(context.Background(), tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !IsBadInput(err) {
			t.Errorf("%+v: %v, want bad input %q", tc.opt, err, tc.want)
		}
	}
	if _, err := Keys(context.Background(), KeysOptions{Rows: MaxKeyRows + 1}); err == nil || !IsBadInput(err) {
		t.Errorf("Keys over the limit: %v", err)
	}
	if _, err := Retention(context.Background(), RetentionOptions{Hours: -1}); err == nil || !IsBadInput(err) {
		t.Errorf("Retention with -1 hours: %v", err)
	}
}

// TestBenchStops: a cancelled context stops the bench.
func TestBenchStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Bench(ctx, Options{Messages: 100}); err == nil {
		t.Error("a cancelled bench returned no error")
	}
	if _, err := Keys(ctx, KeysOptions{Rows: 5000}); err == nil {
		t.Error("a cancelled keys experiment returned no error")
	}
}

// TestKeys: the keys are what they claim (a UUIDv7 sorts by time, a
// UUIDv4 does not), and the index's figures are read.
func TestKeys(t *testing.T) {
	keys := func(kind string) []string {
		var out []string
		r := newRng(kind)
		for i := range 50 {
			out = append(out, keyOf(kind, i, r))
		}
		return out
	}
	if v7 := keys(KeyUUIDv7); !slices.IsSorted(v7) || v7[0][14] != '7' {
		t.Errorf("UUIDv7 keys are not time-ordered v7: %v", v7[:3])
	}
	if v4 := keys(KeyUUIDv4); slices.IsSorted(v4) || v4[0][14] != '4' {
		t.Errorf("UUIDv4 keys look ordered or are not v4: %v", v4[:3])
	}
	if seq := keys(KeySequential); !slices.IsSorted(seq) {
		t.Errorf("sequential keys are not sorted: %v", seq[:3])
	}
	rep, err := Keys(context.Background(), KeysOptions{Rows: 3000, Clock: tick()})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{KeyUUIDv4: 36, KeyUUIDv7: 36, KeySHA256: 64, KeySequential: 18}
	for _, k := range rep.Kinds {
		if k.KeyBytes != want[k.Kind] || k.IndexBytes == 0 || k.IndexBytes%4096 != 0 || k.LeafFill <= 0 || k.LeafFill > 1 || k.Rows != 3000 {
			t.Errorf("%+v", k)
		}
	}
	// The longer the key, the larger the index, whatever the order.
	if rep.Kinds[2].IndexBytes <= rep.Kinds[3].IndexBytes {
		t.Errorf("sha256 index %d bytes, sequential %d", rep.Kinds[2].IndexBytes, rep.Kinds[3].IndexBytes)
	}
}

// TestRetention: the inbox keeps the horizon's worth of rows, exactly:
// the reaper deletes rows older than the window each time the clock moves.
func TestRetention(t *testing.T) {
	rep, err := Retention(context.Background(), RetentionOptions{Hours: 10, PerHour: 3,
		Horizons: []time.Duration{time.Hour, 4 * time.Hour, 0}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{
		"1h":   {3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
		"4h":   {3, 6, 9, 12, 12, 12, 12, 12, 12, 12},
		"none": {3, 6, 9, 12, 15, 18, 21, 24, 27, 30},
	}
	for _, s := range rep.Series {
		if !slices.Equal(s.Rows, want[s.Horizon]) || s.Bytes == 0 {
			t.Errorf("%s: rows %v, bytes %d; want %v", s.Horizon, s.Rows, s.Bytes, want[s.Horizon])
		}
	}
}

// TestChartsGolden: the charts of a tiny run, under the fake stopwatch,
// render the same SVG every time.
func TestChartsGolden(t *testing.T) {
	rep, err := Bench(context.Background(), Options{Handlers: []string{"naive", "unique", "inbox"}, Messages: 10, Duplicates: 20, Clock: tick()})
	if err != nil {
		t.Fatal(err)
	}
	ret, err := Retention(context.Background(), RetentionOptions{Hours: 6, PerHour: 2, Horizons: []time.Duration{time.Hour, 0}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range append(HandlerFigures(rep, "en", "unique"), RetentionFigure(ret, "ru")) {
		b.WriteString(f.SVG + "\n")
	}
	got := b.String()
	path := filepath.Join("testdata", "charts.svg.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the charts rendered now", path)
	}
	// Text is escaped.
	svg := BarChart{Title: `<b>&"`, Bars: []Bar{{Label: "<i>", Value: 1, Text: "1"}}}.SVG()
	if strings.Contains(svg, "<b>") || strings.Contains(svg, "<i>") || !strings.Contains(svg, "&lt;b&gt;&amp;") {
		t.Errorf("unescaped: %s", svg)
	}
}

// TestBenchDuplicateDefaults: 0 asks for the default share of copies, -1
// for none.
func TestBenchDuplicateDefaults(t *testing.T) {
	for dup, copies := range map[int]int{0: 1, -1: 0, 50: 5} {
		rep, err := Bench(context.Background(), Options{Handlers: []string{"naive"}, Messages: 10, Duplicates: dup, Clock: tick()})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Copies != copies {
			t.Errorf("Duplicates %d: %d copies, want %d", dup, rep.Copies, copies)
		}
	}
}
