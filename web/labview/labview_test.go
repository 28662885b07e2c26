package labview

import (
	"context"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sim"
)

// TestStoryTimelineOpens checks which handler's timeline the lab opens:
// the first of the story's handlers that is on screen, else the first.
func TestStoryTimelineOpens(t *testing.T) {
	for _, tc := range []struct {
		story, shown []string
		want         string
	}{
		{[]string{"setnx"}, []string{"naive", "unique", "setnx"}, "setnx"},
		{[]string{"inbox", "unique"}, []string{"naive", "unique"}, "unique"},
		{nil, []string{"naive", "unique"}, "naive"},
		{[]string{"inbox"}, []string{"naive"}, "naive"},
		{nil, nil, ""},
	} {
		if got := storyTimeline(tc.story, tc.shown); got != tc.want {
			t.Errorf("storyTimeline(%v, %v) = %q, want %q", tc.story, tc.shown, got, tc.want)
		}
	}
}

// TestScriptInLangKeepsUntranslated: a narration with no line in the
// page's language is shown in the language it has.
func TestScriptInLangKeepsUntranslated(t *testing.T) {
	in := "title: T\n#en: only English\npublish a amount=1\n#en: both\n#ru: оба\ndeliver\n"
	got := scriptInLang(in, true)
	want := "title: T\n#en: only English\npublish a amount=1\n#ru: оба\ndeliver\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// presetPath is the path of one step of a preset on one handler.
func presetPath(t *testing.T, preset, handler string, step int) msgPath {
	t.Helper()
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	p, err := sim.FindPreset(presets, preset)
	if err != nil {
		t.Fatal(err)
	}
	run, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{handler}, Steps: step})
	if err != nil {
		t.Fatal(err)
	}
	res := run.Results[0]
	if step > len(res.Trace) {
		t.Fatalf("%s has %d steps, not %d", preset, len(res.Trace), step)
	}
	return stepPath(res.Trace[step-1].Events, messageLabels(res.Broker))
}

// TestPlayPath checks the hops the token takes on a card, step by step,
// computed from the step's traced events.
func TestPlayPath(t *testing.T) {
	for _, tc := range []struct {
		name, preset, handler string
		step                  int
		hops                  string
		crash                 bool
		label                 string
	}{
		{"publish", "crash-before-ack", "naive", 1, "producer,broker", false, "pay-1"},
		{"normal delivery", "happy-path", "naive", 2, "broker,worker,db,worker,broker", false, "pay-1"},
		{"crash before the ack", "crash-before-ack", "naive", 2, "broker,worker,db,worker", true, "pay-1"},
		{"redelivery: back to ready", "crash-before-ack", "naive", 3, "broker", false, "pay-1"},
		{"redelivered duplicate credited", "crash-before-ack", "naive", 4, "broker,worker,db,worker,broker", false, "pay-1"},
		{"redelivered duplicate recognised", "crash-before-ack", "inbox", 4, "broker,worker,db,worker,broker", false, "pay-1"},
		{"crash before the effect", "crash-before-effect", "naive", 2, "broker,worker", true, "pay-1"},
		{"Redis SET NX guards a charge", "gateway-timeout", "setnx", 5, "broker,worker,redis,worker,gateway,worker,redis,worker,broker", false, "pay-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := presetPath(t, tc.preset, tc.handler, tc.step)
			if got := strings.Join(p.Hops, ","); got != tc.hops {
				t.Errorf("%s step %d on %s: hops %s, want %s", tc.preset, tc.step, tc.handler, got, tc.hops)
			}
			if p.Crash != tc.crash {
				t.Errorf("crash = %v, want %v", p.Crash, tc.crash)
			}
			if p.Label != tc.label {
				t.Errorf("label = %q, want %q", p.Label, tc.label)
			}
		})
	}
}

// TestPlayPathCutsALongStep: a drain of many messages sends the token on
// the first journeys only, ending back at the broker.
func TestPlayPathCutsALongStep(t *testing.T) {
	var events []sim.Event
	for i := 0; i < 5; i++ {
		events = append(events,
			sim.Event{Actor: "broker", Kind: sim.KindDeliver, Msg: "topups/0/1", To: "worker-1"},
			sim.Event{Actor: "worker-1", Kind: sim.KindSQL, Text: "BEGIN"},
			sim.Event{Actor: "worker-1", Kind: sim.KindSQL, Text: "UPDATE accounts"},
			sim.Event{Actor: "worker-1", Kind: sim.KindAck})
	}
	p := stepPath(events, nil)
	if got, want := strings.Join(p.Hops, ","), "broker,worker,db,worker,broker,worker,db,worker,broker"; got != want {
		t.Errorf("hops %s, want %s", got, want)
	}
	if p.Label != "topups/0/1" {
		t.Errorf("label %q, want the transport id", p.Label)
	}
	if p := stepPath([]sim.Event{{Actor: "clock", Kind: sim.KindClock}}, nil); len(p.Hops) != 0 || p.Label != "" {
		t.Errorf("the clock moved a message: %+v", p)
	}
}
