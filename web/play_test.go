package web

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sim"
)

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

// TestPlayPathOnThePage: the cards carry their lane with the step's path,
// in the lab and in the presenter view, and the play controls are there
// hidden (lab.js shows them).
func TestPlayPathOnThePage(t *testing.T) {
	h := newTestServer(t)
	for _, target := range []string{"/lab?preset=crash-before-ack&step=2", "/present/crash-before-ack?step=2"} {
		r := get(t, h, target)
		if r.status != 200 {
			t.Fatalf("%s: status %d", target, r.status)
		}
		for _, want := range []string{
			`data-path="broker,worker,db,worker" data-token="pay-1" data-crash`,
			`data-part="worker"`,
			`id="play-toggle"`,
			`aria-pressed="false"`,
		} {
			if !strings.Contains(r.body, want) {
				t.Errorf("%s: no %s", target, want)
			}
		}
		if !regexp.MustCompile(`<div class="play-controls"[^>]* hidden`).MatchString(r.body) {
			t.Errorf("%s: the play controls are not hidden for a page without JavaScript", target)
		}
	}
	r := get(t, h, "/lab?preset=gateway-timeout&step=1&handlers=naive,setnx&lang=ru")
	if !strings.Contains(r.body, `data-path="producer,broker"`) || !strings.Contains(r.body, `data-part="gateway">Шлюз<`) {
		t.Errorf("setnx's lane at a publish, in Russian: %s", excerpt(r.body))
	}
}
