package sim

import "time"

// Wire is a Result in its whole wire form: everything a run found, for a
// run that crosses a process boundary (the sandbox child answers its
// server with it). A Result's own JSON is the public one (/api/v1/run,
// lab run --json) and leaves out what a reader of that JSON does not
// need: the queues and the state after the last step, the snapshots per
// step, which steps crashed a worker. Wire carries those too, so that
// Unwire gives back the Result that Wire was given.
type Wire struct {
	Result     Result      `json:"result"`
	Broker     BrokerState `json:"broker"`
	Final      *State      `json:"final,omitempty"`
	Conflicts  int         `json:"conflicts,omitempty"`
	Timeouts   int         `json:"timeouts,omitempty"`
	Storage    *Storage    `json:"storage,omitempty"`
	Steps      []WireStep  `json:"steps,omitempty"` // one per Result.Trace
	Settlement WireStep    `json:"settlement"`
}

// WireStep is what a Trace's JSON leaves out.
type WireStep struct {
	State   *State        `json:"state,omitempty"`
	Crashed bool          `json:"crashed,omitempty"`
	Took    time.Duration `json:"took,omitempty"`
	Stored  int64         `json:"stored,omitempty"`
}

func wireStep(t Trace) WireStep {
	return WireStep{State: t.State, Crashed: t.Crashed, Took: t.Took, Stored: t.Stored}
}

func (w WireStep) restore(t *Trace) {
	t.State, t.Crashed, t.Took, t.Stored = w.State, w.Crashed, w.Took, w.Stored
}

// Wire gives r's whole wire form.
func (r Result) Wire() *Wire {
	w := &Wire{Result: r, Broker: r.Broker, Final: r.Final, Conflicts: r.Conflicts,
		Timeouts: r.Timeouts, Storage: r.Storage, Settlement: wireStep(r.Settlement)}
	for _, t := range r.Trace {
		w.Steps = append(w.Steps, wireStep(t))
	}
	return w
}

// Unwire gives back the Result whose wire form w is.
func (w *Wire) Unwire() Result {
	r := w.Result
	r.Broker, r.Final, r.Conflicts, r.Timeouts, r.Storage = w.Broker, w.Final, w.Conflicts, w.Timeouts, w.Storage
	r.Trace = append([]Trace(nil), r.Trace...)
	for i := range r.Trace {
		if i < len(w.Steps) {
			w.Steps[i].restore(&r.Trace[i])
		}
	}
	w.Settlement.restore(&r.Settlement)
	return r
}
