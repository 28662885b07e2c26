package brokers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// kafkaServer is one in-process cluster for the package's tests, started
// on its first Open; the tests' worlds each have a topic of their own.
var kafkaServer = sync.OnceValue(NewKafka)

// runKafka runs a script on one handler on the model under the kafka
// profile and on the kfake cluster.
func runKafka(t *testing.T, src, handler string) (model, real sim.Result) {
	t.Helper()
	s, err := script.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = WithProfile(s, "kafka"); err != nil {
		t.Fatal(err)
	}
	m, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{handler}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{handler}, RealBroker: kafkaServer()})
	if err != nil {
		t.Fatal(err)
	}
	return m.Results[0], r.Results[0]
}

func wantSays(t *testing.T, r sim.Result, wants ...string) {
	t.Helper()
	says := brokerSays(r)
	for _, want := range wants {
		if !strings.Contains(says, want) {
			t.Errorf("the broker's answers lack %q:\n%s", want, says)
		}
	}
}

// TestKafkaCrashRedeliver: a worker dies before its commit; after the
// session timeout the consumer re-reads from the committed offset, and
// the message comes again (the lab's count: delivery 2). The trace shows
// the broker's offsets and committed offsets.
func TestKafkaCrashRedeliver(t *testing.T) {
	t.Parallel()
	model, real := runKafka(t, `publish pay-1 amount=100
publish pay-2 amount=200
deliver crash=before-ack
redeliver
deliver
deliver
`, "naive")
	rd := Deliveries(real)
	if len(rd) != 3 || !strings.HasPrefix(rd[1], "topups/0/1 to worker-1") || !strings.Contains(rd[1], "delivery 2, redelivered=false") ||
		!strings.HasPrefix(rd[2], "topups/0/2 to worker-1") {
		// A record carries no redelivered flag: the second read of
		// offset 1 reaches the handler with it false.
		t.Errorf("Kafka's deliveries: %q, want topups/0/1, topups/0/1 again (delivery 2, no flag), topups/0/2", rd)
	}
	wantSays(t, real, "Kafka produce: offset 1 of topups/0", "Kafka produce: offset 2 of topups/0",
		"Kafka fetch: offset 1 of topups/0, committed 1; Kafka counts no deliveries: delivery 1 is the lab's count",
		"offset 1 stays uncommitted (committed 1)",
		"the lab's clock passed session.timeout.ms: the consumer seeks back to the committed offset 1",
		"ack offset 1: Kafka commit 2 for the group; committed 2", "ack offset 2: Kafka commit 3 for the group; committed 3")
	if model.Settled != real.Settled || model.Verdict != real.Verdict {
		t.Errorf("model %s %d, Kafka %s %d", model.Verdict, model.Settled, real.Verdict, real.Settled)
	}
}

// TestKafkaNackSeeksBack: Kafka has no nack: a failed message is re-read
// from the committed offset at once, before the later ones (the model
// puts it at the back), and a nack past max-deliveries goes to the
// dead-letter topic and is committed past.
func TestKafkaNackSeeksBack(t *testing.T) {
	t.Parallel()
	p := preset(t, "poison-loop")
	model, real := runKafka(t, p.Source, "unique-error")
	if real.Verdict != sim.Poison || real.DeadLettered != 1 || real.Deliveries != 3 {
		t.Errorf("Kafka: %s, %d dead, %d deliveries; want poison, 1, 3", real.Verdict, real.DeadLettered, real.Deliveries)
	}
	if Differ(model, real) {
		t.Errorf("model %s %d deliveries, Kafka %s %d", model.Verdict, model.Deliveries, real.Verdict, real.Deliveries)
	}
	wantSays(t, real, "Kafka has no nack: the consumer seeks back to the committed offset",
		"reached max-deliveries 3 (the lab's count), so the lab's consumer produced it to the dead-letter topic (offset 0 there)",
		"dead-lettered offset")
}

