package labview_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/brokers"
	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/webtest"
)

// newBrokerServer is a lab that offers the real brokers as lab serve
// does: brokers.Lazy, none started before a page asks.
func newBrokerServer(tb testing.TB) (http.Handler, *brokers.Lazy) {
	tb.Helper()
	z := &brokers.Lazy{}
	tb.Cleanup(func() { z.Close() })
	h, err := web.NewServer(web.Config{Brokers: z.Available(), OpenBroker: z.Open})
	if err != nil {
		tb.Fatal(err)
	}
	return h, z
}

// TestBrokerPickerRunsOnNATS: broker=nats runs the preset's broker steps
// on the embedded JetStream server, and the trace shows the server's own
// answers: the redelivery after the crash is NumDelivered 2. The picker
// offers the model and every real broker and marks NATS; the model's page
// has no JetStream in it, and no server started for it.
func TestBrokerPickerRunsOnNATS(t *testing.T) {
	h, z := newBrokerServer(t)
	model := webtest.Get(t, h, "/lab?preset=crash-before-ack")
	if model.Status != 200 {
		t.Fatalf("%d\n%s", model.Status, webtest.Excerpt(model.Body))
	}
	if z.Started("nats") || z.Started("kafka") {
		t.Fatal("a broker server started for a page on the lab's model")
	}
	if !strings.Contains(model.Body, `id="brokers"`) || !strings.Contains(model.Body, `/lab?preset=crash-before-ack&amp;broker=nats`) {
		t.Fatalf("no broker picker on the model's page\n%s", webtest.Excerpt(model.Body))
	}
	if strings.Contains(model.Body, "JetStream Fetch") {
		t.Error("the model's page shows JetStream's answers")
	}
	r := webtest.Get(t, h, "/lab?preset=crash-before-ack&broker=nats&step=4")
	if r.Status != 200 {
		t.Fatalf("broker=nats: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	for _, want := range []string{"JetStream PubAck: stream seq 1", "NumDelivered 1 (first delivery)", "NumDelivered 2 (redelivered)"} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("the NATS page lacks the broker's answer %q", want)
		}
	}
	if !strings.Contains(r.Body, `aria-current="true">NATS JetStream</a>`) {
		t.Error("the picker does not mark NATS JetStream as the broker in use")
	}
	if !strings.Contains(r.Body, `href="/lab?preset=crash-before-ack&amp;step=4" class="btn small">lab model</a>`) {
		t.Error("the picker has no way back to the lab model")
	}
	if !z.Started("nats") {
		t.Error("broker=nats ran, yet the lazy set started no NATS server")
	}
	if v := webtest.CardVerdicts(r.Body); v["naive"] != "duplicate" || v["inbox"] != "ok" {
		t.Errorf("verdicts on NATS: %v", v)
	}
	ru := webtest.Get(t, h, "/lab?preset=crash-before-ack&broker=nats&step=4&lang=ru")
	for _, want := range []string{"NumDelivered 2 (повторная доставка)", "Брокер", "модель лаборатории"} {
		if !strings.Contains(ru.Body, want) {
			t.Errorf("the Russian NATS page lacks %q", want)
		}
	}
}

// TestBrokerPageIsDeterministic: the same address on two servers, each
// with a JetStream server of its own, gives byte-identical pages.
func TestBrokerPageIsDeterministic(t *testing.T) {
	const target = "/lab?preset=crash-before-ack&broker=nats&step=3"
	h1, _ := newBrokerServer(t)
	h2, _ := newBrokerServer(t)
	a, b := webtest.Get(t, h1, target), webtest.Get(t, h2, target)
	if a.Status != 200 || b.Status != 200 {
		t.Fatalf("%d, %d\n%s", a.Status, b.Status, webtest.Excerpt(a.Body))
	}
	if a.Body != b.Body {
		i := 0
		for i < len(a.Body) && i < len(b.Body) && a.Body[i] == b.Body[i] {
			i++
		}
		t.Fatalf("the two pages differ from byte %d:\n%q\n%q", i, a.Body[i:min(i+200, len(a.Body))], b.Body[i:min(i+200, len(b.Body))])
	}
}

