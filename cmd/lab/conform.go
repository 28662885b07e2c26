package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
)

// cmdConform runs every preset on every handler on both engines and
// prints where they differ. Exit status: 0 when every difference is a
// documented one (sim.EngineDifferences), 1 when any is not, 2 on bad
// input (flags, URLs, servers that do not answer).
//
// With --code it runs every preset of the file's side (the broker's, or
// the API's for an API handler) on the file instead: none of its
// differences is documented, so any difference exits 1.
func cmdConform(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lab conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	eng := addEngineFlags(fs)
	asJSON := fs.Bool("json", false, "print the differences as JSON")
	code := addCodeFlags(fs, 5*time.Second)
	broker := addBrokerFlag(fs)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lab conform: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if flagGiven(fs, "broker") {
		if *eng.engine != "embedded" || code.given() {
			fmt.Fprintln(stderr, "lab conform: --broker compares the broker on the embedded engine, with the lab's handlers: leave out --engine and --code")
			return exitUsage
		}
		return cmdConformBroker(ctx, *broker, *asJSON, stdout, stderr)
	}
	if *eng.engine != "real" {
		fmt.Fprintln(stderr, "lab conform: compares the embedded engine with a real one (give --engine real --postgres URL --redis URL), or the broker model with a real broker (give --broker nats)")
		return exitUsage
	}
	var src string
	var file *sandbox.File
	if code.given() {
		var err error
		if src, err = code.load(); err != nil {
			fmt.Fprintf(stderr, "lab conform: %v\n", err)
			return exitUsage
		}
		file, _ = sandbox.Parse(src) // load parsed it already
	}
	engine, err := eng.open(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "lab conform: %v\n", err)
		return exitUsage
	}
	defer engine.Close()
	presets, err := sim.Presets()
	if err != nil {
		fmt.Fprintf(stderr, "lab conform: %v\n", err)
		return exitError
	}
	api, err := sim.APIPresets()
	if err != nil {
		fmt.Fprintf(stderr, "lab conform: %v\n", err)
		return exitError
	}
	if file != nil {
		return conformCode(ctx, code, src, file.API, presets, api, eng, *asJSON, stdout, stderr)
	}
	presets = append(presets, api...) // each runs on its side's handlers ("all")
	diffs := []sim.Difference{}
	runs := 0
	// The presets run side by side (their worlds share nothing; the real
	// engine gives each world a schema and a Redis database of its own and
	// makes a world wait for a free one), and are read in their order, so
	// the report is the same as one preset after another.
	type pair struct {
		emb, real *sim.Run
		err       error
	}
	pairs := make([]pair, len(presets))
	var wg sync.WaitGroup
	next := make(chan int)
	for range conformWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := presets[i]
				emb, err := sim.Execute(ctx, p.Script, sim.Options{Handlers: []string{"all"}})
				if err != nil {
					pairs[i].err = fmt.Errorf("%s, embedded: %w", p.Name, err)
					continue
				}
				real, err := sim.Execute(ctx, p.Script, sim.Options{Handlers: []string{"all"}, Engine: engine})
				if err != nil {
					pairs[i].err = fmt.Errorf("%s, real: %w", p.Name, err)
					continue
				}
				pairs[i] = pair{emb: emb, real: real}
			}
		}()
	}
	for i := range presets {
		next <- i
	}
	close(next)
	wg.Wait()
	for pi, p := range presets {
		if err := pairs[pi].err; err != nil {
			fmt.Fprintf(stderr, "lab conform: %v\n", err)
			return exitError
		}
		emb, real := pairs[pi].emb, pairs[pi].real
		for i, r := range real.Results {
			runs++
			a := emb.Results[i]
			if !sim.Differ(a, r) {
				continue
			}
			why, ok := sim.EngineDifferences[r.Handler]
			diffs = append(diffs, sim.Difference{Preset: p.Name, Handler: r.Handler, Embedded: a, Real: r, Documented: ok, Why: why})
		}
	}
	undocumented := printConform(stdout, diffs, *asJSON, fmt.Sprintf("%d presets (%d of the broker side × %d message handlers, %d of the API side × %d API handlers) on SQLite + miniredis and on PostgreSQL + Redis: %d runs each, %d differences (%d documented)\n\n",
		len(presets), len(presets)-len(api), len(handlers.List()), len(api), len(sim.APIHandlers()), runs, len(diffs), len(diffs)-countDocumented(diffs)))
	if undocumented > 0 {
		fmt.Fprintf(stderr, "lab conform: %d differences are not documented (sim.EngineDifferences)\n", undocumented)
		return exitError
	}
	return exitOK
}

