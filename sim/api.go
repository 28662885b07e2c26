package sim

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
)

// The API side in the engine. A script of request steps (api_script.go)
// has a client where the broker side has a producer: it sends POST
// /payments with an Idempotency-Key header to an API handler, which a
// server process (server-1, and server-2 when two copies race) runs just
// as a worker runs a message handler: the same crash points, I/O calls,
// switches and effect counting. The client gets the answer, unless the
// step loses it or the server dies first; at the end it retries every
// request it got no final answer to, with backoff, as a well-behaved
// client does (settleAPI).
//
// The oracle judges the money as on the broker side (the customer is
// charged once per intent: duplicate, lost) and, besides, every answer
// the server gave against the one the Idempotency-Key draft makes due
// (dueFor): 400 without a key, 422 for a key reused with another body
// (answered with a success instead: a silent conflict), 409 while the
// key's first request is still in flight, and the saved answer, the same
// status and body, for a repeat. Any other wrong answer is the verdict
// wrong-status.

// apiState is what an API world keeps besides the shared machinery.
type apiState struct {
	n    int                  // requests sent, for their ids (req-1, req-2…)
	reqs map[*Message]*apiReq // every request by its message
	keys map[string]*keyRecord
	// unanswered are the requests the client is still waiting on (no
	// answer, or one that says to try again: 409, 5xx), by operation and
	// body: an answer to one body answers none of the others.
	unanswered map[bodyKey]*apiReq
	wrong      []string // answers that were not due, for the verdict
	// For server-capacity: (api_retry.go): the minute of the clock being
	// counted, the requests admitted in it, and the Retry-After of each
	// request's last answer, if it had one.
	window     int64
	admitted   int
	retryAfter map[bodyKey]time.Duration
}

// bodyKey is an operation's request with one body (amount).
type bodyKey struct {
	intentKey
	amount int64
}

// apiReq is one request as the client sent it.
type apiReq struct {
	msg    *Message
	body   string
	header string // the Idempotency-Key header as sent: the key, bare or quoted (key=quoted)
	lose   bool
	due    due
}

// keyRecord is what the oracle knows of one key of one tenant.
type keyRecord struct {
	body     string                           // of the first request under the key
	another  bool                             // a request with another body came under the key
	first    time.Time                        // when it was first used: the key lives Script.KeyTTL from then
	final    *handlers.APIResponse            // the first final answer, which every repeat must get again
	finals   map[string]*handlers.APIResponse // the first final answer to each body sent under the key
	inFlight map[*Message]bool                // requests under the key still being served
}

// due is the answer a request should get, as the oracle sees it when the
// request arrives.
type due struct {
	kind  string // dueNew, dueNoKey, dueConflict, dueRace, dueReplay
	saved *handlers.APIResponse
	// reused: the key has carried two bodies, and the server may hold
	// either (the first request may have died before it saved its own):
	// 422 is a right answer to any of them.
	reused bool
}

const (
	dueNew      = "new"      // a first request: any success or a server error
	dueNoKey    = "no-key"   // 400
	dueConflict = "conflict" // 422
	dueRace     = "race"     // 409, or a success: another request with the key is in flight (or died in it), either may win
	dueReplay   = "replay"   // the saved answer again (or a server error)
)

// apiHandlers are the API handlers as the engine runs them.
func apiHandlers() []handlers.Info {
	var out []handlers.Info
	for _, h := range handlers.APIList() {
		out = append(out, handlers.Info{Name: h.Name, Summary: h.Summary, Core: true, Schema: h.Schema,
			File: h.File, Func: h.Func, API: h.Handle, Complete: h.Complete})
	}
	return out
}

// newAPIState is an API world's state before its first request.
func newAPIState() *apiState {
	return &apiState{reqs: map[*Message]*apiReq{}, keys: map[string]*keyRecord{}, unanswered: map[bodyKey]*apiReq{},
		retryAfter: map[bodyKey]time.Duration{}}
}

// requestBody is the JSON body the client sends for an operation.
func requestBody(account string, amount int64) string {
	return fmt.Sprintf(`{"account":%q,"amount":%d}`, account, amount)
}

