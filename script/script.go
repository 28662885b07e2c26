package script

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/narration"
)

// Limits on scripts. They keep every request to the stateless web server
// cheap, whatever is pasted into it.
const (
	MaxSteps       = 1000
	MaxScriptBytes = 64 << 10
	MaxKeyBytes    = 255
	MaxAmount      = 1_000_000_000_000 // minor units
	MaxDeliveries  = 100
	maxDuration    = 10 * 365 * 24 * time.Hour
)

// Verbs of the script language. The web controls and URLs use the same words.
const (
	VerbPublish           = "publish"
	VerbRetry             = "retry"
	VerbChangePayload     = "change-payload"
	VerbDeliver           = "deliver"
	VerbRedeliver         = "redeliver"
	VerbDeliverConcurrent = "deliver-concurrent"
	VerbDLQReplay         = "dlq-replay"
	VerbAdvance           = "advance"
	VerbGateway           = "gateway"
	VerbShip              = "ship"
	VerbDrain             = "drain"
	// The API side (api_script.go): a client calls a payments API.
	VerbRequest           = "request"
	VerbRequestConcurrent = "request-concurrent"
	VerbComplete          = "complete" // the server's completer finishes abandoned keys (api_complete.go)
	// VerbDuplicate is the broker handing out once more, with no failure,
	// a message it already delivered (in flight or acked): an SQS standard
	// queue's at-least-once storage. Only under a profile whose broker
	// does that (BrokerProfile.Duplicates).
	VerbDuplicate = "duplicate"
	// The producer side (producer.go): VerbProduce and VerbRelay.
)

// Verbs lists every verb, in the order the documentation gives them.
func Verbs() []string {
	return []string{VerbPublish, VerbRetry, VerbChangePayload, VerbDeliver, VerbRedeliver,
		VerbDeliverConcurrent, VerbDLQReplay, VerbAdvance, VerbGateway, VerbShip, VerbDrain,
		VerbRequest, VerbRequestConcurrent, VerbComplete, VerbProduce, VerbRelay, VerbDeliverBatch, VerbDuplicate}
}

// Key modes: how the producer picks the idempotency key of an intent.
const (
	KeyOp    = "op"    // the operation id itself
	KeyV7    = "v7"    // a UUIDv7 made once, when the intent is born
	KeyFresh = "fresh" // a new random UUID on every send (the anti-pattern)
	KeyNone  = "none"  // API requests only: no Idempotency-Key header at all
)

// Settings a gateway step can make (Step.Gateway).
const (
	GatewayUp       = "up"        // charges succeed; also ends a timeout and cancels a stall
	GatewayDown     = "down"      // every charge fails with 503 and charges nothing: a definite failure
	GatewayTimeout  = "timeout"   // every charge takes effect, but its answer is lost: an ambiguous failure
	GatewayDedupOn  = "dedup on"  // the provider charges a reference once and answers repeats with success
	GatewayDedupOff = "dedup off" // every call charges (the default)
	GatewayStall    = "stall"     // the next charge hangs for Step.Stall and never reaches the provider
)

// Crash points a deliver step can name. before-effect and after-effect are
// marked in the handler's source; before-ack is in the worker, after the
// handler returned.
const (
	CrashBeforeEffect = "before-effect"
	CrashAfterEffect  = "after-effect"
	CrashBeforeAck    = "before-ack"
)

// MaxCall is the highest I/O call a crash or a switch point may name: no
// handler of the lab makes more than a dozen calls in a delivery.
const MaxCall = 100

