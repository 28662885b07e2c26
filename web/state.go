package web

import (
	"errors"
	"github.com/idempotency-lab/lab/web/page"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
)

// labState is everything a lab page shows, and all of it travels in the
// URL: the script, the handlers it runs on and the step being looked at.
type labState struct {
	script   *sim.Script
	preset   string   // the preset the script is, unchanged; "" when it is not one
	handlers []string // handler names, in the order the cards show them
	step     int      // show the world after this many steps (0 to len(script.Steps))
	// challenge is the goal the reader is working on (challenges.go),
	// nil for none: it travels in the URL like everything else.
	challenge *practice.Challenge
}

func (st labState) total() int { return len(st.script.Steps) }

// readState reads a lab state from URL query values or a form: one of
// preset=NAME, s=PERMALINK or script=TEXT (none: the empty script),
// handlers=a,b (repeatable; default: the core handlers) and step=N
// (default: the end). Every error is an *httpError with status 400.
func (s *LvLab) readState(v url.Values) (labState, error) {
	var st labState
	var err error
	// An empty value counts as absent: the picker's "empty scenario"
	// option sends preset= with nothing after it.
	has := func(k string) bool { return v.Get(k) != "" }
	given := 0
	for _, k := range []string{"preset", "s", "script"} {
		if has(k) {
			given++
		}
	}
	if given > 1 {
		return st, page.BadRequest("err.sources")
	}
	switch {
	case has("preset"):
		name := v.Get("preset")
		p, ferr := sim.FindPreset(s.Presets, name)
		if ferr != nil {
			return st, page.BadRequest("err.preset", name, strings.Join(s.presetNames(), ", "))
		}
		st.script, st.preset = p.Script, p.Name
	case has("s"):
		text, derr := decodePermalink(v.Get("s"))
		var pe *permalinkError
		if errors.As(derr, &pe) {
			return st, page.BadRequest(pe.key, pe.args...)
		}
		if st.script, err = parseScript(text, "err.script"); err != nil {
			return st, err
		}
	case has("script"):
		if st.script, err = parseScript(v.Get("script"), "err.script"); err != nil {
			return st, err
		}
	default:
		// The empty script, with the engine's defaults in its header.
		if st.script, err = sim.Parse(""); err != nil {
			return st, err
		}
	}
	if st.preset == "" {
		st.preset = s.ByScript[st.script.String()]
	}
	if has("challenge") {
		c, cerr := practice.FindChallenge(v.Get("challenge"))
		if cerr != nil {
			return st, page.BadRequest("err.challenge", v.Get("challenge"), strings.Join(challengeIDs(), ", "))
		}
		st.challenge = &c
	}
	if st.handlers, err = s.readHandlers(v["handlers"]); err != nil {
		return st, err
	}
	if len(v["handlers"]) == 0 {
		st.handlers = s.defaultHandlersOf(st)
	}
	if c := st.challenge; c != nil && !slices.Contains(st.handlers, c.Handler) {
		// The goal is judged on its handler's card: it is always shown.
		st.handlers = append([]string{c.Handler}, st.handlers...)
	}
	st.step = st.defaultStep()
	if v.Has("step") {
		raw := v.Get("step")
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || n < 0 || n > st.total() {
			return st, page.BadRequest("err.step", raw, st.total())
		}
		st.step = n
	}
	return st, nil
}

// parseScript parses script text; a syntax error becomes a 400 whose
// message is the parser's own (it names the line and the valid choices).
func parseScript(text, key string) (*sim.Script, error) {
	sc, err := sim.Parse(text)
	if err != nil {
		e := page.BadRequest(key, page.ParseMessage(err, true))
		e.Script = text
		return nil, e
	}
	if err := checkCanonical(sc); err != nil {
		err.(*page.Error).Script = text
		return nil, err
	}
	return sc, nil
}