// TestBadBrokerParameter: a broker the address cannot name is a 400
// naming the valid choices, in both languages; a real broker this server
// does not offer is a 404 naming the ones it does; a script of API
// requests or a handler file on a real broker is a 400 saying why.
func TestBadBrokerParameter(t *testing.T) {
	h, z := newBrokerServer(t)
	r := webtest.Get(t, h, "/lab?preset=crash-before-ack&broker=sqs")
	if r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "sqs is not a broker: use one of lab, nats, kafka, rabbitmq.") {
		t.Errorf("broker=sqs: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if r := webtest.Get(t, h, "/lab?preset=crash-before-ack&broker=sqs&lang=ru"); r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "sqs — не брокер: допустимо одно из lab, nats, kafka, rabbitmq.") {
		t.Errorf("broker=sqs in Russian: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	plain := webtest.NewServer(t)
	if r := webtest.Get(t, plain, "/lab?preset=crash-before-ack&broker=nats"); r.Status != http.StatusNotFound || !strings.Contains(r.Body, "does not run on the broker nats") {
		t.Errorf("broker=nats on a lab without brokers: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if r := webtest.Get(t, plain, "/lab?preset=crash-before-ack"); strings.Contains(r.Body, `id="brokers"`) {
		t.Error("a broker picker on a lab that offers no real broker")
	}
	api := mustAPIPresetName(t)
	if r := webtest.Get(t, h, "/lab?preset="+api+"&broker=nats"); r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "has no broker steps") {
		t.Errorf("broker=nats on an API script: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if r := webtest.Get(t, h, "/lab?preset="+api); strings.Contains(r.Body, `id="brokers"`) {
		t.Error("a broker picker on a script of API requests")
	}
	if z.Started("nats") {
		t.Error("a refused address started a NATS server")
	}
}

// TestBrokerCannotPick: a preset that delivers one operation's message
// (deliver OP) cannot run on a real broker: a 422 naming the line and the
// reason, in both languages, never a 500.
func TestBrokerCannotPick(t *testing.T) {
	h, _ := newBrokerServer(t)
	for _, lang := range []string{"en", "ru"} {
		r := webtest.Get(t, h, "/lab?preset=stale-update&broker=nats&lang="+lang)
		want := "cannot run this script: line"
		if lang == "ru" {
			want = "не может выполнить этот сценарий: строка"
		}
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, want) || !strings.Contains(r.Body, "deliver OP") {
			t.Errorf("stale-update on nats (%s): %d\n%s", lang, r.Status, webtest.Excerpt(r.Body))
		}
	}
}

// TestBrokerPastLimit: a script whose past-limit: the broker cannot
// carry out is refused as deliver OP is: a 422 naming the line, the
// broker's reason and its valid choices, in both languages, before any
// server starts; a choice the broker carries out runs.
func TestBrokerPastLimit(t *testing.T) {
	h, z := newBrokerServer(t)
	drop := url.Values{"script": {"max-deliveries: 2\npast-limit: drop\npublish pay-1 amount=10000\ndeliver\n"}, "broker": {"nats"}}
	for _, c := range []struct {
		lang  string
		wants []string
	}{
		{"en", []string{"cannot run this script: line 2 asks for past-limit: drop, and past MaxDeliver JetStream stops delivering",
			"Valid past-limit choices on nats: keep."}},
		{"ru", []string{"не может выполнить этот сценарий: строка 2 просит past-limit: drop, а после MaxDeliver JetStream",
			"Допустимые значения past-limit для nats: keep."}},
	} {
		drop.Set("lang", c.lang)
		r := webtest.Get(t, h, "/lab?"+drop.Encode())
		if r.Status != http.StatusUnprocessableEntity {
			t.Errorf("past-limit: drop on nats (%s): %d\n%s", c.lang, r.Status, webtest.Excerpt(r.Body))
			continue
		}
		for _, want := range c.wants {
			if !strings.Contains(r.Body, want) {
				t.Errorf("past-limit: drop on nats (%s) lacks %q\n%s", c.lang, want, webtest.Excerpt(r.Body))
			}
		}
	}
	if z.Started("nats") {
		t.Error("a refused script started a NATS server")
	}
	keep := url.Values{"script": {"max-deliveries: 2\npast-limit: keep\npublish pay-1 amount=10000\ndeliver\n"}, "broker": {"nats"}}
	if r := webtest.Get(t, h, "/lab?"+keep.Encode()); r.Status != http.StatusOK {
		t.Errorf("past-limit: keep on nats: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
}

// TestPresenterKeepsBroker: the presenter on broker=nats shows the
// broker's answers and its step links keep broker=nats.
func TestPresenterKeepsBroker(t *testing.T) {
	h, _ := newBrokerServer(t)
	r := webtest.Get(t, h, "/present/crash-before-ack?broker=nats&step=4")
	if r.Status != 200 {
		t.Fatalf("%d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if !strings.Contains(r.Body, "NumDelivered 2") {
		t.Error("the presenter on NATS lacks the redelivery's NumDelivered 2")
	}
	if !strings.Contains(r.Body, "step=3&amp;broker=nats") {
		t.Errorf("the presenter's step links drop broker=nats\n%s", webtest.Excerpt(r.Body))
	}
}

// mustAPIPresetName is the first preset of API requests.
func mustAPIPresetName(tb testing.TB) string {
	tb.Helper()
	presets, err := sim.APIPresets()
	if err != nil || len(presets) == 0 {
		tb.Fatalf("no API presets: %v", err)
	}
	return presets[0].Name
}

// TestRoomKeepsBroker: the presenter's "Open a room" form carries
// broker=, and the room's steps run on that broker: the instructor's
// page shows the broker's answers.
func TestRoomKeepsBroker(t *testing.T) {
	z := &brokers.Lazy{}
	t.Cleanup(func() { z.Close() })
	h, err := web.NewServer(web.Config{Rooms: room.NewHub(room.Config{}), Heartbeat: -1, Brokers: z.Available(), OpenBroker: z.Open})
	if err != nil {
		t.Fatal(err)
	}
	solo := webtest.Get(t, h, "/present/crash-before-ack?broker=nats&step=4")
	if !strings.Contains(solo.Body, `name="broker" value="nats"`) {
		t.Fatalf("the presenter's room form drops broker=nats\n%s", webtest.Excerpt(solo.Body))
	}
	code, cookie := webtest.OpenRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"4"}, "broker": {"nats"}})
	r := webtest.GetAt(t, h, "example.com", "/rooms/"+code+"/present", cookie)
	if r.Status != 200 {
		t.Fatalf("%d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if !strings.Contains(r.Body, "NumDelivered 2") {
		t.Errorf("the room on NATS lacks the redelivery's NumDelivered 2\n%s", webtest.Excerpt(r.Body))
	}
}

// TestBrokerPickerRunsOnKafka: broker=kafka runs the steps on the
// in-process Kafka cluster, whose answers (offsets, commits) are in the
// trace, and the picker marks Kafka.
func TestBrokerPickerRunsOnKafka(t *testing.T) {
	h, z := newBrokerServer(t)
	r := webtest.Get(t, h, "/lab?preset=crash-before-ack&broker=kafka&step=4")
	if r.Status != 200 {
		t.Fatalf("broker=kafka: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	for _, want := range []string{"Kafka produce: offset 1 of topups/0", "Kafka fetch: offset 1 of topups/0", `aria-current="true">Kafka</a>`} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("the Kafka page lacks %q", want)
		}
	}
	if !z.Started("kafka") || z.Started("nats") {
		t.Error("broker=kafka should start the Kafka cluster, and it alone")
	}
}

// TestBrokerPickerRabbitMQ: a lab given a RabbitMQ server (lab serve
// --rabbitmq) offers it in the picker, and broker=rabbitmq runs the
// preset's broker steps on it: the crash closes the worker's channel and
// the server returns the message, x-delivery-count 1. A lab without one
// does not offer it (404 naming the brokers it does).
func TestBrokerPickerRabbitMQ(t *testing.T) {
	url := servers.RabbitMQ(t)
	z := &brokers.Lazy{}
	t.Cleanup(func() { z.Close() })
	if err := z.OfferRabbitMQ(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	h, err := web.NewServer(web.Config{Brokers: z.Available(), OpenBroker: z.Open})
	if err != nil {
		t.Fatal(err)
	}
	if model := webtest.Get(t, h, "/lab?preset=crash-before-ack"); !strings.Contains(model.Body, `/lab?preset=crash-before-ack&amp;broker=rabbitmq`) {
		t.Fatalf("the picker does not offer RabbitMQ\n%s", webtest.Excerpt(model.Body))
	}
	r := webtest.Get(t, h, "/lab?preset=crash-before-ack&broker=rabbitmq&step=4")
	if r.Status != 200 {
		t.Fatalf("broker=rabbitmq: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	for _, want := range []string{"RabbitMQ publisher confirm: basic.ack, delivery tag 1", "closed with the worker", "redelivered=true, x-delivery-count 1"} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("the RabbitMQ page lacks the broker's answer %q", want)
		}
	}
	if !strings.Contains(r.Body, `aria-current="true">RabbitMQ</a>`) {
		t.Error("the picker does not mark RabbitMQ as the broker in use")
	}
	plain, _ := newBrokerServer(t)
	if r := webtest.Get(t, plain, "/lab?preset=crash-before-ack&broker=rabbitmq"); r.Status != http.StatusNotFound || !strings.Contains(r.Body, "lab, nats, kafka") {
		t.Errorf("broker=rabbitmq on a lab without RabbitMQ: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
}