// conformWorkers is how many presets lab conform runs at once: the real
// engine's time is mostly waiting on PostgreSQL and Redis, so a few more
// than the two cores keep them busy.
const conformWorkers = 4

// conformCode runs every preset of the file's side on the --code file,
// each in a sandbox child of its own, on the embedded engine and on the
// real one (that child keeps the network, to reach the servers: one's
// own file on one's own machine, unisolated, as lab run --code --engine
// real runs it), and prints where they differ.
func conformCode(ctx context.Context, code codeFlags, src string, apiFile bool, presets, api []sim.Preset,
	eng engineFlags, asJSON bool, stdout, stderr io.Writer) int {
	side := "broker"
	if apiFile {
		presets, side = api, "API"
	}
	diffs := []sim.Difference{}
	for _, p := range presets {
		var res [2]sim.Result
		for i, real := range []bool{false, true} {
			req := sandbox.Request{Op: "run", Code: src, Script: p.Script.String(), Budget: sim.DefaultBudget}
			where := "embedded"
			if real {
				req.Postgres, req.Redis, where = *eng.postgres, *eng.redis, "real"
			}
			resp, status, err := code.do(ctx, req, stderr)
			if err != nil {
				fmt.Fprintf(stderr, "lab conform: %s, %s: %v\n", p.Name, where, err)
				return status
			}
			if resp.Budget != nil {
				fmt.Fprintf(stderr, "lab conform: %s, %s: %v\n", p.Name, where, resp.Budget)
				return exitUsage
			}
			res[i] = resp.Run.Unwire()
		}
		if sim.Differ(res[0], res[1]) {
			diffs = append(diffs, sim.Difference{Preset: p.Name, Handler: *code.name, Embedded: res[0], Real: res[1]})
		}
	}
	printConform(stdout, diffs, asJSON, fmt.Sprintf("%d presets of the %s side on %s on SQLite + miniredis and on PostgreSQL + Redis: %d differences\n\n",
		len(presets), side, *code.name, len(diffs)))
	if len(diffs) > 0 {
		fmt.Fprintf(stderr, "lab conform: %s: the engines differ on %s\n", *code.path, plural(len(diffs), "preset"))
		return exitError
	}
	return exitOK
}

func countDocumented(diffs []sim.Difference) int {
	n := 0
	for _, d := range diffs {
		if d.Documented {
			n++
		}
	}
	return n
}

// printConform prints the differences, as JSON or as a table after the
// summary line, and returns how many are not documented.
func printConform(stdout io.Writer, diffs []sim.Difference, asJSON bool, summary string) int {
	undocumented := len(diffs) - countDocumented(diffs)
	if asJSON {
		type row struct {
			Preset, Handler              string
			Embedded, Real               sim.Verdict
			EmbeddedSettled, RealSettled int64
			Documented                   bool
			Why                          string `json:",omitempty"`
		}
		out := []row{}
		for _, d := range diffs {
			out = append(out, row{d.Preset, d.Handler, d.Embedded.Verdict, d.Real.Verdict, d.Embedded.Settled, d.Real.Settled, d.Documented, d.Why})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
	} else {
		fmt.Fprint(stdout, summary)
		if len(diffs) > 0 {
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "preset\thandler\tembedded\treal\tdocumented")
			for _, d := range diffs {
				fmt.Fprintf(tw, "%s\t%s\t%s %d\t%s %d\t%v\n", d.Preset, d.Handler, d.Embedded.Verdict, d.Embedded.Settled,
					d.Real.Verdict, d.Real.Settled, d.Documented)
			}
			tw.Flush()
			seen := map[string]bool{}
			for _, d := range diffs {
				if d.Documented && !seen[d.Handler] {
					seen[d.Handler] = true
					fmt.Fprintf(stdout, "\n%s: %s\n", d.Handler, d.Why)
				}
			}
		}
	}
	return undocumented
}
