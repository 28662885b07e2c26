package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idempotency-lab/lab/brokers"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/money"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// parseInterleaved parses flags that may come before or after the
// positional arguments, as in "lab run crash-before-ack --json".
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// cmdRun runs a scenario. ctx ends the run early (Ctrl-C): the engine
// stops within one delivery.
func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lab run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	handlerList := fs.String("handlers", "core", "handlers to run: a comma-separated list of names, core or all")
	asJSON := fs.Bool("json", false, "print the full result, with traces, as JSON")
	steps := fs.Int("steps", 0, "run only the first N steps (0: all)")
	budget := fs.Int("budget", sim.DefaultBudget, "the most handler deliveries the run may make, over all handlers (negative: no limit)")
	code := addCodeFlags(fs, 5*time.Second)
	eng := addEngineFlags(fs)
	broker := addBrokerFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "lab run: want one scenario (a preset name, a script file or -), got %d\n", len(pos))
		return exitUsage
	}
	if *steps < 0 {
		fmt.Fprintf(stderr, "lab run: --steps %d: must be 0 (all) or more\n", *steps)
		return exitUsage
	}
	name, script, err := loadScenario(pos[0], stdin)
	if err != nil {
		fmt.Fprintf(stderr, "lab run: %v\n", err)
		return exitUsage
	}
	if n := len(script.Steps); *steps > n {
		fmt.Fprintf(stderr, "lab run: --steps %d: %s has only %s\n", *steps, name, plural(n, "step"))
		return exitUsage
	}
	var names []string
	for _, n := range strings.Split(*handlerList, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if _, err := sim.HandlersFor(script, names); err != nil {
		fmt.Fprintf(stderr, "lab run: --handlers: %v\n", err)
		return exitUsage
	}
	if !flagGiven(fs, "handlers") && len(script.Handlers) > 0 && !script.API {
		// As in the web lab: the core handlers and those the scenario's
		// story is about (its handlers: header), in the handlers' order.
		names = nil
		for _, h := range handlers.List() {
			if h.Core || slices.Contains(script.Handlers, h.Name) {
				names = append(names, h.Name)
			}
		}
	}
	var src string
	if code.given() {
		if src, err = code.load(); err != nil {
			fmt.Fprintf(stderr, "lab run: %v\n", err)
			return exitUsage
		}
		if !flagGiven(fs, "handlers") {
			names = nil // yours alone, unless --handlers asks for others beside it
		}
	}
	engine, err := eng.open(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "lab run: %v\n", err)
		return exitUsage
	}
	if engine != nil {
		defer engine.Close()
	}
	var realBroker sim.RealBroker
	if flagGiven(fs, "broker") && *broker != "lab" {
		switch {
		case script.API:
			fmt.Fprintf(stderr, "lab run: --broker %s: %s sends API requests and has no broker steps\n", *broker, name)
			return exitUsage
		case code.given():
			fmt.Fprintf(stderr, "lab run: --broker %s runs the lab's handlers only, not a --code file\n", *broker)
			return exitUsage
		}
		srv, err := openBroker(ctx, *broker)
		if err != nil {
			fmt.Fprintf(stderr, "lab run: %v\n", err)
			return exitUsage
		}
		if srv != nil {
			defer srv.Close()
			if err := brokers.CheckPastLimit(script, srv.Name()); err != nil {
				fmt.Fprintf(stderr, "lab run: %s: %v\n", name, err)
				return exitUsage
			}
			// The script runs under the broker's profile, its own
			// headers still winning.
			if script, err = brokers.WithProfile(script, srv.Name()); err != nil {
				fmt.Fprintf(stderr, "lab run: %v\n", err)
				return exitUsage
			}
			realBroker = srv
		}
	}
	res := &sim.Run{Script: script, Steps: len(script.Steps)}
	if *steps > 0 {
		res.Steps = *steps
	}
	if !code.given() || len(names) > 0 {
		res, err = sim.Execute(ctx, script, sim.Options{Handlers: names, Steps: *steps, Budget: *budget, Engine: engine, RealBroker: realBroker})
	}
	var be *sim.BudgetError
	if err == nil && code.given() {
		req := sandbox.Request{Op: "run", Code: src, Script: script.String(), Steps: *steps, Budget: *budget}
		if engine != nil {
			// The child connects on its own, to the same servers.
			req.Postgres, req.Redis = *eng.postgres, *eng.redis
		}
		resp, status, cerr := code.do(ctx, req, stderr)
		if cerr != nil {
			fmt.Fprintf(stderr, "lab run: %v\n", cerr)
			return status
		}
		if resp.Budget != nil {
			err = resp.Budget
		} else {
			res.Results = append(res.Results, resp.Run.Unwire())
		}
	}
	if errors.As(err, &be) {
		// The script asks for too much: bad input, like a script error.
		fmt.Fprintf(stderr, "lab run: %s: %v\n", name, be)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "lab run: %v\n", err)
		return exitError
	}
	if *asJSON {
		out := struct {
			Scenario string       `json:"scenario"`
			Title    string       `json:"title,omitempty"`
			Steps    int          `json:"steps"`
			Results  []sim.Result `json:"results"`
		}{name, script.Title, res.Steps, res.Results}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "lab run: %v\n", err)
			return exitError
		}
		return exitOK
	}
	printTable(stdout, name, script, res)
	if realBroker != nil {
		fmt.Fprintf(stdout, "\nThe broker steps ran on a real %s, under the %s profile; its answers are the broker's notes in the trace (--json).\n",
			brokers.Describe(realBroker.Name()), realBroker.Name())
	}
	return exitOK
}

