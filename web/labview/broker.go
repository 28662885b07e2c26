package labview

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/idempotency-lab/lab/brokers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/web/page"
)

// brokerFits judges broker= for a state read so far: the server must
// offer the broker, the script must have broker steps (a script of API
// requests has none), the handlers must be the lab's own (a handler file
// runs in its sandbox, on the model), and no step may ask for one
// operation's message (deliver OP), which a real broker cannot hand out,
// nor ask for a past-limit: the broker cannot carry out.
func (s *Replayer) brokerFits(name string, st State) error {
	if s.OpenBroker == nil || !slices.Contains(s.Brokers, name) {
		return &page.Error{Status: http.StatusNotFound, Key: "err.nobroker", Args: []any{name, s.brokerChoices()}}
	}
	if st.Script.API {
		return page.BadRequest("err.brokerapi", name)
	}
	if st.Code != "" {
		return page.BadRequest("err.brokercode", name)
	}
	if pickStep(st.Script) != nil {
		return s.cannotPick(name, st.Script)
	}
	var pl *brokers.PastLimitError
	if err := brokers.CheckPastLimit(st.Script, name); errors.As(err, &pl) {
		e := &page.Error{Status: http.StatusUnprocessableEntity, Key: "err.brokerpastlimit",
			Args: []any{name, pl.Line, pl.Rule, page.Bilingual{EN: pl.Why().In("en"), RU: pl.Why().In("ru")}, name, pl.Valid()}}
		e.Script = st.Script.String()
		return e
	} else if err != nil {
		return err
	}
	return nil
}

// brokerChoices are the brokers this server runs on, the model first.
func (s *Replayer) brokerChoices() string {
	return strings.Join(append([]string{link.BrokerModel}, s.Brokers...), ", ")
}

// pickStep is the script's first deliver OP step, nil for none.
func pickStep(sc *script.Script) *script.Step {
	for i, st := range sc.Steps {
		if st.Verb == script.VerbDeliver && st.Op != "" {
			return &sc.Steps[i]
		}
	}
	return nil
}

// cannotPick is the answer for a script a real broker cannot run: a 422
// naming the step, with the script kept so the reader can change it.
func (s *Replayer) cannotPick(name string, sc *script.Script) error {
	line, op := 0, ""
	if st := pickStep(sc); st != nil {
		line, op = st.Line, st.Op
	}
	e := &page.Error{Status: http.StatusUnprocessableEntity, Key: "err.brokerpick", Args: []any{name, line, op}}
	e.Script = sc.String()
	return e
}

// BrokerLabel is the picker's name for a broker ("": the lab's model).
func BrokerLabel(t page.Text, name string) string {
	switch name {
	case "":
		return t.S("brk.lab")
	case "nats":
		return "NATS JetStream"
	case "kafka":
		return "Kafka"
	case "rabbitmq":
		return "RabbitMQ"
	}
	return name
}
