package sim

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
)

// Verdict is what a handler's run settles to.
type Verdict string

// Verdicts, in the order the oracle checks them: the first that matches wins.
const (
	Duplicate      Verdict = "duplicate"       // credited more than the intents asked for
	Lost           Verdict = "lost"            // credited less
	Poison         Verdict = "poison"          // an applied message kept failing until the DLQ
	SilentConflict Verdict = "silent-conflict" // another payload of a key was acked as a success, neither applied nor quarantined
	WrongStatus    Verdict = "wrong-status"    // an API answered a request with a status other than the one due (api.go)
	OK             Verdict = "ok"
)

// Options choose what a run does.
type Options struct {
	Handlers []string // handler names; empty means the core handlers
	// Custom, when set, are the handlers to run instead of Handlers: ones
	// that are not among the lab's own (labtest checks a person's).
	Custom    []handlers.Info
	Steps     int  // run only the first Steps steps; 0 means all
	Snapshots bool // copy every world's state after every step
	// Budget bounds the handler deliveries of the whole run, over all its
	// handlers, settlement included: 0 means DefaultBudget, a negative
	// value means no limit. Each handler's world gets an equal share and
	// stops when a delivery would exceed it; Execute then returns a
	// *BudgetError.
	Budget int
	// StepEvents, when above 0, keeps only the first StepEvents events of
	// each step and of the settlement; Trace.Omitted counts the others.
	// 0 keeps every event.
	StepEvents int

	// Engine is where the worlds keep their data: nil for the embedded
	// SQLite and miniredis, or real PostgreSQL and Redis servers.
	Engine *Engine
	// RealBroker, when set, is the broker the scripts' broker steps run
	// on: a real server (package brokers) instead of the lab's model.
	// Each world opens its own stream or queue on it (RealBroker.Open).
	RealBroker RealBroker
	// Worlds, when set, lends the embedded engine's worlds from one run
	// to the next (worlds.go): a run on a reused world gives the same
	// result as on a fresh one, except one Worlds.Redone counts.
	Worlds *Worlds

	// Stopwatch, when set, is read before and after every step, and the
	// difference is the step's Trace.Took: the cost lab measures with it.
	// The engine never reads a clock of its own, and Took is neither in
	// the JSON nor seen by the oracle, so a run still depends only on its
	// script.
	Stopwatch func() time.Duration
	// Storage asks for Result.Storage: what the handler's own tables and
	// Redis hold after settlement.
	Storage bool
	// RowsEachStep asks for Trace.Stored: the rows of the handler's own
	// tables after every step (a count per table per step).
	RowsEachStep bool
	// StateKeys asks for Result.StateKey and Result.StateSpent: a key of
	// what each world holds after the last step, before settlement, for
	// a search that expands each state once (the checker's
	// --dedup-states).
	StateKeys bool
	// KnownOK, with StateKeys, is asked after the steps whether a world
	// of this key, having spent this much of the budget, is known to
	// settle to OK (another run of the same handler and header settled
	// from the same key, having spent as much or more): when it says so,
	// the run skips settlement and the oracle, and its Result says OK
	// and Unsettled.
	KnownOK func(key string, spent int) bool

	// onDeliver, when set, is called at the start of every delivery, from
	// the worlds' goroutines: tests count deliveries with it (export_test.go).
	onDeliver func()
}

// Run is the outcome of a script on each chosen handler.
type Run struct {
	Script  *script.Script `json:"-"`
	Steps   int            `json:"steps"` // steps executed
	Results []Result       `json:"results"`
}

// Result is one handler's run.
type Result struct {
	Handler  string `json:"handler"`
	Balance  int64  `json:"balance"`  // credited by the end of the script
	Settled  int64  `json:"settled"`  // credited after settlement
	Expected int64  `json:"expected"` // what the intents asked for
	// ExpectedOneOf lists the totals that are right when a key carries
	// two payloads (either one, applied once, is right); empty otherwise.
	ExpectedOneOf []int64 `json:"expected_one_of,omitempty"`
	Verdict       Verdict `json:"verdict"`
	Reason        string  `json:"reason"`
	Deliveries    int     `json:"deliveries"`
	DeadLettered  int     `json:"dead_lettered"`
	Quarantined   int     `json:"quarantined"`
	GatewayCalls  int     `json:"gateway_calls"`
	// Conflicts counts the changed payloads acked as a success without
	// quarantine, settlement included: the KindConflict events.
	Conflicts int `json:"-"`
	// Timeouts counts the redeliveries after a crash or a timeout,
	// settlement included: the ones a visibility timeout delays
	// (Script.VisibilityTimeout), whether or not the script sets one.
	Timeouts   int     `json:"-"`
	Trace      []Trace `json:"trace"`
	Settlement Trace   `json:"settlement"`
	// Broker and Final are the broker's queues and the world's state after
	// the last step, before settlement. Only the last step's are kept: a
	// copy per step would make a run's memory grow with the square of its
	// steps, the acked queue growing all along.
	Broker BrokerState `json:"-"`
	Final  *State      `json:"-"`
	// Storage, with Options.Storage, is what the handler keeps after
	// settlement.
	Storage *Storage `json:"-"`
	// StateKey, with Options.StateKeys, is a hash of everything the world
	// held after the last step that its next steps, settlement and
	// verdict depend on (world.stateKey): two runs of one handler under
	// one header with the same key go on alike. "" when the world cannot
	// be keyed (the API side, a real engine). StateSpent is what the
	// steps spent of the delivery budget, which the key leaves out.
	StateKey   string `json:"-"`
	StateSpent int    `json:"-"`
	// Unsettled says the run skipped settlement (Options.KnownOK): its
	// Verdict is OK, and only the steps' trace, Balance, Broker, Final
	// and the state key are set besides.
	Unsettled bool `json:"-"`

	open int // messages ready or in flight after settlement: none, unless the engine is wrong
}

// Pending says whether any handler's broker, after the steps run (before
// settlement), has a message ready to deliver and one in flight: a deliver
// step with nothing ready, or a redeliver with nothing in flight, changes
// nothing on any handler.
func (r *Run) Pending() (ready, inFlight bool) {
	for _, res := range r.Results {
		ready = ready || len(res.Broker.Ready) > 0
		inFlight = inFlight || len(res.Broker.InFlight) > 0
	}
	return ready, inFlight
}

// DeadLetters says whether any handler's broker, after the steps run,
// holds a message in the DLQ: a dlq-replay step with none changes nothing.
func (r *Run) DeadLetters() bool {
	for _, res := range r.Results {
		if len(res.Broker.DLQ) > 0 {
			return true
		}
	}
	return false
}

