package check

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// TestCauseLabels: a script's cause is the kinds of step in it that a
// plain run has not, in the script's words, sorted; the plain steps
// (publish, deliver, drain, a second operation, a relay) are none.
func TestCauseLabels(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   string
	}{
		{"publish a amount=10000\ndeliver\n", plainCause},
		{"publish a amount=10000\npublish b amount=5000\ndrain\n", plainCause},
		{"publish a amount=10000\ndeliver crash=before-ack\n", "crash=before-ack"},
		{"publish a amount=10000\ndeliver crash=after-call:2\n", "crash=after-call:2"},
		{"publish a amount=10000\nretry a\n", "retry"},
		// Two kinds of step: both, sorted; a step twice counts once.
		{"publish a amount=10000\nretry a\nretry a\ndeliver crash=after-effect\n", "crash=after-effect + retry"},
		{"publish a amount=10000\nchange-payload a amount=15000\n", "change-payload"},
		{"publish a amount=10000\npublish a amount=5000 tenant=globex account=bob\n", "tenant=globex"},
		{"publish a amount=10000\npublish r amount=10000 kind=refund order=a\ndeliver r\n", "out-of-order + refund"},
		// The race's switch points are not part of its cause; one
		// message or two is.
		{"publish a amount=10000\ndeliver-concurrent same switch=2\n", "deliver-concurrent same"},
		{"publish a amount=10000\nretry a\ndeliver-concurrent switch=2,1\n", "deliver-concurrent + retry"},
		{"publish a amount=10000\ndeliver crash=before-ack\nadvance 1h1m\n", "advance 1h1m + crash=before-ack"},
		// gateway up only restores the default: not a cause.
		{"gateway timeout\npublish a amount=10000\ngateway up\ndeliver\n", "gateway timeout"},
		{"gateway stall 10s\npublish a amount=10000\n", "gateway stall"},
		{"produce a amount=10000 mode=outbox\nrelay crash=after-publish\n", "mode=outbox + relay crash=after-publish"},
		{"publish a amount=10000\npublish b amount=5000\ndeliver-batch 2 crash=after-message:1\n", "deliver-batch crash=after-message:1"},
		{"publish a amount=10000\ndeliver crash=before-effect\nredeliver\ndlq-replay\n", "crash=before-effect + dlq-replay + redeliver"},
		// A story the sweep found keeps its visibility timeout: part of
		// its cause, as the header's own timeout is not.
		{"visibility-timeout: 2m\npublish a amount=10000\ndeliver crash=before-effect\n", "crash=before-effect + visibility-timeout: 2m"},
		// The API side.
		{"request a amount=10000\n", plainCause},
		{"request a amount=10000 lose-response\n", "lose-response"},
		{"request a amount=10000 crash=after-effect\n", "crash=after-effect"},
		{"request a amount=10000\nretry a amount=15000\n", "retry + retry amount"},
		{"request a amount=10000\nretry a key=quoted\n", "key=quoted + retry"},
		{"request a amount=10000 key=none\n", "key=none"},
		{"request a amount=10000\nrequest a amount=10000 tenant=globex\n", "tenant=globex"},
		{"request-concurrent a amount=10000 switch=2,1\n", "request-concurrent"},
		{"request-concurrent a amount=10000 key=none\n", "key=none + request-concurrent"},
		{"request a amount=10000 lose-response\nadvance 24h1m\n", "advance 24h1m + lose-response"},
	} {
		if got := causeOf(causeLabels(script.MustParse(tc.script), 0)); got != tc.want {
			t.Errorf("cause of\n%s= %q, want %q", tc.script, got, tc.want)
		}
	}
	// The search's own timeout is no cause.
	if got := causeOf(causeLabels(script.MustParse("visibility-timeout: 2m\npublish a amount=10000\n"), 2*time.Minute)); got != plainCause {
		t.Errorf("the header's own visibility timeout makes a cause: %q", got)
	}
}