// TestKafkaHeldAck: two workers, the later offset acked first (worker-1
// pauses at its first call): a commit of N covers every offset below N,
// so the ack of offset 2 is held until offset 1 is acked, and then one
// commit of 3 covers both.
func TestKafkaHeldAck(t *testing.T) {
	t.Parallel()
	model, real := runKafka(t, `publish pay-1 amount=100
publish pay-2 amount=200
deliver-concurrent switch=1
`, "naive")
	says := brokerSays(real)
	held := strings.Index(says, "ack offset 2: held, not committed, as offset 1 below it is not done; committed stays 1")
	commit := strings.Index(says, "ack offset 1: Kafka commit 3 for the group; committed 3")
	if held < 0 || commit < held || strings.Contains(says, "Kafka commit 2") {
		t.Errorf("want offset 2's ack held, then one commit of 3:\n%s", says)
	}
	if Differ(model, real) {
		t.Errorf("model %s %d, Kafka %s %d", model.Verdict, model.Settled, real.Verdict, real.Settled)
	}
}

// TestKafkaCannotPick: deliver OP stops the run with ErrCannotPick.
func TestKafkaCannotPick(t *testing.T) {
	t.Parallel()
	s := script.MustParse("publish pay-1 amount=100\npublish pay-2 amount=200\ndeliver pay-2\n")
	_, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"naive"}, RealBroker: kafkaServer()})
	if !errors.Is(err, ErrCannotPick) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("err = %v, want ErrCannotPick at line 3", err)
	}
}

// TestKafkaConform is lab conform --broker kafka: every preset on every
// handler through Conform (each real story twice with the same trace),
// no difference from the model that the table does not document, and
// the presets that pick their message (deliver OP) skipped, documented.
// With -short, a few presets that use every broker step: crash and
// redelivery, two workers on one message, batches committed after and
// before, the dead-letter limit and its replay, one that picks.
func TestKafkaConform(t *testing.T) {
	t.Parallel()
	ps, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		ps = nil
		for _, n := range []string{"crash-before-ack", "concurrent-duplicates", "batch-crash-replay", "batch-commit-before", "dlq-replay", "stale-update"} {
			ps = append(ps, preset(t, n))
		}
	}
	rep, err := Conform(context.Background(), kafkaServer(), ps)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows {
		if !r.Documented {
			t.Errorf("%s, %s: model %s %d (%d deliveries), kafka %s %d (%d): not documented", r.Preset, r.Handler,
				r.Model.Verdict, r.Model.Settled, r.Model.Deliveries, r.Real.Verdict, r.Real.Settled, r.Real.Deliveries)
		}
	}
	var picks int
	for _, p := range ps {
		if slices.ContainsFunc(p.Script.Steps, func(st script.Step) bool { return st.Verb == script.VerbDeliver && st.Op != "" }) {
			picks++
		}
	}
	if len(rep.Skipped) != picks || picks == 0 {
		t.Errorf("skipped: %d presets, want the %d that pick their message", len(rep.Skipped), picks)
	}
	for _, r := range rep.Skipped {
		if !r.Documented {
			t.Errorf("%s skipped, not documented", r.Preset)
		}
	}
	// A documented difference must still happen: the table says nothing false.
	for _, d := range rep.Stale(ps) {
		t.Errorf("brokers.Differences documents %s, %q on %s, which no longer differs", d.Preset, d.Handler, d.Broker)
	}
	if want := (len(ps) - picks) * len(handlers.List()); rep.Runs != want || want == 0 {
		t.Errorf("runs: %d, want %d (every preset that runs, on every handler)", rep.Runs, want)
	}
}

// TestKafkaVisibilityLapse: deliver-concurrent same: the first worker's
// session times out on the lab's clock while it is busy, the consumer
// seeks back to the committed offset and reads the same offset again
// for a second worker (the lab's count: delivery 2).
func TestKafkaVisibilityLapse(t *testing.T) {
	t.Parallel()
	model, real := runKafka(t, "publish pay-1 amount=100\ndeliver-concurrent same\n", "naive")
	wantSays(t, real, "the lab's clock passed session.timeout.ms for the worker holding offset 1: the consumer seeks back to the committed offset 1",
		"Kafka fetch: offset 1 of topups/0, committed 1; Kafka counts no deliveries: delivery 2 is the lab's count")
	if Differ(model, real) {
		t.Errorf("model %s %d, Kafka %s %d", model.Verdict, model.Settled, real.Verdict, real.Settled)
	}
}