// CallCrash reads a crash point at an I/O boundary: "call:N" dies just
// before the delivery's N-th call to SQLite, Redis or the gateway,
// "after-call:N" right after it. ok is false for a named point (or none).
func CallCrash(crash string) (n int, after, ok bool) {
	v, found := strings.CutPrefix(crash, "call:")
	if !found {
		if v, found = strings.CutPrefix(crash, "after-call:"); !found {
			return 0, false, false
		}
		after = true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxCall || strconv.Itoa(n) != v {
		return 0, false, false
	}
	return n, after, true
}

// Defaults for the script's header lines and publish options.
const (
	DefaultMaxDeliveries = 5
	DefaultProcessingTTL = time.Hour
	DefaultDoneTTL       = 24 * time.Hour
	DefaultKeyTTL        = 24 * time.Hour // as Stripe keeps its keys
	DefaultTenant        = "acme"
	DefaultAccount       = "alice"
)

// Script is a parsed scenario.
type Script struct {
	Title          string
	TitleRU        string
	Summary        string
	SummaryRU      string
	MaxDeliveries  int
	ProcessingTTL  time.Duration
	DoneTTL        time.Duration
	InboxRetention time.Duration // 0: off
	// DedupWindow (dedup-window:) is the broker's own deduplication, as
	// NATS JetStream's Nats-Msg-Id: a publish whose key the broker took
	// within the window is dropped. 0: off.
	DedupWindow time.Duration
	// KeyTTL is how long an API server keeps an Idempotency-Key (key-ttl:).
	KeyTTL time.Duration
	// VisibilityTimeout (visibility-timeout:) is how long the broker
	// waits before it hands out again a message whose worker died or
	// never answered: SQS's visibility timeout, JetStream's ack wait. A
	// redelivery after a crash or a timeout (redeliver, the settlement's
	// redelivery, the second worker of deliver-concurrent same) moves the
	// clock to when the message's lease runs out. An explicit nack is
	// redelivered at once, as RabbitMQ and JetStream's Nak do. 0 (the
	// default, or off): redelivery at once, the clock stays.
	VisibilityTimeout time.Duration
	// Broker (broker:) names the broker profile the model follows
	// (profile.go): its visibility timeout, delivery limit and
	// deduplication window, unless the script's own headers set them.
	// "": the lab's own model.
	Broker string
	// PastLimit (past-limit:) is what the broker does with a message past
	// MaxDeliveries, one of PastLimits; "": the profile's (PastLimitRule).
	// PastLimitLine is the header's line, for the errors of a real broker
	// that cannot do it; 0 for none.
	PastLimit     string
	PastLimitLine int
	// API: the script tells the API side (request verbs), run by the API
	// handlers; otherwise the broker side, run by the message handlers.
	API bool
	// ClientRetry (client-retry:) is how the API client retries once the
	// script ends; the zero value is the lab's first schedule. ServerCapacity
	// (server-capacity:) is how many requests a minute the API server
	// admits; 0: no limit. See api_retry.go.
	ClientRetry    ClientRetry
	ServerCapacity int
	// Handlers are the handlers the script's story is about (the
	// handlers: header), in the order written; the lab shows at least
	// these. Empty when the script names none.
	Handlers []string
	// Goal (goal:) is a goal line that makes the script a challenge of
	// its own, shared by its address: the words of practice.ParseGoal,
	// which judges them (sim keeps them, spaces collapsed); GoalLine is
	// the header's line, for its errors. "" and 0 for none.
	Goal     string
	GoalLine int
	Steps    []Step
}

// Step is one line of a script.
type Step struct {
	Line    int    // 1-based line in the source
	Verb    string // one of the Verb constants
	Op      string // operation id (publish, retry, change-payload, ship)
	Tenant  string
	Account string
	Amount  int64
	KeyMode string
	Crash   string // deliver: crash point, "" for none
	Same    bool   // deliver-concurrent same: both workers get the oldest message
	// Switch, for deliver-concurrent, names where the workers hand over:
	// worker A runs up to (just before) its Switch[0]-th I/O call, then B
	// up to its Switch[1]-th (or to its end when there is no second
	// number), then A to its end, then B. nil: they hand over at the
	// handler's Yield points.
	Switch  []int
	Advance time.Duration // advance
	Gateway string        // gateway: one of the Gateway constants
	Up      bool          // gateway up: Gateway is GatewayUp
	Stall   time.Duration // gateway stall: how long the next charge hangs
	// Mode, for produce: how the order service commits and publishes
	// (ModeDualWrite, ModePublishFirst or ModeOutbox).
	Mode string
	// Kind, for publish, is KindPayment or KindRefund; Order is the
	// order a refund takes money back for.
	Kind  string
	Order string
	// Batch and Commit, for deliver-batch: how many messages the worker
	// polls, and whether it commits its offset after them or before.
	Batch  int
	Commit string
	// API: a retry of a client's request, not of a producer's publish.
	API bool
	// Lose, for request and an API retry: the server answers, and the
	// answer never reaches the client (a timeout, from its side).
	Lose bool
	// Narration explains the step to a learner; presets have one per step.
	NarrationEN string
	NarrationRU string
}

// Error is a script error: the line it is on (0: the script as a whole)
// and what is wrong, a message of package narration.
type Error struct {
	Line int
	Text narration.Text
}

// In returns the message in a language ("ru" or anything else for
// English), with the line number.
func (e *Error) In(lang string) string {
	if e.Line == 0 {
		return narration.T("script.whole", e.Text.In(lang)).In(lang)
	}
	return narration.T("script.line", strconv.Itoa(e.Line), e.Text.In(lang)).In(lang)
}

// Message is the message alone, without the line, in a language.
func (e *Error) Message(lang string) string {
	return e.Text.In(lang)
}

func (e *Error) Error() string {
	return e.In("en")
}

// errf makes an Error from a message's key (package narration,
// narration/script.go) and its arguments, each written as fmt.Sprint
// writes it.
func errf(line int, key string, args ...any) *Error {
	text := narration.T(key)
	for _, a := range args {
		text.Args = append(text.Args, fmt.Sprint(a))
	}
	return &Error{Line: line, Text: text}
}

// wrapf prefixes an Error from a nested check with the line and context.
func wrapf(line int, inner *Error, prefix string, args ...any) *Error {
	p := fmt.Sprintf(prefix, args...)
	return &Error{Line: line, Text: narration.T("script.wrap", append([]string{p, inner.Text.Key}, inner.Text.Args...)...)}
}

// Parse reads a script. Every error names the line and the valid choices.
func Parse(src string) (*Script, error) {
	if len(src) > MaxScriptBytes {
		return nil, errf(0, "script.too-large", MaxScriptBytes)
	}
	lines := strings.Split(src, "\n")
	// Text that is not UTF-8 is refused before anything else, at its first
	// line: an editor that saved the script in another encoding garbles
	// only the lines with non-ASCII letters, and this points at one.
	if !utf8.ValidString(src) {
		for i, line := range lines {
			if !utf8.ValidString(line) {
				return nil, errf(i+1, "script.not-utf8")
			}
		}
	}
	s := &Script{
		MaxDeliveries: DefaultMaxDeliveries,
		ProcessingTTL: DefaultProcessingTTL,
		DoneTTL:       DefaultDoneTTL,
		KeyTTL:        DefaultKeyTTL,
	}
	p := parser{s: s, intents: map[intentKey]intentKind{}, set: map[string]bool{}}
	for i, line := range lines {
		if err := p.line(i+1, strings.TrimSpace(line)); err != nil {
			return nil, err
		}
	}
	if p.en != "" || p.ru != "" {
		return nil, errf(p.narrLine, "script.narration-without-step")
	}
	// The broker's profile fills what the script's own headers left.
	prof := s.Profile()
	if !p.set["max-deliveries"] {
		s.MaxDeliveries = prof.MaxDeliveries
	}
	if !p.set["visibility-timeout"] {
		s.VisibilityTimeout = prof.VisibilityTimeout
	}
	if !p.set["dedup-window"] {
		s.DedupWindow = prof.DedupWindow
	}
	if s.PastLimit == prof.PastLimit {
		s.PastLimit = "" // the profile's own: written as the profile
	}
	return s, nil
}

// MustParse parses a script known to be valid, such as a preset checked by
// tests, and panics otherwise.
func MustParse(src string) *Script {
	s, err := Parse(src)
	if err != nil {
		panic(err)
	}
	return s
}

type intentKey struct{ tenant, op string }

// intentKind is which side made an intent: a producer's publish or a
// client's request.
type intentKind int

const (
	published intentKind = iota + 1
	requested
	// phantom: published by a publish-first producer that died before
	// its commit; the operation may be produced again.
	phantom
)

type parser struct {
	s       *Script
	intents map[intentKey]intentKind
	refunds map[intentKey]bool // the operations that are refunds
	// The first line of each side's verbs (see side): 0 for none yet.
	apiLine, brokerLine int
	en, ru              string
	narrLine            int
	set                 map[string]bool // the headers the script gives
}

var headers = []string{"title", "title-ru", "summary", "summary-ru",
	"max-deliveries", "processing-ttl", "done-ttl", "inbox-retention", "key-ttl", "dedup-window", "visibility-timeout", "broker", "past-limit", "client-retry", "server-capacity", "handlers", "goal"}

func (p *parser) line(n int, line string) error {
	if strings.ContainsFunc(line, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) {
		return errf(n, "script.control-characters")
	}
	switch {
	case line == "":
		return nil
	case strings.HasPrefix(line, "#en:"):
		p.en, p.narrLine = strings.TrimSpace(line[4:]), n
		return nil
	case strings.HasPrefix(line, "#ru:"):
		p.ru, p.narrLine = strings.TrimSpace(line[4:]), n
		return nil
	case strings.HasPrefix(line, "#"):
		return nil
	}
	word, rest := line, ""
	if i := strings.IndexFunc(line, unicode.IsSpace); i >= 0 {
		word, rest = line[:i], line[i+1:]
	}
	if name, ok := strings.CutSuffix(word, ":"); ok {
		return p.header(n, name, strings.TrimSpace(rest))
	}
	if len(p.s.Steps) >= MaxSteps {
		return errf(n, "script.too-many-steps", MaxSteps)
	}
	st, err := p.step(n, word, strings.Fields(rest))
	if err != nil {
		return err
	}
	st.Line, st.NarrationEN, st.NarrationRU = n, p.en, p.ru
	p.en, p.ru = "", ""
	p.s.Steps = append(p.s.Steps, st)
	return nil
}

func (p *parser) header(n int, name, value string) error {
	if len(p.s.Steps) > 0 {
		return errf(n, "script.header-after-steps", strconv.Quote(name+":"))
	}
	var err *Error // nil unless a duration is bad
	p.set[name] = true
	switch name {
	case "title":
		p.s.Title = value
	case "title-ru":
		p.s.TitleRU = value
	case "summary":
		p.s.Summary = value
	case "summary-ru":
		p.s.SummaryRU = value
	case "max-deliveries":
		var aerr error
		p.s.MaxDeliveries, aerr = strconv.Atoi(value)
		if aerr != nil || p.s.MaxDeliveries < 1 || p.s.MaxDeliveries > MaxDeliveries {
			return errf(n, "script.max-deliveries", strconv.Quote(value), MaxDeliveries)
		}
	case "processing-ttl":
		p.s.ProcessingTTL, err = parseDuration(value)
	case "done-ttl":
		p.s.DoneTTL, err = parseDuration(value)
	case "key-ttl":
		p.s.KeyTTL, err = parseDuration(value)
	case "dedup-window":
		if value == "off" {
			p.s.DedupWindow = 0
			return nil
		}
		p.s.DedupWindow, err = parseDuration(value)
	case "visibility-timeout":
		if value == "off" {
			p.s.VisibilityTimeout = 0
			return nil
		}
		p.s.VisibilityTimeout, err = parseDuration(value)
	case "broker":
		if _, ok := brokerProfile(value); !ok || value == "" {
			return errf(n, "script.broker-unknown", strconv.Quote(value), brokerNames())
		}
		p.s.Broker = value
	case "past-limit":
		if !slices.Contains(PastLimits(), value) {
			return errf(n, "script.past-limit", strconv.Quote(value), strings.Join(PastLimits(), ", "))
		}
		p.s.PastLimit, p.s.PastLimitLine = value, n
	case "inbox-retention":
		if value == "off" {
			p.s.InboxRetention = 0
			return nil
		}
		p.s.InboxRetention, err = parseDuration(value)
	case "client-retry":
		cr, cerr := parseClientRetry(n, value)
		if cerr != nil {
			return cerr
		}
		p.s.ClientRetry = cr
	case "server-capacity":
		c, cerr := parseCapacity(n, value)
		if cerr != nil {
			return cerr
		}
		p.s.ServerCapacity = c
	case "handlers":
		hs, herr := parseHandlerList(n, value)
		if herr != nil {
			return herr
		}
		p.s.Handlers = hs
	case "goal":
		if value == "" {
			return errf(n, "script.goal-empty")
		}
		p.s.Goal, p.s.GoalLine = strings.Join(strings.Fields(value), " "), n
	default:
		return errf(n, "script.header-unknown", strconv.Quote(name+":"), strings.Join(headers, ", "))
	}
	if err != nil {
		return wrapf(n, err, "%s", name)
	}
	return nil
}

// parseHandlerList reads the handlers: header: handler names separated by
// commas, each known and named once.
func parseHandlerList(n int, value string) ([]string, error) {
	var known []string
	for _, h := range handlers.List() {
		known = append(known, h.Name)
	}
	for _, h := range handlers.APIList() {
		known = append(known, h.Name)
	}
	var out []string
	for _, name := range strings.Split(value, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			return nil, errf(n, "script.handlers-empty")
		case !slices.Contains(known, name):
			return nil, errf(n, "script.handlers-unknown", strconv.Quote(name), strings.Join(known, ", "))
		case slices.Contains(out, name):
			return nil, errf(n, "script.handlers-twice", name)
		}
		out = append(out, name)
	}
	return out, nil
}

