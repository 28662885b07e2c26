package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// keysScript exercises everything that could make a run differ from the
// next: v7 and fresh keys from the seeded source, two racing workers (on two
// messages and on one), clock advances that expire Redis keys and reap the
// inbox, the gateway (down, timing out, deduplicating, stalling a racing
// worker's call while the clock moves), the DLQ.
const keysScript = `title: Keys, races and clocks
max-deliveries: 2
processing-ttl: 30m
done-ttl: 1d
inbox-retention: 2d

publish pay-1 amount=100 key=v7
publish pay-2 amount=250 key=fresh tenant=globex account=bob
retry pay-2 tenant=globex
deliver-concurrent
advance 90m
retry pay-1
deliver crash=after-effect
advance 1h30m
redeliver
publish pay-3 amount=40 key=fresh
retry pay-3
deliver-concurrent
publish pay-4 amount=7 key=v7 tenant=globex
gateway down
deliver
deliver
redeliver
gateway up
gateway dedup on
gateway stall 45m
deliver-concurrent same
gateway timeout
deliver
gateway up
advance 3d
change-payload pay-1 amount=150
deliver crash=before-ack
drain
dlq-replay
retry pay-4 tenant=globex
drain
ship pay-1
`

// snapshot is one step of a run with the field that is json:"-" in
// sim.Trace marshalled explicitly.
type snapshot struct {
	Trace sim.Trace  `json:"trace"`
	State *sim.State `json:"state"`
}

type resultDump struct {
	Result     sim.Result      `json:"result"` // includes Trace and Settlement
	Steps      []snapshot      `json:"steps"`
	Settlement snapshot        `json:"settlement"`
	Broker     sim.BrokerState `json:"broker"` // after the last step
	Final      *sim.State      `json:"final"`
}

// dumpRun marshals everything a run produced, hidden fields included.
func dumpRun(t *testing.T, run *sim.Run) []byte {
	t.Helper()
	out := struct {
		Steps   int          `json:"steps"`
		Results []resultDump `json:"results"`
	}{Steps: run.Steps}
	for _, r := range run.Results {
		d := resultDump{Result: r, Final: r.Final, Broker: r.Broker,
			Settlement: snapshot{Trace: r.Settlement, State: r.Settlement.State}}
		for _, tr := range r.Trace {
			d.Steps = append(d.Steps, snapshot{Trace: tr, State: tr.State})
		}
		out.Results = append(out.Results, d)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	return b
}

func execute(t *testing.T, s *script.Script, opt sim.Options) *sim.Run {
	t.Helper()
	run, err := sim.Execute(context.Background(), s, opt)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return run
}

// firstDifference shows where two byte slices part, for failure messages.
func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return "first run:  ..." + string(a[from:min(len(a), i+200)]) + "\nsecond run: ..." + string(b[from:min(len(b), i+200)])
}

func checkDeterministic(t *testing.T, s *script.Script) {
	t.Helper()
	opt := sim.Options{Handlers: []string{"all"}, Snapshots: true}
	r1, r2 := execute(t, s, opt), execute(t, s, opt)
	if len(r1.Results) != len(handlers.List()) {
		t.Fatalf("got %d results, want one per handler (%d)", len(r1.Results), len(handlers.List()))
	}
	for _, r := range r1.Results {
		if len(r.Trace) != len(s.Steps) {
			t.Fatalf("%s: %d trace steps, want %d", r.Handler, len(r.Trace), len(s.Steps))
		}
		for i, tr := range r.Trace {
			if tr.State == nil {
				t.Fatalf("%s: step %d has no snapshot though Snapshots is on", r.Handler, i+1)
			}
		}
		if r.Final == nil {
			t.Fatalf("%s: no Final state", r.Handler)
		}
	}
	b1, b2 := dumpRun(t, r1), dumpRun(t, r2)
	if !bytes.Equal(b1, b2) {
		t.Errorf("two runs of the same script differ:\n%s", firstDifference(b1, b2))
	}
}

func TestExecuteIsDeterministic(t *testing.T) {
	t.Run("keys, races and clocks", func(t *testing.T) {
		t.Parallel()
		checkDeterministic(t, script.MustParse(keysScript))
	})
	presets, err := sim.Presets()
	if err != nil {
		t.Fatalf("Presets: %v", err)
	}
	for _, p := range presets {
		t.Run("preset "+p.Name, func(t *testing.T) {
			t.Parallel()
			checkDeterministic(t, p.Script)
		})
	}
}

