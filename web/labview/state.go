package labview

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
)

// State is everything a lab page shows, and all of it travels in the
// URL: the script, the handlers it runs on and the step being looked at.
type State struct {
	Script   *script.Script
	Preset   string   // the preset the script is, unchanged; "" when it is not one
	Handlers []string // handler names, in the order the cards show them
	Step     int      // show the world after this many steps (0 to len(script.Steps))
	// Challenge is the goal the reader is working on (challenge.go),
	// nil for none: it travels in the URL like everything else. A
	// script's goal: header makes one of its own (Challenge.Shared).
	Challenge *practice.Challenge
	// ShowSolution is solution=1: the challenge's solution is shown,
	// once the reader has made a try (challenge.go).
	ShowSolution bool
	// Code is a handler file a person wrote (code=, compressed like s=),
	// run beside the lab's handlers in the sandbox under the name
	// CodeName (name=, default "yours"); "" for none.
	Code     string
	CodeName string
	// Real runs the lab's handlers on the server's real PostgreSQL and
	// Redis (engine=real) instead of the embedded SQLite and miniredis.
	Real bool
	// Broker is the real broker the broker steps run on (broker=: nats,
	// kafka), under that broker's profile; "" for the lab's own model.
	Broker string
}

func (st State) Total() int { return len(st.Script.Steps) }

// ReadState reads a lab state from URL query values or a form: one of
// preset=NAME, s=PERMALINK or script=TEXT (none: the empty script),
// handlers=a,b (repeatable; default: the core handlers, and for a script
// of API requests every API handler; a handler of the other side is a
// 400), prefer=a,b (the handlers to keep when they serve the script's
// side) and step=N (default: the end). Every error is a *page.Error with
// status 400 (or 404 for an engine or a file this lab does not run).
func (s *Replayer) ReadState(v url.Values) (State, error) {
	var st State
	var err error
	// link.Parse reads the address; what it cannot read is reported here
	// in the order the lab judges the rest (addrErr), as it always was.
	l, lerr := link.Parse(v)
	addrErr := func(param string) error {
		if e := link.ErrorAt(lerr, param); e != nil {
			return page.BadRequest(e.Key, e.Args...)
		}
		return nil
	}
	if err := addrErr(""); err != nil {
		return st, err
	}
	switch {
	case l.Preset != "":
		name := l.Preset
		p, ferr := sim.FindPreset(s.AllPresets(), name)
		if ferr != nil {
			return st, page.BadRequest("err.preset", name, strings.Join(s.PresetNames(), ", "))
		}
		st.Script, st.Preset = p.Script, p.Name
	case v.Get("s") != "":
		if err := addrErr("s"); err != nil {
			return st, err
		}
		if st.Script, err = ParseScript(l.Script, "err.script"); err != nil {
			return st, err
		}
	case l.Plain:
		if st.Script, err = ParseScript(l.Script, "err.script"); err != nil {
			return st, err
		}
	default:
		// The empty script, with the engine's defaults in its header.
		if st.Script, err = script.Parse(""); err != nil {
			return st, err
		}
	}
	if st.Preset == "" {
		st.Preset = s.ByScript[st.Script.String()]
	}
	if l.Challenge != "" && st.Script.Goal != "" {
		// One goal at a time: a listed challenge's, or the script's own.
		return st, page.BadRequest("err.goalandchallenge", l.Challenge)
	}
	if e := link.ErrorAt(lerr, "solution"); e != nil {
		return st, page.BadRequest(e.Key, e.Args...)
	}
	st.ShowSolution = l.Solution
	if st.Script.Goal != "" {
		// ParseScript judged the goal line; a preset has none.
		c, _ := practice.SharedChallenge(st.Script.Goal, st.Script)
		st.Challenge = &c
	}
	if l.Challenge != "" {
		c, cerr := practice.FindChallenge(l.Challenge)
		if cerr != nil {
			return st, page.BadRequest("err.challenge", l.Challenge, strings.Join(ChallengeIDs(), ", "))
		}
		st.Challenge = &c
		// A goal is judged on its handler's card, which runs the scripts
		// of its side only. The empty script is either side's start (the
		// lab offers both), so it is the person's way back after undoing
		// an API challenge's first request.
		if st.Script.API != c.API && len(st.Script.Steps) > 0 {
			if c.API {
				return st, page.BadRequest("err.challengebroker", c.ID)
			}
			return st, page.BadRequest("err.challengeapi", c.ID)
		}
	}
	if v.Get("code") != "" {
		rest := url.Values{}
		for k, vs := range v {
			if k != "code" && k != "name" {
				rest[k] = vs
			}
		}
		if st.Code, st.CodeName, err = s.readCode(l.Code, addrErr("code"), l.Name, rest.Encode()); err != nil {
			return st, err
		}
		// A handler file serves one side: a message handler's runs on
		// scripts that publish messages, an API handler's on scripts of
		// requests.
		if f, _ := sandbox.Parse(st.Code); f != nil && f.API != st.Script.API {
			if st.Script.API {
				return st, page.BadRequest("err.codeapi")
			}
			return st, CodeError(&sandbox.Error{Text: narration.T("sandbox.api-file-message-script")}, st.Code, st.CodeName, rest.Encode())
		}
	}
	if err := addrErr("engine"); err != nil {
		return st, err
	}
	if l.Engine == link.EngineReal {
		if s.Engine == nil {
			return st, &page.Error{Status: http.StatusNotFound, Key: "err.noengine"}
		}
		st.Real = true
	}
	if err := addrErr("broker"); err != nil {
		return st, err
	}
	if l.Broker != "" {
		if err := s.brokerFits(l.Broker, st); err != nil {
			return st, err
		}
		st.Broker = l.Broker
	}
	if err := addrErr("handlers"); err != nil {
		return st, err
	}
	if st.Handlers, err = s.ReadHandlersFor(st.Script, l.Handlers); err != nil {
		return st, err
	}
	if l.Handlers == nil {
		st.Handlers = s.defaultHandlersOf(st)
		// prefer= is the handlers the preset picker carries over from the
		// page it was on: kept when they serve the new script's side, else
		// the new script's default (a picker moving from the broker side
		// to the API side cannot know which it will be).
		if len(l.Prefer) > 0 {
			if hs, perr := s.ReadHandlersFor(st.Script, l.Prefer); perr == nil {
				st.Handlers = hs
			}
		}
	}
	if c := st.Challenge; c != nil && c.API == st.Script.API && !slices.Contains(st.Handlers, c.Handler) {
		// The goal is judged on its handler's card: it is always shown.
		st.Handlers = append([]string{c.Handler}, st.Handlers...)
	}
	st.Step = st.DefaultStep()
	if link.ErrorAt(lerr, "step") != nil || l.HasStep && l.Step > st.Total() {
		return st, page.BadRequest("err.step", v.Get("step"), st.Total())
	}
	if l.HasStep {
		st.Step = l.Step
	}
	return st, nil
}

