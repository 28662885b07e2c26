package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// The alphabet: the steps a script may take next, drawn from the script
// language. It is small on purpose, so that every script up to depth 4
// can run: one or two operations (a second one under a second tenant
// with the same id, the tenant collision), a repeat of each and a changed
// payload, a refund, an outbox and its relay, every delivery with every
// crash point and I/O boundary, two workers switching at each boundary,
// the broker's moves (a batch replayed, a message out of order, a copy
// with no failure under a broker that makes them),
// time across each TTL of the header, and the gateway's modes for the
// handlers that call it.
func (s *searcher) alphabet(prefix []string) []string {
	if s.api {
		return s.apiAlphabet(prefix)
	}
	type op struct{ id, tenant string }
	var ops []op
	outbox := false
	for _, line := range prefix {
		if f := strings.Fields(line); len(f) >= 2 && (f[0] == "publish" || f[0] == "produce") {
			outbox = outbox || f[0] == "produce"
			o := op{id: f[1]}
			for _, w := range f[2:] {
				if t, ok := strings.CutPrefix(w, "tenant="); ok {
					o.tenant = t
				}
			}
			ops = append(ops, o)
		}
	}
	// Deliveries first: of two stories as short, the one the lectures tell
	// (a crash, a redelivery) is found first.
	out := []string{"deliver", "deliver crash=before-ack", "deliver crash=before-effect", "deliver crash=after-effect",
		"redeliver", "deliver-concurrent", "deliver-concurrent same", "dlq-replay", "drain"}
	// A broker that hands out copies with no failure (an SQS standard
	// queue): a copy of a message delivered already, in flight or acked.
	if s.header.Profile().Duplicates {
		out = append(out, "duplicate")
	}
	// Every I/O boundary of a delivery: dying on receipt, and right
	// after each call the handler makes (just before call N+1 is the
	// same to everyone but the dead worker). Then two workers handing
	// over just before each call of the first.
	out = append(out, "deliver crash=call:1")
	for n := 1; n <= s.calls; n++ {
		out = append(out, fmt.Sprintf("deliver crash=after-call:%d", n))
	}
	for n := 2; n <= s.calls; n++ {
		out = append(out, fmt.Sprintf("deliver-concurrent switch=%d", n))
	}
	for _, o := range ops {
		t := ""
		if o.tenant != "" {
			t = " tenant=" + o.tenant
		}
		out = append(out, "retry "+o.id+t, "change-payload "+o.id+" amount=15000"+t)
	}
	switch len(ops) {
	case 0:
		// The producer side, where it reaches the consumer: an outbox
		// whose relay may publish a row twice. (A producer that loses its
		// message, or sends one for a rolled-back order, fails every
		// handler alike: no consumer's failure.)
		out = append(out, "publish a amount=10000", "produce a amount=10000 mode=outbox")
	case 1:
		out = append(out, "publish b amount=5000", "publish a amount=5000 tenant=globex account=bob")
		if !outbox && !s.opt.NoRefunds {
			out = append(out, "publish r amount=10000 kind=refund order=a")
		}
	case 2:
		// Two messages: the second delivered first, and a batch whose
		// worker dies after the first (the range is replayed).
		out = append(out, "deliver "+ops[1].id, "deliver-batch 2 crash=after-message:1")
	}
	if outbox {
		out = append(out, "relay", "relay crash=after-publish")
	}
	for _, ttl := range s.ttls() {
		out = append(out, "advance "+minutes(ttl+time.Minute))
	}
	if s.gateway {
		out = append(out, "gateway down", "gateway up", "gateway timeout")
	}
	return out
}

// apiAlphabet is the alphabet of the API side: a client's requests. It
// is kept as small as the broker's: a first request (plain, its answer
// lost, the server dying before or after the charge, two copies at once,
// no key), a second operation; for each operation a retry, a retry whose
// answer is lost, a retry with another amount, two copies at once; time
// past the lock timeouts (2m) and the header's key lifetime; the
// gateway's modes. Right after the first request, besides: the same
// operation id and body from a second tenant (the tenant collision: a key
// store that is not the tenant's hands it the first tenant's saved
// answer), and a retry with the key spelled as an RFC 8941 string ("a"
// where the first send had the bare token a: one key, which a server
// keying by the header as sent takes for two). Anywhere later they only
// tell the same stories longer, at half again the search's cost: the
// random search offers them there (apiExtras), with the I/O boundaries
// and switch points.
func (s *searcher) apiAlphabet(prefix []string) []string {
	var out []string
	ops := s.apiOps(prefix)
	for _, o := range ops {
		out = append(out, "retry "+o.name())
		if o.tenant == "" {
			// The second tenant's operation is there for the collision:
			// a plain retry of it is enough.
			out = append(out, "retry "+o.name()+" lose-response", "retry "+o.name()+" amount=15000", "request-concurrent "+o.name())
		}
	}
	switch len(ops) {
	case 0:
		out = append(out, "request a amount=10000", "request a amount=10000 lose-response",
			"request a amount=10000 crash=before-effect", "request a amount=10000 crash=after-effect",
			"request-concurrent a amount=10000", "request a amount=10000 key=none")
	case 1:
		out = append(out, "request b amount=5000")
		if len(prefix) == 1 {
			out = append(out, s.tenantsAndSpellings(ops)...)
		}
	}
	out = append(out, "advance 2m")
	if ttl := s.header.KeyTTL; ttl > 0 {
		out = append(out, "advance "+minutes(ttl+time.Minute))
	}
	if s.gateway {
		out = append(out, "gateway down", "gateway timeout", "gateway dedup on")
	}
	return out
}