// readHandlers accepts repeated values and comma-separated lists, and the
// words core and all. No value means the core handlers.
func (s *LvLab) readHandlers(values []string) ([]string, error) {
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

// defaultHandlers are the handlers a script runs on when the address names
// none: the core handlers and those its handlers: header declares, in the
// order of the handler list.
func (s *LvLab) defaultHandlers(sc *sim.Script) []string {
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

// defaultHandlersOf is defaultHandlers for a state: a challenge shows its
// own handlers, and those the script's header adds.
func (s *LvLab) defaultHandlersOf(st labState) []string {
	if st.challenge == nil {
		return s.defaultHandlers(st.script)
	}
	out := slices.Clone(st.challenge.Handlers)
	for _, h := range s.Handlers {
		if slices.Contains(st.script.Handlers, h.Name) && !slices.Contains(out, h.Name) {
			out = append(out, h.Name)
		}
	}
	return out
}

// defaultStep is the step an address without step= shows: a preset opens
// at its first step, so its story unfolds step by step (as in the
// presenter); any other script at its end.
func (st labState) defaultStep() int {
	if st.preset != "" {
		return 0
	}
	return st.total()
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

func (s *LvLab) presetNames() []string {
	names := make([]string, len(s.Presets))
	for i, p := range s.Presets {
		names[i] = p.Name
	}
	return names
}

func (s *LvLab) handlerNames() []string {
	names := make([]string, len(s.Handlers))
	for i, h := range s.Handlers {
		names[i] = h.Name
	}
	return names
}

// query is the state's canonical query string without the step: preset=
// for an unchanged preset, s= for any other script, handlers= when they
// are not the script's default set (defaultHandlers). Commas stay unescaped, for a readable address.
func (s *LvLab) query(st labState) string {
	var parts []string
	switch text := st.script.String(); {
	case st.preset != "":
		parts = append(parts, "preset="+url.QueryEscape(st.preset))
	case text != "":
		parts = append(parts, "s="+encodePermalink(text))
	}
	if st.challenge != nil {
		parts = append(parts, "challenge="+url.QueryEscape(st.challenge.ID))
	}
	if !slices.Equal(st.handlers, s.defaultHandlersOf(st)) {
		hs := make([]string, len(st.handlers))
		for i, h := range st.handlers {
			hs[i] = url.QueryEscape(h)
		}
		parts = append(parts, "handlers="+strings.Join(hs, ","))
	}
	return strings.Join(parts, "&")
}

// labURL is the canonical address of the lab at a step; the state's
// default step (labState.defaultStep) needs no step=.
func labURL(query string, step, def int) string {
	if step != def {
		if query != "" {
			query += "&"
		}
		query += "step=" + strconv.Itoa(step)
	}
	if query == "" {
		return "/lab"
	}
	return "/lab?" + query
}

// withSteps returns a copy of the script with only its first n steps.
func withSteps(sc *sim.Script, n int) *sim.Script {
	c := *sc
	c.Steps = c.Steps[:n:n]
	return &c
}

// stepLine builds one script line from a step form. It only assembles
// words; the parser then judges the line in the context of the script, so
// the web and the script language accept exactly the same steps.
func stepLine(f url.Values) (string, error) {
	verb := strings.TrimSpace(f.Get("verb"))
	if !slices.Contains(sim.Verbs(), verb) {
		return "", page.BadRequest("err.verb", verb, strings.Join(sim.Verbs(), ", "))
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
		if tenant != sim.DefaultTenant {
			words = append(words, "tenant="+tenant)
		}
		return nil
	}
	var err error
	switch verb {
	case sim.VerbPublish:
		op := strings.TrimSpace(f.Get("op"))
		if strings.ContainsFunc(op, isSpace) {
			return "", page.BadRequest("err.field", "op")
		}
		if op != "" {
			words = append(words, op)
		}
		err = errors.Join(opt("amount", "amount"), opt("tenant", "tenant"), opt("key", "key"))
	case sim.VerbRetry, sim.VerbShip:
		err = target()
	case sim.VerbChangePayload:
		err = errors.Join(target(), opt("amount", "amount"))
	case sim.VerbDeliver:
		err = opt("crash", "crash")
	case sim.VerbAdvance:
		d := strings.TrimSpace(f.Get("duration"))
		if strings.ContainsFunc(d, isSpace) {
			return "", page.BadRequest("err.field", "duration")
		}
		words = append(words, d)
	case sim.VerbGateway:
		// The buttons send one of the settings that need no number; the
		// parser judges anything else ("dedup on" is two words).
		st := strings.TrimSpace(f.Get("state"))
		switch st {
		case sim.GatewayDedupOn, sim.GatewayDedupOff:
		default:
			if strings.ContainsFunc(st, isSpace) {
				return "", page.BadRequest("err.field", "state")
			}
		}
		words = append(words, st)
	case sim.VerbDeliverConcurrent:
		if f.Get("same") != "" {
			words = append(words, "same")
		}
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
