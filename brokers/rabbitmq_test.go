package brokers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// The package's tests share one throwaway RabbitMQ server (Debian's
// rabbitmq-server, started by internal/servers on first use: skipped
// without it, failed in CI); each world has a connection and queues of
// its own on it. TestMain stops it.
var (
	rabbitOnce sync.Once
	rabbitSrv  *RabbitMQ
	rabbitErr  error
)

func testRabbitMQ(t *testing.T) *RabbitMQ {
	t.Helper()
	url := servers.RabbitMQ(t)
	rabbitOnce.Do(func() { rabbitSrv, rabbitErr = NewRabbitMQ(context.Background(), url) })
	if rabbitErr != nil {
		t.Fatal(rabbitErr)
	}
	return rabbitSrv
}

// runRabbitMQ runs a script on one handler on the model under the
// rabbitmq profile and on the RabbitMQ server.
func runRabbitMQ(t *testing.T, src, handler string) (model, real sim.Result) {
	t.Helper()
	srv := testRabbitMQ(t)
	s, err := script.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = WithProfile(s, "rabbitmq"); err != nil {
		t.Fatal(err)
	}
	m, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{handler}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{handler}, RealBroker: srv})
	if err != nil {
		t.Fatal(err)
	}
	return m.Results[0], r.Results[0]
}

// deliveredIDs are the transport ids of a run's deliveries, in order.
func deliveredIDs(r sim.Result) []string {
	var out []string
	for _, d := range Deliveries(r) {
		id, _, _ := strings.Cut(d, " ")
		out = append(out, id)
	}
	return out
}

// TestRabbitMQPoisonLoop: lesson 3's poison loop holds on RabbitMQ: the
// quorum queue hands the message out max-deliveries times
// (x-delivery-count 0, 1, 2), and the reject after the third is past
// x-delivery-limit 2: dead-lettered. The oracle judges unique-error
// poison, as on the model.
func TestRabbitMQPoisonLoop(t *testing.T) {
	t.Parallel()
	p := preset(t, "poison-loop")
	model, real := runRabbitMQ(t, p.Source, "unique-error")
	if real.Verdict != sim.Poison || real.DeadLettered != 1 || real.Deliveries != 3 {
		t.Errorf("RabbitMQ: %s, %d dead, %d deliveries; want poison, 1, 3", real.Verdict, real.DeadLettered, real.Deliveries)
	}
	if Differ(model, real) {
		t.Errorf("model %s %d deliveries, RabbitMQ %s %d", model.Verdict, model.Deliveries, real.Verdict, real.Deliveries)
	}
	wantSays(t, real, "RabbitMQ publisher confirm: basic.ack, delivery tag 1 (message-id topups/0/1)",
		"redelivered=false, x-delivery-count 0", "redelivered=true, x-delivery-count 2",
		"basic.reject requeue=true on channel", "topups/0/1 had 3 deliveries, past x-delivery-limit 2: the quorum queue dead-letters it")
}

// TestRabbitMQCrashReturnsAtOnce: a crash closes the worker's channel,
// and the server returns the message at once, near the head of the
// queue, its delivery counted: the next basic.get is the same message
// (x-delivery-count 1, redelivered), while the model keeps it in flight
// until a redeliver step and hands out the next one.
func TestRabbitMQCrashReturnsAtOnce(t *testing.T) {
	t.Parallel()
	model, real := runRabbitMQ(t, `publish pay-1 amount=100
publish pay-2 amount=200
deliver crash=before-ack
deliver
`, "naive")
	if got, want := deliveredIDs(real), []string{"topups/0/1", "topups/0/1", "topups/0/2"}; !slices.Equal(got, want) {
		t.Errorf("RabbitMQ's deliveries: %q, want %q", got, want)
	}
	// The model's second delivery is pay-2; pay-1 waits in flight for
	// settlement's redeliver.
	if got, want := deliveredIDs(model), []string{"topups/0/1", "topups/0/2", "topups/0/1"}; !slices.Equal(got, want) {
		t.Errorf("the model's deliveries: %q, want %q", got, want)
	}
	wantSays(t, real, "RabbitMQ channel 1 closed with the worker, delivery tag 1 unacked: topups/0/1 is back in the quorum queue, its x-delivery-count now 1",
		"RabbitMQ basic.get-ok on channel 2: delivery tag 1, message-id topups/0/1, redelivered=true, x-delivery-count 1, message-count 1",
		"RabbitMQ basic.ack on channel 2: delivery tag 1")
	if model.Settled != real.Settled || model.Verdict != real.Verdict {
		t.Errorf("model %s %d, RabbitMQ %s %d", model.Verdict, model.Settled, real.Verdict, real.Settled)
	}
}

