package check

import "github.com/idempotency-lab/lab/sim"

// simpler lists the plainer forms of a step, plainest first: a delivery
// without its crash, one worker instead of two, one delivery instead of a
// drain.
func simpler(step string) []string {
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
