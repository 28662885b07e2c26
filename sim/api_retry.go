package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
)

// The API client's retries once the script ends, and the server's
// capacity (the headers: script/retry.go).

// retryWait is how long the client waits before retry k of one request (its
// operation, tenant and body): full jitter draws whole seconds from a
// source seeded by the request and k alone, so a run is the same every
// time and one request's draws do not depend on the others'.
func retryWait(cr script.ClientRetry, bk bodyKey, k int) time.Duration {
	switch cr.Policy {
	case script.RetryFixed:
		return cr.Base
	case script.RetryExponential:
		return cr.Ceiling(k)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d", bk.tenant, bk.op, bk.amount, k)
	src := rand.New(rand.NewPCG(seed, h.Sum64()))
	secs := int64(cr.Ceiling(k) / time.Second)
	return time.Duration(src.Int64N(secs+1)) * time.Second
}

// retryState is one request's place in its own retry schedule.
type retryState struct {
	tries int       // retries sent so far
	next  time.Time // when the next one goes
}

// admit is the server's capacity check for one request: true when the
// request reaches a server process; otherwise the client gets a 503
// with Retry-After, and the handler never sees the request.
func (w *world) admit(m *Message, r *apiReq) bool {
	capacity := w.script.ServerCapacity
	if capacity == 0 {
		return true
	}
	window := int64(w.now.Sub(epoch()) / time.Minute)
	if w.api.window != window {
		w.api.window, w.api.admitted = window, 0
	}
	ik := bodyKey{intentKey{m.Tenant, m.Op}, m.Amount}
	if w.api.admitted < capacity {
		w.api.admitted++
		delete(w.api.retryAfter, ik)
		return true
	}
	after := epoch().Add(time.Duration(window+1) * time.Minute).Sub(w.now)
	secs := int64((after + time.Second - 1) / time.Second)
	w.api.retryAfter[ik] = time.Duration(secs) * time.Second
	w.t.add(Event{Actor: "client", Kind: KindRequest, Msg: m.TransportID, To: "server-1",
		Note: requestNote(m, "server-1", false, r)})
	body := fmt.Sprintf(`{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"at capacity: %s a minute"}`, plural(capacity, "request"))
	w.t.add(Event{Actor: "server-1", Kind: KindResponse, Msg: m.TransportID, To: "client",
		Note: narration.T("event.api.shed", num(secs), body)})
	w.api.unanswered[ik] = r
	return false
}

// settleRetries is settleAPI under a client-retry: policy: every request
// without a final answer keeps its own schedule, and the clock moves to
// the next retry due, until each has a final answer or its client gives
// up.
func (w *world) settleRetries() error {
	cr := w.script.ClientRetry
	if cr.Policy == script.RetryNone {
		for _, bk := range w.unansweredList() {
			w.t.add(Event{Actor: "client", Kind: KindNote, Msg: w.api.unanswered[bk].msg.TransportID,
				Note: narration.T("event.api.gives", bk.tenant, bk.op)})
		}
		return nil
	}
	sched := map[bodyKey]*retryState{}
	plan := func(bk bodyKey, rs *retryState) {
		wait := retryWait(cr, bk, rs.tries+1)
		if ra := w.api.retryAfter[bk]; cr.RetryAfter && ra > wait {
			wait = ra
		}
		rs.next = w.now.Add(wait)
	}
	order := w.unansweredList() // the requests retried, in a stable order
	for _, bk := range order {
		sched[bk] = &retryState{}
		plan(bk, sched[bk])
	}
	for len(sched) > 0 {
		var next time.Time
		for _, rs := range sched {
			if next.IsZero() || rs.next.Before(next) {
				next = rs.next
			}
		}
		if next.After(w.now) {
			if err := w.step(script.Step{Verb: script.VerbAdvance, Advance: next.Sub(w.now)}); err != nil {
				return err
			}
		}
		for _, bk := range order {
			rs := sched[bk]
			if rs == nil || rs.next.After(w.now) || w.api.unanswered[bk] == nil {
				continue
			}
			in := w.intents[bk.intentKey]
			st := script.Step{Verb: script.VerbRetry, API: true, Op: in.op, Tenant: in.tenant}
			if bk.amount != in.variants[len(in.variants)-1] {
				st.Amount = bk.amount
			}
			if err := w.step(st); err != nil {
				return err
			}
			rs.tries++
		}
		for _, bk := range order {
			rs := sched[bk]
			if rs == nil {
				continue
			}
			switch r := w.api.unanswered[bk]; {
			case r == nil:
				delete(sched, bk)
			case rs.next.After(w.now):
			case rs.tries >= cr.Attempts:
				w.t.add(Event{Actor: "client", Kind: KindNote, Msg: r.msg.TransportID,
					Note: narration.T("event.api.gives-up", bk.tenant, bk.op, num(rs.tries))})
				delete(sched, bk)
			default:
				plan(bk, rs)
			}
		}
	}
	return nil
}

// unansweredList is the requests without a final answer, in the intents'
// order and each intent's payloads' order.
func (w *world) unansweredList() []bodyKey {
	var out []bodyKey
	for _, in := range w.intentList() {
		for _, amount := range in.variants {
			bk := bodyKey{intentKey{in.tenant, in.op}, amount}
			if w.api.unanswered[bk] != nil {
				out = append(out, bk)
			}
		}
	}
	return out
}

// settlementText says what an API world's settlement does, by the
// client's policy.
func settlementText(cr script.ClientRetry) narration.Text {
	switch cr.Policy {
	case "":
		return narration.T("settle.api")
	case script.RetryNone:
		return narration.T("settle.api-none")
	}
	return narration.T("settle.api-policy", cr.String())
}
