package lessons

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/idempotency-lab/lab/brokers"
	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sim"
)

// TestBrokerClaims runs every claim that names a real broker the lab runs
// on (link.Brokers: NATS JetStream and Kafka in process, RabbitMQ on a
// throwaway server) on that broker, twice, and checks the lesson's verdicts there too; the model
// under the broker's profile is TestContentClaimsHold's. A verdict the
// lesson states must hold on the real broker whatever brokers.Differences
// documents: a lesson says what the broker does.
func TestBrokerClaims(t *testing.T) {
	c := mustCourse(t)
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	open := map[string]brokers.Server{}
	t.Cleanup(func() {
		for _, srv := range open {
			_ = srv.Close()
		}
	})
	ctx := context.Background()
	ran := map[string]bool{}
	for _, l := range allLessons(c) {
		for _, cl := range l.Claims {
			if !slices.Contains(link.Brokers, cl.Broker) {
				continue
			}
			where := fmt.Sprintf("%s:%d", l.Source, cl.Line)
			srv, ok := open[cl.Broker]
			if !ok {
				spec := cl.Broker
				if spec == "rabbitmq" {
					// A throwaway node: skipped without rabbitmq-server,
					// never in CI.
					spec = servers.RabbitMQ(t)
				}
				if srv, err = brokers.Open(ctx, spec); err != nil {
					t.Fatalf("%s: starting %s: %v", where, cl.Broker, err)
				}
				open[cl.Broker] = srv
			}
			p, err := sim.FindPreset(presets, cl.Preset)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			s, err := brokers.WithProfile(p.Script, cl.Broker)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			opts := sim.Options{Handlers: cl.Handlers(), RealBroker: srv}
			run, err := sim.Execute(ctx, s, opts)
			if err != nil {
				t.Errorf("%s: %s on %s: %v", where, cl.Preset, cl.Broker, err)
				continue
			}
			again, err := sim.Execute(ctx, s, opts)
			if err != nil {
				t.Errorf("%s: %s on %s, again: %v", where, cl.Preset, cl.Broker, err)
				continue
			}
			if err := brokers.SameTraces(run, again); err != nil {
				t.Errorf("%s: two runs of %s on %s differ: %v", where, cl.Preset, cl.Broker, err)
			}
			for _, hv := range cl.Verdicts {
				i := slices.IndexFunc(run.Results, func(r sim.Result) bool { return r.Handler == hv.Handler })
				if i < 0 {
					t.Errorf("%s: the run of %s on %s has no result for %s", where, cl.Preset, cl.Broker, hv.Handler)
					continue
				}
				if r := run.Results[i]; r.Verdict != hv.Verdict {
					t.Errorf("%s: the lesson claims %s is %s on %s, the real %s says %s (%s)",
						where, hv.Handler, hv.Verdict, cl.Preset, cl.Broker, r.Verdict, r.Reason)
				}
			}
			ran[cl.Broker+"/"+cl.Preset] = true
		}
	}
	// The lessons' broker claims (lesson 3's poison loop, lesson 11's
	// batches, offsets, dedup window and redelivered flag) are the point of
	// this test: it must not pass by finding none.
	for _, want := range []string{"kafka/batch-crash-replay", "kafka/batch-commit-before", "kafka/offset-out-of-order", "nats/dedup-window-redelivery",
		"rabbitmq/poison-loop", "rabbitmq/redelivered-flag-false", "kafka/crash-before-ack"} {
		if !ran[want] {
			t.Errorf("no claim ran %s on its real broker", want)
		}
	}
}

// TestBrokerClaimBadLines: a claim's broker line names a broker profile,
// once.
func TestBrokerClaimBadLines(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"unknown", "preset: poison-loop\nbroker: kafak\nunique: ok\n", `broker "kafak": valid brokers: sqs, sqs-fifo, rabbitmq, nats, kafka`},
		// "lab" is the model itself: a claim without a broker line says it.
		{"the model", "preset: poison-loop\nbroker: lab\nunique: ok\n", `broker "lab": valid brokers`},
		{"twice", "preset: poison-loop\nbroker: nats\nbroker: kafka\nunique: ok\n", "a claim holds on one broker; broker given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fstest.MapFS{}
			for _, lang := range Langs() {
				fs["content/01-x."+lang+".md"] = &fstest.MapFile{Data: []byte("---\ntitle: X\nslug: x\norder: 1\nlang: " + lang +
					"\nsummary: \"A lesson.\"\npresets: [poison-loop]\n---\n\nText.\n\n```claim\n" + tc.body + "```\n")}
			}
			_, err := Load(fs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load: %v; want %q", err, tc.want)
			}
		})
	}
}