// TestRabbitMQRejectGoesToHead: a message its handler keeps failing is
// rejected with requeue and comes again at once (a quorum queue hands out
// the messages returned to it before the rest), delivery after delivery,
// until the delivery limit; the model under the rabbitmq profile does the
// same (RequeueRedeliveries), and the lab's own model puts it at the back
// (2 and 3 take turns).
func TestRabbitMQRejectGoesToHead(t *testing.T) {
	t.Parallel()
	p := preset(t, "webhook-retries")
	model, real := runRabbitMQ(t, p.Source, "unique-error")
	want := []string{"topups/0/1", "topups/0/2", "topups/0/2", "topups/0/2", "topups/0/3", "topups/0/3", "topups/0/3"}
	if got := deliveredIDs(real); !slices.Equal(got, want) {
		t.Errorf("RabbitMQ's deliveries: %q, want %q", got, want)
	}
	if got := deliveredIDs(model); !slices.Equal(got, want) {
		t.Errorf("the model's deliveries under the rabbitmq profile: %q, want %q", got, want)
	}
	if Differ(model, real) {
		t.Error("the rabbitmq profile and RabbitMQ differ")
	}
	lab, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"unique-error"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := deliveredIDs(lab.Results[0]), []string{"topups/0/1", "topups/0/2", "topups/0/2", "topups/0/3", "topups/0/2", "topups/0/3", "topups/0/3"}; !slices.Equal(got, want) {
		t.Errorf("the lab's own model: %q, want %q", got, want)
	}
}

// TestRabbitMQVisibilityLapse: deliver-concurrent same: the lab's clock
// passes the first worker's visibility timeout while it is busy; the
// lab closes its channel, as consumer_timeout would, and basic.get hands
// the same message to the second worker (x-delivery-count 1).
func TestRabbitMQVisibilityLapse(t *testing.T) {
	t.Parallel()
	model, real := runRabbitMQ(t, "publish pay-1 amount=100\ndeliver-concurrent same\n", "naive")
	wantSays(t, real, "the lab closes channel 1 (delivery tag 1 unacked), as RabbitMQ's consumer_timeout would",
		"basic.get-ok on channel 2: delivery tag 1, message-id topups/0/1, redelivered=true, x-delivery-count 1")
	if Differ(model, real) {
		t.Errorf("model %s %d %q, RabbitMQ %s %d %q", model.Verdict, model.Settled, Deliveries(model), real.Verdict, real.Settled, Deliveries(real))
	}
}

// TestRabbitMQDeadLetterReplay: dlq-replay takes the dead letter from the
// world's dead-letter queue (its x-death reason the delivery limit) and
// publishes it again: the next confirm tag is its new id.
func TestRabbitMQDeadLetterReplay(t *testing.T) {
	t.Parallel()
	p := preset(t, "dlq-replay")
	model, real := runRabbitMQ(t, p.Source, "unique")
	wantSays(t, real, "basic.get-ok from the dead-letter queue: message-id topups/0/1, x-first-death-reason delivery_limit")
	if Differ(model, real) {
		t.Errorf("model %s %d %q, RabbitMQ %s %d %q", model.Verdict, model.Settled, Deliveries(model), real.Verdict, real.Settled, Deliveries(real))
	}
}