// request is a request, request-concurrent or API retry step.
func (w *world) request(st script.Step) error {
	if w.api == nil {
		w.api = newAPIState()
	}
	ik := intentKey{st.Tenant, st.Op}
	in := w.intents[ik]
	if in == nil {
		in = &intent{tenant: st.Tenant, op: st.Op, account: st.Account, amount: st.Amount, keyMode: st.KeyMode}
		if st.KeyMode == script.KeyQuoted {
			in.keyMode = script.KeyOp // the operation id's key, quoted on this send only
		}
		switch in.keyMode {
		case script.KeyOp:
			in.key = st.Op
		case script.KeyV7:
			in.key = w.newKey(true)
		}
		in.variants = []int64{st.Amount}
		if st.KeyMode == script.KeyNone {
			// Without a key the right answer is 400 and no charge; a server
			// that charges anyway is judged by its answer, and by the money
			// once it charges twice (see verdict).
			in.amount, in.optional = 0, true
		}
		w.intents[ik] = in
		if _, err := w.db.Exec(`INSERT INTO accounts (id) VALUES (?) ON CONFLICT DO NOTHING`, in.account); err != nil {
			return err
		}
	}
	amount := in.variants[len(in.variants)-1]
	if st.Verb == script.VerbRetry && st.Amount > 0 {
		amount = st.Amount
		if !slices.Contains(in.variants, amount) {
			in.variants = append(in.variants, amount)
		}
	}
	n := 1
	if st.Verb == script.VerbRequestConcurrent {
		n = 2
	}
	if err := w.allow(n); err != nil {
		return err
	}
	var ws []*worker
	for range n {
		key := in.key
		if in.keyMode == script.KeyFresh {
			key = w.newKey(false) // a new key on every send: the anti-pattern
		}
		w.api.n++
		m := &Message{TransportID: fmt.Sprintf("req-%d", w.api.n), Key: key, Tenant: in.tenant, Op: in.op,
			Account: in.account, Amount: amount, Deliveries: 1}
		w.api.reqs[m] = &apiReq{msg: m, body: requestBody(in.account, amount), header: keyHeader(key, st.KeyMode == script.KeyQuoted), lose: st.Lose}
		if !w.admit(m, w.api.reqs[m]) {
			continue
		}
		wk := newWorker(len(ws)+1, m, st.Crash)
		wk.name = fmt.Sprintf("server-%d", len(ws)+1)
		ws = append(ws, wk)
	}
	if len(ws) == 0 {
		return nil
	}
	if len(ws) == 2 {
		ws[1].second = true
		if st.Switch != nil {
			switchAt(ws, st.Switch)
		} else {
			ws[0].slowAck = true // no race window: it answers late
		}
	}
	w.deliver(ws)
	return nil
}

// requestNote says a client's request r to server: sent again as a second
// copy while the first is in progress, its Idempotency-Key (none when the
// message has no key) and its body.
func requestNote(m *Message, server string, second bool, r *apiReq) narration.Text {
	again, header := "", ""
	if second {
		again = "second"
	}
	if m.Key != "" {
		header = r.header
	}
	return narration.T("event.api.request", m.TransportID, server, again, header, r.body)
}

// serve is a server process handling one request: work's counterpart on
// the API side.
func (w *world) serve(wk *worker) {
	m := wk.msg
	r := w.api.reqs[m]
	if w.onDeliver != nil {
		w.onDeliver()
	}
	w.deliveries++
	w.t.add(Event{Actor: "client", Kind: KindRequest, Msg: m.TransportID, To: wk.name,
		Note: requestNote(m, wk.name, wk.second, r)})
	r.due = w.arrive(r)
	appliedBefore := w.applications[intentKey{m.Tenant, m.Op}][m.Amount]

	point := w.pointFunc(wk)
	w.turnBegin(wk)
	resp := w.callAPI(wk, point)
	w.turnEnd(wk, false)
	w.t.actor = wk.name
	if wk.slowAck && !wk.yielded && !wk.dead {
		wk.yield(narration.T("event.worker.slow-answer", wk.name))
		w.t.actor = wk.name
	}
	ik := bodyKey{intentKey{m.Tenant, m.Op}, m.Amount}
	rec := w.api.keys[keyOf(m)]
	if rec != nil && !wk.dead {
		// A server that died never lets go of the key by itself: the
		// next requests may meet its lock (409) until the server decides
		// the lock is abandoned, which is its own choice.
		delete(rec.inFlight, m)
	}
	if wk.dead {
		w.t.add(Event{Actor: "client", Kind: KindNote, Msg: m.TransportID,
			Note: narration.T("event.api.died", m.TransportID)})
		w.api.unanswered[ik] = r
		return
	}
	replayed := ""
	if resp.Replayed {
		replayed = " (Idempotent-Replayed: true)"
	}
	w.t.add(Event{Actor: wk.name, Kind: KindResponse, Msg: m.TransportID, To: "client",
		Text: fmt.Sprintf("%d %s%s %s", resp.Status, http.StatusText(resp.Status), replayed, resp.Body)})
	w.judge(r, resp, w.applications[ik.intentKey][m.Amount] > appliedBefore)
	if rec != nil && final(resp.Status) && rec.finals[r.body] == nil {
		saved := resp
		rec.finals[r.body] = &saved
		if r.body == rec.body {
			rec.final = &saved
		}
	}
	switch {
	case r.lose:
		w.t.add(Event{Actor: "client", Kind: KindNote, Msg: m.TransportID,
			Note: narration.T("event.api.lost", m.TransportID)})
		w.api.unanswered[ik] = r
	case final(resp.Status):
		delete(w.api.unanswered, ik)
	default:
		w.api.unanswered[ik] = r // 409 or a server error: try again later
	}
}

