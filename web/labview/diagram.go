package labview

import (
	"context"
	"io"

	"github.com/a-h/templ"

	"github.com/idempotency-lab/lab/narration"
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
	labels := timeline.LabelsIn(t)
	if real {
		labels.SQLite = "PostgreSQL"
	}
	// Laid out when the page is drawn, with the page's context: the
	// layout stops when the request ends, in the replay's slot
	// (Replayer.ReplayAndShow).
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		d, err := timeline.BuildContext(ctx, traces, step, labels)
		if err != nil {
			return err
		}
		d.IDPrefix = "tl-" + res.Handler + "-"
		return timeline.View(d).Render(ctx, w)
	})
}

// maxStepEvents bounds the events drawn for one step: a drain over
// hundreds of messages would otherwise draw a diagram megabytes long.
const maxStepEvents = 60

// Bounds on one diagram, whatever a handler does in every step: the
// events it draws (the lab's stories draw at most 69), and the bytes
// of text they show in full (each text is cut to sim.MaxEventText by the
// trace already); past that, each text is cut to tightText bytes.
const (
	maxDiagramEvents = 120
	maxDiagramText   = 8 << 10
	tightText        = 64
)

// capEvents keeps the first maxStepEvents events of each step, and
// maxDiagramEvents in all, the latest steps first, and says how many more
// there were: those it cuts and those the engine already left out
// (Trace.Omitted, with sim.Options.StepEvents; lab run --json lists them
// all). Past maxDiagramText bytes of text, the older steps' texts are cut
// to tightText.
func capEvents(t page.Text, traces []sim.Trace) []sim.Trace {
	out := append([]sim.Trace(nil), traces...)
	events, text := maxDiagramEvents, maxDiagramText
	for i := len(traces) - 1; i >= 0; i-- {
		tr := traces[i]
		keep := min(len(tr.Events), maxStepEvents, events)
		events -= keep
		evs := make([]sim.Event, keep, keep+1)
		for j, e := range tr.Events[:keep] {
			e.Text = boundText(e.Text, &text, false)
			if !e.Note.IsZero() {
				// The lab's own words: bounded in the page's language,
				// counted in both as the English and Russian texts were.
				ru := boundText(e.In("ru"), &text, true)
				if t.Is(page.RU) {
					e.Text, e.Note = ru, narration.Text{}
				}
			}
			e.Args, e.Result = boundText(e.Args, &text, false), boundText(e.Result, &text, false)
			evs[j] = e
		}
		if n := len(tr.Events) - keep + tr.Omitted; n > 0 {
			evs = append(evs, sim.Event{Actor: "broker", Kind: sim.KindNote, Text: t.F("tl.more", n)})
		}
		out[i].Events = evs
	}
	return out
}

// boundText cuts s to tightText once the diagram's text budget *left is
// spent, and counts what it keeps against it.
func boundText(s string, left *int, ru bool) string {
	if *left <= 0 {
		s = sim.CutText(s, tightText, ru)
	}
	*left -= len(s)
	return s
}

// storyTimeline names the handler whose timeline the lab opens by default:
// the first handler of the script's handlers: header (script.Script.Handlers,
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
