// Package brokers runs the lab's broker steps on real brokers: each is a
// sim.RealBroker, whose worlds each get a sim.Transport of their own (see
// sim/transport.go). NATS JetStream runs embedded in the process, Kafka
// as franz-go's kfake in the process, and RabbitMQ is a server the lab
// reaches at its amqp:// URL. The engine (package sim) never imports a
// network client of a broker: only the commands that choose one (lab run
// --broker, lab conform --broker) import this package, and no server
// starts before one is chosen.
package brokers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Server is a real broker the lab started or connected to: a
// sim.RealBroker to run on, closed when the command ends.
type Server interface {
	sim.RealBroker
	Close() error
}

// Names are the real brokers Open knows by name, the ones embedded in the
// binary (none in a lean build: embedded.go); RabbitMQ is reached at its
// URL (AMQPForm).
const Names = embeddedNames

// AMQPForm is how a RabbitMQ broker is given: its URL.
const AMQPForm = "amqp://user:pass@host:port/vhost"

// Open starts or connects to the broker spec names: nats (embedded NATS
// JetStream), kafka (kfake), or a RabbitMQ server's amqp:// URL. "", "lab"
// and "model" are the lab's own model: nil, no error.
func Open(ctx context.Context, spec string) (Server, error) {
	switch spec = strings.TrimSpace(spec); spec {
	case "", "lab", "model":
		return nil, nil
	case "nats", "kafka":
		return openEmbedded(spec)
	}
	if IsAMQP(spec) {
		b, err := NewRabbitMQ(ctx, spec)
		if err != nil {
			return nil, err // not a nil *RabbitMQ in the interface
		}
		return b, nil
	}
	valid := "lab (the model, the default), "
	if Names != "" {
		valid += Names + ", "
	}
	return nil, fmt.Errorf("--broker %q: valid brokers: %sor a RabbitMQ server's %s", spec, valid, AMQPForm)
}

// ErrCannotPick is a real broker asked for one operation's message
// (deliver OP): a pull consumer, a queue or a partition hands out its own
// next message, so a script that picks cannot run on it.
var ErrCannotPick = errors.New("the broker hands out its own next message: it cannot be asked for one operation's (deliver OP runs on the model only)")

// note is a broker's answer for the trace (a Transport's say): package
// narration's key, with each argument written as %v writes it.
func note(key string, args ...any) narration.Text {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = fmt.Sprint(a)
	}
	return narration.T(key, s...)
}

// pastLimits are what each real broker, as the lab runs it, can do with
// a message past its delivery limit (script.PastLimits); narration's
// brokers.past-limit.NAME says why only that.
var pastLimits = map[string][]string{
	"nats":     {script.PastLimitKeep},
	"kafka":    {script.PastLimitDeadLetter, script.PastLimitKeep},
	"rabbitmq": {script.PastLimitDeadLetter},
}

// PastLimits are the past-limit: choices a real broker can carry out
// (its profile's own among them); nil for a name that is not a real
// broker's.
func PastLimits(broker string) []string { return pastLimits[broker] }

// PastLimitError is a script whose past-limit: the real broker cannot
// carry out.
type PastLimitError struct {
	Broker string // the broker's profile name: nats, kafka, rabbitmq
	Rule   string // the script's past-limit:
	Line   int    // the past-limit: header's line
}

func (e *PastLimitError) Error() string {
	return fmt.Sprintf("line %d: past-limit: %s cannot run on %s: %s; valid past-limit choices on %s: %s (or run the script on the lab's model)",
		e.Line, e.Rule, e.Broker, e.Why(), e.Broker, e.Valid())
}

// Why is why the broker does only its own choices, in either language.
func (e *PastLimitError) Why() narration.Text { return narration.T("brokers.past-limit." + e.Broker) }

// Valid lists the choices the broker can carry out.
func (e *PastLimitError) Valid() string { return strings.Join(PastLimits(e.Broker), ", ") }

// CheckPastLimit refuses a script whose past-limit: header asks broker
// for what it cannot do with a message past its delivery limit: the
// header as written, even where it names the choice of the script's own
// broker: profile (which the canonical form leaves out, and WithProfile
// would then replace). A script without the header follows the broker's
// profile, whose choice the broker always carries out.
func CheckPastLimit(s *script.Script, broker string) error {
	if s.PastLimitLine == 0 {
		return nil
	}
	if rule := s.PastLimitRule(); !slices.Contains(PastLimits(broker), rule) {
		return &PastLimitError{Broker: broker, Rule: rule, Line: s.PastLimitLine}
	}
	return nil
}

