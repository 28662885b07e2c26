package labview

import (
	"github.com/a-h/templ"

	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview/timeline"
	"github.com/idempotency-lab/lab/web/page"
)

// timelineFor draws one handler's run up to the step shown as a sequence
// diagram, the step shown highlighted, followed by what settling would do
// (the events behind the verdict).
func timelineFor(t page.Text, res sim.Result, step int, real bool) templ.Component {
	traces := res.Trace
	if n := len(traces); n > maxTimelineSteps {
		traces = traces[n-maxTimelineSteps:]
	}
	if len(res.Settlement.Events) > 0 {
		settle := res.Settlement
		settle.Step, settle.Text = 0, t.S("tl.settle")
		traces = append(traces[:len(traces):len(traces)], settle)
	}
	if len(traces) == 0 {
		return emptyTimeline(t)
	}
	traces = capEvents(t, traces)
	labels := timeline.EnglishLabels()
	if t.Is(page.RU) {
		labels = timeline.RussianLabels()
	}
	if real {
		labels.SQLite = "PostgreSQL"
	}
	d := timeline.Build(traces, step, labels)
	d.IDPrefix = "tl-" + res.Handler + "-"
	return timeline.View(d)
}

// maxStepEvents bounds the events drawn for one step: a drain over
// hundreds of messages would otherwise draw a diagram megabytes long.
const maxStepEvents = 60

// capEvents keeps the first maxStepEvents events of each step and says how
// many more there were: those it cuts and those the engine already left
// out (Trace.Omitted, with sim.Options.StepEvents; lab run --json lists
// them all).
func capEvents(t page.Text, traces []sim.Trace) []sim.Trace {
	out := append([]sim.Trace(nil), traces...)
	for i, tr := range traces {
		keep := min(len(tr.Events), maxStepEvents)
		n := len(tr.Events) - keep + tr.Omitted
		if n == 0 {
			continue
		}
		more := sim.Event{Actor: "broker", Kind: sim.KindNote, Text: t.F("tl.more", n), TextRU: t.F("tl.more", n)}
		out[i].Events = append(tr.Events[:keep:keep], more)
	}
	return out
}

// storyTimeline names the handler whose timeline the lab opens by default:
// the first handler of the script's handlers: header (sim.Script.Handlers,
// the handlers its story is about) that has a card on screen. With none on
// screen, or no header, it is the first card, as before.
func storyTimeline(story, shown []string) string {
	for _, h := range story {
		for _, c := range shown {
			if h == c {
				return h
			}
		}
	}
	if len(shown) > 0 {
		return shown[0]
	}
	return ""
}
