package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/internal/servers"
)

// TestRunBrokerNATS: lab run --broker nats runs the broker steps on the
// embedded JetStream, and the trace holds the server's own answers; the
// model's run (no --broker) holds none of them.
func TestRunBrokerNATS(t *testing.T) {
	out := labOK(t, "", "run", "poison-loop", "--handlers", "unique-error", "--broker", "nats", "--json")
	for _, want := range []string{`"verdict": "poison"`, "JetStream Fetch: stream seq 1, consumer seq 3, NumDelivered 3 (redelivered)", "MaxDeliver 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("lab run --broker nats lacks %q", want)
		}
	}
	if model := labOK(t, "", "run", "poison-loop", "--handlers", "unique-error", "--json"); strings.Contains(model, "JetStream") {
		t.Error("the model's run speaks of JetStream")
	}
	if table := labOK(t, "", "run", "poison-loop", "--handlers", "unique-error", "--broker", "nats"); !strings.Contains(table, "ran on a real NATS JetStream server (nats-server, embedded") {
		t.Errorf("lab run --broker nats does not say where it ran:\n%s", table)
	}
}

// TestBrokerFlagErrors: an unknown broker, a broker for an API script,
// and lab conform --broker with --engine real are bad input (exit 2),
// each said.
func TestBrokerFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "happy-path", "--broker", "rabbit"}, `--broker "rabbit": valid brokers: lab`},
		{[]string{"run", "api-lost-response", "--broker", "nats"}, "sends API requests and has no broker steps"},
		{[]string{"conform", "--broker", "nats", "--engine", "real"}, "leave out --engine and --code"},
		{[]string{"conform", "--broker", "lab"}, "give --broker nats"},
	} {
		code, _, errOut := lab(t, "", c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("lab %s: exit %d, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

// TestRunBrokerPastLimit: lab run --broker refuses a past-limit: the
// real broker cannot carry out (exit 2), naming the line, the broker and
// its valid choices; one it can runs.
func TestRunBrokerPastLimit(t *testing.T) {
	for _, c := range []struct {
		broker, rule string
		code         int
		want         string
	}{
		{"nats", "drop", exitUsage, "-: line 2: past-limit: drop cannot run on nats: past MaxDeliver JetStream stops delivering the message and keeps it in the stream; " +
			"it has no dead-letter queue and deletes nothing; valid past-limit choices on nats: keep"},
		{"nats", "dead-letter", exitUsage, "past-limit: dead-letter cannot run on nats"},
		{"kafka", "drop", exitUsage, "line 2: past-limit: drop cannot run on kafka: Kafka has no delivery limit"},
		{"kafka", "dead-letter", exitOK, ""},
		// keep is the kafka profile's own, and the lab's consumer leaves
		// the record in its partition.
		{"kafka", "keep", exitOK, ""},
	} {
		t.Run(c.broker+" "+c.rule, func(t *testing.T) {
			src := "max-deliveries: 2\npast-limit: " + c.rule + "\npublish a amount=100\ndeliver\n"
			code, _, errOut := lab(t, src, "run", "-", "--handlers", "naive", "--broker", c.broker)
			if code != c.code || c.want != "" && !strings.Contains(errOut, c.want) || c.want == "" && errOut != "" {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, c.code, c.want)
			}
		})
	}
}

// TestRunBrokerRabbitMQ: lab run --broker amqp://… runs the broker steps
// on a RabbitMQ server (a throwaway one: skipped without Debian's
// rabbitmq-server, failed in CI), and the trace holds the server's
// answers: delivery tags, x-delivery-count, the delivery limit.
func TestRunBrokerRabbitMQ(t *testing.T) {
	url := servers.RabbitMQ(t)
	out := labOK(t, "", "run", "poison-loop", "--handlers", "unique-error", "--broker", url, "--json")
	for _, want := range []string{`"verdict": "poison"`, "redelivered=true, x-delivery-count 2", "past x-delivery-limit 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("lab run --broker amqp://… lacks %q", want)
		}
	}
	if table := labOK(t, "", "run", "poison-loop", "--handlers", "unique-error", "--broker", url); !strings.Contains(table, "ran on a real RabbitMQ server") {
		t.Errorf("lab run --broker amqp://… does not say where it ran:\n%s", table)
	}
}

// TestConformBrokerRabbitMQ is lab conform --broker amqp://…: every
// preset on the model and twice on RabbitMQ; it exits 0, as every
// difference is documented, and prints them with their reasons.
func TestConformBrokerRabbitMQ(t *testing.T) {
	url := servers.RabbitMQ(t)
	out := labOK(t, "", "conform", "--broker", url)
	for _, want := range []string{"on the model (broker: rabbitmq) and on rabbitmq", "offset-out-of-order, offset-in-db: a crash closes the worker's channel",
		"stale-update: not run on the real broker"} {
		if !strings.Contains(out, want) {
			t.Errorf("lab conform --broker amqp://… lacks %q:\n%s", want, out)
		}
	}
	// A rejected message comes back first on the quorum queue and under
	// the rabbitmq profile alike (RequeueRedeliveries): no row for it.
	if strings.Contains(out, "webhook-retries, unique-error") {
		t.Errorf("lab conform --broker amqp://… reports webhook-retries, unique-error, which the profile now follows:\n%s", out)
	}
}

// TestServeBrokerRabbitMQFlag: lab serve --rabbitmq takes an amqp:// URL
// of a server that answers; anything else stops it with exit 2 and a
// message without the password (no server is needed to see either).
func TestServeBrokerRabbitMQFlag(t *testing.T) {
	data := filepath.Join(t.TempDir(), "progress.db")
	for _, c := range []struct{ url, want string }{
		{"http://guest:s3cret@127.0.0.1:5672/", "--rabbitmq http://guest:xxxxx@127.0.0.1:5672/: want amqp://user:pass@host:port/vhost"},
		// Port 1: nothing listens there.
		{"amqp://guest:s3cret@127.0.0.1:1/", "rabbitmq at amqp://guest:xxxxx@127.0.0.1:1/"},
	} {
		code, _, errOut := lab(t, "", "serve", "--addr", "127.0.0.1:0", "--quiet", "--data", data, "--rabbitmq", c.url)
		if code != exitUsage || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "s3cret") {
			t.Errorf("--rabbitmq %s: exit %d, stderr %q; want 2 and %q, without the password", c.url, code, errOut, c.want)
		}
	}
}