// Trace is what happened in one step.
type Trace struct {
	Step     int     `json:"step"` // 1-based; 0 for the settlement
	Line     int     `json:"line,omitempty"`
	Text     string  `json:"text"`
	Events   []Event `json:"events"`
	Omitted  int     `json:"omitted,omitempty"` // events left out after the first Options.StepEvents
	Balance  int64   `json:"balance"`
	Expected int64   `json:"expected"`
	State    *State  `json:"-"` // only with Options.Snapshots
	// Crashed says whether a worker died in the step: a crash point the
	// handler never reached leaves it false.
	Crashed bool `json:"-"`
	// Took is the step's wall time, with Options.Stopwatch; 0 otherwise.
	Took time.Duration `json:"-"`
	// Stored, with Options.RowsEachStep, is how many rows the handler's
	// own tables hold after the step.
	Stored int64 `json:"-"`
	// Note is the settlement's description, which Text holds in English.
	Note narration.Text `json:"note,omitzero"`
}

// Handlers resolves message handlers' names: a list, "core" or "all".
func Handlers(names []string) ([]handlers.Info, error) {
	return resolve(handlers.List(), names)
}

// HandlersFor resolves handler names for a script: the API handlers for
// a script of requests ("core" and "all" are all of them), the message
// handlers for the rest.
func HandlersFor(s *script.Script, names []string) ([]handlers.Info, error) {
	if !s.API {
		return Handlers(names)
	}
	if len(names) == 1 && names[0] == "core" {
		names = []string{"all"}
	}
	hs, err := resolve(apiHandlers(), names)
	if err != nil && len(names) > 0 {
		if _, berr := Handlers(names[:1]); berr == nil {
			return nil, sideError(s, names[0])
		}
	}
	return hs, err
}

// APIHandlers are the API handlers (handlers.APIList) as the engine runs
// them.
func APIHandlers() []handlers.Info { return apiHandlers() }

// sideError says that a handler serves the other side than the script's.
func sideError(s *script.Script, name string) error {
	if s.API {
		return fmt.Errorf("%s handles messages, and this script sends API requests: choose among the API handlers (%s)", name, names(apiHandlers()))
	}
	return fmt.Errorf("%s serves API requests, and this script publishes messages: choose among the message handlers (%s)", name, names(handlers.List()))
}

func names(hs []handlers.Info) string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	return strings.Join(out, ", ")
}

// resolve picks handlers from all by name: a list, "core" or "all".
func resolve(all []handlers.Info, names []string) ([]handlers.Info, error) {
	if len(names) == 0 || (len(names) == 1 && names[0] == "core") {
		var core []handlers.Info
		for _, h := range all {
			if h.Core {
				core = append(core, h)
			}
		}
		return core, nil
	}
	if len(names) == 1 && names[0] == "all" {
		return all, nil
	}
	var out []handlers.Info
	seen := map[string]bool{}
	for _, n := range names {
		found := false
		for _, h := range all {
			if h.Name == n {
				found = true
				if !seen[n] {
					out = append(out, h)
					seen[n] = true
				}
			}
		}
		if !found {
			valid := make([]string, len(all))
			for i, h := range all {
				valid[i] = h.Name
			}
			return nil, fmt.Errorf("unknown handler %q; valid handlers: %s (or core, all)", n, strings.Join(valid, ", "))
		}
	}
	return out, nil
}

