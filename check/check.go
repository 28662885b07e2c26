// Package check searches schedules for the shortest failure of a handler,
// as TLC searches states for the shortest counterexample: every script up
// to a depth, built from the script language's own steps, then seeded
// random scripts up to a longer length. Each script runs on a fresh world
// and is settled and judged by the engine's oracle (sim.Verdict); the
// first script of each failing cause (the verdict and the kinds of step
// that make the difference, cause.go) is shrunk to a 1-minimal one:
// removing any of its steps, or simplifying any, makes that verdict go.
//
// The search is deterministic for a seed: the same options give the same
// report, byte for byte, unless a time budget cuts it short (Report.Partial).
package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Defaults of Options.
const (
	DefaultDepth = 4
	DefaultRuns  = 2000
	DefaultLen   = 8
	DefaultSeed  = 1
)

// Options choose how far a search goes. They travel as JSON to a
// sandbox child that searches a person's file (package sandbox): all but
// Engine, which the child opens itself from the servers it is given, and
// the unexported hooks of tests.
type Options struct {
	Depth  int           `json:"depth,omitempty"`  // every script up to this many steps; 0: DefaultDepth
	Runs   int           `json:"runs,omitempty"`   // random scripts after the exhaustive part; 0: DefaultRuns, negative: none
	Len    int           `json:"len,omitempty"`    // the longest random script; 0: DefaultLen
	Seed   uint64        `json:"seed,omitempty"`   // the random scripts' seed; 0: DefaultSeed
	Budget time.Duration `json:"budget,omitempty"` // stop after this long (the report says Partial); 0: no limit
	// Header is script header lines every script starts with, such as
	// "inbox-retention: 1h"; the TTLs in it are what advance steps cross.
	Header string `json:"header,omitempty"`
	// NoRefunds keeps refunds out of the alphabet: for a handler written
	// for payments only, as the exercises before lesson 11 are.
	NoRefunds bool `json:"no_refunds,omitempty"`
	// VisibilitySweep runs every script that redelivers a message after
	// a crash or a timeout under more visibility timeouts than the
	// header's: a minute below and a minute above each of its lifetimes,
	// and redelivery at once (see sweepTimeouts).
	VisibilitySweep bool `json:"visibility_sweep,omitempty"`
	// DedupStates expands each state of the exhaustive part once, as a
	// model checker does: every script is still run and judged, but one
	// whose world after its last step (its durable state and the
	// oracle's bookkeeping, sim.Result.StateKey) equals that of a script
	// expanded before, at the same depth or a smaller one, having spent
	// no less of the delivery budget, is not extended: its extensions go
	// as that script's do. The verdicts and each verdict's shortest story
	// stay; the count of scripts falls, and a cause found only past a
	// state seen before may go unlisted. Not with VisibilitySweep (a
	// state alike under one visibility timeout may differ under
	// another), and no help on the real engine or the API side, whose
	// worlds are not keyed (each is a state of its own).
	DedupStates bool `json:"dedup_states,omitempty"`
	// Engine is where every world of the search keeps its data, the
	// stories' replays included: nil for the embedded engine (SQLite and
	// miniredis), or a real PostgreSQL and Redis (sim.NewEngine), where
	// some handlers fail that pass on SQLite. The caller closes it.
	Engine *sim.Engine `json:"-"`
	// beforeReplay, when set, is called before the stories found are
	// replayed: tests make a handler change its mind there.
	beforeReplay func()
	// now reads the clock for Budget; tests replace it.
	now func() time.Time
	// freshWorlds makes every script's world anew, as the search did
	// before it reused them: tests compare the two.
	freshWorlds bool
}