// Difference documents where the model, under a broker's profile, and the
// real broker reach another outcome on a preset: the verdict, a balance,
// how many deliveries or dead letters. Handler "" stands for every
// handler.
type Difference struct {
	Broker, Preset, Handler string
	Why                     string
}

// Differences are every difference lab conform --broker accepts. Each row
// says why, in the broker's own terms; every other preset and handler must
// come out the same on the model and on the real broker.
var Differences = []Difference{
	{Broker: "nats", Preset: "refund-before-payment", Why: pickWhy},
	{Broker: "nats", Preset: "stale-update", Why: pickWhy},
	{Broker: "nats", Preset: "webhook-out-of-order", Why: pickWhy},
	{Broker: "kafka", Preset: "refund-before-payment", Why: kafkaPickWhy},
	{Broker: "kafka", Preset: "stale-update", Why: kafkaPickWhy},
	{Broker: "kafka", Preset: "webhook-out-of-order", Why: kafkaPickWhy},
	{Broker: "rabbitmq", Preset: "refund-before-payment", Why: rabbitPickWhy},
	{Broker: "rabbitmq", Preset: "stale-update", Why: rabbitPickWhy},
	{Broker: "rabbitmq", Preset: "webhook-out-of-order", Why: rabbitPickWhy},
	{Broker: "rabbitmq", Preset: "offset-out-of-order", Why: rabbitCloseRequeueWhy},
}

// pickWhy is why a preset that picks its message (deliver OP) does not run
// on a real broker.
const pickWhy = "not run on the real broker: the preset delivers one operation's message out of order (deliver OP), " +
	"and a JetStream pull consumer hands out its own next message (its redelivery queue first, then the stream in order); " +
	"there is no asking it for a particular one"

// Documented finds why a preset and handler may differ on a broker.
func Documented(broker, preset, handler string) (string, bool) {
	for _, d := range Differences {
		if d.Broker == broker && d.Preset == preset && (d.Handler == "" || d.Handler == handler) {
			return d.Why, true
		}
	}
	return "", false
}

// Differ reports whether a handler's run on the model and on a real
// broker disagree: on what the oracle judges (sim.Differ), or on what the
// broker did: how many deliveries and dead letters, and which message
// went to which worker as which delivery, in what order (Deliveries).
func Differ(model, real sim.Result) bool {
	return sim.Differ(model, real) || model.Deliveries != real.Deliveries || model.DeadLettered != real.DeadLettered ||
		!slices.Equal(Deliveries(model), Deliveries(real))
}

// Deliveries are a run's deliveries in order, steps and settlement: each
// the broker's deliver event (message, worker, delivery count, the
// redelivered flag).
func Deliveries(r sim.Result) []string {
	var out []string
	for _, t := range append(r.Trace[:len(r.Trace):len(r.Trace)], r.Settlement) {
		for _, e := range t.Events {
			if e.Kind == sim.KindDeliver {
				out = append(out, e.Text)
			}
		}
	}
	return out
}

// WithProfile is the script as it runs on a broker: under the broker's
// profile (the broker: header set to its name), the headers the script
// itself wrote (max-deliveries:, visibility-timeout:, dedup-window:)
// still winning over the profile's numbers.
func WithProfile(s *script.Script, broker string) (*script.Script, error) {
	if s.Broker == broker {
		return s, nil
	}
	// String writes only the headers that differ from the script's own
	// profile: the ones its author set. Under the new broker: header
	// those stay, and the rest come from the new profile.
	src := s.String()
	if s.Broker == "" {
		src = "broker: " + broker + "\n" + src
	} else {
		src = strings.Replace(src, "broker: "+s.Broker+"\n", "broker: "+broker+"\n", 1)
	}
	out, err := script.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("the script under the %s profile: %w", broker, err)
	}
	return out, nil
}

// Why the model and Kafka differ, for the table (Differences).
const (
	kafkaPickWhy = "not run on the real broker: the preset delivers one operation's message out of order (deliver OP), " +
		"and a Kafka consumer reads its partition in offset order; there is no asking the broker for a particular message"
)