// final reports whether an answer is the request's last word: a success
// or a client error, but not 409 (still in progress) or a server error,
// which say to try again.
func final(status int) bool {
	return status < 500 && status != http.StatusConflict
}

// keyOf is a request's key record's name: keys are the tenant's.
func keyOf(m *Message) string {
	if m.Key == "" {
		return ""
	}
	return m.Tenant + "\x00" + m.Key
}

// arrive is the oracle's view of a request arriving: the answer due, and
// the key's record brought up to date.
func (w *world) arrive(r *apiReq) due {
	m := r.msg
	if m.Key == "" {
		return due{kind: dueNoKey}
	}
	rec := w.api.keys[keyOf(m)]
	if rec != nil && w.now.Sub(rec.first) >= w.script.KeyTTL {
		rec = nil // expired: from here on the key is new again
	}
	if rec == nil {
		rec = &keyRecord{body: r.body, first: w.now, inFlight: map[*Message]bool{}, finals: map[string]*handlers.APIResponse{}}
		w.api.keys[keyOf(m)] = rec
		rec.inFlight[m] = true
		return due{kind: dueNew}
	}
	if rec.body != r.body {
		rec.another = true
		return due{kind: dueConflict, saved: rec.finals[r.body]}
	}
	if rec.final != nil {
		return due{kind: dueReplay, saved: rec.final, reused: rec.another}
	}
	d := due{kind: dueRace, reused: rec.another}
	if len(rec.inFlight) == 0 {
		// Its earlier requests got no final answer (their answers said
		// to try again): this one may finish the work.
		d.kind = dueNew
	}
	// Requests in flight together race: whichever claims the key first
	// wins, so each of them may be the one told 409.
	for other := range rec.inFlight {
		if o := w.api.reqs[other]; o.due.kind == dueNew {
			o.due.kind = dueRace
		}
	}
	rec.inFlight[m] = true
	return d
}

// judge compares an answer with the one due and records a wrong one.
// applied: this request's own effect was made durable while it ran.
func (w *world) judge(r *apiReq, resp handlers.APIResponse, applied bool) {
	m := r.msg
	wrong := func(key string, args ...string) {
		note := narration.T(key, args...)
		w.api.wrong = append(w.api.wrong, m.TransportID+": "+note.String())
		w.t.add(Event{Actor: "oracle", Kind: KindWrongStatus, Msg: m.TransportID, Note: note})
	}
	status := strconv.Itoa(resp.Status)
	s := resp.Status
	if r.due.reused && s == http.StatusUnprocessableEntity {
		return
	}
	switch r.due.kind {
	case dueNoKey:
		if s != http.StatusBadRequest {
			wrong("event.oracle.no-key", status)
		}
	case dueConflict:
		switch {
		case s >= 200 && s < 300 && (applied || sameAnswer(r.due.saved, resp)):
			// The server never knew the first body (its request died
			// before saving anything, or the key was gone) and made
			// this one, or answers it again as it did before: an honest
			// success. The money says whether both bodies were applied.
		case s >= 200 && s < 300:
			w.conflicts++
			w.t.add(Event{Actor: "oracle", Kind: KindConflict, Msg: m.TransportID,
				Note: narration.T("event.oracle.api-conflict", m.Key, num(m.Amount), status)})
		case s != http.StatusUnprocessableEntity && s < 500:
			wrong("event.oracle.reused", status)
		}
	case dueRace:
		if s != http.StatusConflict && (s < 200 || s >= 300) && s < 500 {
			wrong("event.oracle.race", status)
		}
	case dueReplay:
		saved := r.due.saved
		if s < 500 && (s != saved.Status || resp.Body != saved.Body) {
			wrong("event.oracle.replay", status, resp.Body, strconv.Itoa(saved.Status), saved.Body)
		}
	case dueNew:
		if s == http.StatusConflict || (s >= 400 && s < 500 && s != http.StatusBadRequest) {
			wrong("event.oracle.new", status)
		}
	}
}