// Execute runs the script once per chosen handler, each in a fresh world.
// The worlds share nothing, so they run in parallel; the result depends only
// on the script.
//
// A world checks ctx before every step and every delivery: once ctx is
// done, Execute returns its error (errors.Is finds context.Canceled) after
// at most one more delivery per world running. A world that would make more
// deliveries than its share of opt.Budget stops, and Execute returns a
// *BudgetError for the earliest line at which a world stopped.
func Execute(ctx context.Context, s *script.Script, opt Options) (*Run, error) {
	hs := opt.Custom
	if hs == nil {
		var err error
		if hs, err = HandlersFor(s, opt.Handlers); err != nil {
			return nil, err
		}
	}
	for _, h := range hs {
		if (h.API != nil) != s.API {
			return nil, sideError(s, h.Name)
		}
	}
	steps := len(s.Steps)
	if opt.Steps > 0 && opt.Steps < steps {
		steps = opt.Steps
	}
	budget := opt.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	lim := limits{budget: budget, share: share(budget, len(hs)), stepEvents: opt.StepEvents,
		snapshots: opt.Snapshots, onDeliver: opt.onDeliver, engine: opt.Engine, realBroker: opt.RealBroker, worlds: opt.Worlds,
		stopwatch: opt.Stopwatch, storage: opt.Storage, rowsEachStep: opt.RowsEachStep, stateKeys: opt.StateKeys,
		knownOK: opt.KnownOK}
	run := &Run{Script: s, Steps: steps, Results: make([]Result, len(hs))}
	errs := make([]error, len(hs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, h := range hs {
		sem <- struct{}{}
		if ctx.Err() != nil {
			<-sem
			break // the worlds not started yet never will be
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			run.Results[i], errs[i] = runHandler(ctx, s, h, steps, lim)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("run stopped: %w", err)
	}
	// Every world ran to its end, so the error returned depends on the
	// script alone: the first failure in handler order, else the budget
	// error at the earliest line.
	var over *BudgetError
	for _, err := range errs {
		var be *BudgetError
		switch {
		case errors.As(err, &be):
			if over == nil || be.earlier(over) {
				over = be
			}
		case err != nil:
			return nil, err
		}
	}
	if over != nil {
		return nil, over
	}
	return run, nil
}

// limits is what every world of one Execute shares from its options.
type limits struct {
	budget       int // the run's budget, for the error message
	share        int // deliveries per world; negative: no limit
	stepEvents   int
	snapshots    bool
	onDeliver    func()
	engine       *Engine
	realBroker   RealBroker
	worlds       *Worlds
	stopwatch    func() time.Duration
	storage      bool
	rowsEachStep bool
	stateKeys    bool
	knownOK      func(string, int) bool
}

func runHandler(ctx context.Context, s *script.Script, h handlers.Info, steps int, lim limits) (Result, error) {
	res := Result{Handler: h.Name}
	w, err := lim.worlds.get(s, h, lim.engine)
	if err != nil {
		return res, err
	}
	defer lim.worlds.put(w)
	w.ctx, w.share, w.onDeliver, w.t.limit = ctx, lim.share, lim.onDeliver, lim.stepEvents
	if lim.realBroker != nil && w.api == nil {
		q, err := lim.realBroker.Open(ctx, w.broker, s, func(note narration.Text) {
			w.t.add(Event{Actor: "broker", Kind: KindNote, Note: note})
		})
		if err != nil {
			return res, fmt.Errorf("%s: %w", lim.realBroker.Name(), err)
		}
		defer q.Close()
		w.queue = q
	}
	// stopped turns a step's error into what Execute returns.
	stopped := func(line int, where string, err error) error {
		switch {
		case errors.Is(err, errOverBudget):
			return &BudgetError{Line: line, Budget: lim.budget}
		case ctx.Err() != nil:
			return ctx.Err()
		}
		return fmt.Errorf("%s, %s: %w", h.Name, where, err)
	}
	for i, st := range s.Steps[:steps] {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		tr := Trace{Step: i + 1, Line: st.Line, Text: st.String()}
		crashes := w.crashes
		var start time.Duration
		if lim.stopwatch != nil {
			start = lim.stopwatch()
		}
		if err := w.step(st); err != nil {
			return res, stopped(st.Line, fmt.Sprintf("line %d", st.Line), err)
		}
		if lim.stopwatch != nil {
			tr.Took = lim.stopwatch() - start
		}
		if lim.rowsEachStep {
			if tr.Stored, err = w.storedRows(); err != nil {
				return res, err
			}
		}
		if tr.Balance, err = w.balance(); err != nil {
			return res, err
		}
		tr.Expected = w.expected()
		tr.Crashed = w.crashes > crashes
		tr.Events, tr.Omitted = w.t.take()
		if lim.snapshots {
			if tr.State, err = w.state(); err != nil {
				return res, err
			}
		}
		res.Trace = append(res.Trace, tr)
	}
	if res.Balance, err = w.balance(); err != nil {
		return res, err
	}
	res.Broker = w.broker.State()
	if res.Final, err = w.state(); err != nil {
		return res, err
	}
	if lim.stateKeys {
		if res.StateKey = w.stateKey(res.Final); res.StateKey != "" {
			res.StateSpent = w.spent()
		}
		if res.StateKey != "" && lim.knownOK != nil && lim.knownOK(res.StateKey, res.StateSpent) {
			res.Verdict, res.Unsettled = OK, true
			return res, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if err := w.settle(); err != nil {
		return res, stopped(0, "settlement", err)
	}
	note := narration.T("settle.messages")
	if w.tables["outbox"] {
		note = narration.T("settle.outbox")
	}
	if w.api != nil {
		note = settlementText(s.ClientRetry)
	}
	res.Settlement = Trace{Text: note.String(), Note: note}
	res.Settlement.Events, res.Settlement.Omitted = w.t.take()
	if res.Settled, err = w.balance(); err != nil {
		return res, err
	}
	res.Settlement.Balance, res.Settlement.Expected = res.Settled, w.expected()
	res.Expected = w.expected()
	res.ExpectedOneOf = w.expectedOneOf()
	if res.Quarantined, err = w.quarantined(); err != nil {
		return res, err
	}
	res.Deliveries, res.DeadLettered, res.GatewayCalls = w.deliveries, len(w.broker.DLQ), len(w.gateway.calls)
	res.Conflicts, res.open = w.conflicts, len(w.broker.Ready)+len(w.broker.InFlight)
	res.Timeouts = w.timeouts
	if res.Verdict, res.Reason, err = w.verdict(res.Settled, res.Expected); err != nil {
		// The oracle could not read what it judges by: no verdict.
		return res, fmt.Errorf("%s: the oracle: %w", h.Name, err)
	}
	if lim.storage {
		if res.Storage, err = w.storage(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// verdict is the oracle. Totals first; then each operation on its own, so
// that one operation credited twice and another never cannot cancel out
// into a balance that looks right.
//
// A key that carries two payloads (a changed payload reused it) is judged
// by what a consumer can know: the broker may deliver the payloads in
// either order, so which one was published first is not. Such a key is
// right when exactly one of its payloads was applied, once; applied more
// than once (one payload twice, or both) is a duplicate, never applied is
// lost, and another payload acked without applying or quarantining it is a
// silent conflict (checkQuarantined). The totals cannot judge such a run:
// the expected total is one of several.
func (w *world) verdict(settled, expected int64) (Verdict, string, error) {
	if w.handler.Absolute {
		// A handler that writes absolute state is judged by the state.
		if v, why, bad, err := w.accountVerdict(); err != nil {
			return "", "", fmt.Errorf("cannot read the accounts: %w", err)
		} else if bad {
			return v, why, nil
		}
		v, why := w.laterVerdicts(settled)
		return v, why, nil
	}
	twoPayloads, refunds := false, false
	for _, in := range w.intents {
		twoPayloads = twoPayloads || len(in.variants) > 1
		refunds = refunds || in.amount < 0
	}
	var optional int64 // keyless API requests: one charge each is tolerated
	for _, in := range w.intents {
		if in.optional {
			optional += in.variants[0]
		}
	}
	switch {
	case twoPayloads, refunds:
		// Judged operation by operation: a refund never applied and a
		// payment credited twice would look the same in the total.
	case settled > expected+optional:
		return Duplicate, fmt.Sprintf("credited %d, expected %d: %d too much", settled, expected, settled-expected) + w.producerStory(), nil
	case settled < expected:
		return Lost, fmt.Sprintf("credited %d, expected %d: %d never arrived", settled, expected, expected-settled) + w.producerStory(), nil
	}
	var over, under []string
	for _, in := range w.intentList() {
		ik := intentKey{in.tenant, in.op}
		got := w.applied[ik]
		if in.optional {
			if got > in.variants[0] {
				over = append(over, fmt.Sprintf("%s/%s sent without a key, charged %d of %d (at most once, if at all)", in.tenant, in.op, got, in.variants[0]))
			}
			continue
		}
		if len(in.variants) > 1 {
			switch n := w.applicationCount(ik); {
			case n > 1:
				over = append(over, fmt.Sprintf("%s/%s applied %d times (payloads %s), want one of them once", in.tenant, in.op, n, amounts(in.variants)))
			case n == 0:
				under = append(under, fmt.Sprintf("%s/%s never applied (payloads %s)", in.tenant, in.op, amounts(in.variants)))
			}
			continue
		}
		switch {
		case in.amount < 0 && got < in.amount:
			over = append(over, fmt.Sprintf("%s/%s refunded %d of %d", in.tenant, in.op, -got, -in.amount))
		case in.amount < 0 && got > in.amount:
			under = append(under, fmt.Sprintf("%s/%s refunded %d of %d", in.tenant, in.op, -got, -in.amount))
		case got > in.amount:
			over = append(over, fmt.Sprintf("%s/%s credited %d of %d", in.tenant, in.op, got, in.amount))
		case got < in.amount:
			under = append(under, fmt.Sprintf("%s/%s credited %d of %d", in.tenant, in.op, got, in.amount))
		}
	}
	for _, ik := range w.phantoms() {
		over = append(over, fmt.Sprintf("%s/%s credited %d though its order never committed", ik.tenant, ik.op, w.applied[ik]))
	}
	prefix := "the total looks right, but errors cancel out: "
	if twoPayloads || refunds {
		prefix = ""
	}
	if len(over) > 0 {
		return Duplicate, prefix + strings.Join(append(over, under...), "; "), nil
	}
	if len(under) > 0 {
		return Lost, prefix + strings.Join(under, "; "), nil
	}
	v, why := w.laterVerdicts(settled)
	return v, why, nil
}

// laterVerdicts are the oracle's checks once the money is right: poison
// messages, silent conflicts, and the API side's answers.
func (w *world) laterVerdicts(settled int64) (Verdict, string) {
	for _, m := range w.broker.DLQ {
		if w.failedAfterApplied[m] {
			return Poison, fmt.Sprintf("message %s was applied, then failed until the dead-letter queue", m.TransportID)
		}
	}
	if w.conflicts > 0 {
		return SilentConflict, fmt.Sprintf("%s acked as a success though the amount changed", plural(w.conflicts, "changed payload"))
	}
	if v, why, ok := w.apiVerdict(); ok {
		return v, why
	}
	return OK, fmt.Sprintf("credited %d, as expected", settled)
}

// amounts writes payload amounts as "5000 / 7000".
func amounts(as []int64) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = strconv.FormatInt(a, 10)
	}
	return strings.Join(s, " / ")
}

// settle finishes what the script left open: the gateway comes back (its
// deduplication stays as the script set it), the in-flight messages time
// out and everything ready is delivered. The DLQ is left alone: nobody
// replays it automatically.
func (w *world) settle() error {
	if w.api != nil {
		return w.settleAPI()
	}
	if w.gateway.mode != script.GatewayUp || w.gateway.stall > 0 {
		if err := w.step(script.Step{Verb: script.VerbGateway, Gateway: script.GatewayUp, Up: true}); err != nil {
			return err
		}
	}
	// A relay that died restarts: what the outbox holds gets published.
	if pending, err := w.pendingOutbox(); err != nil {
		return err
	} else if pending {
		if err := w.step(script.Step{Verb: script.VerbRelay}); err != nil {
			return err
		}
	}
	if len(w.broker.InFlight) > 0 {
		if err := w.step(script.Step{Verb: script.VerbRedeliver}); err != nil {
			return err
		}
	}
	return w.step(script.Step{Verb: script.VerbDrain})
}

// step carries out one script step.
func (w *world) step(st script.Step) error {
	if err := w.do(st); err != nil {
		return err
	}
	if err := w.queue.Err(); err != nil {
		return err
	}
	// A clock moved inside a delivery (a stalled gateway call) may have
	// failed to reap; the handler could not be told.
	err := w.engineErr
	w.engineErr = nil
	return err
}

func (w *world) do(st script.Step) error {
	switch st.Verb {
	case script.VerbPublish, script.VerbChangePayload:
		return w.publish(st)
	case script.VerbRequest, script.VerbRequestConcurrent:
		return w.request(st)
	case script.VerbComplete:
		return w.complete()
	case script.VerbProduce:
		return w.produce(st)
	case script.VerbRelay:
		return w.relay(st)
	case script.VerbDeliverBatch:
		return w.deliverBatch(st)
	case script.VerbRetry:
		if st.API {
			return w.request(st)
		}
		return w.publish(st)
	case script.VerbDeliver:
		if len(w.broker.Ready) == 0 {
			w.note("broker", narration.T("event.broker.empty"))
			return nil
		}
		if err := w.allow(1); err != nil {
			return err
		}
		var m *Message
		if st.Op == "" {
			if m = w.queue.Take(); m == nil {
				return nil // a real broker's error, which step returns
			}
		} else if m = w.queue.TakeOp(st.Op); m == nil {
			w.note("broker", narration.T("event.broker.no-op-ready", st.Op))
			return nil
		}
		w.deliver([]*worker{newWorker(1, m, st.Crash)})
	case script.VerbDeliverConcurrent:
		if st.Same {
			return w.deliverSame(st.Switch)
		}
		n := min(2, len(w.broker.Ready))
		if n > 0 {
			if err := w.allow(n); err != nil {
				return err
			}
		}
		var ws []*worker
		for i := range n {
			if m := w.queue.Take(); m != nil {
				ws = append(ws, newWorker(i+1, m, ""))
			}
		}
		if len(ws) == 2 {
			switchAt(ws, st.Switch)
		}
		switch len(ws) {
		case 0:
			w.note("broker", narration.T("event.broker.empty"))
		case 1:
			w.note("broker", narration.T("event.broker.one-ready"))
		}
		if len(ws) > 0 {
			w.deliver(ws)
		}
	case script.VerbRedeliver:
		if err := w.awaitLeases(w.broker.InFlight); err != nil {
			return err
		}
		moved, dead := w.queue.Redeliver()
		w.timeouts += len(moved)
		if len(moved) == 0 {
			w.note("broker", narration.T("event.broker.none-flight"))
		}
		for i, m := range moved {
			w.brokerMoved(m, dead[i], "visibility timeout")
		}
	case script.VerbDrain:
		// Every message reaches the DLQ after MaxDeliveries failures, so
		// the loop ends; the bound only guards against a broker bug.
		limit := (len(w.broker.Ready) + 1) * (w.broker.MaxDeliveries + 1)
		for n := 0; len(w.broker.Ready) > 0; n++ {
			if n > limit {
				return fmt.Errorf("drain did not finish after %d deliveries", limit)
			}
			if err := w.allow(1); err != nil {
				return err
			}
			m := w.queue.Take()
			if m == nil {
				return nil // a real broker's error, which step returns
			}
			w.deliver([]*worker{newWorker(1, m, "")})
			if w.engineErr != nil {
				return nil // step returns it
			}
		}
	case script.VerbDuplicate:
		return w.duplicate(st.Op)
	case script.VerbDLQReplay:
		replayed := w.queue.ReplayDLQ()
		if len(replayed) == 0 {
			w.note("broker", narration.T("event.broker.dlq-empty"))
		}
		for _, m := range replayed {
			w.t.add(Event{Actor: "broker", Kind: KindPublish, Msg: m.TransportID,
				Note: narration.T("event.broker.dlq-replay", m.Key, num(m.Amount), m.TransportID)})
		}
	case script.VerbAdvance:
		return w.advance(st.Advance)
	case script.VerbGateway:
		w.setGateway(st)
	case script.VerbShip:
		return w.ship(st)
	default:
		return fmt.Errorf("unknown verb %q", st.Verb)
	}
	return nil
}

// duplicate is the duplicate step: the broker hands a message it
// delivered already (of op, when given) to a worker once more, with no
// crash, timeout or nack before it (an SQS standard queue's copy). Only
// the lab's model makes copies: the parser allows the step only under a
// profile whose broker does, and no real broker the lab runs on is one.
func (w *world) duplicate(op string) error {
	if w.queue != Transport(w.broker) {
		return fmt.Errorf("duplicate: the real broker under this run makes no copies with no failure; only the lab's model under broker: sqs does")
	}
	m, acked := w.broker.Delivered(op)
	switch {
	case m == nil && op == "":
		w.note("broker", narration.T("event.broker.duplicate-none"))
		return nil
	case m == nil:
		w.note("broker", narration.T("event.broker.duplicate-none-op", op))
		return nil
	}
	if err := w.allow(1); err != nil {
		return err
	}
	key := "event.broker.duplicate-in-flight"
	if acked {
		key = "event.broker.duplicate-acked"
	}
	w.note("broker", narration.T(key, m.TransportID))
	w.broker.Duplicate(m)
	wk := newWorker(1, m, "")
	wk.copy = true
	w.deliver([]*worker{wk})
	return nil
}

// setGateway carries out a gateway step.
func (w *world) setGateway(st script.Step) {
	g := w.gateway
	setting := st.Gateway
	if setting == "" { // a Step built in code with Up alone
		setting = script.GatewayDown
		if st.Up {
			setting = script.GatewayUp
		}
	}
	var note narration.Text
	switch setting {
	case script.GatewayUp:
		g.mode, g.stall = script.GatewayUp, 0
		note = narration.T("event.gateway.up")
	case script.GatewayDown:
		g.mode = script.GatewayDown
		note = narration.T("event.gateway.down")
	case script.GatewayTimeout:
		g.mode = script.GatewayTimeout
		note = narration.T("event.gateway.timeout")
	case script.GatewayDedupOn:
		g.dedup = true
		note = narration.T("event.gateway.dedup-on")
	case script.GatewayDedupOff:
		g.dedup = false
		note = narration.T("event.gateway.dedup-off")
	case script.GatewayStall:
		g.stall = st.Stall
		note = narration.T("event.gateway.stall", formatDuration(st.Stall))
	}
	w.t.add(Event{Actor: "gateway", Kind: KindSwitch, Note: note})
}

// allow is asked before a worker takes n messages. It stops the world when
// the run's context is done, or when n more deliveries would take the world
// past its share of the budget.
func (w *world) allow(n int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if w.share >= 0 && w.spent()+n > w.share {
		return errOverBudget
	}
	return nil
}

// spent is what the world has spent of its budget, in deliveries: one per
// delivery, and luaCost per Lua script a handler ran in Redis.
func (w *world) spent() int { return w.deliveries + w.scripts*luaCost }

func (w *world) note(actor string, note narration.Text) {
	w.t.add(Event{Actor: actor, Kind: KindNote, Note: note})
}

// publish is the producer: it records the intent on its first publish (the
// order service creates the order and the account exists), picks the key by
// the intent's key mode and sends a message.
func (w *world) publish(st script.Step) error {
	ik := intentKey{st.Tenant, st.Op}
	in := w.intents[ik]
	if in == nil {
		if st.Verb != script.VerbPublish {
			return fmt.Errorf("%s %s: operation not published", st.Verb, st.Op)
		}
		amount, account := st.Amount, st.Account
		if st.Kind == script.KindRefund {
			// A refund takes money back, from the order's account.
			amount = -amount
			if paid := w.intents[intentKey{st.Tenant, st.Order}]; paid != nil {
				account = paid.account
			}
		}
		in = &intent{tenant: st.Tenant, op: st.Op, account: account, amount: amount, keyMode: st.KeyMode, key: st.Op,
			variants: []int64{amount}, kind: st.Kind, order: st.Order}
		if st.KeyMode == script.KeyV7 {
			in.key = w.newKey(true)
		}
		w.version(in)
		w.intents[ik] = in
		if _, err := w.db.Exec(`INSERT INTO accounts (id) VALUES (?) ON CONFLICT DO NOTHING`, in.account); err != nil {
			return err
		}
		if st.Kind != script.KindRefund { // a refund is for an order that exists
			if _, err := w.db.Exec(`INSERT INTO orders (tenant, id, status) VALUES (?, ?, 'CREATED')`, in.tenant, in.op); err != nil {
				return err
			}
		}
	}
	m := &Message{Key: in.key, Tenant: in.tenant, Op: in.op, Account: in.account, Amount: in.amount,
		Kind: in.kind, Order: in.order, Version: in.version, Balance: in.balance}
	if in.keyMode == script.KeyFresh {
		m.Key = w.newKey(false)
	}
	if st.Verb == script.VerbChangePayload {
		if in.amount < 0 {
			st.Amount = -st.Amount // a refund's amount counts negative
		}
		m.Amount = st.Amount
		m.Balance += st.Amount - in.amount
		m.Changed = st.Amount != in.amount
		if !slices.Contains(in.variants, st.Amount) {
			in.variants = append(in.variants, st.Amount)
		}
	}
	if w.dedupDrops(m) {
		return nil
	}
	w.queue.Publish(m)
	how := "publish"
	switch st.Verb {
	case script.VerbRetry:
		how = "retry"
	case script.VerbChangePayload:
		how = "change-payload"
	}
	w.t.add(Event{Actor: "producer", Kind: KindPublish, Msg: m.TransportID,
		Note: narration.T("event.producer.publish", how, m.Key, m.Tenant, m.Account, num(m.Amount), m.TransportID)})
	return nil
}

// dedupDrops is the broker's deduplication window (dedup-window:): a
// publish whose key the broker took less than the window ago is dropped,
// as NATS JetStream drops a repeated Nats-Msg-Id; after the window it gets
// through. It sees only publishes: a redelivery to a consumer is the
// broker's own, and nothing here stops it.
func (w *world) dedupDrops(m *Message) bool {
	win := w.script.DedupWindow
	if win <= 0 {
		return false
	}
	if w.dedupSeen == nil {
		w.dedupSeen = map[string]time.Time{}
	}
	if at, ok := w.dedupSeen[m.Key]; ok && w.now.Sub(at) < win {
		ago := "" // moments ago
		if d := w.now.Sub(at); d > 0 {
			ago = formatDuration(d)
		}
		w.t.add(Event{Actor: "broker", Kind: KindNote,
			Note: narration.T("event.broker.dedup-drop", m.Key, ago, formatDuration(win))})
		return true
	}
	w.dedupSeen[m.Key] = w.now
	return false
}

func (w *world) brokerMoved(m *Message, dead bool, why string) {
	if dead {
		key := "event.broker.dlq"
		switch w.broker.PastLimit {
		case script.PastLimitDrop:
			key = "event.broker.past-limit-drop"
		case script.PastLimitKeep:
			key = "event.broker.past-limit-keep"
		}
		w.t.add(Event{Actor: "broker", Kind: KindDLQ, Msg: m.TransportID,
			Note: narration.T(key, m.TransportID, num(m.Deliveries))})
		return
	}
	key := "event.broker.requeue-timeout"
	if why == "nack" {
		key = "event.broker.requeue-nack"
	}
	w.t.add(Event{Actor: "broker", Kind: KindRequeue, Msg: m.TransportID, Note: narration.T(key, m.TransportID)})
}

func (w *world) advance(d time.Duration) error {
	return w.passTime(d, narration.T("event.clock.advance", formatDuration(d), w.now.Add(d).Format(time.RFC3339)))
}

// awaitLeases is the broker waiting out the visibility timeout
// (Script.VisibilityTimeout) of messages it is about to hand out again
// after a crash or a timeout: the clock moves to when the last of their
// leases runs out. It stays when they have run out already, and when the
// script sets no visibility timeout: redelivery at once.
func (w *world) awaitLeases(ms []*Message) error {
	vt := w.script.VisibilityTimeout
	if vt <= 0 || w.api != nil {
		return nil
	}
	var end time.Time
	for _, m := range ms {
		if e := w.broker.leaseEnd(m, vt); e.After(end) {
			end = e
		}
	}
	if !end.After(w.now) {
		return nil
	}
	d, at := end.Sub(w.now), end.Format(time.RFC3339)
	return w.passTime(d, narration.T("event.clock.lease", formatDuration(vt), formatDuration(d), at))
}

// wait is a worker waiting d for the gateway: the clock moves as for an
// advance step, in the middle of the worker's delivery.
func (w *world) wait(wk *worker, d time.Duration) {
	at := w.now.Add(d).Format(time.RFC3339)
	err := w.passTime(d, narration.T("event.clock.gateway", wk.name, formatDuration(d), at))
	if err != nil && w.engineErr == nil {
		w.engineErr = err
	}
}

// passTime moves the simulated clock: Redis expires its keys and the inbox
// reaper runs. It leaves the current actor as it found it.
func (w *world) passTime(d time.Duration, note narration.Text) error {
	before := w.redisKeys()
	w.now = w.now.Add(d)
	switch {
	case w.mr != nil:
		w.mr.FastForward(d)
	case w.real:
		w.advanceRealRedis(d)
	}
	w.t.add(Event{Actor: "clock", Kind: KindClock, Note: note})
	for _, k := range missing(before, w.redisKeys()) {
		w.t.add(Event{Actor: "clock", Kind: KindClock, Note: narration.T("event.clock.expired", k)})
	}
	if w.script.InboxRetention > 0 && w.tables["inbox"] {
		cutoff := w.now.Add(-w.script.InboxRetention).Format(time.RFC3339)
		actor := w.t.actor
		w.t.actor = "reaper"
		_, err := w.db.Exec(`DELETE FROM inbox WHERE created_at < ?`, cutoff)
		w.t.actor = actor
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *world) ship(st script.Step) error {
	w.t.actor = "warehouse"
	res, err := w.db.Exec(`UPDATE orders SET status = 'SHIPPED' WHERE tenant = ? AND id = ? AND status = 'PAID'`, st.Tenant, st.Op)
	w.t.actor = ""
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var status string
		err := w.db.QueryRow(`SELECT status FROM orders WHERE tenant = ? AND id = ?`, st.Tenant, st.Op).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			w.note("warehouse", narration.T("event.warehouse.no-order", st.Op))
			return nil
		}
		if err != nil {
			return err
		}
		w.note("warehouse", narration.T("event.warehouse.not-paid", st.Op, status))
	}
	return nil
}

// worker is one consumer process handling one delivery.
type worker struct {
	name     string
	msg      *Message
	delivery int // the message's delivery count for this worker; set when it starts
	crash    string
	resume   chan struct{}
	started  bool
	done     bool
	calls    int // I/O calls made in this delivery (see calls.go)
	dead     bool
	// switchAt, for deliver-concurrent switch=, is the call just before
	// which it hands over to the other worker; 0: none (any more). held:
	// the call fell inside a transaction, so it waits for the end.
	switchAt int
	held     bool
	// yield hands over to the other racing worker and returns when it is
	// this one's turn again; alone, a worker has nobody to yield to.
	yield func(note narration.Text)

	// For deliver-concurrent same. window: the handler's Yield points hand
	// over (true but for a delivery slowed by a gateway stall); slowAck:
	// the first worker, if it never handed over, does so before its ack;
	// again: the second worker, which gets the message only while the
	// first one is still at work.
	window  bool
	slowAck bool
	again   bool
	yielded bool // it has handed over at least once
	// second, on the API side: the second copy of a request that
	// request-concurrent sends.
	second bool
	// batch: the worker is in the middle of deliver-batch, which acks
	// (commits) for the whole batch; err is what its handler returned.
	batch bool
	err   error
	// copy: the worker got a duplicate step's copy; if its handler fails,
	// the message waits out its visibility timeout, as SQS, which has no
	// nack, does with a message received and not deleted.
	copy bool

	// For two workers on PostgreSQL (see block.go). handover is where a
	// racing worker reports a pause (false) or its end (true); blocked:
	// its turn ended while PostgreSQL holds its statement, until
	// unblocked closes (the statement returned).
	handover  chan bool
	blocked   bool
	unblocked chan struct{}
}

func newWorker(i int, m *Message, crash string) *worker {
	return &worker{name: fmt.Sprintf("worker-%d", i), msg: m, delivery: m.Deliveries, crash: crash,
		resume: make(chan struct{}), yield: func(narration.Text) {}, window: true}
}

// deliverSame is deliver-concurrent same: a worker takes the oldest
// message and is slow, the visibility timeout runs out while it is still
// at work, and the broker hands the same message to a second worker. Where
// the first worker is slow: in its stalled gateway call, if the gateway is
// set to stall (the second worker then runs alone, start to end, while the
// first waits; if the first never calls the gateway it is not slow, and
// there is no second delivery); otherwise in its race window, both
// interleaving as deliver-concurrent does, or, for a handler without one,
// just before its ack.
// switchAt sets where two racing workers hand over, for switch=A[,B]:
// there, and not at the handler's Yield points.
func switchAt(ws []*worker, at []int) {
	for i, c := range at {
		ws[i].switchAt, ws[i].window = c, false
	}
	if at != nil {
		ws[1].window = false
	}
}

func (w *world) deliverSame(at []int) error {
	if len(w.broker.Ready) == 0 {
		w.note("broker", narration.T("event.broker.empty"))
		return nil
	}
	// A second delivery must fit under max-deliveries; otherwise the
	// visibility timeout would dead-letter the message instead. The
	// broker counts the first delivery when it hands the message out.
	if err := w.allow(1); err != nil {
		return err
	}
	m := w.queue.Take()
	if m == nil {
		return nil // a real broker's error, which step returns
	}
	n := 2
	if m.Deliveries+1 > w.broker.MaxDeliveries {
		n = 1
	}
	if err := w.allow(n); err != nil {
		return err
	}
	first := newWorker(1, m, "")
	if n == 1 {
		w.note("broker", narration.T("event.broker.last-delivery"))
		w.deliver([]*worker{first})
		return nil
	}
	second := newWorker(2, m, "")
	second.again = true
	switch {
	case at != nil:
		switchAt([]*worker{first, second}, at)
	case w.gateway.stall > 0:
		first.window, second.window = false, false
	default:
		first.slowAck = true
	}
	w.deliver([]*worker{first, second})
	return nil
}

// deliver runs the workers. A single worker runs on the calling goroutine:
// it has nobody to yield to. Two workers run as goroutines, only one at a
// time: a worker that reaches a Yield point (or waits for a stalled
// gateway) hands over to the next, so both pass their checks before either
// writes. Inside a transaction the handlers never yield: there the
// database serializes the workers, as PostgreSQL would make the second
// wait on the first one's row lock.
func (w *world) deliver(ws []*worker) {
	if len(ws) == 1 {
		w.t.actor = ws[0].name
		w.work(ws[0], nil)
		w.t.actor = ""
		return
	}
	yielded := make(chan bool) // true: the worker finished
	active := ws
	for len(active) > 0 {
		var next []*worker
		ran := false
		for _, wk := range active {
			if wk.blocked {
				if !w.runnable(wk) {
					// PostgreSQL still holds its statement: its lock's
					// holder runs first.
					next = append(next, wk)
					continue
				}
				wk.blocked = false
			}
			ran = true
			if !wk.started && wk.again {
				switch {
				case ws[0].done && ws[0].switchAt > 0:
					w.note("broker", narration.T("event.broker.no-second-call", ws[0].name, num(ws[0].switchAt)))
					continue
				case ws[0].done:
					w.note("broker", narration.T("event.broker.no-second", ws[0].name))
					continue
				}
				if err := w.awaitLeases([]*Message{wk.msg}); err != nil && w.engineErr == nil {
					w.engineErr = err
				}
				w.timeouts++
				wk.delivery = w.queue.TakeAgain(wk.msg)
			}
			w.t.actor = wk.name
			if !wk.started {
				wk.started = true
				go func() {
					w.work(wk, yielded)
					yielded <- true
				}()
			} else {
				wk.resume <- struct{}{}
			}
			if wk.done = <-yielded; !wk.done {
				next = append(next, wk)
			}
		}
		if !ran {
			// Every worker waits for another's lock: a deadlock, which
			// PostgreSQL breaks by failing one of them.
			w.awaitAny(next)
		}
		active = next
	}
	w.t.actor = ""
}

// work is one worker handling its message. A racing worker (yielded not
// nil) runs in its own goroutine and reports on yielded when it pauses at
// a Yield point (false); its goroutine reports the end (true).
func (w *world) work(wk *worker, yielded chan bool) {
	defer func() { w.active = nil }()
	w.prepare(wk, yielded)
	if w.handler.API != nil {
		w.serve(wk)
		return
	}
	m := wk.msg
	if w.onDeliver != nil {
		w.onDeliver()
	}
	w.deliveries++
	// The broker's redelivered flag, on every delivery: it is set only
	// for a message the broker handed out before, never for a new copy,
	// and never on a broker that tells no such thing (Kafka).
	redelivered := strconv.FormatBool(w.redelivered(wk))
	if wk.again {
		w.t.add(Event{Actor: "broker", Kind: KindRequeue, Msg: m.TransportID,
			Note: narration.T("event.broker.again", m.TransportID)})
	}
	w.t.add(Event{Actor: "broker", Kind: KindDeliver, Msg: m.TransportID, To: wk.name,
		Note: narration.T("event.broker.deliver", m.TransportID, wk.name, m.Key, m.Account, num(m.Amount), num(wk.delivery), redelivered)})
	// Only a key with two payloads asks whether the handler quarantined
	// a message, and whether this delivery applied it.
	ik := intentKey{m.Tenant, m.Op}
	twoPayloads := w.intents[ik] != nil && len(w.intents[ik].variants) > 1
	quarantinedBefore, appliedBefore := 0, 0
	if twoPayloads {
		var err error
		if quarantinedBefore, err = w.quietQuarantined(); err != nil {
			w.failEngine(err)
		}
		appliedBefore = w.applications[ik][m.Amount]
	}

	point := w.pointFunc(wk)
	w.turnBegin(wk)
	err := w.call(wk, point)
	w.turnEnd(wk, false)
	w.t.actor = wk.name
	w.settleDelivery(wk, err, twoPayloads, quarantinedBefore, appliedBefore)
}

// prepare readies a worker to run: its own connection, on a real engine,
// and, when it races another, how it hands over.
func (w *world) prepare(wk *worker, yielded chan bool) {
	if wc := w.workerConn(wk); wc != nil {
		wc.owner = wk
	}
	if yielded != nil {
		wk.handover = yielded
		wk.yield = func(note narration.Text) {
			if w.connFor(wk).inTx() && w.pg == nil {
				// SQLite's write lock is this worker's until its
				// transaction ends: the other one would only wait.
				w.t.say(KindNote, narration.T("event.worker.tx-holds", wk.name))
				return
			}
			wk.yielded = true
			w.t.say(KindYield, note)
			w.turnEnd(wk, true)
			yielded <- false
			<-wk.resume
			w.turnBegin(wk)
		}
	}
}

// pointFunc is the Deps.Point a worker's handler gets: a Yield hands
// over to the other worker, the crash point the step names kills it.
func (w *world) pointFunc(wk *worker) func(string) {
	return func(name string) {
		if wk.dead {
			return // a dead worker's handler marks nothing
		}
		if name == handlers.Yield {
			if wk.window {
				wk.yield(narration.T("event.worker.race-window"))
			}
			return
		}
		if name == wk.crash {
			w.crashNow(wk, "event.crash.at", name)
			die() // the handler's goroutine ends here: see dies.go
		}
	}
}

// settleDelivery is the worker after its handler returned: it acks or
// nacks, unless it died or another worker settled the message first.
func (w *world) settleDelivery(wk *worker, err error, twoPayloads bool, quarantinedBefore, appliedBefore int) {
	m := wk.msg
	if wk.slowAck && !wk.yielded && !wk.dead {
		wk.yield(narration.T("event.worker.slow-ack", wk.name))
		w.t.actor = wk.name
	}
	if twoPayloads && !w.setAside[m] {
		// Quarantined in this delivery, whether the worker lives to ack
		// or not. A message set aside once stays so: its redelivery,
		// acked as a repeat of the quarantine, is no silent conflict,
		// whether or not the handler counts it again.
		if q, err := w.quietQuarantined(); err != nil {
			w.failEngine(err)
			return
		} else if q > quarantinedBefore {
			w.setAside[m] = true
		}
	}
	_, _, callCrash := script.CallCrash(wk.crash)
	switch {
	case wk.dead:
		// The message stays in flight until it times out (on the
		// model; a real broker answers its worker's loss its own way).
		w.queue.Drop(m)
		return
	case wk.batch:
		wk.err = err // the batch commits, or seeks back, for all its messages
		return
	case wk.copy && err != nil && w.broker.InFlightHas(m):
		w.t.emit(KindNote, "error: "+err.Error(), "")
		w.t.say(KindNote, narration.T("event.broker.duplicate-kept", m.TransportID))
		return
	case wk.crash == script.CrashBeforeAck && err != nil:
		w.crashes++
		w.t.say(KindCrash, narration.T("event.crash.before-nack"))
		w.queue.Drop(m)
		return
	case wk.crash == script.CrashBeforeAck:
		w.crashes++
		w.t.say(KindCrash, narration.T("event.crash.before-ack"))
		w.queue.Drop(m)
		return
	case callCrash:
		w.t.say(KindNote, narration.T("event.crash.unreached-calls", num(wk.calls), wk.crash))
	case wk.crash != "":
		w.t.say(KindNote, narration.T("event.crash.unreached", wk.crash))
	}
	if !w.broker.InFlightHas(m) {
		// The other worker on the same message acked or nacked it first.
		late := narration.T("event.worker.late-ack", m.TransportID)
		if err != nil {
			late = narration.T("event.worker.late-nack", m.TransportID, err.Error())
		}
		w.t.say(KindNote, late)
		return
	}
	if err != nil {
		if w.applied[intentKey{m.Tenant, m.Op}] > 0 {
			// Failing a message whose operation is already done: if this
			// goes on until the DLQ, it is a poison message.
			w.failedAfterApplied[m] = true
		}
		w.t.emit(KindNack, "nack: "+err.Error(), "")
		dead := w.queue.Nack(m)
		w.brokerMoved(m, dead, "nack")
		return
	}
	w.t.emit(KindAck, "ack "+m.TransportID, "")
	w.queue.Ack(m)
	if twoPayloads {
		w.checkQuarantined(m, appliedBefore)
	}
}

// checkQuarantined is the oracle looking at a message the handler acked
// under a key that carries two payloads. The broker may deliver them in
// either order, so no consumer can know which was published first: a
// message counts as a silent conflict when the handler acked it without
// applying it and without quarantining it, while another payload of the
// key was applied. (Applied is judged by verdict; quarantined is what the
// lab wants: in this delivery or an earlier one, by Deps.Quarantine or a
// quarantine table, see settleDelivery.)
func (w *world) checkQuarantined(m *Message, appliedBefore int) {
	ik := intentKey{m.Tenant, m.Op}
	if w.applications[ik][m.Amount] > appliedBefore {
		return
	}
	if w.setAside[m] {
		return
	}
	other := false
	for amount, n := range w.applications[ik] {
		other = other || (amount != m.Amount && n > 0)
	}
	if other {
		w.conflicts++
		w.t.add(Event{Actor: "oracle", Kind: KindConflict, Msg: m.TransportID,
			Note: narration.T("event.oracle.conflict", m.Key, num(m.Amount))})
	}
}

// quietQuarantined counts the quarantined deliveries without tracing the
// query: it is the lab looking, not the worker.
func (w *world) quietQuarantined() (int, error) {
	defer w.t.quiet()()
	return w.quarantinedDeliveries()
}

// failEngine keeps the first error of the engine's own met inside a
// delivery, where it cannot be returned: the step returns it (step), and
// the run ends with it instead of a verdict.
func (w *world) failEngine(err error) {
	if w.engineErr == nil {
		w.engineErr = err
	}
}

// redelivered is the flag the handler sees: true from the message's
// second delivery on, where the broker's profile tells a consumer of
// earlier deliveries (script.BrokerProfile.Redelivery), false on every
// delivery where it tells nothing (Kafka).
func (w *world) redelivered(wk *worker) bool {
	return wk.delivery > 1 && w.script.Profile().Redelivery != ""
}

// call runs the handler, fresh when it keeps state (handlers.Info.Fresh),
// on a goroutine of its own, which ends at a crash point (see dies.go),
// and turns a panic into an error. The handler's context never ends: a
// cancelled run stops between deliveries, not inside one, so no handler
// is cut off at a point the script did not name. (A context that can end would also cost the SQLite driver a
// goroutine per statement, to watch it.)
func (w *world) call(wk *worker, point func(string)) (err error) {
	ctx := context.Background()
	m := wk.msg
	order := m.Op
	if m.Order != "" {
		order = m.Order // a refund is for the order it names
	}
	msg := handlers.Message{
		Key: m.Key, Tenant: m.Tenant, Account: m.Account, OrderID: order, Amount: m.Amount,
		Kind: cmp.Or(m.Kind, script.KindPayment), Version: m.Version, Balance: m.Balance,
		Headers:     map[string]string{"idempotency-key": m.Key, "tenant": m.Tenant},
		TransportID: m.TransportID, Delivery: wk.delivery, Redelivered: w.redelivered(wk),
	}
	// topic/partition/offset: the record's place in the log.
	if i := strings.LastIndexByte(m.TransportID, '/'); i > 0 {
		msg.Partition = m.TransportID[:i]
		msg.Offset, _ = strconv.ParseInt(m.TransportID[i+1:], 10, 64)
	}
	handle := w.handler.Handle
	if w.handler.Fresh != nil {
		if handle, _, err = w.handler.Fresh(); err != nil {
			return err
		}
	}
	if r := onOwnGoroutine(func() { err = handle(ctx, w.deps(wk, point), msg) }); r != nil {
		err = fmt.Errorf("handler panicked: %v", r)
	}
	return err // nil from a dead worker, which wk.dead tells
}
