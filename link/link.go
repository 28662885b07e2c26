// Package link owns the lab's address: /lab?preset=…&handlers=…&step=…
// as a value. Lab.String writes it in its one canonical form (the page
// cache, the lessons' links and the goldens depend on those bytes) and
// Parse reads it back, with errors that name the key at fault. The
// packing of a script or a handler file into the address (s=, code=:
// DEFLATE, then base64url) lives here too. Whether a preset, a handler
// or a challenge exists, and whether a step is within the script, is
// for the lab to judge (web/labview): this package knows the address's
// shape, not the lab's contents. Standard library only.
package link

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Path is the lab's page.
const Path = "/lab"

// The engines an address can ask for (engine=).
const (
	EngineEmbedded = "embedded"
	EngineReal     = "real"
)

// Brokers are the real brokers an address can ask for (broker=): the
// broker steps then run on that broker instead of the lab's own model
// ("" or "lab", written as nothing). Whether this server offers one is
// the lab's call (rabbitmq only when it was given a RabbitMQ server).
var Brokers = []string{"nats", "kafka", "rabbitmq"}

// BrokerModel is the lab's own broker model, broker=lab: the default, so
// the canonical address writes no broker= for it.
const BrokerModel = "lab"

// Lab is a lab address. The zero value is the bare /lab.
type Lab struct {
	// At most one source: a preset by name (preset=), or a script's text,
	// packed as s= or, when Plain, written out as script=.
	Preset string
	Script string
	Plain  bool
	// Challenge is the id of the goal being worked on (challenge=).
	Challenge string
	// Solution asks the lab to show the challenge's solution
	// (solution=1); whether it does (only after a try) is the lab's call.
	Solution bool
	// Engine is "" (the default), EngineEmbedded or EngineReal (engine=).
	Engine string
	// Broker is "" (the lab's model) or one of Brokers (broker=).
	Broker string
	// Code is a handler file's text, packed as code=; Name (name=) is
	// the name it runs under, written whenever it is set.
	Code string
	Name string
	// Handlers are the handler names to run (handlers=a,b); nil writes
	// none, and the lab shows its default set. Prefer (prefer=) is the
	// handlers the preset picker carries over from the page it was on.
	Handlers []string
	Prefer   []string
	// Step is the step to show (step=), written only when HasStep.
	Step    int
	HasStep bool
}

// Query is the address's canonical query, without the path and "?": the
// keys in the order preset, s or script, challenge, solution, engine, broker, code, name,
// handlers, prefer, step; commas between handler names stay unescaped, for
// a readable address. A field left empty writes nothing.
func (l Lab) Query() string {
	var parts []string
	add := func(k, v string) { parts = append(parts, k+"="+v) }
	if l.Preset != "" {
		add("preset", url.QueryEscape(l.Preset))
	}
	if l.Script != "" {
		if l.Plain {
			add("script", url.QueryEscape(l.Script))
		} else {
			add("s", Pack(l.Script))
		}
	}
	if l.Challenge != "" {
		add("challenge", url.QueryEscape(l.Challenge))
	}
	if l.Solution {
		add("solution", "1")
	}
	if l.Engine != "" {
		add("engine", url.QueryEscape(l.Engine))
	}
	if l.Broker != "" {
		add("broker", url.QueryEscape(l.Broker))
	}
	if l.Code != "" {
		add("code", Pack(l.Code))
	}
	if l.Name != "" {
		add("name", url.QueryEscape(l.Name))
	}
	if l.Handlers != nil {
		add("handlers", names(l.Handlers))
	}
	if l.Prefer != nil {
		add("prefer", names(l.Prefer))
	}
	if l.HasStep {
		add("step", strconv.Itoa(l.Step))
	}
	return strings.Join(parts, "&")
}

// String is the canonical address: /lab, then ? and the Query when there
// is one.
func (l Lab) String() string {
	if q := l.Query(); q != "" {
		return Path + "?" + q
	}
	return Path
}

// Values is the address as url.Values, each key once, handler names
// joined by commas.
func (l Lab) Values() url.Values {
	v, _ := url.ParseQuery(l.Query()) // Query writes only escaped values
	return v
}

// Sorted is the address with its keys in url.Values' order (sorted, every
// value escaped): the form the verdict grid's cells have always linked.
// It opens the same page as String.
func (l Lab) Sorted() string {
	if v := l.Values(); len(v) > 0 {
		return Path + "?" + v.Encode()
	}
	return Path
}

