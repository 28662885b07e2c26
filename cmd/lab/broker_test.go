package main

import (
	"strings"
	"testing"
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