// producerKeys lists, in order, the key of every message the producer
// published, read from the publish events and checked against the broker
// after the last step (the broker never drops a message, and a DLQ replay
// keeps its key).
func producerKeys(t *testing.T, r sim.Result) []string {
	t.Helper()
	var keys []string
	for i, tr := range r.Trace {
		for _, e := range tr.Events {
			if e.Actor != "producer" || e.Kind != sim.KindPublish {
				continue
			}
			_, rest, ok := strings.Cut(e.Text, ": key ")
			key, _, ok2 := strings.Cut(rest, ",")
			if !ok || !ok2 {
				t.Fatalf("%s step %d: publish event %q names no key", r.Handler, i+1, e.Text)
			}
			if !hasKey(r.Broker, key) {
				t.Errorf("%s step %d: published key %s is not in the broker", r.Handler, i+1, key)
			}
			keys = append(keys, key)
		}
	}
	return keys
}

func hasKey(b sim.BrokerState, key string) bool {
	for _, q := range [][]sim.Message{b.Ready, b.InFlight, b.Acked, b.DLQ} {
		for _, m := range q {
			if m.Key == key {
				return true
			}
		}
	}
	return false
}

func TestKeysAreTheSameAcrossHandlersAndRuns(t *testing.T) {
	s := script.MustParse(keysScript)
	run := execute(t, s, sim.Options{Handlers: []string{"all"}, Snapshots: true})
	want := producerKeys(t, run.Results[0])

	// One message per publish, retry or change-payload step.
	var sends []script.Step
	var sendStep []int
	for i, st := range s.Steps {
		switch st.Verb {
		case script.VerbPublish, script.VerbRetry, script.VerbChangePayload:
			sends = append(sends, st)
			sendStep = append(sendStep, i)
		}
	}
	if len(want) != len(sends) {
		t.Fatalf("%d producer messages, want %d", len(want), len(sends))
	}
	for _, r := range run.Results[1:] {
		if got := producerKeys(t, r); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s keys = %v\nwant (as %s) %v", r.Handler, got, run.Results[0].Handler, want)
		}
	}
	again := execute(t, s, sim.Options{Handlers: []string{"naive"}, Snapshots: true})
	if got := producerKeys(t, again.Results[0]); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("second run keys = %v, want %v", got, want)
	}

	// The keys follow the key modes: op is the operation id, v7 is made once
	// from the clock at publish time, fresh is a new v4 on every send.
	keyMode := map[string]string{}
	firstKey := map[string]string{}
	seenFresh := map[string]bool{}
	trace := run.Results[0].Trace
	for i, st := range sends {
		id := st.Tenant + "/" + st.Op
		if st.Verb == script.VerbPublish {
			keyMode[id] = st.KeyMode
		}
		key := want[i]
		switch keyMode[id] {
		case script.KeyOp:
			if key != st.Op {
				t.Errorf("%s %s: key %s, want the operation id", st.Verb, st.Op, key)
			}
		case script.KeyV7:
			u, err := uuid.Parse(key)
			if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
				t.Errorf("%s %s: key %s is not a UUIDv7 (%v)", st.Verb, st.Op, key, err)
				continue
			}
			if st.Verb == script.VerbPublish {
				firstKey[id] = key
				var ms int64
				for _, b := range u[:6] {
					ms = ms<<8 | int64(b)
				}
				now, err := time.Parse(time.RFC3339, trace[sendStep[i]].State.Now)
				if err != nil {
					t.Fatal(err)
				}
				if ms != now.UnixMilli() {
					t.Errorf("v7 key %s carries %v, want the clock at publish time %v", key, time.UnixMilli(ms).UTC(), now)
				}
			} else if key != firstKey[id] {
				t.Errorf("%s %s: v7 key %s, want the key of the first publish %s", st.Verb, st.Op, key, firstKey[id])
			}
		case script.KeyFresh:
			u, err := uuid.Parse(key)
			if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
				t.Errorf("%s %s: key %s is not a UUIDv4 (%v)", st.Verb, st.Op, key, err)
			}
			if seenFresh[key] {
				t.Errorf("%s %s: fresh key %s was used before", st.Verb, st.Op, key)
			}
			seenFresh[key] = true
		}
	}
	if len(firstKey) != 2 || len(seenFresh) != 4 {
		t.Errorf("script produced %d v7 intents and %d fresh keys, want 2 and 4", len(firstKey), len(seenFresh))
	}
}