func (p *parser) step(n int, verb string, args []string) (Step, error) {
	st := Step{Verb: verb}
	var opts map[string]string
	var err error
	if err := p.side(n, verb, args); err != nil {
		return st, err
	}
	switch verb {
	case VerbRequest, VerbRequestConcurrent:
		return p.apiStep(n, verb, args)
	case VerbComplete:
		if len(args) > 0 {
			return st, errf(n, "script.complete-arguments", strconv.Quote(strings.Join(args, " ")))
		}
		st.API = true
	case VerbProduce:
		return p.produceStep(n, args)
	case VerbRelay:
		return relayStep(n, args)
	case VerbDeliverBatch:
		return batchStep(n, args)
	case VerbRetry:
		if len(args) > 0 && p.intents[intentKey{requestTenant(args), args[0]}] == requested {
			return p.apiStep(n, verb, args)
		}
		fallthrough
	case VerbPublish, VerbChangePayload, VerbShip:
		if len(args) == 0 || strings.Contains(args[0], "=") {
			return st, errf(n, "script.op-missing", verb, usage(verb))
		}
		st.Op = args[0]
		if err := checkID(n, "operation id", st.Op); err != nil {
			return st, err
		}
		allowed := map[string][]string{
			VerbPublish:       {"amount", "tenant", "account", "key", "kind", "order"},
			VerbRetry:         {"tenant"},
			VerbChangePayload: {"amount", "tenant"},
			VerbShip:          {"tenant"},
		}[verb]
		if opts, err = options(n, verb, args[1:], allowed); err != nil {
			return st, err
		}
		if st.Tenant, err = idOption(n, opts, "tenant", DefaultTenant); err != nil {
			return st, err
		}
		ik := intentKey{st.Tenant, st.Op}
		if verb == VerbPublish {
			if p.intents[ik] != 0 {
				return st, errf(n, "script.publish-again", st.Op, st.Tenant)
			}
			p.intents[ik] = published
			if st.Account, err = idOption(n, opts, "account", DefaultAccount); err != nil {
				return st, err
			}
			st.KeyMode = KeyOp
			if k, ok := opts["key"]; ok {
				if k != KeyOp && k != KeyV7 && k != KeyFresh {
					return st, errf(n, "script.key-mode", k)
				}
				st.KeyMode = k
			}
			if err := p.kind(n, &st, opts); err != nil {
				return st, err
			}
		} else if verb == VerbShip && p.refunds[ik] {
			return st, errf(n, "script.ship-refund", st.Op, st.Tenant)
		} else if p.intents[ik] != published {
			return st, errf(n, "script.not-published", verb, st.Op, st.Tenant)
		}
		if verb == VerbPublish || verb == VerbChangePayload {
			v, ok := opts["amount"]
			if !ok {
				return st, errf(n, "script.amount-missing", verb, usage(verb))
			}
			var aerr *Error
			if st.Amount, aerr = parseAmount(v); aerr != nil {
				return st, wrapf(n, aerr, "amount=%s", v)
			}
		}
	case VerbDeliver:
		// deliver OP: the oldest ready message of that operation, not the
		// oldest of all: messages arrive out of order.
		if len(args) > 0 && !strings.Contains(args[0], "=") {
			st.Op, args = args[0], args[1:]
			if err := checkID(n, "operation id", st.Op); err != nil {
				return st, err
			}
			if !p.anyTenant(st.Op) {
				return st, errf(n, "script.deliver-unpublished", st.Op, st.Op, usage(VerbDeliver))
			}
		}
		if opts, err = options(n, verb, args, []string{"crash"}); err != nil {
			return st, err
		}
		if c, ok := opts["crash"]; ok {
			if _, _, call := CallCrash(c); !call && c != CrashBeforeEffect && c != CrashAfterEffect && c != CrashBeforeAck {
				return st, errf(n, "script.crash-point", c, MaxCall)
			}
			st.Crash = c
		}
	case VerbDeliverConcurrent:
		all := strings.Join(args, " ")
		if len(args) > 0 && args[0] == "same" {
			st.Same, args = true, args[1:]
		}
		for _, a := range args {
			v, ok := strings.CutPrefix(a, "switch=")
			if !ok || st.Switch != nil {
				return st, errf(n, "script.deliver-concurrent-arguments", strconv.Quote(all), usage(verb))
			}
			var serr *Error
			if st.Switch, serr = parseSwitch(n, v); serr != nil {
				return st, serr
			}
		}
	case VerbDuplicate:
		return p.duplicateStep(n, args)
	case VerbRedeliver, VerbDLQReplay, VerbDrain:
		if len(args) > 0 {
			return st, errf(n, "script.no-arguments", verb, strconv.Quote(strings.Join(args, " ")))
		}
	case VerbAdvance:
		if len(args) != 1 {
			return st, errf(n, "script.advance-duration", usage(verb))
		}
		var derr *Error
		if st.Advance, derr = parseDuration(args[0]); derr != nil {
			return st, wrapf(n, derr, "advance")
		}
	case VerbGateway:
		arg := strings.Join(args, " ")
		switch {
		case arg == GatewayUp, arg == GatewayDown, arg == GatewayTimeout, arg == GatewayDedupOn, arg == GatewayDedupOff:
			st.Gateway = arg
		case len(args) == 2 && args[0] == GatewayStall:
			var derr *Error
			if st.Stall, derr = parseDuration(args[1]); derr != nil {
				return st, wrapf(n, derr, "gateway stall")
			}
			st.Gateway = GatewayStall
		default:
			return st, errf(n, "script.gateway-setting", strconv.Quote(arg), usage(verb))
		}
		st.Up = st.Gateway == GatewayUp
	default:
		return st, errf(n, "script.verb-unknown", strconv.Quote(verb), strings.Join(Verbs(), ", "))
	}
	return st, nil
}

