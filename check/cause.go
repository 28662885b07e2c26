package check

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Causes. The search keeps one story for each distinct failure, not one
// for each verdict: a failing script's cause is the verdict plus the kinds
// of step in it that a plain run has not (Cause), and each cause found is
// shrunk once and told. So a duplicate from a crash after the effect and a
// duplicate from a producer's retry are two stories, where one story per
// verdict would hide the longer behind the shorter.
//
// The labels of a cause, one per step that makes a difference, in the
// script's own words so that a reader finds them in the story:
//
//	crash=POINT             a delivery's or a request's crash point, as
//	                        written (before-effect, after-effect,
//	                        before-ack, call:N, after-call:N)
//	deliver-concurrent      two workers racing on two messages
//	deliver-concurrent same two workers racing on one message (switch
//	                        points are not part of the cause)
//	request-concurrent      two copies of a request at once
//	retry                   a producer's or a client's retry
//	retry amount            a client's retry with another body
//	change-payload          a changed payload under a reused key
//	tenant=T                an operation of a second tenant
//	key=MODE                a key that is not the operation id as a bare
//	                        token (quoted, none, v7, fresh)
//	lose-response           an answer that never reaches the client
//	refund                  a refund
//	out-of-order            deliver OP: a message out of order
//	redeliver, dlq-replay   the broker's moves
//	duplicate               a copy with no failure (broker: sqs)
//	deliver-batch ...       a batch (its commit= and crash= as written)
//	mode=M, produce crash=P, relay crash=P
//	                        the producer's modes and crashes
//	advance D               the clock moving by D (one per lifetime the
//	                        search crosses)
//	gateway MODE            the gateway down, timing out, stalling or
//	                        deduplicating (gateway up and dedup off, which
//	                        restore the default, are not)
//	visibility-timeout: D   a story the sweep found under a timeout
//	                        other than the header's
//
// A cause is its labels sorted and joined with " + ", or "plain" when the
// script has none (a plain publish and delivery fail). Publishing,
// delivering, draining, a second operation and a relay without a crash
// are no part of a cause.

// plainCause is the cause of a story with no step beyond the plain ones.
const plainCause = "plain"

// MaxStories is the most stories a report lists for one handler: the
// shortest of each verdict always, then the shortest of the other causes.
// Report.Omitted counts the causes found beyond it.
const MaxStories = 8

// causeLabels are the labels of a script's steps (see Causes), sorted and
// without repeats; base is the search's own visibility timeout.
func causeLabels(sc *script.Script, base time.Duration) []string {
	var out []string
	add := func(l string) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if sc.VisibilityTimeout != base {
		add("visibility-timeout: " + script.FormatDuration(sc.VisibilityTimeout))
	}
	for _, st := range sc.Steps {
		if st.Tenant != "" && st.Tenant != script.DefaultTenant {
			add("tenant=" + st.Tenant)
		}
		switch st.Verb {
		case script.VerbPublish:
			if st.Kind == script.KindRefund {
				add("refund")
			}
			if st.KeyMode != "" && st.KeyMode != script.KeyOp {
				add("key=" + st.KeyMode)
			}
		case script.VerbRetry:
			add("retry")
			if st.API && st.Amount > 0 {
				add("retry amount")
			}
		case script.VerbChangePayload:
			add("change-payload")
		case script.VerbDeliver:
			if st.Op != "" {
				add("out-of-order")
			}
		case script.VerbRedeliver, script.VerbDLQReplay, script.VerbShip, script.VerbDuplicate:
			add(st.Verb)
		case script.VerbDeliverConcurrent:
			if st.Same {
				add("deliver-concurrent same")
			} else {
				add("deliver-concurrent")
			}
		case script.VerbRequest, script.VerbRequestConcurrent:
			if st.Verb == script.VerbRequestConcurrent {
				add("request-concurrent")
			}
			if st.KeyMode != "" && st.KeyMode != script.KeyOp {
				add("key=" + st.KeyMode)
			}
		case script.VerbAdvance:
			add("advance " + script.FormatDuration(st.Advance))
		case script.VerbGateway:
			switch {
			case st.Stall > 0:
				add("gateway stall")
			case st.Gateway != script.GatewayUp && st.Gateway != script.GatewayDedupOff && st.Gateway != "":
				add("gateway " + st.Gateway)
			}
		case script.VerbProduce:
			if st.Mode != "" && st.Mode != script.ModeDualWrite {
				add("mode=" + st.Mode)
			}
			if st.Crash != "" {
				add("produce crash=" + st.Crash)
			}
			continue
		case script.VerbRelay:
			if st.Crash != "" {
				add("relay crash=" + st.Crash)
			}
			continue
		case script.VerbDeliverBatch:
			l := "deliver-batch"
			if st.Commit != "" && st.Commit != script.CommitAfter {
				l += " commit=" + st.Commit
			}
			if st.Crash != "" {
				l += " crash=" + st.Crash
			}
			add(l)
			continue
		}
		if st.API && st.KeyMode == script.KeyQuoted && st.Verb == script.VerbRetry {
			add("key=" + script.KeyQuoted)
		}
		if st.Lose {
			add("lose-response")
		}
		if st.Crash != "" {
			add("crash=" + st.Crash)
		}
	}
	slices.Sort(out)
	return out
}