// callAPI runs the API handler, fresh when it keeps state
// (handlers.Info.Fresh), on a goroutine of its own, which ends at a crash
// point (a dead server: see dies.go), and turns a panic into a 500.
func (w *world) callAPI(wk *worker, point func(string)) (resp handlers.APIResponse) {
	m := wk.msg
	r := w.api.reqs[m]
	req := handlers.APIRequest{Tenant: m.Tenant, Key: m.Key, Header: r.header, Method: http.MethodPost, Path: "/payments",
		Body: []byte(r.body), Account: m.Account, Amount: m.Amount}
	api := w.handler.API
	if w.handler.Fresh != nil {
		var err error
		if _, api, err = w.handler.Fresh(); err != nil {
			return handlers.APIResponse{Status: http.StatusInternalServerError, Body: fmt.Sprintf(`{"title":%q}`, err.Error())}
		}
	}
	if r := onOwnGoroutine(func() { resp = api(context.Background(), w.deps(wk, point), req) }); r != nil {
		resp = handlers.APIResponse{Status: http.StatusInternalServerError, Body: fmt.Sprintf(`{"title":"handler panicked: %v"}`, r)}
	}
	return resp
}

// clientBackoff is how long the client waits before each of its retries
// at the end of the script: its retry horizon is their sum, 15 minutes.
var clientBackoff = []time.Duration{0, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute}

// settleAPI is the settlement of an API world: the gateway comes back and
// the client retries every request it has no final answer to, the same
// key and body, after each backoff, until none is left.
func (w *world) settleAPI() error {
	if w.gateway.mode != script.GatewayUp || w.gateway.stall > 0 {
		w.step(script.Step{Verb: script.VerbGateway, Gateway: script.GatewayUp, Up: true})
	}
	if w.script.ClientRetry.Policy != "" {
		return w.settleRetries()
	}
	for _, wait := range clientBackoff {
		if len(w.api.unanswered) == 0 {
			return nil
		}
		if wait > 0 {
			if err := w.step(script.Step{Verb: script.VerbAdvance, Advance: wait}); err != nil {
				return err
			}
		}
		for _, in := range w.intentList() {
			for _, amount := range in.variants {
				r := w.api.unanswered[bodyKey{intentKey{in.tenant, in.op}, amount}]
				if r == nil {
					continue
				}
				st := script.Step{Verb: script.VerbRetry, API: true, Op: in.op, Tenant: in.tenant}
				if amount != in.variants[len(in.variants)-1] {
					st.Amount = amount
				}
				if err := w.step(st); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// apiStory names, for the oracle's reason, the operations the payment
// provider never charged, with the success the client got for each, if
// any (a saved answer replayed to it: another tenant's, say). "" when
// there are none.
func (w *world) apiStory() string {
	var out []string
	for _, in := range w.intentList() {
		if in.optional || w.applied[intentKey{in.tenant, in.op}] != 0 {
			continue
		}
		s := fmt.Sprintf("%s/%s was never charged", in.tenant, in.op)
		if rec := w.api.keys[in.tenant+"\x00"+in.key]; in.key != "" && rec != nil && rec.final != nil && rec.final.Status < 300 {
			s += fmt.Sprintf(", yet answered %d %s", rec.final.Status, http.StatusText(rec.final.Status))
			if rec.final.Replayed {
				s += " (Idempotent-Replayed: true)"
			}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

// apiVerdict adds the API's own judgement to the money's: wrong answers.
func (w *world) apiVerdict() (Verdict, string, bool) {
	if w.api == nil || len(w.api.wrong) == 0 {
		return "", "", false
	}
	return WrongStatus, strings.Join(w.api.wrong, "; "), true
}

// sameAnswer reports whether resp is saved, sent again.
func sameAnswer(saved *handlers.APIResponse, resp handlers.APIResponse) bool {
	return saved != nil && saved.Status == resp.Status && saved.Body == resp.Body
}

// keyHeader is the Idempotency-Key header's value for a key: the bare
// token, or quoted as an RFC 8941 string (a backslash before each
// quote and each backslash).
func keyHeader(key string, quoted bool) string {
	if !quoted || key == "" {
		return key
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"`
}

// formatDuration writes a duration as scripts write it
// (script.FormatDuration): the engine's words name durations so.
func formatDuration(d time.Duration) string { return script.FormatDuration(d) }