// TestRabbitMQCannotPick: deliver OP stops the run with ErrCannotPick.
func TestRabbitMQCannotPick(t *testing.T) {
	t.Parallel()
	s := script.MustParse("publish pay-1 amount=100\npublish pay-2 amount=200\ndeliver pay-2\n")
	_, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"naive"}, RealBroker: testRabbitMQ(t)})
	if !errors.Is(err, ErrCannotPick) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("err = %v, want ErrCannotPick at line 3", err)
	}
}

// TestRabbitMQTwice: a real story run twice has the same trace, the
// server's answers included (delivery tags, channels, x-delivery-count,
// message-count): each world has its own connection and queues, and the
// lab waits for the server's queues after every return.
func TestRabbitMQTwice(t *testing.T) {
	t.Parallel()
	srv := testRabbitMQ(t)
	for _, name := range []string{"batch-crash-replay", "concurrent-duplicates", "dlq-replay"} {
		s, err := WithProfile(preset(t, name).Script, "rabbitmq")
		if err != nil {
			t.Fatal(err)
		}
		opts := sim.Options{Handlers: []string{"naive", "inbox", "unique-error"}, RealBroker: srv}
		a, err := sim.Execute(context.Background(), s, opts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sim.Execute(context.Background(), s, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := SameTraces(a, b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !strings.Contains(brokerSays(a.Results[0]), "RabbitMQ basic.get-ok") {
			t.Errorf("%s: the trace lacks the server's answers", name)
		}
	}
}

// TestRabbitMQConform is lab conform --broker amqp://…: every preset on
// every handler through Conform (each real story twice with the same
// trace), no difference from the model that the table does not
// document, and the presets that pick their message skipped, documented.
// With -short, a few presets that use every broker step.
func TestRabbitMQConform(t *testing.T) {
	t.Parallel()
	srv := testRabbitMQ(t)
	ps, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		ps = nil
		for _, n := range []string{"crash-before-ack", "concurrent-duplicates", "batch-crash-replay", "dlq-replay", "offset-out-of-order", "stale-update"} {
			ps = append(ps, preset(t, n))
		}
	}
	rep, err := Conform(context.Background(), srv, ps)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows {
		if !r.Documented {
			t.Errorf("%s, %s: model %s %d %q, rabbitmq %s %d %q: not documented", r.Preset, r.Handler,
				r.Model.Verdict, r.Model.Settled, Deliveries(r.Model), r.Real.Verdict, r.Real.Settled, Deliveries(r.Real))
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
	if want := (len(ps) - picks) * len(handlers.List()); rep.Runs != want || want == 0 {
		t.Errorf("runs: %d, want %d (every preset that runs, on every handler)", rep.Runs, want)
	}
	// offset-out-of-order differs on every handler (the crashed message
	// comes back first), and on offset-in-db in the verdict too.
	var offsetRows int
	for _, r := range rep.Rows {
		if r.Preset == "offset-out-of-order" {
			offsetRows++
			if r.Handler == "offset-in-db" && (r.Model.Verdict != sim.Lost || r.Real.Verdict != sim.OK) {
				t.Errorf("offset-in-db: model %s, RabbitMQ %s; want lost, ok", r.Model.Verdict, r.Real.Verdict)
			}
		}
	}
	if offsetRows != len(handlers.List()) {
		t.Errorf("offset-out-of-order differs on %d handlers, want every one", offsetRows)
	}
}

// TestRabbitMQURL: a URL that does not parse, and a server that does not
// answer, are errors naming the URL without its password. Neither needs
// a server.
func TestRabbitMQURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ spec, want string }{
		{"amqp://guest:s3cret@127.0.0.1:notaport/", "want amqp://user:pass@host:port/vhost"},
		// Port 1: nothing listens there.
		{"amqp://guest:s3cret@127.0.0.1:1/", "rabbitmq at amqp://guest:xxxxx@127.0.0.1:1/"},
	} {
		srv, err := Open(context.Background(), c.spec)
		if srv != nil || err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%s) = %v, %v; want an error with %q, without the password", c.spec, srv, err, c.want)
		}
	}
	if !IsAMQP("amqps://h/") || IsAMQP("nats") {
		t.Error("IsAMQP")
	}
}