// ParseScript parses script text; a syntax error becomes a 400 whose
// message is the parser's own (it names the line and the valid choices).
func ParseScript(text, key string) (*script.Script, error) {
	sc, err := script.Parse(text)
	if err != nil {
		e := page.BadRequest(key, page.ParseMessage(err, true))
		e.Script = text
		return nil, e
	}
	if sc.Goal != "" {
		// A goal: header makes the script a challenge of its own: its
		// line must read as a goal of the script's side.
		if _, gerr := practice.SharedChallenge(sc.Goal, sc); gerr != nil {
			var ge *practice.GoalError
			if errors.As(gerr, &ge) {
				gerr = &script.Error{Line: sc.GoalLine, Text: narration.T("script.given", "goal: ", ge.In("en"), ge.In("ru"))}
			}
			e := page.BadRequest(key, page.ParseMessage(gerr, true))
			e.Script = text
			return nil, e
		}
	}
	if err := CheckCanonical(sc); err != nil {
		err.(*page.Error).Script = text
		return nil, err
	}
	return sc, nil
}

// ReadHandlers accepts repeated values and comma-separated lists, and the
// words core and all. No value means the core handlers.
func (s *Replayer) ReadHandlers(values []string) ([]string, error) {
	var names []string
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		if len(values) > 0 {
			return nil, page.BadRequest("err.nohandlers")
		}
		return s.CoreNames, nil
	}
	var out []string
	for _, n := range names {
		switch n {
		case "core":
			out = append(out, s.CoreNames...)
			continue
		case "all":
			for _, h := range s.Handlers {
				out = append(out, h.Name)
			}
			continue
		}
		if !slices.ContainsFunc(s.Handlers, func(h handlers.Info) bool { return h.Name == n }) {
			return nil, page.BadRequest("err.handler", n, strings.Join(s.handlerNames(), ", "))
		}
		out = append(out, n)
	}
	return dedupe(out), nil
}