// tenantsAndSpellings are the steps after one operation that send its
// key again under a second tenant (the same id and body, so that a key
// store shared by the tenants has a saved answer that fits) and spelled
// as an RFC 8941 string. None once a second tenant has sent.
func (s *searcher) tenantsAndSpellings(ops []apiOp) []string {
	if len(ops) != 1 || ops[0].tenant != "" {
		return nil
	}
	o := ops[0]
	return []string{"request " + o.id + " " + o.body + " tenant=globex", "retry " + o.name() + " key=" + script.KeyQuoted}
}

// apiOp is an operation a prefix requested: its id, its tenant ("" for
// the default one) and its first body's amount= word.
type apiOp struct{ id, tenant, body string }

// name is the operation as a retry names it: the id, and the tenant when
// it is not the default.
func (o apiOp) name() string {
	if o.tenant == "" {
		return o.id
	}
	return o.id + " tenant=" + o.tenant
}

// apiOps are the operations a prefix requested.
func (s *searcher) apiOps(prefix []string) []apiOp {
	var ops []apiOp
	for _, line := range prefix {
		f := strings.Fields(line)
		if len(f) >= 3 && (f[0] == "request" || f[0] == "request-concurrent") && strings.HasPrefix(f[2], "amount=") {
			o := apiOp{id: f[1], body: f[2]}
			for _, w := range f[3:] {
				if t, ok := strings.CutPrefix(w, "tenant="); ok {
					o.tenant = t
				}
			}
			ops = append(ops, o)
		}
	}
	return ops
}

// apiExtras are the random search's extra API steps: the server dying
// right after each of its calls, in a first request and in a retry, two
// copies switching at each call, and the second tenant and the quoted key
// later than right after the first request.
func (s *searcher) apiExtras(prefix []string) []string {
	var out []string
	ops := s.apiOps(prefix)
	for n := 1; n <= s.calls; n++ {
		if len(ops) == 0 {
			out = append(out, fmt.Sprintf("request a amount=10000 crash=after-call:%d", n))
			for m := 1; m <= s.calls; m++ {
				out = append(out, fmt.Sprintf("request-concurrent a amount=10000 switch=%d,%d", n, m))
			}
		}
		for _, o := range ops {
			out = append(out, fmt.Sprintf("retry %s crash=after-call:%d", o.name(), n))
		}
	}
	if len(prefix) != 1 {
		out = append(out, s.tenantsAndSpellings(ops)...) // the alphabet has them right after the first request
	}
	return out
}

// ttls are the header's lifetimes that time can run past: the Redis
// claim's and the done mark's, the inbox's retention and the broker's
// dedup window when set.
func (s *searcher) ttls() []time.Duration {
	var out []time.Duration
	for _, d := range []time.Duration{s.header.ProcessingTTL, s.header.DoneTTL, s.header.InboxRetention, s.header.DedupWindow} {
		if d > 0 && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func minutes(d time.Duration) string { return fmt.Sprintf("%dm", int64(d/time.Minute)) }

// switches are the random search's extra steps: both workers' switch
// points, and the same message switched.
func (s *searcher) switches() []string {
	var out []string
	for a := 1; a <= s.calls; a++ {
		out = append(out, fmt.Sprintf("deliver-concurrent same switch=%d", a))
		for b := 1; b <= s.calls; b++ {
			out = append(out, fmt.Sprintf("deliver-concurrent switch=%d,%d", a, b))
		}
	}
	return out
}

// maxCalls bounds the boundaries a search tries in a delivery.
const maxCalls = 8

// probe runs one delivery of a fresh message and returns how many I/O
// calls the handler made (at most maxCalls) and whether one was to the
// payment gateway.
func (s *searcher) probe() (calls int, gateway bool, err error) {
	probe, at := []string{"publish a amount=10000", "deliver"}, 1
	if s.api {
		probe, at = []string{"request a amount=10000"}, 0
	}
	sc, err := script.Parse(s.text(probe))
	if err != nil {
		return 0, false, err
	}
	run, err := sim.Execute(s.ctx, sc, sim.Options{Custom: []handlers.Info{s.info}, Engine: s.opt.Engine})
	if err != nil {
		return 0, false, err
	}
	for _, e := range run.Results[0].Trace[at].Events {
		calls = max(calls, e.Call)
		gateway = gateway || e.Kind == sim.KindGateway
	}
	return min(calls, maxCalls), gateway, nil
}