func usage(verb string) string {
	switch verb {
	case VerbPublish:
		return "publish pay-1 amount=100 [tenant=acme] [account=alice] [key=op|v7|fresh] [kind=payment|refund order=pay-0]"
	case VerbRetry:
		return "retry pay-1 [tenant=acme]"
	case VerbChangePayload:
		return "change-payload pay-1 amount=150 [tenant=acme]"
	case VerbShip:
		return "ship pay-1 [tenant=acme]"
	case VerbAdvance:
		return "advance 25h (units: s, m, h, d)"
	case VerbGateway:
		return "gateway down, gateway timeout, gateway dedup on, gateway stall 90m"
	case VerbDeliverConcurrent:
		return "deliver-concurrent [same] [switch=2,5]"
	case VerbDeliver:
		return "deliver [pay-1] [crash=before-ack]"
	case VerbRequest:
		return "request pay-1 amount=100 [tenant=acme] [account=alice] [key=op|fresh|none] [lose-response] [crash=after-effect]"
	case VerbRequestConcurrent:
		return "request-concurrent pay-1 [amount=100] [switch=2,5]"
	case VerbComplete:
		return "complete"
	case VerbProduce:
		return "produce pay-1 amount=100 [tenant=acme] [account=alice] [mode=dual-write|publish-first|outbox] [crash=after-commit|after-publish]"
	case VerbRelay:
		return "relay [crash=after-publish]"
	case VerbDeliverBatch:
		return "deliver-batch 3 [commit=after|before] [crash=after-message:2]"
	case VerbDuplicate:
		return "duplicate [pay-1] (broker: sqs)"
	}
	return verb
}

