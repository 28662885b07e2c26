package brokers

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// natsServer is one embedded server for the package's tests, started on
// first use; the tests' worlds each have a stream of their own on it.
// TestMain closes it, which removes its folder.
var (
	natsOnce sync.Once
	natsSrv  *NATS
	natsErr  error
)

func testNATS(t *testing.T) *NATS {
	t.Helper()
	natsOnce.Do(func() { natsSrv, natsErr = NewNATS() })
	if natsErr != nil {
		t.Fatal(natsErr)
	}
	return natsSrv
}

func TestMain(m *testing.M) {
	code := m.Run()
	if natsSrv != nil {
		natsSrv.Close()
	}
	servers.Stop() // the throwaway RabbitMQ, if a test started it
	os.Exit(code)
}

// runBoth runs a script on one handler on the model under the nats
// profile and on the embedded NATS server.
func runBoth(t *testing.T, src, handler string) (model, real sim.Result) {
	t.Helper()
	s, err := script.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = WithProfile(s, "nats"); err != nil {
		t.Fatal(err)
	}
	m, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{handler}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{handler}, RealBroker: testNATS(t)})
	if err != nil {
		t.Fatal(err)
	}
	return m.Results[0], r.Results[0]
}

// events are a result's events of the broker's, steps and settlement.
func brokerSays(r sim.Result) string {
	var b strings.Builder
	for _, t := range append(r.Trace, r.Settlement) {
		for _, e := range t.Events {
			if e.Actor == "broker" {
				b.WriteString(e.Text + "\n")
			}
		}
	}
	return b.String()
}

// TestNATSRequeuePosition: a message whose worker died goes back; with
// another one ready, JetStream hands out the redelivered one first (its
// redelivery queue comes before the stream), with the server's own count,
// NumDelivered 2, and so does the model under the nats profile
// (RequeueRedeliveries). The lab's own model puts it at the back and hands
// out the other first.
func TestNATSRequeuePosition(t *testing.T) {
	t.Parallel()
	const src = `publish pay-1 amount=100
publish pay-2 amount=200
deliver crash=before-ack
redeliver
deliver
`
	model, real := runBoth(t, src, "naive")
	md, rd := Deliveries(model), Deliveries(real)
	if len(md) < 2 || !strings.HasPrefix(md[1], "topups/0/1 to worker-1") {
		t.Errorf("model's deliveries under the nats profile: %q, want topups/0/1 again second", md)
	}
	if len(rd) < 2 || !strings.HasPrefix(rd[1], "topups/0/1 to worker-1") || !strings.Contains(rd[1], "delivery 2, redelivered=true") {
		t.Errorf("JetStream's deliveries: %q, want topups/0/1 again second, as delivery 2", rd)
	}
	says := brokerSays(real)
	for _, want := range []string{"JetStream PubAck: stream seq 2", "stream seq 1, consumer seq 2, NumDelivered 2 (redelivered)",
		"stays pending until its AckWait (30s)", "-NAK to the server"} {
		if !strings.Contains(says, want) {
			t.Errorf("the broker's answers lack %q:\n%s", want, says)
		}
	}
	if Differ(model, real) {
		t.Errorf("the nats profile and JetStream deliver in another order: model %q, JetStream %q", md, rd)
	}
	// The lab's own model (no broker: header) puts it at the back.
	lab, err := sim.Execute(context.Background(), script.MustParse(src), sim.Options{Handlers: []string{"naive"}})
	if err != nil {
		t.Fatal(err)
	}
	if ld := Deliveries(lab.Results[0]); len(ld) < 2 || !strings.HasPrefix(ld[1], "topups/0/2 to worker-1") {
		t.Errorf("the lab's model: %q, want topups/0/2 second", ld)
	}
	if !Differ(lab.Results[0], real) {
		t.Error("Differ sees no difference between the lab's model and JetStream")
	}
	// Both settle every message once: the same money.
	if model.Settled != real.Settled || model.Verdict != real.Verdict {
		t.Errorf("model %s %d, JetStream %s %d", model.Verdict, model.Settled, real.Verdict, real.Settled)
	}
}

// TestNATSPoisonLoop: lesson 3's poison loop holds on JetStream: the
// server delivers the message max-deliveries times (NumDelivered 1, 2,
// 3) and then never again, and the oracle judges unique-error poison.
func TestNATSPoisonLoop(t *testing.T) {
	t.Parallel()
	p := preset(t, "poison-loop")
	model, real := runBoth(t, p.Source, "unique-error")
	if real.Verdict != sim.Poison || real.DeadLettered != 1 || real.Deliveries != 3 {
		t.Errorf("JetStream: %s, %d dead, %d deliveries; want poison, 1, 3", real.Verdict, real.DeadLettered, real.Deliveries)
	}
	if Differ(model, real) {
		t.Errorf("model %s %d deliveries, JetStream %s %d", model.Verdict, model.Deliveries, real.Verdict, real.Deliveries)
	}
	says := brokerSays(real)
	for _, want := range []string{"NumDelivered 1 (first delivery)", "NumDelivered 3 (redelivered)", "NumDelivered 3 = MaxDeliver 3: the server will not deliver it again"} {
		if !strings.Contains(says, want) {
			t.Errorf("the broker's answers lack %q:\n%s", want, says)
		}
	}
}

func preset(t *testing.T, name string) sim.Preset {
	t.Helper()
	ps, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no preset %s", name)
	return sim.Preset{}
}

