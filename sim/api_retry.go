package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/narration"
)

// The API client's retry policy (the client-retry: header) and the
// server's capacity (the server-capacity: header).
//
//	client-retry: none | fixed | exponential | exponential-jitter [base=1m] [cap=8m] [attempts=5] [retry-after]
//	server-capacity: N
//
// Without client-retry: the client keeps the lab's first schedule: when
// the script ends it retries every request it has no final answer to
// together, at once and then after 1, 2, 4 and 8 minutes (clientBackoff).
// With a policy each request keeps its own schedule from the end of the
// script, as a client process per payment would: retry k (1 to attempts)
// waits base (fixed), min(cap, base·2^(k-1)) (exponential), or a whole
// number of seconds drawn uniformly from 0 to that (exponential-jitter:
// AWS's "full jitter"). retry-after: an answer with Retry-After is not
// retried before it says. none: the client never retries (it gave up: a
// closed tab, a killed app). After its last attempt the client gives up.
//
// server-capacity: N: the server admits N requests per minute of the
// lab's clock (whole minutes from the run's start) and answers the rest
// 503 Service Unavailable with Retry-After (the seconds to the next
// minute) before the handler runs: load shedding in front of a slow
// dependency. 0 (the default): no limit.

// Retry policies (ClientRetry.Policy). "" is the lab's first schedule.
const (
	RetryNone        = "none"
	RetryFixed       = "fixed"
	RetryExponential = "exponential"
	RetryJitter      = "exponential-jitter"
)

// retryPolicies lists the policies in the order the errors give them.
var retryPolicies = []string{RetryNone, RetryFixed, RetryExponential, RetryJitter}

// Defaults and limits of a retry policy's options.
const (
	DefaultRetryBase     = time.Minute
	DefaultRetryCap      = 8 * time.Minute
	DefaultRetryAttempts = 5
	MaxRetryAttempts     = 20
	MaxServerCapacity    = 1000
)

// ClientRetry is how the API client retries once the script ends. The
// zero value is the lab's first schedule (clientBackoff).
type ClientRetry struct {
	Policy     string        // "", or one of the Retry constants
	Base, Cap  time.Duration // of fixed (Base only) and the exponential policies
	Attempts   int           // retries per request before the client gives up
	RetryAfter bool          // honour an answer's Retry-After
}

// parseClientRetry reads the client-retry: header's value.
func parseClientRetry(n int, value string) (ClientRetry, error) {
	fields := strings.Fields(value)
	if len(fields) == 0 || !slices.Contains(retryPolicies, fields[0]) {
		policy := ""
		if len(fields) > 0 {
			policy = fields[0]
		}
		return ClientRetry{}, errf(n, "client-retry: unknown policy %q; valid policies: %s, as in: client-retry: exponential-jitter base=1m cap=8m attempts=5 retry-after",
			"client-retry: неизвестная политика %q; допустимые: %s, например: client-retry: exponential-jitter base=1m cap=8m attempts=5 retry-after", policy, strings.Join(retryPolicies, ", "))
	}
	cr := ClientRetry{Policy: fields[0], Base: DefaultRetryBase, Cap: DefaultRetryCap, Attempts: DefaultRetryAttempts}
	if cr.Policy == RetryNone {
		if len(fields) > 1 {
			return ClientRetry{}, errf(n, "client-retry: none takes no options, found %q", "client-retry: none не принимает параметров, а найдено %q", strings.Join(fields[1:], " "))
		}
		return ClientRetry{Policy: RetryNone}, nil
	}
	allowed := []string{"base", "cap", "attempts"}
	if cr.Policy == RetryFixed {
		allowed = []string{"base", "attempts"} // a fixed wait has nothing to cap
	}
	var kv []string
	for _, a := range fields[1:] {
		if a != "retry-after" {
			kv = append(kv, a)
			continue
		}
		if cr.RetryAfter {
			return ClientRetry{}, errf(n, "client-retry: retry-after given twice", "client-retry: retry-after указан дважды")
		}
		cr.RetryAfter = true
	}
	opts, err := options(n, "client-retry: "+cr.Policy, kv, append(allowed, "retry-after (no value)"))
	if err != nil {
		return ClientRetry{}, err
	}
	for _, name := range []string{"base", "cap"} {
		v, ok := opts[name]
		if !ok {
			continue
		}
		d, derr := parseDuration(v)
		if derr != nil {
			return ClientRetry{}, wrapf(n, derr, "client-retry: %s=%s", name, v)
		}
		if name == "base" {
			cr.Base = d
		} else {
			cr.Cap = d
		}
	}
	if v, ok := opts["attempts"]; ok {
		a, aerr := strconv.Atoi(v)
		if aerr != nil || a < 1 || a > MaxRetryAttempts || strconv.Itoa(a) != v {
			return ClientRetry{}, errf(n, "client-retry: attempts=%s is not a whole number from 1 to %d", "client-retry: attempts=%s — не целое число от 1 до %d", v, MaxRetryAttempts)
		}
		cr.Attempts = a
	}
	if cr.Policy != RetryFixed && cr.Cap < cr.Base {
		return ClientRetry{}, errf(n, "client-retry: cap=%s is shorter than base=%s: the cap is the longest wait, at least the first one",
			"client-retry: cap=%s короче base=%s: cap — самое долгое ожидание, не короче первого", formatDuration(cr.Cap), formatDuration(cr.Base))
	}
	return cr, nil
}

