package brokers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// TestCheckPastLimit: each real broker takes the past-limit: choices it
// carries out and refuses the rest, naming the header's line, the
// broker's reason and its valid choices. A script without the header
// follows the broker's profile, which every broker carries out.
func TestCheckPastLimit(t *testing.T) {
	for _, c := range []struct {
		broker, header string
		want           string // "" for accepted
	}{
		{"nats", "", ""},
		{"nats", "past-limit: keep", ""},
		{"nats", "past-limit: drop", "line 2: past-limit: drop cannot run on nats: past MaxDeliver JetStream stops delivering the message and keeps it in the stream; " +
			"it has no dead-letter queue and deletes nothing; valid past-limit choices on nats: keep (or run the script on the lab's model)"},
		// dead-letter is the lab's own profile's choice, which the
		// canonical form leaves out: written, it is still refused.
		{"nats", "past-limit: dead-letter", "line 2: past-limit: dead-letter cannot run on nats"},
		{"kafka", "", ""},
		{"kafka", "past-limit: keep", ""},
		{"kafka", "past-limit: dead-letter", ""},
		{"kafka", "past-limit: drop", "valid past-limit choices on kafka: dead-letter, keep"},
		// The lab's queue has a dead-letter exchange: a quorum queue
		// drops only without one, and a queue keeps nothing.
		{"rabbitmq", "", ""},
		{"rabbitmq", "past-limit: dead-letter", ""},
		{"rabbitmq", "past-limit: drop", "past-limit: drop cannot run on rabbitmq: the lab declares its quorum queue with a dead-letter exchange"},
		{"rabbitmq", "past-limit: keep", "valid past-limit choices on rabbitmq: dead-letter"},
		// The script's own broker: header does not matter: nats keeps.
		{"rabbitmq", "broker: nats\npast-limit: keep", "line 3: past-limit: keep cannot run on rabbitmq"},
	} {
		t.Run(c.broker+" "+c.header, func(t *testing.T) {
			s := script.MustParse("max-deliveries: 2\n" + c.header + "\npublish a amount=100\ndeliver\n")
			err := CheckPastLimit(s, c.broker)
			var pl *PastLimitError
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (!errors.As(err, &pl) || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want %q", err, c.want)
			case pl != nil && (pl.Why().In("ru") == pl.Why().In("en") || strings.HasPrefix(pl.Why().In("en"), "brokers.")):
				t.Errorf("the reason is not in both languages: %q, %q", pl.Why().In("en"), pl.Why().In("ru"))
			}
		})
	}
}

// TestConformRefusesPastLimit: lab conform --broker refuses a preset whose
// past-limit: the broker cannot carry out, before any run, naming the
// preset; a world opened on the broker for such a script anyway is
// refused too (sim.Execute's error).
func TestConformRefusesPastLimit(t *testing.T) {
	s := script.MustParse("max-deliveries: 2\npast-limit: drop\npublish a amount=100\ndeliver\n")
	_, err := Conform(context.Background(), kafkaServer(), []sim.Preset{{Name: "drops", Script: s}})
	var pl *PastLimitError
	if !errors.As(err, &pl) || !strings.HasPrefix(err.Error(), "drops: line 2: past-limit: drop cannot run on kafka") {
		t.Errorf("Conform: %v", err)
	}
	_, err = sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"naive"}, RealBroker: kafkaServer()})
	if !errors.As(err, &pl) {
		t.Errorf("Execute on Kafka: %v, want a PastLimitError", err)
	}
}