// causeOf writes labels as a cause.
func causeOf(labels []string) string {
	if len(labels) == 0 {
		return plainCause
	}
	return strings.Join(labels, " + ")
}

// group is one cause found: its story and when it was recorded, for ties.
type group struct {
	f      Failure
	labels []string
	seq    int
}

// explained reports whether a failing script of a verdict holds every
// step of a cause already found for it with a story no longer than the
// script: shrinking it would most likely tell that cause again, so it is
// not shrunk.
func (s *searcher) explained(v sim.Verdict, labels []string, n int) bool {
	for _, g := range s.groups {
		if g.f.Verdict != v || g.f.Steps > n {
			continue
		}
		all := true
		for _, l := range g.labels {
			all = all && slices.Contains(labels, l)
		}
		if all {
			return true
		}
	}
	return false
}

// shortest is the length of the shortest story found for a verdict, 0
// when none.
func (s *searcher) shortest(v sim.Verdict) int {
	n := 0
	for _, g := range s.groups {
		if g.f.Verdict == v && (n == 0 || g.f.Steps < n) {
			n = g.f.Steps
		}
	}
	return n
}

// stories orders the causes found and keeps MaxStories of them: the
// verdicts in the order of their shortest stories (fewest steps, then
// duplicate, lost, poison, silent-conflict, wrong-status), each verdict's
// shortest story first (of two as short, the one found first), then its
// other causes by steps and cause. Past MaxStories the longest of the
// other causes go (every verdict keeps its shortest); it returns how many.
func (s *searcher) stories() (kept []Failure, omitted int) {
	all := make([]group, 0, len(s.groups))
	for _, g := range s.groups {
		all = append(all, g)
	}
	slices.SortFunc(all, func(a, b group) int {
		return cmp.Or(a.f.Steps-b.f.Steps, verdictRank(a.f.Verdict)-verdictRank(b.f.Verdict), a.seq-b.seq)
	})
	// The head of each verdict, in order; then the rest.
	var heads, rest []group
	for _, g := range all {
		if slices.ContainsFunc(heads, func(h group) bool { return h.f.Verdict == g.f.Verdict }) {
			rest = append(rest, g)
		} else {
			heads = append(heads, g)
		}
	}
	slices.SortStableFunc(rest, func(a, b group) int {
		return cmp.Or(a.f.Steps-b.f.Steps, verdictRank(a.f.Verdict)-verdictRank(b.f.Verdict), strings.Compare(a.f.Cause, b.f.Cause))
	})
	if room := max(MaxStories-len(heads), 0); len(rest) > room {
		omitted, rest = len(rest)-room, rest[:room]
	}
	for _, h := range heads {
		kept = append(kept, h.f)
		for _, g := range rest {
			if g.f.Verdict == h.f.Verdict {
				kept = append(kept, g.f)
			}
		}
	}
	return kept, omitted
}
