package script

import (
	"fmt"
	"slices"
	"strings"
)

// The API side of the script language: a client calls a payments API
// (POST /payments with an Idempotency-Key header), and one of the API
// handlers serves it.
//
//	request pay-1 amount=100 [tenant=] [account=] [key=op|v7|fresh|none|quoted] [lose-response] [crash=POINT]
//	retry pay-1 [amount=M] [tenant=] [key=quoted] [lose-response] [crash=POINT]
//	request-concurrent pay-1 [amount=N …] [switch=A[,B]]
//	complete
//
// request: the client wants a payment made once, and sends it (the key
// as for publish: the operation id by default; none sends no header).
// retry: it sends the same request again, the same key and body; with
// amount=M the same key and another body. key=quoted spells the key of
// this send as an RFC 8941 string, Idempotency-Key: "pay-1", as the
// Idempotency-Key draft writes it; without it the key goes as a bare
// token, Idempotency-Key: pay-1, as Stripe's clients send it. Both are
// the same key: a handler gets it parsed (APIRequest.Key), and the header
// as sent besides (APIRequest.Header). request-concurrent: two copies
// of the request reach two server processes at once (a new one, with
// amount=, or again). lose-response: the server answers and the answer
// never reaches the client. crash=: the server process dies at that
// point, as a worker does. complete: the server's completer runs once
// over the keys their clients abandoned (api_complete.go). The client's
// retries after the script are the client-retry: header's, and the
// server's capacity the server-capacity: header's (api_retry.go). A
// script tells one side: its requests are run
// by the API handlers, its publishes by the message handlers.

// brokerVerbs only make sense with a broker.
var brokerVerbs = []string{VerbPublish, VerbChangePayload, VerbDeliver, VerbRedeliver,
	VerbDeliverConcurrent, VerbDLQReplay, VerbShip, VerbDrain, VerbProduce, VerbRelay, VerbDeliverBatch, VerbDuplicate}

// side keeps a script to one side: API verbs and broker verbs do not mix.
func (p *parser) side(n int, verb string, args []string) error {
	api := verb == VerbRequest || verb == VerbRequestConcurrent || verb == VerbComplete
	broker := slices.Contains(brokerVerbs, verb)
	switch {
	case api && p.brokerLine > 0:
		return errf(n, "script.side-api", verb, p.brokerLine)
	case broker && p.s.API:
		return errf(n, "script.side-broker", verb, p.apiLine)
	case api && !p.s.API:
		p.s.API, p.apiLine = true, n
	case broker && p.brokerLine == 0:
		p.brokerLine = n
	}
	return nil
}

// KeyQuoted, in a request's or an API retry's key=, spells the key as an
// RFC 8941 string on that send (on a first request: the operation id's
// key, key=op, quoted).
const KeyQuoted = "quoted"

// requestTenant is the tenant= among a step's arguments, or the default.
func requestTenant(args []string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "tenant="); ok {
			return v
		}
	}
	return DefaultTenant
}

// apiStep reads request, request-concurrent, and retry of a request.
func (p *parser) apiStep(n int, verb string, args []string) (Step, error) {
	st := Step{Verb: verb, API: true}
	if len(args) == 0 || strings.Contains(args[0], "=") || args[0] == "lose-response" {
		return st, errf(n, "script.op-missing", verb, usage(verb))
	}
	st.Op = args[0]
	if err := checkID(n, "operation id", st.Op); err != nil {
		return st, err
	}
	var kv []string
	for _, a := range args[1:] {
		if a != "lose-response" {
			kv = append(kv, a)
			continue
		}
		if st.Lose || verb == VerbRequestConcurrent {
			return st, errf(n, "script.lose-response-twice", verb, usage(verb))
		}
		st.Lose = true
	}
	allowed := map[string][]string{
		VerbRequest:           {"amount", "tenant", "account", "key", "crash"},
		VerbRetry:             {"amount", "tenant", "key", "crash"},
		VerbRequestConcurrent: {"amount", "tenant", "account", "key", "switch"},
	}[verb]
	opts, err := options(n, verb, kv, allowed)
	if err != nil {
		return st, err
	}
	if st.Tenant, err = idOption(n, opts, "tenant", DefaultTenant); err != nil {
		return st, err
	}
	ik := intentKey{st.Tenant, st.Op}
	fresh := verb == VerbRequest || (verb == VerbRequestConcurrent && p.intents[ik] == 0)
	switch {
	case fresh && p.intents[ik] != 0:
		return st, errf(n, "script.request-again", st.Op, st.Tenant)
	case !fresh && p.intents[ik] != requested:
		return st, errf(n, "script.not-requested", verb, st.Op, st.Tenant)
	case !fresh && opts["key"] != "" && opts["key"] != KeyQuoted:
		return st, errf(n, "script.request-key-later", verb, opts["key"], st.Op)
	case !fresh && opts["account"] != "":
		return st, errf(n, "script.request-account-later", verb)
	case verb == VerbRequestConcurrent && !fresh && opts["amount"] != "":
		return st, errf(n, "script.request-concurrent-amount", st.Op)
	}
	if fresh {
		p.intents[ik] = requested
		if st.Account, err = idOption(n, opts, "account", DefaultAccount); err != nil {
			return st, err
		}
		st.KeyMode = KeyOp
		if k, ok := opts["key"]; ok {
			if k != KeyOp && k != KeyV7 && k != KeyFresh && k != KeyNone && k != KeyQuoted {
				return st, errf(n, "script.request-key-mode", k)
			}
			st.KeyMode = k
		}
	} else if opts["key"] == KeyQuoted {
		st.KeyMode = KeyQuoted // this send's spelling; the key is the operation's
	}
	if v, ok := opts["amount"]; ok {
		var aerr *Error
		if st.Amount, aerr = parseAmount(v); aerr != nil {
			return st, wrapf(n, aerr, "amount=%s", v)
		}
	} else if fresh {
		return st, errf(n, "script.amount-missing", verb, usage(verb))
	}
	if c, ok := opts["crash"]; ok {
		if _, _, call := CallCrash(c); !call && c != CrashBeforeEffect && c != CrashAfterEffect {
			return st, errf(n, "script.request-crash-point", c, MaxCall)
		}
		st.Crash = c
	}
	if v, ok := opts["switch"]; ok {
		var serr *Error
		if st.Switch, serr = parseSwitch(n, v); serr != nil {
			return st, serr
		}
	}
	return st, nil
}

// writeRequest writes an API step's arguments, as apiStep reads them.
func writeRequest(b *strings.Builder, st Step) {
	b.WriteString(" " + st.Op)
	if st.Amount > 0 {
		fmt.Fprintf(b, " amount=%d", st.Amount)
	}
	if st.Tenant != DefaultTenant && st.Tenant != "" {
		b.WriteString(" tenant=" + st.Tenant)
	}
	if st.Account != DefaultAccount && st.Account != "" {
		b.WriteString(" account=" + st.Account)
	}
	if st.KeyMode != KeyOp && st.KeyMode != "" {
		b.WriteString(" key=" + st.KeyMode)
	}
	if st.Lose {
		b.WriteString(" lose-response")
	}
	if st.Crash != "" {
		b.WriteString(" crash=" + st.Crash)
	}
	if st.Switch != nil {
		b.WriteString(" switch=" + switchText(st.Switch))
	}
}