// ReadHandlersFor is ReadHandlers for a script's side: an API script's
// handlers are the API handlers (core and all are all of them, and no
// value means all of them too); a handler of the other side is a 400 that
// says so and names the valid ones.
func (s *Replayer) ReadHandlersFor(sc *script.Script, values []string) ([]string, error) {
	if !sc.API {
		out, err := s.ReadHandlers(values)
		if err != nil {
			for _, n := range link.SplitNames(values) {
				if slices.Contains(names(s.APIHandlers), n) {
					return nil, page.BadRequest("err.handlerside.api", n, strings.Join(s.handlerNames(), ", "))
				}
			}
		}
		return out, err
	}
	all := names(s.APIHandlers)
	given := link.SplitNames(values)
	if len(given) == 0 {
		if len(values) > 0 {
			return nil, page.BadRequest("err.nohandlers")
		}
		return all, nil
	}
	var out []string
	for _, n := range given {
		switch {
		case n == "core" || n == "all":
			out = append(out, all...)
		case slices.Contains(all, n):
			out = append(out, n)
		case slices.Contains(s.handlerNames(), n):
			return nil, page.BadRequest("err.handlerside.msg", n, strings.Join(all, ", "))
		default:
			return nil, page.BadRequest("err.handler.api", n, strings.Join(all, ", "))
		}
	}
	return dedupe(out), nil
}

func names(hs []handlers.Info) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	return out
}

// SideHandlers are the handlers of the script's side: the API handlers
// for a script of requests, the message handlers for the rest.
func (s *Replayer) SideHandlers(sc *script.Script) []handlers.Info {
	if sc.API {
		return s.APIHandlers
	}
	return s.Handlers
}

// AllPresets are the broker's presets, then the API side's.
func (s *Replayer) AllPresets() []sim.Preset {
	return append(s.Presets[:len(s.Presets):len(s.Presets)], s.APIPresets...)
}

// defaultHandlers are the handlers a script runs on when the address names
// none: the core handlers and those its handlers: header declares, in the
// order of the handler list; for an API script, every API handler.
func (s *Replayer) defaultHandlers(sc *script.Script) []string {
	if sc.API {
		return names(s.APIHandlers)
	}
	if len(sc.Handlers) == 0 {
		return s.CoreNames
	}
	var out []string
	for _, h := range s.Handlers {
		if slices.Contains(s.CoreNames, h.Name) || slices.Contains(sc.Handlers, h.Name) {
			out = append(out, h.Name)
		}
	}
	return out
}

// SideChanged is st with a new script: when the script is the other side
// than st's, its handlers become the new script's default, since none of
// st's can run it.
func (s *Replayer) SideChanged(st State, sc *script.Script) State {
	api := st.Script.API
	st.Script = sc
	if sc.API != api {
		st.Handlers = s.defaultHandlersOf(st)
	}
	return st
}

// DefaultHandlersOf is the handlers a state shows when its address names
// none.
func (s *Replayer) DefaultHandlersOf(st State) []string { return s.defaultHandlersOf(st) }

// defaultHandlersOf is defaultHandlers for a state: a challenge shows its
// own handlers, and those the script's header adds.
func (s *Replayer) defaultHandlersOf(st State) []string {
	if st.Challenge == nil || st.Challenge.API != st.Script.API {
		// An API challenge's script with its request undone is the
		// broker side's empty script: its handlers are that side's.
		return s.defaultHandlers(st.Script)
	}
	if st.Challenge.Shared {
		// A script's own goal: its side's handlers, the goal's first.
		out := []string{st.Challenge.Handler}
		for _, h := range s.defaultHandlers(st.Script) {
			if h != st.Challenge.Handler {
				out = append(out, h)
			}
		}
		return out
	}
	out := slices.Clone(st.Challenge.Handlers)
	for _, h := range s.Handlers {
		if slices.Contains(st.Script.Handlers, h.Name) && !slices.Contains(out, h.Name) {
			out = append(out, h.Name)
		}
	}
	return out
}

