package practice

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
	"go.yaml.in/yaml/v3"
)

// A Challenge is a goal to reach in the lab, in the manner of Learn Git
// Branching's levels: "make setnx lose money in at most 4 steps". The
// person builds a script with the lab's step controls; the engine runs it
// and Won judges the handler's result. Nothing about a solution is
// hard-coded: any script that makes the engine report the outcome wins.
//
// Challenges are data: one file each in challenges/ (challengeFile), in
// the order of their file names, the rules written as a Goal line.
type Challenge struct {
	ID       string
	Title    Text
	Goal     Text   // what to make happen, shown above the lab
	Hint     Text   // a nudge, folded until asked for
	Topic    string // the lesson that explains the failure (a lesson slug)
	Handler  string // the handler the goal is about (Rules.Handler)
	Handlers []string
	MaxSteps int // Rules.MaxSteps
	// NoCrash forbids crash= on every step (Rules.Without holds crash):
	// the failure must come from somewhere else (the gateway, a second
	// worker, the producer).
	NoCrash bool
	// Rules is the goal line the challenge's file states: the handler,
	// the outcome to reach, the step limit and what is forbidden.
	Rules Goal
	// Setup is the script the challenge starts from, in the script
	// language's canonical form; "" for the engine's defaults: header
	// lines (settings such as inbox-retention: 24h), and on the API side
	// one request the client already sent (a script tells its side by its
	// steps, and only a request makes it an API script). That request is
	// a step like the person's: it counts in MaxSteps. The settings and
	// the step are the person's to change, as on any other challenge.
	Setup string
	// API says the challenge is played on the API side: its goal's
	// handler serves requests, and its setup sends one.
	API bool
	// Solution is a script that solves the challenge, in canonical form:
	// the setup and the steps the file's solution adds. The lab shows it
	// after a try (TestChallengeSolutions runs every one on the engine).
	// "" for a shared challenge (SharedChallenge), which has none.
	Solution string
	// Shared says the challenge is a script's own (its goal: header),
	// not one of the files: it has no id, no solution and no place in the
	// list or in anyone's progress.
	Shared bool
	// Won says whether a run of the script reached the goal, from the
	// result of Handler (verdicts are after settlement: the lab delivers
	// what is left in the queue, as a real broker eventually would).
	Won func(sim.Result) bool
}

// Try is how a script fares against a challenge.
type Try struct {
	Steps   int
	Reached bool // the engine reports the goal's outcome for Handler
	// TooLong, Crashed and Forbidden say why a reached goal does not
	// count: more steps than MaxSteps, a crash step in a NoCrash
	// challenge, or a step the goal's without= rules out otherwise
	// (Forbidden is the first such word: fresh-key or a verb).
	TooLong, Crashed bool
	Forbidden        string
	Result           sim.Result
}

// Solved is a reached goal within the rules.
func (o Try) Solved() bool { return o.Reached && !o.TooLong && !o.Crashed && o.Forbidden == "" }

// Judge applies the challenge's rules to a result of Handler after steps
// steps of sc. The lab already has the result (it replays every card), so
// judging runs nothing.
func (c Challenge) Judge(sc *script.Script, steps int, res sim.Result) Try {
	o := Try{Steps: steps, Result: res, Reached: c.Won(res), TooLong: c.MaxSteps > 0 && steps > c.MaxSteps}
	// Crashes are Crashed's; the other words of without= are Forbidden's.
	other := c.Rules
	other.Without = slices.DeleteFunc(slices.Clone(other.Without), func(x string) bool { return x == WithoutCrash })
	for _, s := range sc.Steps[:steps] {
		if c.NoCrash && s.Crash != "" {
			o.Crashed = true
		}
		if o.Forbidden == "" {
			o.Forbidden = other.Breaks(s)
		}
	}
	return o
}

// Check runs the first steps steps of sc on the challenge's handler and
// judges the result. budget is sim.Options.Budget.
func (c Challenge) Check(ctx context.Context, sc *script.Script, steps, budget int) (Try, error) {
	run, err := sim.Execute(ctx, sc, sim.Options{Handlers: []string{c.Handler}, Steps: steps, Budget: budget, StepEvents: 1})
	if err != nil {
		return Try{}, err
	}
	if steps == 0 {
		steps = len(sc.Steps)
	}
	for _, res := range run.Results {
		if res.Handler == c.Handler {
			return c.Judge(sc, steps, res), nil
		}
	}
	return Try{}, fmt.Errorf("challenge %s: the run has no result for %s", c.ID, c.Handler)
}

//go:embed challenges/*.yaml questions/topics.yaml
var challengeFiles embed.FS

