package sim

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/narration"
)

// The complete step: the API server's completer (handlers.APICompleteFunc)
// runs once, as a background process of the server, over the keys whose
// clients gave up. It answers no client; what it charges is counted to the
// operation whose reference it charges under (tenant/key).

// completerName is the completer's process in the trace: a server-side
// process, drawn beside the server processes.
const completerName = "server-completer"

// complete carries out a complete step.
func (w *world) complete() error {
	if w.api == nil {
		w.api = newAPIState()
	}
	if w.handler.Complete == nil {
		w.note(completerName, narration.T("event.api.no-completer", w.handler.Name))
		return nil
	}
	if err := w.allow(1); err != nil {
		return err
	}
	wk := newWorker(1, &Message{TransportID: "completer", Deliveries: 1}, "")
	wk.name = completerName
	w.t.add(Event{Actor: completerName, Kind: KindNote, Note: narration.T("event.api.completer")})
	w.turnBegin(wk)
	d := w.deps(wk, w.pointFunc(wk))
	d.Gateway = completerGateway{w: w, inner: d.Gateway}
	var err error
	if p := onOwnGoroutine(func() { err = w.handler.Complete(context.Background(), d) }); p != nil {
		err = fmt.Errorf("the completer panicked: %v", p)
	}
	w.turnEnd(wk, false)
	w.t.actor = completerName
	if err != nil {
		// The completer's failure is the handler's, as a 500 is: the
		// trace says so and the keys stay as they were.
		w.note(completerName, narration.T("event.api.completer-failed", err.Error()))
	}
	w.t.actor = ""
	return nil
}

// completerGateway counts each charge the completer makes to the
// operation it is for, found by its reference (handlers.reference: the
// tenant and the key), instead of to the completer's own turn.
type completerGateway struct {
	w     *world
	inner handlers.Gateway
}

func (g completerGateway) Charge(ctx context.Context, account string, amount int64, reference string) error {
	before := g.w.gateway.charged
	err := g.inner.Charge(ctx, account, amount, reference)
	if d := g.w.gateway.charged - before; d != 0 {
		for _, in := range g.w.intentList() {
			if in.key != "" && reference == in.tenant+"/"+in.key {
				g.w.apply(&Message{Tenant: in.tenant, Op: in.op, Amount: amount}, d)
				g.w.turnStart += d // counted here, not again at the turn's end
				break
			}
		}
	}
	return err
}