// String writes the policy as the header's value, the options that differ
// from the defaults only; "" for the lab's first schedule.
func (cr ClientRetry) String() string {
	if cr.Policy == "" || cr.Policy == RetryNone {
		return cr.Policy
	}
	s := cr.Policy
	if cr.Base != DefaultRetryBase {
		s += " base=" + formatDuration(cr.Base)
	}
	if cr.Policy != RetryFixed && cr.Cap != DefaultRetryCap {
		s += " cap=" + formatDuration(cr.Cap)
	}
	if cr.Attempts != DefaultRetryAttempts {
		s += " attempts=" + strconv.Itoa(cr.Attempts)
	}
	if cr.RetryAfter {
		s += " retry-after"
	}
	return s
}

// parseCapacity reads the server-capacity: header's value.
func parseCapacity(n int, value string) (int, error) {
	c, err := strconv.Atoi(value)
	if err != nil || c < 0 || c > MaxServerCapacity || strconv.Itoa(c) != value {
		return 0, errf(n, "server-capacity: %q is not a whole number of requests per minute from 1 to %d (0: no limit)",
			"server-capacity: %q — не целое число запросов в минуту от 1 до %d (0 — без предела)", value, MaxServerCapacity)
	}
	return c, nil
}

// ceiling is the exponential wait before retry k (from 1): base·2^(k-1),
// at most cap.
func (cr ClientRetry) ceiling(k int) time.Duration {
	d := cr.Base
	for i := 1; i < k && d < cr.Cap; i++ {
		d *= 2
	}
	return min(d, cr.Cap)
}

// wait is how long the client waits before retry k of one request (its
// operation, tenant and body): full jitter draws whole seconds from a
// source seeded by the request and k alone, so a run is the same every
// time and one request's draws do not depend on the others'.
func (cr ClientRetry) wait(bk bodyKey, k int) time.Duration {
	switch cr.Policy {
	case RetryFixed:
		return cr.Base
	case RetryExponential:
		return cr.ceiling(k)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d", bk.tenant, bk.op, bk.amount, k)
	src := rand.New(rand.NewPCG(seed, h.Sum64()))
	secs := int64(cr.ceiling(k) / time.Second)
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
	if cr.Policy == RetryNone {
		for _, bk := range w.unansweredList() {
			w.t.add(Event{Actor: "client", Kind: KindNote, Msg: w.api.unanswered[bk].msg.TransportID,
				Note: narration.T("event.api.gives", bk.tenant, bk.op)})
		}
		return nil
	}
	sched := map[bodyKey]*retryState{}
	plan := func(bk bodyKey, rs *retryState) {
		wait := cr.wait(bk, rs.tries+1)
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
			if err := w.step(Step{Verb: VerbAdvance, Advance: next.Sub(w.now)}); err != nil {
				return err
			}
		}
		for _, bk := range order {
			rs := sched[bk]
			if rs == nil || rs.next.After(w.now) || w.api.unanswered[bk] == nil {
				continue
			}
			in := w.intents[bk.intentKey]
			st := Step{Verb: VerbRetry, API: true, Op: in.op, Tenant: in.tenant}
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
func settlementText(cr ClientRetry) narration.Text {
	switch cr.Policy {
	case "":
		return narration.T("settle.api")
	case RetryNone:
		return narration.T("settle.api-none")
	}
	return narration.T("settle.api-policy", cr.String())
}