// TestNATSConform runs a few presets that use every broker step (crash
// and redelivery, two workers on one message, a batch replayed, the
// dead-letter limit and its replay, one that picks a message) on every
// handler, through Conform: each real story twice with the same trace,
// and no difference from the model that the table does not document.
func TestNATSConform(t *testing.T) {
	t.Parallel()
	var ps []sim.Preset
	for _, n := range []string{"crash-before-ack", "concurrent-duplicates", "batch-crash-replay", "dlq-replay", "stale-update"} {
		ps = append(ps, preset(t, n))
	}
	rep, err := Conform(context.Background(), testNATS(t), ps)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows {
		if !r.Documented {
			t.Errorf("%s, %s: model %s %d, nats %s %d: not documented", r.Preset, r.Handler, r.Model.Verdict, r.Model.Settled, r.Real.Verdict, r.Real.Settled)
		}
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Preset != "stale-update" || !rep.Skipped[0].Documented {
		t.Errorf("skipped: %+v, want stale-update, documented", rep.Skipped)
	}
	// A documented difference must still happen: the table says nothing false.
	for _, d := range rep.Stale(ps) {
		t.Errorf("brokers.Differences documents %s, %q on %s, which no longer differs", d.Preset, d.Handler, d.Broker)
	}
	if want := 4 * len(handlers.List()); rep.Runs != want {
		t.Errorf("runs: %d, want %d (4 presets run, on every handler)", rep.Runs, want)
	}
}

// TestSameTracesFindsADifference: the determinism check fails on two
// runs that differ.
func TestSameTracesFindsADifference(t *testing.T) {
	t.Parallel()
	p := preset(t, "crash-before-ack")
	a, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"naive"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"naive"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := SameTraces(a, b); err != nil {
		t.Fatalf("two model runs differ: %v", err)
	}
	b.Results[0].Trace[1].Events[0].Text += "!"
	if err := SameTraces(a, b); err == nil || !strings.Contains(err.Error(), "step 2") {
		t.Errorf("SameTraces = %v, want a difference at step 2", err)
	}
}

// TestNATSCannotPick: deliver OP stops the run with ErrCannotPick, named.
func TestNATSCannotPick(t *testing.T) {
	t.Parallel()
	s := script.MustParse("publish pay-1 amount=100\npublish pay-2 amount=200\ndeliver pay-2\n")
	_, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"naive"}, RealBroker: testNATS(t)})
	if !errors.Is(err, ErrCannotPick) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("err = %v, want ErrCannotPick at line 3", err)
	}
}

// TestDifferencesAreLive: every row of the table names a broker Open
// knows and a preset that exists, and a skipped preset's row one that
// picks its message (deliver OP): no stale row.
func TestDifferencesAreLive(t *testing.T) {
	t.Parallel()
	ps, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Differences {
		if !slices.Contains(append(strings.Split(Names, ", "), "rabbitmq"), d.Broker) || d.Why == "" {
			t.Errorf("%+v: unknown broker or no reason", d)
		}
		i := slices.IndexFunc(ps, func(p sim.Preset) bool { return p.Name == d.Preset })
		if i < 0 {
			t.Errorf("%s: no such preset", d.Preset)
			continue
		}
		if (d.Why == pickWhy || d.Why == rabbitPickWhy) && !slices.ContainsFunc(ps[i].Script.Steps, func(st script.Step) bool { return st.Verb == script.VerbDeliver && st.Op != "" }) {
			t.Errorf("%s: documented as picking its message, and it has no deliver OP", d.Preset)
		}
	}
}

// TestOpen: the model is nil, an unknown broker a clear error.
func TestOpen(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"", "lab", "model"} {
		if srv, err := Open(context.Background(), spec); srv != nil || err != nil {
			t.Errorf("Open(%q) = %v, %v; want the model (nil)", spec, srv, err)
		}
	}
	if _, err := Open(context.Background(), "rabbit"); err == nil || !strings.Contains(err.Error(), "valid brokers: lab") {
		t.Errorf("Open(rabbit) = %v", err)
	}
}

// TestWithProfile: the nats profile's numbers, and the script's own
// headers over them.
func TestWithProfile(t *testing.T) {
	t.Parallel()
	s, err := WithProfile(script.MustParse("publish pay-1 amount=1\n"), "nats")
	if err != nil {
		t.Fatal(err)
	}
	if s.Broker != "nats" || s.MaxDeliveries != script.Unlimited || s.VisibilityTimeout.Seconds() != 30 {
		t.Errorf("profile: %s, max %d, vt %s", s.Broker, s.MaxDeliveries, s.VisibilityTimeout)
	}
	s, err = WithProfile(script.MustParse("broker: sqs\nmax-deliveries: 3\npublish pay-1 amount=1\n"), "nats")
	if err != nil {
		t.Fatal(err)
	}
	if s.Broker != "nats" || s.MaxDeliveries != 3 {
		t.Errorf("own header lost: %s, max %d", s.Broker, s.MaxDeliveries)
	}
}

// TestStaleFindsAnOldRow: a row of Differences whose preset ran without
// differing is stale; one whose preset did not run is not judged.
func TestStaleFindsAnOldRow(t *testing.T) {
	ran := []sim.Preset{preset(t, "refund-before-payment")}
	rep := &Report{Broker: "kafka"}
	if stale := rep.Stale(ran); len(stale) != 1 || stale[0].Preset != "refund-before-payment" {
		t.Errorf("Stale = %+v, want the refund-before-payment row", stale)
	}
	rep.Skipped = []Row{{Preset: "refund-before-payment", Documented: true}}
	if stale := rep.Stale(ran); len(stale) != 0 {
		t.Errorf("Stale = %+v with the preset skipped as documented, want none", stale)
	}
	if stale := (&Report{Broker: "kafka"}).Stale(nil); len(stale) != 0 {
		t.Errorf("Stale = %+v with no preset run, want none", stale)
	}
}