// challenges are in the order a learner meets them: the failures of the
// lessons, from the first to the last (the files' order). The files are
// part of the binary and TestChallengeFiles loads them, so a bad one
// fails the tests and the build's checks, never a visitor's page. They
// are loaded the first time they are asked for, not at start: the
// sandbox child, the same binary, never asks (#30).
var challenges = sync.OnceValue(mustLoadChallenges)

func mustLoadChallenges() []Challenge {
	cs, err := LoadChallenges(challengeFiles)
	if err != nil {
		panic("practice: the embedded challenges: " + err.Error())
	}
	return cs
}

// challengeFile is one file of challenges/, named NN-ID.yaml: NN orders
// the challenges, ID is the challenge's id (in addresses and progress).
type challengeFile struct {
	Topic    string   `yaml:"topic"`    // a lesson slug (questions/topics.yaml)
	Handlers []string `yaml:"handlers"` // the cards, the goal's handler first
	Goal     string   `yaml:"goal"`     // the rules: a Goal line
	Setup    string   `yaml:"setup"`    // optional: script header lines (and an API request)
	Solution string   `yaml:"solution"` // the steps after the setup that solve it
	Title    Text     `yaml:"title"`
	Task     Text     `yaml:"task"` // what to make happen (Challenge.Goal)
	Hint     Text     `yaml:"hint"`
}

var challengeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{2}-(.+)\.yaml$`) })

// LoadChallenges reads challenges/*.yaml from fsys, in file-name order,
// and checks each against questions/topics.yaml and the handlers. Errors
// name the file and what is wrong in it, with the valid choices.
func LoadChallenges(fsys fs.FS) ([]Challenge, error) {
	var topics []Topic
	if err := decodeFile(fsys, "questions/topics.yaml", &topics); err != nil {
		return nil, err
	}
	slugs := make([]string, len(topics))
	for i, t := range topics {
		slugs[i] = t.Slug
	}
	files, err := fs.Glob(fsys, "challenges/*.yaml")
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("challenges/: no challenge files (NN-ID.yaml)")
	}
	var out []Challenge
	for _, f := range files {
		c, err := loadChallenge(fsys, f, slugs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if slices.ContainsFunc(out, func(o Challenge) bool { return o.ID == c.ID }) {
			return nil, fmt.Errorf("%s: challenge id %s is used by an earlier file", f, c.ID)
		}
		out = append(out, c)
	}
	return out, nil
}

func loadChallenge(fsys fs.FS, name string, slugs []string) (Challenge, error) {
	m := challengeName().FindStringSubmatch(path.Base(name))
	if m == nil || !validID(m[1]) {
		return Challenge{}, fmt.Errorf("name the file NN-ID.yaml: two digits, a dash and an id of lowercase letters, digits and dashes")
	}
	var f challengeFile
	if err := decodeChallenge(fsys, name, &f); err != nil {
		return Challenge{}, err
	}
	if !slices.Contains(slugs, f.Topic) {
		return Challenge{}, fmt.Errorf("topic %q is not a lesson; valid topics: %s", f.Topic, strings.Join(slugs, ", "))
	}
	g, err := ParseGoal(f.Goal)
	if err != nil {
		return Challenge{}, fmt.Errorf("goal: %w", err)
	}
	if g.MaxSteps == 0 {
		return Challenge{}, fmt.Errorf("goal: a challenge needs a step limit; add steps<=N")
	}
	for _, t := range []struct {
		field string
		text  Text
	}{{"title", f.Title}, {"task", f.Task}, {"hint", f.Hint}} {
		if !complete(t.text) {
			return Challenge{}, fmt.Errorf("%s needs both en and ru", t.field)
		}
	}
	if len(f.Handlers) == 0 || f.Handlers[0] != g.Handler {
		return Challenge{}, fmt.Errorf("handlers %v: list the cards to show, the goal's handler %s first", f.Handlers, g.Handler)
	}
	for i, h := range f.Handlers {
		if !slices.Contains(handlerNames(), h) {
			return Challenge{}, fmt.Errorf("handlers: unknown handler %q; valid handlers: %s", h, strings.Join(handlerNames(), ", "))
		}
		if slices.Contains(f.Handlers[:i], h) {
			return Challenge{}, fmt.Errorf("handlers: %s is listed twice", h)
		}
	}
	sc, err := script.Parse(f.Setup)
	if err != nil {
		return Challenge{}, fmt.Errorf("setup: %w", err)
	}
	if err := checkSetupSteps(sc, g.MaxSteps); err != nil {
		return Challenge{}, fmt.Errorf("setup: %w", err)
	}
	// The goal's handler must run the challenge's scripts: those of the
	// side its setup (or the empty script) tells.
	if _, err := sim.HandlersFor(sc, []string{g.Handler}); err != nil {
		return Challenge{}, fmt.Errorf("goal: handler %s: %v", g.Handler, err)
	}
	setup := ""
	if strings.TrimSpace(f.Setup) != "" {
		setup = sc.String() // canonical, as the lab's address wants it
	}
	// The solution's steps follow the setup; whether they reach the goal
	// is for the engine to say (TestChallengeSolutions).
	if strings.TrimSpace(f.Solution) == "" {
		return Challenge{}, fmt.Errorf("solution: a challenge needs one: the steps after the setup that reach the goal")
	}
	sol, err := script.Parse(setup + f.Solution)
	if err != nil {
		return Challenge{}, fmt.Errorf("solution (after the setup): %w", err)
	}
	if len(sol.Steps) == len(sc.Steps) {
		return Challenge{}, fmt.Errorf("solution: it has no steps; write the steps after the setup that reach the goal")
	}
	return Challenge{
		ID: m[1], Title: f.Title, Goal: f.Task, Hint: f.Hint, Topic: f.Topic,
		Handler: g.Handler, Handlers: f.Handlers, MaxSteps: g.MaxSteps,
		NoCrash: slices.Contains(g.Without, WithoutCrash),
		Rules:   g, Setup: setup, API: sc.API, Won: g.Met, Solution: sol.String(),
	}, nil
}

// SharedChallenge is the challenge a script's goal: header makes of any
// lab script (a person's own, shared as its address): the goal line's
// handler, rules and conditions, with no id, title or solution. Its
// errors are a *GoalError, in both languages. The goal's handler must
// serve the side of sc, the script: a message handler a script of
// requests is an error, and so is an API handler a script that publishes;
// the script of no steps is either side's start, as for a listed API
// challenge whose first request was undone.
func SharedChallenge(line string, sc *script.Script) (Challenge, error) {
	g, err := ParseGoal(line)
	if err != nil {
		return Challenge{}, err
	}
	isAPI := false
	for _, h := range handlers.APIList() {
		if h.Name == g.Handler {
			isAPI = true
		}
	}
	switch {
	case isAPI && !sc.API && len(sc.Steps) > 0:
		return Challenge{}, goalErr("goal.api-handler-on-messages", g.Handler)
	case !isAPI && sc.API:
		return Challenge{}, goalErr("goal.message-handler-on-api", g.Handler, strings.Join(apiHandlerNames(), ", "))
	}
	return Challenge{
		Handler: g.Handler, Handlers: []string{g.Handler}, MaxSteps: g.MaxSteps,
		NoCrash: slices.Contains(g.Without, WithoutCrash),
		Rules:   g, API: isAPI, Won: g.Met, Shared: true,
	}, nil
}

func apiHandlerNames() []string {
	var names []string
	for _, h := range handlers.APIList() {
		names = append(names, h.Name)
	}
	return names
}

// checkSetupSteps allows a setup's steps only as far as a challenge needs
// them to tell its side: none on the broker side, and on the API side
// exactly one request (the client's first, already sent), which leaves at
// least one of the goal's steps to the person.
func checkSetupSteps(sc *script.Script, maxSteps int) error {
	switch {
	case len(sc.Steps) == 0:
		return nil
	case !sc.API:
		return fmt.Errorf("only header lines (settings such as inbox-retention: 24h) on the broker side; the steps are the person's to find")
	case len(sc.Steps) > 1 || sc.Steps[0].Verb != script.VerbRequest:
		return fmt.Errorf("on the API side, header lines and one request (such as request pay-1 amount=10000) that puts the lab on the API side; the other steps are the person's to find")
	case maxSteps <= len(sc.Steps):
		return fmt.Errorf("the setup's request counts as a step, and steps<=%d leaves none to the person; allow at least %d", maxSteps, len(sc.Steps)+1)
	}
	return nil
}

// decodeChallenge reads one file strictly: an unknown field is an error.
func decodeChallenge(fsys fs.FS, name string, f *challengeFile) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(f); errors.Is(err, io.EOF) {
		return fmt.Errorf("the file is empty; it needs topic, handlers, goal, title, task and hint")
	} else if err != nil {
		return err
	}
	return nil
}

// Challenges lists every challenge, in order.
func Challenges() []Challenge { return slices.Clone(challenges()) }

// FindChallenge returns the challenge with an id, or an error naming the
// valid ids.
func FindChallenge(id string) (Challenge, error) {
	for _, c := range challenges() {
		if c.ID == id {
			return c, nil
		}
	}
	ids := make([]string, len(challenges()))
	for i, c := range challenges() {
		ids[i] = c.ID
	}
	return Challenge{}, fmt.Errorf("unknown challenge %q; valid challenges: %s", id, strings.Join(ids, ", "))
}