// TestKafkaTwice: a real story run twice has the same trace, the
// broker's answers included (every world has its own topic and group,
// and nothing of the cluster's clock reaches the trace).
func TestKafkaTwice(t *testing.T) {
	t.Parallel()
	p := preset(t, "batch-crash-replay")
	s, err := WithProfile(p.Script, "kafka")
	if err != nil {
		t.Fatal(err)
	}
	opts := sim.Options{Handlers: []string{"naive", "offset-in-db"}, RealBroker: kafkaServer()}
	a, err := sim.Execute(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim.Execute(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := SameTraces(a, b); err != nil {
		t.Error(err)
	}
	wantSays(t, a.Results[0], "Kafka fetch: offset 3 of topups/0, committed 1", "offset 3 stays uncommitted (committed 1)")
}

// TestKafkaLazy: choosing kafka starts nothing; the cluster starts on
// the first Open, and Close before it is harmless.
func TestKafkaLazy(t *testing.T) {
	t.Parallel()
	srv, err := Open(context.Background(), "kafka")
	if err != nil {
		t.Fatal(err)
	}
	k, ok := srv.(*Kafka)
	if !ok || k.c != nil || k.cl != nil || k.Name() != "kafka" {
		t.Fatalf("Open(kafka) = %T %+v, want a Kafka with no cluster yet", srv, srv)
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	s := script.MustParse("publish pay-1 amount=1\n")
	if _, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"naive"}, RealBroker: k}); err == nil || !strings.Contains(err.Error(), "kafka") {
		t.Errorf("a run on a closed Kafka: %v, want an error naming kafka", err)
	}
}

// TestKafkaBatchCommitsOnce: deliver-batch commits once for the batch,
// as a consumer group's member commits after its poll: one offset commit
// (4, past the batch's last record), none per record. A batch whose
// handler fails on its third record commits the two before it, once, and
// seeks back to the failed one. The model agrees on every delivery.
func TestKafkaBatchCommitsOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, script, handler string
		says                  []string
		commits               int // Kafka commits in the run, the opening marker's not counted
	}{
		{"a batch", "publish pay-1 amount=100\npublish pay-2 amount=200\npublish pay-3 amount=300\ndeliver-batch 3\n", "naive",
			[]string{"ack offsets 1 … 3 (one commit for the batch): Kafka commit 4 for the group; committed 4"}, 1},
		// The third record is a retry of pay-2, which unique-error
		// fails: the consumer commits the two before it, once, and
		// seeks back to offset 3; read again (the settlement), it is
		// dead-lettered past max-deliveries 2 and committed past on
		// its own: two commits in all.
		{"a failed batch", "max-deliveries: 2\npublish pay-1 amount=100\npublish pay-2 amount=200\nretry pay-2\ndeliver-batch 3\n", "unique-error",
			[]string{"ack offsets 1 … 2 (one commit for the batch): Kafka commit 3 for the group; committed 3",
				"Kafka has no nack: the consumer seeks back to the committed offset 3", "dead-lettered offset 3: Kafka commit 4 for the group; committed 4"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			model, real := runKafka(t, c.script, c.handler)
			wantSays(t, real, c.says...)
			if n := strings.Count(brokerSays(real), "Kafka commit"); n != c.commits {
				t.Errorf("%d commits, want %d:\n%s", n, c.commits, brokerSays(real))
			}
			if Differ(model, real) {
				t.Errorf("model %s %d %q, Kafka %s %d %q", model.Verdict, model.Settled, Deliveries(model), real.Verdict, real.Settled, Deliveries(real))
			}
		})
	}
}