// options reads name=value arguments, allowing only the names given.
func options(n int, verb string, args []string, allowed []string) (map[string]string, error) {
	opts := map[string]string{}
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		if !ok {
			return nil, errf(n, "script.option-syntax", verb, strconv.Quote(a), optionList(allowed))
		}
		valid := false
		for _, x := range allowed {
			valid = valid || x == name
		}
		if !valid {
			return nil, errf(n, "script.option-unknown", verb, strconv.Quote(name), optionList(allowed))
		}
		if _, dup := opts[name]; dup {
			return nil, errf(n, "script.option-twice", verb, name)
		}
		opts[name] = value
	}
	return opts, nil
}

func optionList(allowed []string) string {
	if len(allowed) == 0 {
		return "none"
	}
	return strings.Join(allowed, ", ")
}

func idOption(n int, opts map[string]string, name, def string) (string, error) {
	v, ok := opts[name]
	if !ok {
		return def, nil
	}
	return v, checkID(n, name, v)
}

// checkID accepts any printable text without spaces up to MaxKeyBytes:
// real idempotency keys are often UUIDs or composite strings.
func checkID(n int, what, v string) error {
	switch {
	case v == "":
		return errf(n, "script.id-empty", what)
	case len(v) > MaxKeyBytes:
		return errf(n, "script.id-too-long", what, len(v), MaxKeyBytes)
	case strings.ContainsFunc(v, func(r rune) bool { return !unicode.IsPrint(r) }):
		return errf(n, "script.id-unprintable", what, strconv.Quote(v))
	}
	return nil
}