// loadScenario resolves a preset name, a file path or - (standard input).
func loadScenario(arg string, stdin io.Reader) (string, *script.Script, error) {
	presets, err := sim.Presets()
	if err != nil {
		return "", nil, err
	}
	api, err := sim.APIPresets()
	if err != nil {
		return "", nil, err
	}
	presets = append(presets, api...)
	if p, err := sim.FindPreset(presets, arg); err == nil {
		return p.Name, p.Script, nil
	}
	var src []byte
	if arg == "-" {
		src, err = io.ReadAll(io.LimitReader(stdin, script.MaxScriptBytes+1))
	} else {
		src, err = readFile(arg)
	}
	if errors.Is(err, os.ErrNotExist) {
		if looksLikePath(arg) {
			return "", nil, fmt.Errorf("%s: the file does not exist", arg)
		}
		_, err := sim.FindPreset(presets, arg)
		return "", nil, fmt.Errorf("%v (or give the path of a script file)", err)
	}
	if err != nil {
		return "", nil, err
	}
	s, err := script.Parse(string(src))
	if err != nil {
		return "", nil, fmt.Errorf("%s: %v", arg, err)
	}
	return arg, s, nil
}

// looksLikePath reports whether a scenario argument that is not a preset
// was meant as a file: it names a folder or ends in .lab. A missing file
// is then reported as missing, not as an unknown preset.
func looksLikePath(arg string) bool {
	return strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, filepath.Separator) ||
		strings.HasSuffix(arg, ".lab")
}

// plural is "1 step" or "n steps".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, script.MaxScriptBytes+1))
}

func printTable(w io.Writer, name string, s *script.Script, res *sim.Run) {
	title := name
	if s.Title != "" {
		title = s.Title + " (" + name + ")"
	}
	fmt.Fprintf(w, "%s: %s\n\n", title, plural(res.Steps, "step"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// Amounts in major units, as the web shows them (--json keeps minor
	// units); no cell after the last, so no line ends in spaces.
	fmt.Fprintln(tw, "handler\tbalance\tsettled\texpected\tverdict\tdeliveries\tdead-lettered\tquarantined\tgateway calls")
	for _, r := range res.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\n", r.Handler, money.Plain(r.Balance), money.Plain(r.Settled), money.Plain(r.Expected),
			r.Verdict, r.Deliveries, r.DeadLettered, r.Quarantined, r.GatewayCalls)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range res.Results {
		fmt.Fprintf(w, "%-18s %s\n", r.Handler+":", r.Reason)
	}
}

func cmdScenarios(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "lab scenarios: takes no arguments, got %q\n", strings.Join(args, " "))
		return exitUsage
	}
	presets, err := sim.Presets()
	if err != nil {
		fmt.Fprintf(stderr, "lab scenarios: %v\n", err)
		return exitError
	}
	api, err := sim.APIPresets()
	if err != nil {
		fmt.Fprintf(stderr, "lab scenarios: %v\n", err)
		return exitError
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, p := range append(presets, api...) { // the API side's last: their names start with api-
		fmt.Fprintf(tw, "%s\t%s\n", p.Name, p.Script.Summary)
	}
	tw.Flush()
	return exitOK
}

func cmdHandlers(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "lab handlers: takes no arguments, got %q\n", strings.Join(args, " "))
		return exitUsage
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, h := range handlers.List() {
		kind := "anti-pattern"
		switch {
		case h.Core:
			kind = "core"
		case h.Variant:
			kind = "variant"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", h.Name, kind, h.Summary)
	}
	for _, h := range sim.APIHandlers() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", h.Name, "api", h.Summary)
	}
	tw.Flush()
	return exitOK
}

// flagGiven reports whether the command line set a flag.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
