package link

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// The canonical forms the lab's pages, the lessons' goldens and the page
// cache already hold: String must keep writing them byte for byte.
func TestString(t *testing.T) {
	script := "publish pay-1 amount=1\n"
	for _, tc := range []struct {
		name string
		l    Lab
		want string
	}{
		{"the bare lab", Lab{}, "/lab"},
		{"a preset", Lab{Preset: "happy-path"}, "/lab?preset=happy-path"},
		{"a preset at a step", Lab{Preset: "crash-before-ack", Step: 0, HasStep: true}, "/lab?preset=crash-before-ack&step=0"},
		// Commas between names stay unescaped; a name's own characters do not.
		{"a preset with handlers", Lab{Preset: "a b", Handlers: []string{"x", "y"}}, "/lab?preset=a+b&handlers=x,y"},
		{"a lesson's claim", Lab{Preset: "crash-before-ack", Handlers: []string{"naive", "unique", "inbox"}, Step: 4, HasStep: true},
			"/lab?preset=crash-before-ack&handlers=naive,unique,inbox&step=4"},
		{"a packed script on a handler", Lab{Script: script, Handlers: []string{"naive"}}, "/lab?s=" + Pack(script) + "&handlers=naive"},
		{"a plain script", Lab{Script: "drain\n", Plain: true, Handlers: []string{"check-then-insert"}}, "/lab?script=drain%0A&handlers=check-then-insert"},
		{"a handler file", Lab{Script: script, Code: "package h\n", Name: "yours"}, "/lab?s=" + Pack(script) + "&code=" + Pack("package h\n") + "&name=yours"},
		{"a challenge", Lab{Challenge: "naive-twice"}, "/lab?challenge=naive-twice"},
		{"a challenge's solution", Lab{Challenge: "naive-twice", Solution: true}, "/lab?challenge=naive-twice&solution=1"},
		{"every key, in its order", Lab{Script: script, Challenge: "c", Solution: true, Engine: EngineReal, Broker: "nats", Code: "x", Name: "n", Handlers: []string{"a"}, Prefer: []string{"b"}, Step: 2, HasStep: true},
			"/lab?s=" + Pack(script) + "&challenge=c&solution=1&engine=real&broker=nats&code=" + Pack("x") + "&name=n&handlers=a&prefer=b&step=2"},
		{"a real broker", Lab{Preset: "crash-before-ack", Broker: "nats"}, "/lab?preset=crash-before-ack&broker=nats"},
		{"a name that needs escaping", Lab{Preset: "p", Handlers: []string{"a&b", "c,d"}}, "/lab?preset=p&handlers=a%26b,c%2Cd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.l.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

// Sorted is the grid's old form: keys sorted, every value escaped.
func TestSorted(t *testing.T) {
	l := Lab{Preset: "crash-before-ack", Handlers: []string{"naive"}, Step: 4, HasStep: true}
	if got := l.Sorted(); got != "/lab?handlers=naive&preset=crash-before-ack&step=4" {
		t.Errorf("Sorted() = %q", got)
	}
	if got := (Lab{}).Sorted(); got != "/lab" {
		t.Errorf("the bare lab: Sorted() = %q", got)
	}
}

func TestParse(t *testing.T) {
	script := "publish pay-1 amount=1\n"
	for _, tc := range []struct {
		name, query string
		want        Lab
	}{
		{"nothing", "", Lab{}},
		{"a preset", "preset=happy-path&step=2", Lab{Preset: "happy-path", Step: 2, HasStep: true}},
		// The picker's "empty scenario" sends preset= with nothing after it.
		{"an empty preset is none", "preset=", Lab{}},
		{"a packed script", "s=" + Pack(script), Lab{Script: script}},
		{"a plain script", "script=" + url.QueryEscape(script), Lab{Script: script, Plain: true}},
		// Repeated values and lists both count; blanks between are dropped.
		{"the handler picker", "handlers=&handlers=naive&handlers=+inbox+,unique", Lab{Handlers: []string{"naive", "inbox", "unique"}}},
		{"prefer", "prefer=naive,inbox", Lab{Prefer: []string{"naive", "inbox"}}},
		{"an empty prefer is none", "prefer=", Lab{}},
		{"a spaced step", "step=+3", Lab{Step: 3, HasStep: true}},
		{"the engines", "engine=embedded", Lab{Engine: EngineEmbedded}},
		{"a real broker", "preset=p&broker=kafka", Lab{Preset: "p", Broker: "kafka"}},
		// The lab's own model is the default: written as nothing.
		{"the broker model", "broker=lab", Lab{}},
		{"an empty broker is the model", "broker=", Lab{}},
		{"a handler file", "code=" + Pack("package h\n") + "&name=mine", Lab{Code: "package h\n", Name: "mine"}},
		{"a challenge", "challenge=naive-twice", Lab{Challenge: "naive-twice"}},
		{"a solution shown", "challenge=naive-twice&solution=1", Lab{Challenge: "naive-twice", Solution: true}},
		{"an empty solution is none", "solution=", Lab{}},
		{"unknown keys are ignored", "lang=ru&x=1", Lab{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := url.ParseQuery(tc.query)
			got, err := Parse(v)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.query, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q) = %#v, want %#v", tc.query, got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		want        []Error // in order
		keeps       Lab     // what is read all the same
	}{
		{"two sources", "preset=a&script=b&step=1", []Error{{"", KeySources, nil}}, Lab{Step: 1, HasStep: true}},
		{"three sources", "preset=a&s=1x&script=b", []Error{{"", KeySources, nil}}, Lab{}},
		{"s= of another version", "s=2AAAA", []Error{{"s", "pl.version", []any{Version}}}, Lab{}},
		{"s= not base64", "s=1**", []Error{{"s", "pl.base64", nil}}, Lab{}},
		{"code= garbage", "code=garbage&name=n", []Error{{"code", "pl.version", []any{Version}}}, Lab{Name: "n"}},
		{"an engine of another world", "engine=mars", []Error{{"engine", KeyEngine, []any{"mars"}}}, Lab{}},
		{"a broker not known", "preset=p&broker=sqs", []Error{{"broker", KeyBroker, []any{"sqs", "lab, nats, kafka, rabbitmq"}}}, Lab{Preset: "p"}},
		// handlers= given must name one: the picker with every box unticked.
		{"handlers naming none", "handlers=&handlers=,", []Error{{"handlers", KeyNoHandlers, nil}}, Lab{}},
		{"a solution in words", "solution=yes&step=1", []Error{{"solution", KeySolution, []any{"yes"}}}, Lab{Step: 1, HasStep: true}},
		{"a step in words", "step=two", []Error{{"step", KeyStep, []any{"two"}}}, Lab{}},
		{"an empty step", "step=", []Error{{"step", KeyStep, []any{""}}}, Lab{}},
		{"a negative step", "preset=p&step=-1", []Error{{"step", KeyStep, []any{"-1"}}}, Lab{Preset: "p"}},
		// Each key is read on its own, and the errors come in the address's order.
		{"several at once", "step=x&broker=z&engine=y&s=1**", []Error{{"s", "pl.base64", nil}, {"engine", KeyEngine, []any{"y"}}, {"broker", KeyBroker, []any{"z", "lab, nats, kafka, rabbitmq"}}, {"step", KeyStep, []any{"x"}}}, Lab{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := url.ParseQuery(tc.query)
			got, err := Parse(v)
			if err == nil {
				t.Fatalf("Parse(%q) = %#v, no error", tc.query, got)
			}
			if !reflect.DeepEqual(got, tc.keeps) {
				t.Errorf("Parse(%q) keeps %#v, want %#v", tc.query, got, tc.keeps)
			}
			var all []Error
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					all = append(all, *e.(*Error))
				}
			}
			if !reflect.DeepEqual(all, tc.want) {
				t.Errorf("Parse(%q) errors %#v, want %#v", tc.query, all, tc.want)
			}
			for _, w := range tc.want {
				if e := ErrorAt(err, w.Param); e == nil || e.Key != w.Key {
					t.Errorf("ErrorAt(%q) = %v, want %s", w.Param, e, w.Key)
				}
			}
			var first *Error
			if !errors.As(err, &first) || first.Key != tc.want[0].Key {
				t.Errorf("errors.As finds %v first, want %s", first, tc.want[0].Key)
			}
			if !strings.Contains(err.Error(), tc.want[0].Key) {
				t.Errorf("Error() = %q does not name %s", err.Error(), tc.want[0].Key)
			}
		})
	}
	if e := ErrorAt(nil, "s"); e != nil {
		t.Errorf("ErrorAt(nil) = %v", e)
	}
	if e := ErrorAt(&Error{Param: "s", Key: "k"}, "code"); e != nil {
		t.Errorf("ErrorAt of another key = %v", e)
	}
	if e := ErrorAt(errors.New("other"), ""); e != nil {
		t.Errorf("ErrorAt of a foreign error = %v", e)
	}
}

// What String writes, Parse reads back as it was.
func TestRoundTrip(t *testing.T) {
	for _, l := range []Lab{
		{},
		{Preset: "crash-before-ack", Handlers: []string{"naive", "inbox"}, Step: 4, HasStep: true},
		{Script: "publish p amount=5\ndeliver\n", Challenge: "naive-twice", Solution: true, Engine: EngineReal, Code: "package h\n", Name: "mine", Step: 0, HasStep: true},
		{Script: "# a comment & more\nredeliver\n", Plain: true, Prefer: []string{"setnx"}},
		{Preset: "p", Handlers: []string{"a&b", "ü"}},
	} {
		v, err := url.ParseQuery(strings.TrimPrefix(strings.TrimPrefix(l.String(), Path), "?"))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		back, err := Parse(v)
		if err != nil || !reflect.DeepEqual(back, l) {
			t.Errorf("%s: read back as %#v (%v), want %#v", l, back, err, l)
		}
		if !reflect.DeepEqual(l.Values(), v) {
			t.Errorf("%s: Values() = %v, want %v", l, l.Values(), v)
		}
	}
}

// FuzzParse: Parse never panics, and an address it reads without error
// is written back by String into one it reads as the same value.
func FuzzParse(f *testing.F) {
	f.Add("preset=crash-before-ack&handlers=naive,inbox&step=4")
	f.Add("s=" + Pack("publish pay-1 amount=1\n") + "&code=" + Pack("package h\n") + "&name=yours&engine=real")
	f.Add("script=drain&handlers=&handlers=naive&prefer=inbox&challenge=naive-twice")
	f.Add("preset=a&s=1AAAA&step=-1")
	f.Add("challenge=naive-twice&solution=1&step=2")
	f.Add("preset=crash-before-ack&broker=nats&step=3")
	f.Add("preset=p&broker=lab&engine=real")
	f.Add("broker=NATS")
	f.Add("s=" + Pack("goal: handler=naive verdict=duplicate steps<=2\npublish pay-1 amount=1\n") + "&solution=0")
	f.Fuzz(func(t *testing.T, query string) {
		v, _ := url.ParseQuery(query) // a query that does not parse still gives values
		l, err := Parse(v)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Key == "" {
				t.Fatalf("Parse(%q): an error with no key: %v", query, err)
			}
			return
		}
		if len(l.Script) > MaxText && !l.Plain || len(l.Code) > MaxText {
			t.Fatalf("Parse(%q) unpacked past the limit", query)
		}
		s := l.String()
		if !strings.HasPrefix(s, Path) {
			t.Fatalf("String() = %q", s)
		}
		w, err := url.ParseQuery(strings.TrimPrefix(strings.TrimPrefix(s, Path), "?"))
		if err != nil {
			t.Fatalf("String() = %q does not parse: %v", s, err)
		}
		back, err := Parse(w)
		if err != nil || !reflect.DeepEqual(back, l) {
			t.Fatalf("Parse(%q) = %#v; its String %q reads back as %#v (%v)", query, l, s, back, err)
		}
	})
}