// parseSwitch reads the calls of switch=A[,B]: one or two numbers from 1
// to MaxCall.
func parseSwitch(n int, v string) ([]int, *Error) {
	parts := strings.Split(v, ",")
	if len(parts) > 2 {
		return nil, errf(n, "script.switch-too-many", v)
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		c, err := strconv.Atoi(p)
		if err != nil || c < 1 || c > MaxCall || strconv.Itoa(c) != p {
			return nil, errf(n, "script.switch-call", v, strconv.Quote(p), MaxCall)
		}
		out[i] = c
	}
	return out, nil
}

func parseAmount(v string) (int64, *Error) {
	a, err := strconv.ParseInt(v, 10, 64)
	if err != nil || a <= 0 || a > MaxAmount {
		return 0, errf(0, "script.amount-invalid", int64(MaxAmount))
	}
	return a, nil
}

// durationSyntax is the grammar of time.ParseDuration: a sign, then one or
// more numbers, each with a unit.
var durationSyntax = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))*$`)
})

// parseDuration reads Go durations (90s, 15m, 1h30m) and whole days (2d).
func parseDuration(v string) (time.Duration, *Error) {
	bad := errf(0, "script.duration-invalid", strconv.Quote(v))
	outOfRange := errf(0, "script.duration-range", strconv.Quote(v))
	if days, ok := strings.CutSuffix(v, "d"); ok && days != "" && !strings.ContainsAny(days, "hms") {
		n, err := strconv.Atoi(days)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return 0, outOfRange
		case err != nil:
			return 0, bad
		case n < 1 || n > int(maxDuration/(24*time.Hour)):
			return 0, outOfRange
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		// Go refuses a well-formed duration that overflows int64
		// nanoseconds (about 292 years) with the same error as nonsense.
		if durationSyntax().MatchString(v) {
			return 0, outOfRange
		}
		return 0, bad
	}
	if d < time.Second || d > maxDuration {
		return 0, outOfRange
	}
	return d, nil
}

// String renders the step in canonical script form.
func (st Step) String() string {
	var b strings.Builder
	b.WriteString(st.Verb)
	switch st.Verb {
	case VerbPublish:
		fmt.Fprintf(&b, " %s amount=%d", st.Op, st.Amount)
		if st.Tenant != DefaultTenant {
			b.WriteString(" tenant=" + st.Tenant)
		}
		if st.Account != DefaultAccount {
			b.WriteString(" account=" + st.Account)
		}
		if st.KeyMode != KeyOp {
			b.WriteString(" key=" + st.KeyMode)
		}
		if st.Kind == KindRefund {
			b.WriteString(" kind=refund order=" + st.Order)
		}
	case VerbRequest, VerbRequestConcurrent:
		writeRequest(&b, st)
	case VerbProduce:
		writeProduce(&b, st)
	case VerbDeliverBatch:
		writeBatch(&b, st)
	case VerbRelay:
		if st.Crash != "" {
			b.WriteString(" crash=" + st.Crash)
		}
	case VerbRetry, VerbShip, VerbChangePayload:
		if st.Verb == VerbRetry && st.API {
			writeRequest(&b, st)
			break
		}
		b.WriteString(" " + st.Op)
		if st.Verb == VerbChangePayload {
			fmt.Fprintf(&b, " amount=%d", st.Amount)
		}
		if st.Tenant != DefaultTenant {
			b.WriteString(" tenant=" + st.Tenant)
		}
	case VerbDeliver, VerbDuplicate:
		if st.Op != "" {
			b.WriteString(" " + st.Op)
		}
		if st.Crash != "" {
			b.WriteString(" crash=" + st.Crash)
		}
	case VerbAdvance:
		b.WriteString(" " + formatDuration(st.Advance))
	case VerbDeliverConcurrent:
		if st.Same {
			b.WriteString(" same")
		}
		if st.Switch != nil {
			b.WriteString(" switch=" + switchText(st.Switch))
		}
	case VerbGateway:
		switch {
		case st.Gateway == GatewayStall:
			b.WriteString(" stall " + formatDuration(st.Stall))
		case st.Gateway != "":
			b.WriteString(" " + st.Gateway)
		case st.Up: // a Step built in code with Up alone
			b.WriteString(" up")
		default:
			b.WriteString(" down")
		}
	}
	return b.String()
}

// switchText writes switch=A[,B]'s calls as the parser reads them.
func switchText(calls []int) string {
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

// FormatDuration writes a duration as scripts write it: 2m, 1h30m, 3d.
func FormatDuration(d time.Duration) string { return formatDuration(d) }

// formatDuration writes whole days as Nd and everything else as Go does,
// without the zero units Go adds (1h0m0s becomes 1h).
func formatDuration(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// String renders the script in canonical form: the headers that differ from
// the defaults, then one step per line with its narration. Parsing the
// result gives the same script.
func (s *Script) String() string {
	var b strings.Builder
	header := func(name, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	header("title", s.Title)
	header("title-ru", s.TitleRU)
	header("summary", s.Summary)
	header("summary-ru", s.SummaryRU)
	// The broker's profile, then only what differs from it.
	prof := s.Profile()
	header("broker", s.Broker)
	if s.MaxDeliveries != prof.MaxDeliveries {
		fmt.Fprintf(&b, "max-deliveries: %d\n", s.MaxDeliveries)
	}
	if s.ProcessingTTL != DefaultProcessingTTL {
		header("processing-ttl", formatDuration(s.ProcessingTTL))
	}
	if s.DoneTTL != DefaultDoneTTL {
		header("done-ttl", formatDuration(s.DoneTTL))
	}
	if s.InboxRetention != 0 {
		header("inbox-retention", formatDuration(s.InboxRetention))
	}
	if s.DedupWindow != prof.DedupWindow {
		header("dedup-window", offOr(s.DedupWindow))
	}
	if s.KeyTTL != DefaultKeyTTL {
		header("key-ttl", formatDuration(s.KeyTTL))
	}
	if s.VisibilityTimeout != prof.VisibilityTimeout {
		header("visibility-timeout", offOr(s.VisibilityTimeout))
	}
	if s.PastLimit != prof.PastLimit {
		header("past-limit", s.PastLimit)
	}
	header("client-retry", s.ClientRetry.String())
	if s.ServerCapacity != 0 {
		fmt.Fprintf(&b, "server-capacity: %d\n", s.ServerCapacity)
	}
	header("handlers", strings.Join(s.Handlers, ","))
	header("goal", s.Goal)
	for _, st := range s.Steps {
		header("#en", st.NarrationEN)
		header("#ru", st.NarrationRU)
		b.WriteString(st.String() + "\n")
	}
	return b.String()
}

// offOr writes a duration header that "off" turns off.
func offOr(d time.Duration) string {
	if d == 0 {
		return "off"
	}
	return formatDuration(d)
}
