package labview

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"time"

	"github.com/idempotency-lab/lab/brokers"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
)

// busy says every replay slot stayed taken for as long as a request may
// wait: the answer is 503 with Retry-After (never cached: it is no 4xx).
func busy() error {
	return &page.Error{Status: http.StatusServiceUnavailable, Key: "err.busy", RetryAfter: busyRetryAfter}
}

// busyRetryAfter is what a busy answer tells the reader to wait, in seconds.
const busyRetryAfter = 2

// replayGate bounds the replays running at once. A replay is pure CPU, so
// more of them than the machine has cores only makes each one slower; a
// request waits a little for a slot and then hears that the lab is busy.
type replayGate struct {
	slots chan struct{}
	wait  time.Duration
}

func newReplayGate(n int, wait time.Duration) *replayGate {
	if n <= 0 {
		n = 2 * runtime.GOMAXPROCS(0)
	}
	if wait <= 0 {
		// Short: a replay that has to wait longer would be answered later
		// than a reader waits for a page.
		wait = 500 * time.Millisecond
	}
	return &replayGate{slots: make(chan struct{}, n), wait: wait}
}

// Acquire takes a slot, waiting at most the gate's wait, and returns the
// function that gives it back.
func (g *replayGate) Acquire(ctx context.Context) (release func(), err error) {
	release = func() { <-g.slots }
	select {
	case g.slots <- struct{}{}:
		return release, nil
	default:
	}
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return release, nil
	case <-t.C:
		return nil, busy()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Replay runs the script up to the step being shown, within the lab's
// bounds: a slot at the gate, the delivery budget, and the request's
// context, so a reader who leaves stops the work. Options.Steps of 0
// means "all" to the engine, so step 0 runs a script with no steps.
func (s *Replayer) Replay(ctx context.Context, st State) (*sim.Run, error) {
	release, err := s.Gate.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return s.replay(ctx, st)
}

// ReplayAndShow replays as Replay does and, still holding the slot, hands
// the run to show, which draws the page from it: laying out a handler's
// trace is work as a replay is, so the gate counts it too. show should
// draw with ctx (timelines stop when it ends); a show that ran after ctx
// ended returns ctx's error, so that its page, drawn in part, is never
// served or kept.
func (s *Replayer) ReplayAndShow(ctx context.Context, st State, show func(*sim.Run) error) error {
	release, err := s.Gate.Acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	run, err := s.replay(ctx, st)
	if err != nil {
		return err
	}
	if err := show(run); err != nil {
		return err
	}
	return ctx.Err()
}

// replay is Replay's work, in a slot the caller holds.
func (s *Replayer) replay(ctx context.Context, st State) (*sim.Run, error) {
	sc := st.Script
	if st.Step < st.Total() {
		sc = WithSteps(sc, st.Step)
	}
	opt := sim.Options{Handlers: st.Handlers, Steps: st.Step, Budget: s.Budget, StepEvents: maxStepEvents}
	if st.Real {
		opt.Engine = s.Engine
	}
	if st.Broker != "" {
		if s.OpenBroker == nil {
			return nil, &page.Error{Status: http.StatusNotFound, Key: "err.nobroker", Args: []any{st.Broker, s.brokerChoices()}}
		}
		rb, err := s.OpenBroker(ctx, st.Broker)
		if err != nil {
			return nil, err
		}
		// The script runs under the broker's profile, its own headers
		// still winning (as lab run --broker does).
		if sc, err = brokers.WithProfile(sc, rb.Name()); err != nil {
			return nil, err
		}
		opt.RealBroker = rb
	}
	run, err := sim.Execute(ctx, sc, opt)
	if errors.Is(err, brokers.ErrCannotPick) {
		// brokerFits refuses these scripts first; this is its backstop.
		return nil, s.cannotPick(st.Broker, st.Script)
	}
	var be *sim.BudgetError
	if errors.As(err, &be) {
		e := &page.Error{Status: http.StatusUnprocessableEntity, Key: "err.budget",
			Args: []any{page.Bilingual{EN: be.In("en"), RU: be.In("ru")}}}
		e.Script = st.Script.String()
		return nil, e
	}
	// Any other failure is the engine's (the script parsed and the
	// handlers exist): a 500, logged by the error wrapper. A cancelled
	// context is passed on as it is.
	if err != nil || st.Code == "" {
		return run, err
	}
	res, err := s.runCode(ctx, st, sc)
	if err != nil {
		return nil, err
	}
	run.Results = append(run.Results, res)
	return run, nil
}

// runCode runs the state's handler file on the script in the sandbox: a
// child process under the sandbox's limits, which ctx ending kills.
func (s *Replayer) runCode(ctx context.Context, st State, sc *script.Script) (sim.Result, error) {
	resp, err := s.Sandbox.Run(ctx, sandbox.Request{Op: "run", Name: st.CodeName, Code: st.Code,
		Script: sc.String(), Steps: st.Step, Budget: s.Budget, StepEvents: maxStepEvents})
	var se *sandbox.Error
	switch {
	case errors.Is(err, sandbox.ErrBusy):
		return sim.Result{}, busy()
	case errors.Is(err, sandbox.ErrNoIsolation):
		return sim.Result{}, NoIsolation(err)
	case errors.As(err, &se):
		return sim.Result{}, CodeError(se, st.Code, st.CodeName, s.withoutCode(st))
	case err != nil:
		return sim.Result{}, err
	case resp.Error != nil:
		return sim.Result{}, CodeError(resp.Error, st.Code, st.CodeName, s.withoutCode(st))
	case resp.Budget != nil:
		e := &page.Error{Status: http.StatusUnprocessableEntity, Key: "err.budget",
			Args: []any{page.Bilingual{EN: resp.Budget.In("en"), RU: resp.Budget.In("ru")}}}
		e.Script = st.Script.String()
		return sim.Result{}, e
	}
	return resp.Run.Unwire(), nil
}

// CheckCanonical refuses a script whose canonical form, the text that
// permalinks, rooms and redirects carry, is over the script limit: a
// script of 65,520 bytes can grow past 64 KiB when written canonically
// (advance 86399s becomes advance 23h59m59s), and would then be accepted
// here and refused by the very address it was sent to.
func CheckCanonical(sc *script.Script) error {
	if n := len(sc.String()); n > script.MaxScriptBytes {
		return &page.Error{Status: http.StatusRequestEntityTooLarge, Key: "err.canonical", Args: []any{n, script.MaxScriptBytes}}
	}
	return nil
}
