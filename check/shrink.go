package check

import (
	"slices"
	"strconv"
	"strings"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// simpler lists the plainer forms of a step, plainest first: a delivery
// without its crash, one worker instead of two, one delivery instead of a
// drain.
func simpler(step string) []string {
	if f := strings.Fields(step); len(f) > 0 && (f[0] == "request" || f[0] == "retry" || f[0] == "request-concurrent") {
		return simplerRequest(f)
	}
	if c, ok := strings.CutPrefix(step, "deliver crash="); ok {
		if n, after, ok := script.CallCrash(c); ok {
			// A named point reads better than a call number, and a lower
			// call number is earlier in the handler.
			out := []string{"deliver", "deliver crash=before-effect", "deliver crash=after-effect", "deliver crash=before-ack"}
			if after {
				out = append(out, "deliver crash=call:"+strconv.Itoa(n))
			}
			for m := n - 1; m >= 1; m-- {
				if after {
					out = append(out, "deliver crash=after-call:"+strconv.Itoa(m))
				} else {
					out = append(out, "deliver crash=call:"+strconv.Itoa(m))
				}
			}
			return out
		}
	}
	if rest, ok := strings.CutPrefix(step, "deliver-concurrent "); ok && strings.Contains(rest, "switch=") {
		return simplerSwitch(rest)
	}
	switch step {
	case "deliver crash=before-effect", "deliver crash=after-effect", "deliver crash=before-ack",
		"deliver-concurrent", "drain":
		return []string{"deliver"}
	case "deliver-concurrent same":
		return []string{"deliver", "deliver-concurrent"}
	}
	return nil
}

// shrink makes a failing script 1-minimal for its verdict: it drops
// steps, then simplifies them, while the verdict stays, until no single
// change keeps it. It returns the script and its result.
func (s *searcher) shrink(steps []string, v sim.Verdict, res sim.Result) ([]string, sim.Result, error) {
	for changed := true; changed; {
		changed = false
		for i := range steps {
			try := append(append([]string(nil), steps[:i]...), steps[i+1:]...)
			r, sc, err := s.run(try)
			if err != nil {
				return nil, sim.Result{}, err
			}
			if sc != nil && r.Verdict == v {
				steps, res, changed = try, r, true
				break
			}
		}
		if changed {
			continue
		}
		for i := range steps {
			for _, plain := range simpler(steps[i]) {
				try := append([]string(nil), steps...)
				try[i] = plain
				r, sc, err := s.run(try)
				if err != nil {
					return nil, sim.Result{}, err
				}
				if sc != nil && r.Verdict == v {
					steps, res, changed = try, r, true
					break
				}
			}
			if changed {
				break
			}
		}
	}
	return steps, res, nil
}

// simplerSwitch lists the plainer forms of deliver-concurrent [same]
// switch=A[,B]: one worker, the race at the Yield points, worker B run to
// its end, lower call numbers.
func simplerSwitch(rest string) []string {
	same := strings.HasPrefix(rest, "same ")
	_, v, _ := strings.Cut(rest, "switch=")
	var at []int
	for _, p := range strings.Split(v, ",") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil
		}
		at = append(at, n)
	}
	prefix := "deliver-concurrent "
	if same {
		prefix += "same "
	}
	form := func(at []int) string {
		parts := make([]string, len(at))
		for i, n := range at {
			parts[i] = strconv.Itoa(n)
		}
		return prefix + "switch=" + strings.Join(parts, ",")
	}
	out := []string{"deliver", strings.TrimSpace(prefix)}
	if same {
		out = append(out, "deliver-concurrent "+strings.TrimPrefix(form(at), prefix))
	}
	if len(at) == 2 {
		out = append(out, form(at[:1]))
	}
	for i := range at {
		for m := at[i] - 1; m >= 1; m-- {
			lower := slices.Clone(at)
			lower[i] = m
			out = append(out, form(lower))
		}
	}
	return out
}

// simplerRequest lists the plainer forms of an API step: without its
// crash, without its lost answer, a named crash point for a call, the
// key as a bare token rather than quoted, one copy instead of two.
func simplerRequest(f []string) []string {
	var out []string
	without := func(drop func(string) bool) string {
		var keep []string
		for _, w := range f {
			if !drop(w) {
				keep = append(keep, w)
			}
		}
		return strings.Join(keep, " ")
	}
	for _, w := range f[1:] {
		switch {
		case strings.HasPrefix(w, "crash="):
			out = append(out, without(func(x string) bool { return x == w }))
			if _, _, ok := script.CallCrash(strings.TrimPrefix(w, "crash=")); ok {
				for _, named := range []string{"crash=before-effect", "crash=after-effect"} {
					out = append(out, strings.Replace(strings.Join(f, " "), w, named, 1))
				}
			}
		case w == "lose-response", strings.HasPrefix(w, "switch="), w == "key="+script.KeyQuoted:
			out = append(out, without(func(x string) bool { return x == w }))
		}
	}
	if f[0] == "request-concurrent" && len(f) > 2 {
		out = append(out, "request "+strings.Join(f[1:], " "))
	}
	return out
}