func names(ns []string) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = url.QueryEscape(n)
	}
	return strings.Join(out, ",")
}

// Error is an address that cannot be read: a message catalogue key and its
// arguments, so the page can say it in the reader's language, and the key
// of the address at fault (Param: "s", "code", "step", …; "" for the
// address as a whole).
type Error struct {
	Param string
	Key   string
	Args  []any
}

func (e *Error) Error() string {
	if e.Param == "" {
		return fmt.Sprintf("lab address: %s %v", e.Key, e.Args)
	}
	return fmt.Sprintf("lab address: %s=: %s %v", e.Param, e.Key, e.Args)
}

// The catalogue keys of Parse's errors, beside Unpack's (pl.*).
const (
	KeySources    = "err.sources"    // more than one of preset=, s= and script=
	KeyStep       = "err.step"       // step= is not a whole number from 0; Args: the value
	KeyEngine     = "err.engine"     // engine= is neither embedded nor real; Args: the value
	KeyBroker     = "err.broker"     // broker= is not lab or one of Brokers; Args: the value, the valid choices
	KeyNoHandlers = "err.nohandlers" // handlers= names no handler
	KeySolution   = "err.solution"   // solution= is not 1; Args: the value
)

// Parse reads a lab address from its query values (or a form). A key
// given empty counts as absent, except handlers= and step=, which must
// then say something. Unknown keys are ignored. Each key is read on its
// own: the Lab holds every key that could be read, and the error, if
// any, joins an *Error per key that could not (in the order of Query;
// ErrorAt picks one out), so the lab can report them in the order it
// judges the address. An error of the sources (KeySources) leaves
// Preset and Script empty.
func Parse(v url.Values) (Lab, error) {
	var l Lab
	var errs []error
	fail := func(param, key string, args ...any) { errs = append(errs, &Error{param, key, args}) }
	given := 0
	for _, k := range []string{"preset", "s", "script"} {
		if v.Get(k) != "" {
			given++
		}
	}
	if given > 1 {
		fail("", KeySources)
	} else {
		l.Preset, l.Script = v.Get("preset"), v.Get("script")
		l.Plain = l.Script != ""
		if packed := v.Get("s"); packed != "" {
			text, err := Unpack(packed)
			if err != nil {
				errs = append(errs, at("s", err))
			}
			l.Script = text
		}
	}
	l.Challenge = v.Get("challenge")
	switch sv := v.Get("solution"); sv {
	case "":
	case "1":
		l.Solution = true
	default:
		fail("solution", KeySolution, sv)
	}
	if packed := v.Get("code"); packed != "" {
		text, err := Unpack(packed)
		if err != nil {
			errs = append(errs, at("code", err))
		}
		l.Code = text
	}
	l.Name = v.Get("name")
	switch e := v.Get("engine"); e {
	case "", EngineEmbedded, EngineReal:
		l.Engine = e
	default:
		fail("engine", KeyEngine, e)
	}
	switch b := v.Get("broker"); {
	case b == "" || b == BrokerModel:
	case slices.Contains(Brokers, b):
		l.Broker = b
	default:
		fail("broker", KeyBroker, b, BrokerModel+", "+strings.Join(Brokers, ", "))
	}
	if vs, ok := v["handlers"]; ok {
		if l.Handlers = SplitNames(vs); l.Handlers == nil {
			fail("handlers", KeyNoHandlers)
		}
	}
	l.Prefer = SplitNames(v["prefer"])
	if v.Has("step") {
		raw := v.Get("step")
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || n < 0 {
			fail("step", KeyStep, raw)
		} else {
			l.Step, l.HasStep = n, true
		}
	}
	return l, errors.Join(errs...)
}

// ErrorAt is the *Error err holds for param ("" for the address as a
// whole), or nil.
func ErrorAt(err error, param string) *Error {
	if e, ok := err.(*Error); ok {
		if e.Param == param {
			return e
		}
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if e := ErrorAt(e, param); e != nil {
				return e
			}
		}
	}
	return nil
}

// at is an Unpack error named for the key it was read from.
func at(param string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.Param = param
		return &c
	}
	return err
}

// SplitNames reads repeated values and comma-separated lists of names,
// trimmed, empty ones dropped; nil when there is none. It is how the
// address reads handlers=, for every part that reads a list of names.
func SplitNames(values []string) []string {
	var out []string
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}