func (o Options) withDefaults() Options {
	if o.Depth == 0 {
		o.Depth = DefaultDepth
	}
	if o.Runs == 0 {
		o.Runs = DefaultRuns
	}
	if o.Len == 0 {
		o.Len = DefaultLen
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.now == nil {
		o.now = time.Now
	}
	return o
}

// Failure is a minimal script that makes a handler fail one way.
type Failure struct {
	Verdict sim.Verdict `json:"verdict"`
	// Cause is the kinds of step in the story that make the difference,
	// such as "crash=after-effect" or "retry" ("plain" for none): one
	// story is told for each verdict and cause (cause.go).
	Cause    string `json:"cause"`
	Script   string `json:"script"` // canonical script text, header included
	Steps    int    `json:"steps"`
	Settled  int64  `json:"settled"`
	Expected int64  `json:"expected"`
	Reason   string `json:"reason"`
	// res is the search's run of the story, for a replay that differs.
	res sim.Result
}

// Report is what a search found for one handler.
type Report struct {
	Handler string `json:"handler"`
	// Failures holds one story for each distinct failure (verdict and
	// cause), at most MaxStories: the verdicts in the order of their
	// shortest stories, the shortest first (ties: duplicate, lost,
	// poison, silent-conflict, wrong-status), and under each verdict its
	// shortest story first, then its other causes by steps. So the first
	// failure of each verdict is its shortest story, as it always was.
	Failures []Failure `json:"failures"`
	// Omitted counts the causes found beyond MaxStories, not listed.
	Omitted  int    `json:"omitted,omitempty"`
	Explored int    `json:"explored"` // scripts run, shrinking included
	Depth    int    `json:"depth"`
	Runs     int    `json:"runs"`
	Len      int    `json:"len"`
	Seed     uint64 `json:"seed"`
	Partial  bool   `json:"partial,omitempty"` // the time budget ended the search early
	// DistinctStates, with Options.DedupStates, counts the distinct
	// states the exhaustive part reached (a world that cannot be keyed
	// counts as one of its own).
	DistinctStates int `json:"distinct_states,omitempty"`
	// Visibility is the visibility timeouts the scripts ran under: the
	// header's first (0: redelivery at once), then the sweep's. Empty on
	// the API side. Redelivery says it in words.
	Visibility []time.Duration `json:"visibility_timeouts,omitempty"`
}

// Failed reports whether any failure was found.
func (r Report) Failed() bool { return len(r.Failures) > 0 }

// errBudget ends a search when its time is up.
var errBudget = errors.New("time budget spent")

// searcher holds one search's state.
type searcher struct {
	ctx      context.Context
	info     handlers.Info
	opt      Options
	header   *script.Script
	gateway  bool // the handler calls the payment gateway: the gateway steps matter
	api      bool // an API handler: scripts of requests (apiAlphabet)
	calls    int  // the I/O calls of one delivery: the boundaries to crash or switch at
	deadline time.Time
	explored int
	// groups are the causes found, by verdict and cause (cause.go);
	// tried the verdicts and step labels of the scripts shrunk to find
	// them, so that a script like one already shrunk is not shrunk again.
	groups map[string]group
	tried  map[string]bool
	seq    int
	// vt is the visibility timeout of the scripts run now: the header's,
	// or one of vts, the sweep's (redelivery.go).
	vt  time.Duration
	vts []time.Duration
	// worlds lends the embedded engine's worlds from one script to the
	// next (sim.Worlds): a script's world is emptied, not made again.
	worlds *sim.Worlds
	// seen, with Options.DedupStates, holds each state expanded (its key
	// and the alphabet after it) with the least budget spent reaching it;
	// distinct counts the states reached.
	seen     map[string]int
	distinct int
	// ok holds the state keys known to settle to OK, each with the most
	// budget spent by a run that settled from it: a run reaching one with
	// no more spent skips its settlement (sim.Options.KnownOK).
	ok map[string]int
}

// apiScript stands for any script of requests, to resolve API handlers.
var apiScript = &script.Script{API: true}

// Check searches one of the lab's handlers. It fails only on a bad
// handler name or header, or when ctx ends.
func Check(ctx context.Context, handler string, opt Options) (Report, error) {
	infos, err := sim.Handlers([]string{handler})
	if err != nil {
		var aerr error
		if infos, aerr = sim.HandlersFor(apiScript, []string{handler}); aerr != nil {
			return Report{}, err
		}
	}
	if len(infos) != 1 || handler == "core" || handler == "all" {
		return Report{}, fmt.Errorf("check one handler at a time, got %q", handler)
	}
	return CheckHandler(ctx, infos[0], opt)
}

// CheckHandler searches any handler, the lab's or a person's (labtest).
func CheckHandler(ctx context.Context, h handlers.Info, opt Options) (Report, error) {
	opt = opt.withDefaults()
	if (h.Handle == nil && h.API == nil) || h.Name == "" {
		return Report{}, errors.New("a handler needs a name and a Handle function")
	}
	header, err := script.Parse(opt.Header)
	if err != nil {
		return Report{}, fmt.Errorf("header: %w", err)
	}
	if len(header.Steps) > 0 {
		return Report{}, errors.New("header: only header lines, no steps")
	}
	if opt.DedupStates && opt.VisibilitySweep {
		return Report{}, errors.New("deduplicating states does not go with the visibility sweep: a state alike under one visibility timeout may differ under another")
	}
	s := &searcher{ctx: ctx, info: h, opt: opt, header: header, groups: map[string]group{}, tried: map[string]bool{}, api: h.API != nil,
		vt: header.VisibilityTimeout}
	s.vts = s.sweepTimeouts()
	if opt.DedupStates {
		s.seen, s.ok = map[string]int{}, map[string]int{}
	}
	if opt.Engine == nil && !opt.freshWorlds {
		s.worlds = sim.NewWorlds()
		defer s.worlds.Close()
	}
	if s.calls, s.gateway, err = s.probe(); err != nil {
		return Report{}, err
	}
	if opt.Budget > 0 {
		s.deadline = opt.now().Add(opt.Budget)
	}
	rep := Report{Handler: h.Name, Depth: opt.Depth, Runs: max(opt.Runs, 0), Len: opt.Len, Seed: opt.Seed}
	if !s.api {
		rep.Visibility = append([]time.Duration{header.VisibilityTimeout}, s.vts...)
	}
	err = s.exhaustive()
	if err == nil && opt.Runs > 0 {
		err = s.random()
	}
	switch {
	case errors.Is(err, errBudget):
		rep.Partial = true
	case err != nil:
		return Report{}, err
	}
	rep.Failures, rep.Omitted = s.stories()
	// Every story is replayed as lab run would run it before it is
	// reported: one that does not give its verdict again is the lab's
	// fault, never a report.
	if opt.beforeReplay != nil {
		opt.beforeReplay()
	}
	for _, f := range rep.Failures {
		if err := replayStory(ctx, h, f, opt.Engine); err != nil {
			return Report{}, err
		}
	}
	rep.Explored = s.explored
	rep.DistinctStates = s.distinct
	return rep, nil
}

func verdictRank(v sim.Verdict) int { return slices.Index(sim.Verdicts(), v) }

// run executes a script on the handler and returns its settled result.
func (s *searcher) run(steps []string) (sim.Result, *script.Script, error) {
	if err := s.ctx.Err(); err != nil {
		return sim.Result{}, nil, err
	}
	if !s.deadline.IsZero() && s.opt.now().After(s.deadline) {
		return sim.Result{}, nil, errBudget
	}
	sc, err := script.Parse(s.text(steps))
	if err != nil || sc.API != s.api {
		// Not a valid script, or one of the other side (an API script
		// with no request yet): skipped, not run.
		return sim.Result{}, nil, nil
	}
	s.explored++
	opt := sim.Options{Custom: []handlers.Info{s.info}, StepEvents: 1, Engine: s.opt.Engine, Worlds: s.worlds,
		StateKeys: s.seen != nil}
	if s.ok != nil {
		opt.KnownOK = func(key string, spent int) bool {
			most, ok := s.ok[key]
			return ok && spent <= most
		}
	}
	redone := s.worlds.Redone()
	run, err := sim.Execute(s.ctx, sc, opt)
	if s.worlds.Redone() != redone {
		// The handler read what the world's connection did in the run
		// before (changes(), last_insert_rowid()): the script runs again
		// on a fresh world, as every one of the handler's will now.
		opt.Worlds = nil
		run, err = sim.Execute(s.ctx, sc, opt)
	}
	if err != nil {
		var be *sim.BudgetError
		if errors.As(err, &be) {
			return sim.Result{}, nil, nil // past the delivery budget: not a story worth telling
		}
		return sim.Result{}, nil, err
	}
	res := run.Results[0]
	if s.ok != nil && res.StateKey != "" && res.Verdict == sim.OK && !res.Unsettled {
		if most, ok := s.ok[res.StateKey]; !ok || res.StateSpent > most {
			s.ok[res.StateKey] = res.StateSpent
		}
	}
	return res, sc, nil
}

func (s *searcher) text(steps []string) string {
	header := *s.header
	header.VisibilityTimeout = s.vt
	return header.String() + strings.Join(steps, "\n") + "\n"
}

// judge records a failing run, shrunk, under its verdict and cause. A
// script no shorter than its verdict's shortest story is not shrunk when
// it holds every step of a cause found for the verdict with a story no
// longer (explained), or when a script of the same verdict and step
// labels was shrunk before: the search stays about as fast as with one
// story per verdict, and a script shorter than every story of its
// verdict is always shrunk, as it always was.
func (s *searcher) judge(steps []string, res sim.Result) error {
	if res.Verdict == sim.OK {
		return nil
	}
	if n := s.shortest(res.Verdict); n > 0 && n <= len(steps) {
		sc, err := script.Parse(s.text(steps))
		if err != nil {
			return err
		}
		labels := causeLabels(sc, s.header.VisibilityTimeout)
		key := string(res.Verdict) + "\n" + strings.Join(labels, "\n")
		if s.tried[key] || s.explained(res.Verdict, labels, len(steps)) {
			return nil
		}
		s.tried[key] = true
	}
	min, res, err := s.shrink(steps, res.Verdict, res)
	if err != nil {
		return err
	}
	if s.vt != s.header.VisibilityTimeout {
		// A story the sweep found is told under the header's own
		// timeout when it fails the same way there.
		swept := s.vt
		s.vt = s.header.VisibilityTimeout
		r, sc, err := s.run(min)
		if err != nil {
			return err
		}
		if sc != nil && r.Verdict == res.Verdict {
			res = r
		} else {
			s.vt = swept
		}
		defer func() { s.vt = swept }()
	}
	sc, err := script.Parse(s.text(min))
	if err != nil {
		return err
	}
	labels := causeLabels(sc, s.header.VisibilityTimeout)
	cause := causeOf(labels)
	key := string(res.Verdict) + "\n" + cause
	if g, ok := s.groups[key]; ok && g.f.Steps <= len(min) {
		return nil
	}
	s.seq++
	s.groups[key] = group{labels: labels, seq: s.seq, f: Failure{Verdict: res.Verdict, Cause: cause, Script: sc.String(), Steps: len(min),
		Settled: res.Settled, Expected: res.Expected, Reason: res.Reason, res: res}}
	return nil
}

// exhaustive runs every script up to the depth, breadth first, so the
// first failure of a verdict is one of the shortest. A step that changed
// nothing (an idle one) ends its branch: anything after it is found
// without it. With Options.DedupStates, so does a step into a state
// expanded before (expand).
func (s *searcher) exhaustive() error {
	level := [][]string{nil}
	for depth := 1; depth <= s.opt.Depth; depth++ {
		var next [][]string
		for _, prefix := range level {
			// One worker delivering the oldest message and dying at
			// different calls often leaves the same world: a crash after
			// a read, or inside a transaction the database rolls back, is
			// the same as a crash before it. Such siblings are one branch.
			same := map[string]bool{}
			for _, step := range s.alphabet(prefix) {
				steps := append(slices.Clip(prefix), step)
				res, sc, err := s.run(steps)
				if err != nil {
					return err
				}
				if sc == nil || idle(res, len(steps)) || unreached(res, steps) {
					continue
				}
				if strings.HasPrefix(step, "deliver crash=") || (s.api && strings.Contains(step, " crash=")) {
					w := world(res)
					if same[w] {
						continue
					}
					same[w] = true
				}
				if err := s.judge(steps, res); err != nil {
					return err
				}
				if err := s.sweep(steps, res); err != nil {
					return err
				}
				if s.seen != nil && !s.expand(steps, res) {
					continue
				}
				next = append(next, steps)
			}
		}
		level = next
	}
	return nil
}

// expand reports whether a script's state is new: not reached before by
// a script expanded, which BFS ran at the same depth or a smaller one,
// with no more of the budget spent. The state is the world's key and the
// alphabet after the script, which is drawn from the script's text (its
// operations): two scripts alike in both have the same extensions, which
// run alike and are judged alike. A world with no key is always new.
func (s *searcher) expand(steps []string, res sim.Result) bool {
	if res.StateKey == "" {
		s.distinct++
		return true
	}
	key := res.StateKey + "\n" + strings.Join(s.alphabet(steps), "\n")
	spent, ok := s.seen[key]
	if ok && spent <= res.StateSpent {
		return false
	}
	if !ok {
		s.distinct++
	}
	s.seen[key] = res.StateSpent
	return true
}

// random runs Runs scripts of 1 to Len steps, each step drawn from the
// alphabet of the script so far.
func (s *searcher) random() error {
	rng := rand.New(rand.NewPCG(s.opt.Seed, 0x1de3))
	for range s.opt.Runs {
		n := 1 + rng.IntN(s.opt.Len)
		var steps []string
		var extra []string
		if !s.api {
			extra = s.switches()
		}
		for range n {
			alpha := append(s.alphabet(steps), extra...)
			if s.api {
				alpha = append(alpha, s.apiExtras(steps)...)
			}
			steps = append(steps, alpha[rng.IntN(len(alpha))])
		}
		res, sc, err := s.run(steps)
		if err != nil {
			return err
		}
		if sc == nil {
			continue
		}
		if err := s.judge(steps, res); err != nil {
			return err
		}
		if err := s.sweep(steps, res); err != nil {
			return err
		}
	}
	return nil
}

// idle reports whether the script's last step changed nothing: its
// events are only the broker's notes (a deliver with nothing ready). The
// run keeps one event per step (Options.StepEvents) and counts the rest.
func idle(res sim.Result, step int) bool {
	if step > len(res.Trace) || res.Trace[step-1].Omitted > 0 {
		return false
	}
	for _, e := range res.Trace[step-1].Events {
		if e.Kind != sim.KindNote || e.Actor != "broker" {
			return false
		}
	}
	return true
}

// unreached reports whether the script's last step names a crash point
// the handler never reached: it ran as a plain deliver, a sibling of the
// same branch.
func unreached(res sim.Result, steps []string) bool {
	n := len(steps)
	return strings.Contains(steps[n-1], "crash=") && n <= len(res.Trace) && !res.Trace[n-1].Crashed
}

// world writes what a run left before settlement: the database, Redis,
// the gateway's calls and the broker's queues. Two siblings that leave the
// same world settle alike and go on alike.
func world(res sim.Result) string {
	b, err := json.Marshal(struct {
		Final  *sim.State
		Broker sim.BrokerState
	}{res.Final, res.Broker})
	if err != nil {
		return fmt.Sprint(res.Final, res.Broker) // never: both are plain data
	}
	return string(b)
}
