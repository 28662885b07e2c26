package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
)

// cmdConform runs every preset on every handler on both engines and
// prints where they differ. Exit status: 0 when every difference is a
// documented one (sim.EngineDifferences), 1 when any is not, 2 on bad
// input (flags, URLs, servers that do not answer).
func cmdConform(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lab conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	eng := addEngineFlags(fs)
	asJSON := fs.Bool("json", false, "print the differences as JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lab conform: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *eng.engine != "real" {
		fmt.Fprintln(stderr, "lab conform: compares the embedded engine with a real one: give --engine real --postgres URL --redis URL")
		return exitUsage
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
	presets = append(presets, api...) // each runs on its side's handlers ("all")
	diffs := []sim.Difference{}
	runs := 0
	for _, p := range presets {
		emb, err := sim.Execute(ctx, p.Script, sim.Options{Handlers: []string{"all"}})
		if err != nil {
			fmt.Fprintf(stderr, "lab conform: %s, embedded: %v\n", p.Name, err)
			return exitError
		}
		real, err := sim.Execute(ctx, p.Script, sim.Options{Handlers: []string{"all"}, Engine: engine})
		if err != nil {
			fmt.Fprintf(stderr, "lab conform: %s, real: %v\n", p.Name, err)
			return exitError
		}
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
	undocumented := 0
	for _, d := range diffs {
		if !d.Documented {
			undocumented++
		}
	}
	if *asJSON {
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
		fmt.Fprintf(stdout, "%d presets (%d of the broker side × %d message handlers, %d of the API side × %d API handlers) on SQLite + miniredis and on PostgreSQL + Redis: %d runs each, %d differences (%d documented)\n\n",
			len(presets), len(presets)-len(api), len(handlers.List()), len(api), len(sim.APIHandlers()), runs, len(diffs), len(diffs)-undocumented)
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
	if undocumented > 0 {
		fmt.Fprintf(stderr, "lab conform: %d differences are not documented (sim.EngineDifferences)\n", undocumented)
		return exitError
	}
	return exitOK
}
