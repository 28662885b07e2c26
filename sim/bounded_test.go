package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Bounded traces: every text a handler makes is cut to a bound per event
// (sim.MaxEventText, sim.MaxArgText), with a note of how much more there
// was, and past sim.MaxRunText bytes in a world each text is cut tighter.

// runBounded runs the script src on one handler made of handle.
func runBounded(t *testing.T, src string, handle handlers.Func) sim.Result {
	t.Helper()
	s, err := script.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	run, err := sim.Execute(context.Background(), s, sim.Options{Custom: []handlers.Info{{Name: "mine", Handle: handle, Redis: true}}})
	if err != nil {
		t.Fatal(err)
	}
	return run.Results[0]
}

// eventsOf lists a result's events, the settlement's included.
func eventsOf(r sim.Result) []sim.Event {
	var out []sim.Event
	for _, tr := range append(r.Trace, r.Settlement) {
		out = append(out, tr.Events...)
	}
	return out
}

// checkBounded fails when any text of any event is over its bound.
func checkBounded(t *testing.T, r sim.Result) {
	t.Helper()
	for _, e := range eventsOf(r) {
		for _, f := range []string{e.Text, e.In("ru"), e.Args, e.Result} {
			if len(f) > sim.MaxEventText {
				t.Errorf("%s %s: a text of %d bytes, over %d: %.80q…", e.Actor, e.Kind, len(f), sim.MaxEventText, f)
			}
		}
	}
}

// findEvent is the first event of kind whose text has part.
func findEvent(t *testing.T, r sim.Result, kind, part string) sim.Event {
	t.Helper()
	for _, e := range eventsOf(r) {
		if e.Kind == kind && strings.Contains(e.Text, part) {
			return e
		}
	}
	t.Fatalf("no %s event with %q", kind, part)
	return sim.Event{}
}

const oneDelivery = "publish a amount=100\ndeliver\n"

func TestBoundedLogToken(t *testing.T) {
	token := strings.Repeat("a", 1<<20)
	r := runBounded(t, oneDelivery, func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		d.Log("start %s", token)
		return nil
	})
	checkBounded(t, r)
	e := findEvent(t, r, sim.KindLog, "start aaaa")
	kept := len(strings.TrimSuffix(e.Text, e.Text[strings.LastIndex(e.Text, "…"):]))
	want := "… " + itoa(len("start ")+len(token)-kept) + " more bytes"
	if !strings.HasSuffix(e.Text, want) {
		t.Errorf("the log line ends %q, want %q", e.Text[len(e.Text)-40:], want)
	}
	if ru := sim.CutInRussian(e.Text); !strings.HasSuffix(ru, "… ещё "+itoa(len("start ")+len(token)-kept)+" байт") {
		t.Errorf("in Russian the line ends %q", ru[len(ru)-40:])
	}
}

func TestBoundedLogWords(t *testing.T) {
	words := strings.Repeat("ab ", 500_000)
	r := runBounded(t, oneDelivery, func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		d.Log("%s", words)
		return nil
	})
	checkBounded(t, r)
	if e := findEvent(t, r, sim.KindLog, "ab ab"); !strings.HasSuffix(e.Text, " more bytes") {
		t.Errorf("500,000 words in one line are not cut: %d bytes", len(e.Text))
	}
}

func TestBoundedSQLArgument(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	r := runBounded(t, oneDelivery, func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		var got string
		if err := d.DB.QueryRowContext(ctx, "SELECT ? || 'y'", big).Scan(&got); err != nil {
			return err
		}
		if len(got) != len(big)+1 {
			return errors.New("the handler got a cut value")
		}
		_, err := d.DB.ExecContext(ctx, "SELECT ?, ?", []byte(big), "it's "+big)
		return err
	})
	checkBounded(t, r)
	if r.Verdict == "" {
		t.Fatal("no verdict")
	}
	q := findEvent(t, r, sim.KindSQL, "SELECT ? || 'y'")
	if len(q.Args) > 2*sim.MaxArgText || !strings.Contains(q.Args, "more bytes") {
		t.Errorf("the argument is not cut to its bound: %d bytes, %.80q", len(q.Args), q.Args)
	}
	if len(q.Result) > 2*sim.MaxEventText || !strings.Contains(q.Result, "more bytes") {
		t.Errorf("the row that came back is not cut: %d bytes", len(q.Result))
	}
	x := findEvent(t, r, sim.KindSQL, "SELECT ?, ?")
	if len(x.Args) > 4*sim.MaxArgText || strings.Count(x.Args, "more bytes") != 2 {
		t.Errorf("the arguments are not each cut: %d bytes, %q", len(x.Args), x.Args)
	}
	for _, e := range eventsOf(r) {
		if e.Kind == sim.KindNack {
			t.Errorf("the handler failed: %s", e.Text)
		}
	}
}

