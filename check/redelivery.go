package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// The broker's redelivery delay. A script's visibility-timeout: header
// makes every redelivery after a crash or a timeout wait for the
// message's lease to run out (script.Script.VisibilityTimeout); without it a
// message is handed out again at once. The search runs every script
// under the header's timeout, and with Options.VisibilitySweep also under
// the timeouts around the header's lifetimes, where a handler whose
// records expire behaves differently.

// maxVisibility is the longest timeout the sweep tries: a script's
// durations stop at 3650 days.
const maxVisibility = 3650 * 24 * time.Hour

// sweepTimeouts are the visibility timeouts Options.VisibilitySweep adds
// to the header's: redelivery at once (when the header sets a timeout),
// then, for each lifetime of the header (processing-ttl, done-ttl,
// inbox-retention, dedup-window), one a minute below it (half of it, for
// one of two minutes or less) and one a minute above it. None on the API
// side: no broker redelivers there.
func (s *searcher) sweepTimeouts() []time.Duration {
	if !s.opt.VisibilitySweep || s.api {
		return nil
	}
	var out []time.Duration
	add := func(d time.Duration) {
		if d != s.header.VisibilityTimeout && d <= maxVisibility && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if s.header.VisibilityTimeout != 0 {
		add(0)
	}
	for _, ttl := range s.ttls() {
		if below := ttl - min(time.Minute, ttl/2); below >= time.Second {
			add(below)
		}
		add(ttl + time.Minute)
	}
	return out
}

// sweep runs a script that redelivered a message after a crash or a
// timeout again under each of the sweep's visibility timeouts, and judges
// each run: the story found keeps the timeout in its header.
func (s *searcher) sweep(steps []string, res sim.Result) error {
	if len(s.vts) == 0 || res.Timeouts == 0 {
		return nil
	}
	base := s.vt
	defer func() { s.vt = base }()
	for _, vt := range s.vts {
		s.vt = vt
		r, sc, err := s.run(steps)
		if err != nil {
			return err
		}
		if sc == nil {
			continue
		}
		if err := s.judge(steps, r); err != nil {
			return err
		}
	}
	return nil
}

// Redelivery says how the search modelled the broker's redelivery after
// a crash or a timeout, in English, or in Russian for lang "ru": "" for a
// report of the API side, where no broker redelivers.
func (r Report) Redelivery(lang string) string {
	if len(r.Visibility) == 0 {
		return ""
	}
	var after []string
	atOnce := false
	for _, d := range r.Visibility {
		if d == 0 {
			atOnce = true
			continue
		}
		after = append(after, script.FormatDuration(d))
	}
	switch {
	case len(after) == 0:
		return narration.T("check.redelivery.at-once").In(lang)
	case atOnce:
		return narration.T("check.redelivery.also-after", after...).In(lang)
	}
	return narration.T("check.redelivery.after", after...).In(lang)
}

// ReplayError is a story the search found whose replay, by the path lab
// run takes (sim.Execute on the script as printed), did not give the
// search's verdict: the lab's own fault, reported instead of the story.
type ReplayError struct {
	Handler  string
	Script   string
	Verdict  sim.Verdict // what the search found
	Replayed sim.Verdict // what the replay gave
	// Search and Replay are the two runs' traces, as text. The search
	// keeps the first event of each step and counts the others.
	Search, Replay string
}

func (e *ReplayError) Error() string {
	return fmt.Sprintf("internal error: %s: the search found %s, and its replay gives %s; the story is not reported\nscript:\n%s\nthe search's run:\n%s\nthe replay:\n%s",
		e.Handler, e.Verdict, e.Replayed, indent(e.Script), e.Search, e.Replay)
}

// replayStory runs a story as lab run does, on the search's engine, and
// returns a *ReplayError when its verdict is not the story's.
func replayStory(ctx context.Context, h handlers.Info, f Failure, engine *sim.Engine) error {
	sc, err := script.Parse(f.Script)
	if err != nil {
		return fmt.Errorf("internal error: %s: the story found does not parse: %w\n%s", h.Name, err, indent(f.Script))
	}
	run, err := sim.Execute(ctx, sc, sim.Options{Custom: []handlers.Info{h}, Engine: engine})
	if err != nil {
		return fmt.Errorf("internal error: %s: replaying the story found: %w\n%s", h.Name, err, indent(f.Script))
	}
	if got := run.Results[0]; got.Verdict != f.Verdict {
		return &ReplayError{Handler: h.Name, Script: f.Script, Verdict: f.Verdict, Replayed: got.Verdict,
			Search: traceText(f.res), Replay: traceText(got)}
	}
	return nil
}

// traceText writes a run's steps, events and verdict, one event a line.
func traceText(res sim.Result) string {
	var b strings.Builder
	write := func(title string, tr sim.Trace) {
		fmt.Fprintf(&b, "  %s\n", title)
		for _, e := range tr.Events {
			fmt.Fprintf(&b, "    %s: %s", e.Actor, e.Text)
			if e.Result != "" {
				fmt.Fprintf(&b, " -> %s", e.Result)
			}
			b.WriteString("\n")
		}
		if tr.Omitted > 0 {
			fmt.Fprintf(&b, "    (%d more events)\n", tr.Omitted)
		}
	}
	for _, tr := range res.Trace {
		write(fmt.Sprintf("%d. %s (balance %d, expected %d)", tr.Step, tr.Text, tr.Balance, tr.Expected), tr)
	}
	write(res.Settlement.Text, res.Settlement)
	fmt.Fprintf(&b, "  verdict: %s: %s\n", res.Verdict, res.Reason)
	return b.String()
}

func indent(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return "    " + strings.Join(lines, "\n    ")
}