// DefaultStep is the step an address without step= shows: a preset opens
// at its first step, so its story unfolds step by step (as in the
// presenter); any other script at its end.
func (st State) DefaultStep() int {
	if st.Preset != "" {
		return 0
	}
	return st.Total()
}

func dedupe(names []string) []string {
	seen := map[string]bool{}
	out := names[:0:0]
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// PresetNames are the names of every preset, the API side's included.
func (s *Replayer) PresetNames() []string {
	all := s.AllPresets()
	names := make([]string, len(all))
	for i, p := range all {
		names[i] = p.Name
	}
	return names
}

func (s *Replayer) handlerNames() []string {
	names := make([]string, len(s.Handlers))
	for i, h := range s.Handlers {
		names[i] = h.Name
	}
	return names
}

// Link is the state's canonical address without the step: preset= for
// an unchanged preset, s= for any other script, handlers= when they are
// not the script's default set (defaultHandlers), name= when it is not
// DefaultCodeName.
func (s *Replayer) Link(st State) link.Lab {
	var l link.Lab
	if st.Preset != "" {
		l.Preset = st.Preset
	} else {
		l.Script = st.Script.String()
	}
	if st.Challenge != nil && !st.Challenge.Shared {
		l.Challenge = st.Challenge.ID
		l.Solution = st.ShowSolution
	}
	if st.Real {
		l.Engine = link.EngineReal
	}
	l.Broker = st.Broker
	if l.Code = st.Code; st.Code != "" && st.CodeName != DefaultCodeName {
		l.Name = st.CodeName
	}
	if !slices.Equal(st.Handlers, s.defaultHandlersOf(st)) {
		l.Handlers = st.Handlers
	}
	return l
}

// Query is the state's canonical query without the step (Link).
func (s *Replayer) Query(st State) string { return s.Link(st).Query() }

// URL is the canonical address of the lab at a step; the state's
// default step (State.DefaultStep) needs no step=.
func URL(l link.Lab, step, def int) string {
	if step != def {
		l.Step, l.HasStep = step, true
	}
	return l.String()
}

// WithSteps returns a copy of the script with only its first n steps.
func WithSteps(sc *script.Script, n int) *script.Script {
	c := *sc
	c.Steps = c.Steps[:n:n]
	return &c
}

// StepLine builds one script line from a step form. It only assembles
// words; the parser then judges the line in the context of the script, so
// the web and the script language accept exactly the same steps. api says
// the script is the API side's: a retry is then the client's (with its
// optional amount, lose-response and crash), not the producer's.
func StepLine(f url.Values, api bool) (string, error) {
	verb := strings.TrimSpace(f.Get("verb"))
	if !slices.Contains(script.Verbs(), verb) {
		return "", page.BadRequest("err.verb", verb, strings.Join(script.Verbs(), ", "))
	}
	words := []string{verb}
	// opt adds name=value when the field is filled in.
	opt := func(name, field string) error {
		v := strings.TrimSpace(f.Get(field))
		if v == "" {
			return nil
		}
		if strings.ContainsFunc(v, isSpace) {
			return page.BadRequest("err.field", field)
		}
		words = append(words, name+"="+v)
		return nil
	}
	// target adds the operation a retry, change or ship is about: the
	// form's "target" is "TENANT OP" (ids never hold spaces).
	target := func() error {
		tenant, op, ok := strings.Cut(strings.TrimSpace(f.Get("target")), " ")
		if !ok || tenant == "" || op == "" || strings.ContainsFunc(op, isSpace) {
			return page.BadRequest("err.target", verb)
		}
		words = append(words, op)
		if tenant != script.DefaultTenant {
			words = append(words, "tenant="+tenant)
		}
		return nil
	}
	// crash adds crash=, as the deliver buttons send it: the call-crash
	// buttons send crash=call or crash=after-call and the call's number
	// apart.
	crash := func() error {
		switch c := strings.TrimSpace(f.Get("crash")); c {
		case "call", "after-call":
			n := strings.TrimSpace(f.Get("call"))
			if strings.ContainsFunc(n, isSpace) {
				return page.BadRequest("err.field", "call")
			}
			words = append(words, "crash="+c+":"+n)
			return nil
		}
		return opt("crash", "crash")
	}
	// lose adds lose-response when its box is ticked.
	lose := func() error {
		switch strings.TrimSpace(f.Get("lose")) {
		case "":
			return nil
		case "1", "on", "true":
			words = append(words, "lose-response")
			return nil
		}
		return page.BadRequest("err.lose")
	}
	// op adds the operation id of a new request, which it needs.
	op := func() error {
		o := strings.TrimSpace(f.Get("op"))
		if o == "" || strings.ContainsFunc(o, isSpace) {
			return page.BadRequest("err.field", "op")
		}
		words = append(words, o)
		return nil
	}
	var err error
	switch {
	case verb == script.VerbRequest:
		if err = op(); err == nil {
			err = errors.Join(opt("amount", "amount"), opt("tenant", "tenant"), opt("key", "key"), lose(), crash())
		}
	case verb == script.VerbRetry && api:
		if err = target(); err == nil {
			err = errors.Join(opt("amount", "amount"), lose(), crash())
		}
	case verb == script.VerbRequestConcurrent:
		// Two copies of a new request (op=) or of one sent before
		// (target=, the again form's).
		if strings.TrimSpace(f.Get("target")) != "" {
			err = target()
		} else if err = op(); err == nil {
			err = errors.Join(opt("amount", "amount"), opt("tenant", "tenant"), opt("key", "key"))
		}
		if err == nil {
			// request-concurrent has no lose-response and no crash=: a
			// ticked box goes to the parser, which says so.
			err = errors.Join(opt("switch", "switch"), lose(), crash())
		}
	}
	if err != nil {
		var he *page.Error
		if errors.As(err, &he) {
			return "", he
		}
		return "", err
	}
	if verb == script.VerbRequest || verb == script.VerbRequestConcurrent || verb == script.VerbRetry && api {
		return strings.Join(words, " "), nil
	}
	switch verb {
	case script.VerbPublish:
		op := strings.TrimSpace(f.Get("op"))
		if strings.ContainsFunc(op, isSpace) {
			return "", page.BadRequest("err.field", "op")
		}
		if op != "" {
			words = append(words, op)
		}
		err = errors.Join(opt("amount", "amount"), opt("tenant", "tenant"), opt("key", "key"))
		if err == nil && strings.TrimSpace(f.Get("kind")) == script.KindRefund {
			// The refund form: order= is the paid order, "TENANT OP" as
			// the again form's target; the refund is that tenant's.
			tenant, order, ok := strings.Cut(strings.TrimSpace(f.Get("order")), " ")
			if !ok || tenant == "" || order == "" || strings.ContainsFunc(order, isSpace) || strings.ContainsFunc(tenant, isSpace) {
				return "", page.BadRequest("err.order")
			}
			words = append(words, "kind=refund", "order="+order)
			if tenant != script.DefaultTenant && strings.TrimSpace(f.Get("tenant")) == "" {
				words = append(words, "tenant="+tenant)
			}
		} else if err == nil {
			err = opt("kind", "kind")
		}
	case script.VerbProduce:
		// A new order: the operation id it needs, and how the order
		// service commits and publishes it. The parser judges mode= and
		// crash=, and says the valid ones.
		if err = op(); err == nil {
			err = errors.Join(opt("amount", "amount"), opt("tenant", "tenant"))
		}
		if err == nil && strings.TrimSpace(f.Get("mode")) != script.ModeDualWrite {
			err = opt("mode", "mode")
		}
		if err == nil {
			err = opt("crash", "crash")
		}
	case script.VerbRelay:
		err = opt("crash", "crash")
	case script.VerbDeliverBatch:
		n := strings.TrimSpace(f.Get("batch"))
		if k, aerr := strconv.Atoi(n); aerr != nil || k < 1 || k > script.MaxBatch || strconv.Itoa(k) != n {
			return "", page.BadRequest("err.batch", n, script.MaxBatch)
		}
		words = append(words, n)
		if strings.TrimSpace(f.Get("commit")) != script.CommitAfter {
			err = opt("commit", "commit")
		}
		if err == nil {
			err = opt("crash", "crash")
		}
	case script.VerbRetry, script.VerbShip:
		err = target()
	case script.VerbChangePayload:
		err = errors.Join(target(), opt("amount", "amount"))
	case script.VerbDeliver:
		// deliver OP: the oldest ready message of that operation (the
		// "Deliver…" form's choice), out of order.
		if o := strings.TrimSpace(f.Get("op")); o != "" {
			if strings.ContainsFunc(o, isSpace) {
				return "", page.BadRequest("err.field", "op")
			}
			words = append(words, o)
		}
		err = crash()
	case script.VerbAdvance:
		d := strings.TrimSpace(f.Get("duration"))
		if strings.ContainsFunc(d, isSpace) {
			return "", page.BadRequest("err.field", "duration")
		}
		words = append(words, d)
	case script.VerbGateway:
		// The buttons send one of the settings that need no number; the
		// parser judges anything else ("dedup on" is two words).
		st := strings.TrimSpace(f.Get("state"))
		switch st {
		case script.GatewayDedupOn, script.GatewayDedupOff:
		default:
			if strings.ContainsFunc(st, isSpace) {
				return "", page.BadRequest("err.field", "state")
			}
		}
		words = append(words, st)
	case script.VerbDeliverConcurrent:
		if f.Get("same") != "" {
			words = append(words, "same")
		}
		err = opt("switch", "switch")
	}
	if err != nil {
		var he *page.Error
		if errors.As(err, &he) {
			return "", he
		}
		return "", err
	}
	return strings.Join(words, " "), nil
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0xa0
}

// NoIsolation is the error of a page whose file the sandbox refused to
// run because this machine cannot isolate a child (sandbox.ErrNoIsolation):
// the lab's failure, said with its reason, never the file's.
func NoIsolation(err error) *page.Error {
	return &page.Error{Status: http.StatusServiceUnavailable, Key: "err.noisolation", Args: []any{err.Error()}}
}

// CodeOff is the error of a page that would run a handler file on a lab
// that runs none: turned off, or unable to isolate a child (and then
// saying why).
func (s *Replayer) CodeOff() *page.Error {
	if s.NoCode != "" {
		return NoIsolation(errors.New(s.NoCode))
	}
	return &page.Error{Status: http.StatusNotFound, Key: "err.nocode"}
}

// DefaultCodeName is the name of a person's handler when they give none.
const DefaultCodeName = "yours"

// readCode reads code= (a handler file, packed like s=, unpacked by
// link.Parse: text, or the 400 unpackErr) and name=. The file is only
// parsed here (sandbox.Parse: size, syntax, imports, Handle); it runs in
// the sandbox when the state is replayed.
func (s *Replayer) readCode(text string, unpackErr error, name, state string) (code, codeName string, err error) {
	if s.Sandbox == nil {
		return "", "", s.CodeOff()
	}
	if unpackErr != nil {
		return "", "", unpackErr
	}
	if name, err = CodeNameOf(s, name); err != nil {
		return "", "", err
	}
	if _, perr := sandbox.Parse(text); perr != nil {
		return "", "", CodeError(perr, text, name, state)
	}
	return text, name, nil
}

// CodeNameOf checks the name a person gives their handler: a short word
// of lower-case letters, digits and dashes that no handler of the lab has.
func CodeNameOf(s *Replayer, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return DefaultCodeName, nil
	}
	valid := len(name) <= 30
	for _, r := range name {
		valid = valid && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}
	if !valid || slices.Contains(s.handlerNames(), name) || name == "core" || name == "all" {
		return "", page.BadRequest("err.codename", name)
	}
	return name, nil
}

// CodeError is a 422 that shows what is wrong with a handler file (in the
// reader's language, on its line) with the file kept for the editor, and
// the lab state (a query) to run it in again.
func CodeError(err error, code, name, state string) error {
	var se *sandbox.Error
	if !errors.As(err, &se) {
		return err
	}
	return &page.Error{Status: http.StatusUnprocessableEntity, Key: "err.handlerfile",
		Args: []any{page.Bilingual{EN: se.In("en"), RU: se.In("ru")}}, Code: code, CodeName: name, CodeLine: se.Line, CodeState: state}
}

// withoutCode is the state's query with its step, and without its code.
func (s *Replayer) withoutCode(st State) string {
	st.Code = ""
	l := s.Link(st)
	l.Step, l.HasStep = st.Step, true
	return "?" + l.Query()
}

// CodeCheckURL is the checker's page for a handler file.
func CodeCheckURL(code, name string) string {
	u := "/check/code?code=" + link.Pack(code)
	if name != DefaultCodeName {
		u += "&name=" + url.QueryEscape(name)
	}
	return u
}