// transportEffectFirst, written for these tests, deduplicates by the
// broker's transport id, and credits before it records the id: two
// distinct duplicates, which one story per verdict told as one. A worker
// that dies after the credit leaves no record, so the redelivery (the
// same transport id) credits again; and a producer's retry is a new
// message with a new transport id, which no record of the first can
// match.
func transportEffectFirst(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	var n int
	if err := d.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM seen_ids WHERE id = ?`, m.TransportID).Scan(&n); err != nil || n > 0 {
		return err
	}
	if _, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	d.Point(handlers.AfterEffect)
	_, err := d.DB.ExecContext(ctx, `INSERT INTO seen_ids (id) VALUES (?)`, m.TransportID)
	return err
}

var transportEffectFirstInfo = handlers.Info{Name: "transport-effect-first", Schema: `CREATE TABLE seen_ids (id TEXT PRIMARY KEY);`,
	Handle: transportEffectFirst}

// TestEveryDistinctFailureIsListed: a handler with two distinct failures
// of one verdict gets both stories, each with its cause; every story
// replays from scratch to its verdict and cause; each verdict's first
// story is its shortest; no cause is told twice; the list stays within
// MaxStories.
func TestEveryDistinctFailureIsListed(t *testing.T) {
	rep, err := CheckHandler(context.Background(), transportEffectFirstInfo, quick)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"crash=after-effect": "publish a amount=10000\ndeliver crash=after-effect\n",
		"retry":              "publish a amount=10000\nretry a\n",
	}
	for cause, script := range want {
		f, ok := story(rep, sim.Duplicate, cause)
		if !ok || f.Script != script || f.Steps != 2 {
			t.Errorf("no duplicate caused by %s in 2 steps (%q); found:\n%s", cause, script, causes(rep))
		}
	}
	if len(rep.Failures) > MaxStories {
		t.Errorf("%d stories, more than %d", len(rep.Failures), MaxStories)
	}
	seen := map[string]bool{}
	for i, f := range rep.Failures {
		key := string(f.Verdict) + " " + f.Cause
		if seen[key] {
			t.Errorf("%s told twice", key)
		}
		seen[key] = true
		// Each verdict's stories are together, its shortest first.
		if i > 0 && f.Verdict == rep.Failures[i-1].Verdict && f.Steps < rep.Failures[i-1].Steps {
			t.Errorf("%s: story %d (%d steps) after a longer one", f.Verdict, i+1, f.Steps)
		}
		if i > 0 && f.Verdict != rep.Failures[i-1].Verdict {
			for _, g := range rep.Failures[:i] {
				if g.Verdict == f.Verdict {
					t.Errorf("the %s stories are not together:\n%s", f.Verdict, causes(rep))
				}
			}
		}
		run, err := sim.Execute(context.Background(), script.MustParse(f.Script), sim.Options{Custom: []handlers.Info{transportEffectFirstInfo}})
		if err != nil || run.Results[0].Verdict != f.Verdict {
			t.Errorf("%s (%s) does not replay to its verdict: %v\n%s", f.Verdict, f.Cause, err, f.Script)
		}
		if c := causeOf(causeLabels(script.MustParse(f.Script), 0)); c != f.Cause {
			t.Errorf("the story's cause is %q, its script's %q", f.Cause, c)
		}
	}
}

// TestReportIsByteIdentical: two searches with the same options give the
// same report, every story and cause in the same order, byte for byte.
func TestReportIsByteIdentical(t *testing.T) {
	for _, h := range []handlers.Info{transportEffectFirstInfo, apiHandler(t, "api-key-short-ttl")} {
		var out [2][]byte
		for i := range out {
			rep, err := CheckHandler(context.Background(), h, quick)
			if err != nil {
				t.Fatal(err)
			}
			if out[i], err = json.Marshal(rep); err != nil {
				t.Fatal(err)
			}
		}
		if string(out[0]) != string(out[1]) {
			t.Errorf("%s: two searches differ:\n%s\n%s", h.Name, out[0], out[1])
		}
	}
}

// TestStoriesKeepEachVerdictsShortest: past MaxStories the longest of
// the other causes go, never a verdict's shortest story, and the report
// counts them; the verdicts come in the order of their shortest stories,
// ties by verdict, and among stories as short the one found first heads
// its verdict.
func TestStoriesKeepEachVerdictsShortest(t *testing.T) {
	s := &searcher{groups: map[string]group{}}
	add := func(v sim.Verdict, cause string, steps int) {
		s.seq++
		s.groups[string(v)+"\n"+cause] = group{seq: s.seq, f: Failure{Verdict: v, Cause: cause, Steps: steps}}
	}
	add(sim.Lost, "crash=before-effect", 2)
	add(sim.Duplicate, "retry", 3)
	add(sim.Duplicate, "crash=after-effect", 2)
	add(sim.Duplicate, "change-payload", 2) // as short, found later: not the head
	for i := range MaxStories {
		add(sim.Duplicate, "advance "+strings.Repeat("1", i+1)+"m", 4+i)
	}
	add(sim.SilentConflict, "change-payload", 9) // the longest, but its verdict's only story
	kept, omitted := s.stories()
	var got []string
	for _, f := range kept {
		got = append(got, string(f.Verdict)+" "+f.Cause)
	}
	want := []string{
		"duplicate crash=after-effect", "duplicate change-payload", "duplicate retry",
		"duplicate advance 1m", "duplicate advance 11m", "duplicate advance 111m",
		"lost crash=before-effect",
		"silent-conflict change-payload",
	}
	if !reflect.DeepEqual(got, want) || omitted != 5 {
		t.Errorf("stories %q, %d omitted;\nwant %q, 5 omitted", got, omitted, want)
	}
}

func story(rep Report, v sim.Verdict, cause string) (Failure, bool) {
	for _, f := range rep.Failures {
		if f.Verdict == v && f.Cause == cause {
			return f, true
		}
	}
	return Failure{}, false
}

func causes(rep Report) string {
	var b strings.Builder
	for _, f := range rep.Failures {
		b.WriteString("  " + string(f.Verdict) + " (" + f.Cause + "): " + strings.ReplaceAll(strings.TrimSpace(f.Script), "\n", "; ") + "\n")
	}
	return b.String()
}