func TestBoundedRedisAndErrors(t *testing.T) {
	big := strings.Repeat("v", 1<<20)
	r := runBounded(t, oneDelivery, func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		if err := d.Redis.Set(ctx, "k", big, 0).Err(); err != nil {
			return err
		}
		if err := d.Redis.Get(ctx, "k").Err(); err != nil {
			return err
		}
		return errors.New("refused: " + big)
	})
	checkBounded(t, r)
	if e := findEvent(t, r, sim.KindRedis, "SET k vvvv"); !strings.HasSuffix(e.Text, " more bytes") {
		t.Errorf("the Redis command is not cut: %d bytes", len(e.Text))
	}
	if e := findEvent(t, r, sim.KindRedis, "GET k"); !strings.HasSuffix(e.Result, " more bytes") {
		t.Errorf("the Redis reply is not cut: %d bytes", len(e.Result))
	}
	if e := findEvent(t, r, sim.KindNack, "refused: vvv"); !strings.HasSuffix(e.Text, " more bytes") ||
		!strings.HasSuffix(e.In("ru"), " байт") {
		t.Errorf("the handler's error is not cut in both languages: %d, %d bytes", len(e.Text), len(e.In("ru")))
	}
}

// TestBoundedRun: past MaxRunText bytes of text in a world, each text is
// cut to TightEventText, so the texts of a whole run stay bounded however
// many lines a handler logs.
func TestBoundedRun(t *testing.T) {
	line := strings.Repeat("z", 10_000)
	script := strings.Repeat("publish a amount=100\ndeliver\n", 1) + "redeliver\nredeliver\nredeliver\n"
	r := runBounded(t, script, func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		for range 200 {
			d.Log("%s", line)
		}
		return errors.New("again")
	})
	checkBounded(t, r)
	total, n := 0, 0
	for _, e := range eventsOf(r) {
		if e.Kind == sim.KindLog {
			total += len(e.Text)
			n++
		}
	}
	if n < 200 {
		t.Fatalf("only %d log lines", n)
	}
	if limit := sim.MaxRunText + sim.MaxEventText + n*sim.TightEventText; total > limit {
		t.Errorf("%d log lines keep %d bytes, over %d", n, total, limit)
	}
}

// TestCutInRussian: only the trace's own note is said in Russian.
func TestCutInRussian(t *testing.T) {
	for in, want := range map[string]string{
		"abc… 12 more bytes":   "abc… ещё 12 байт",
		"abc":                  "abc",
		"abc… 12 more bytes!":  "abc… 12 more bytes!",
		"abc… x more bytes":    "abc… x more bytes",
		"abc… 012 more bytes":  "abc… 012 more bytes",
		"… 7 more bytes":       "… ещё 7 байт",
		"a… b… 3 more bytes":   "a… b… ещё 3 байт",
		"no note, more bytes":  "no note, more bytes",
		"abc…  12 more bytes":  "abc…  12 more bytes",
		"abc… -12 more bytes":  "abc… -12 more bytes",
		"abc… +12 more bytes":  "abc… +12 more bytes",
		"abc… 12 more bytes ":  "abc… 12 more bytes ",
		"abc… 1 2 more bytes":  "abc… 1 2 more bytes",
		"abc…12 more bytes":    "abc…12 more bytes",
		"abc… 12  more bytes":  "abc… 12  more bytes",
		"abc… 12 more  bytes":  "abc… 12 more  bytes",
		"abc… 12 more bytes\n": "abc… 12 more bytes\n",
	} {
		if got := sim.CutInRussian(in); got != want {
			t.Errorf("CutInRussian(%q) = %q, want %q", in, got, want)
		}
	}
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}
