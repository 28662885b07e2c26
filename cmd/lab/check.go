package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/money"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
)

// checkReport is one handler's result as `lab check --json` prints it: the
// shortest failure at the top level, one story for each distinct failure
// (verdict and cause) in failures, each verdict's shortest first.
type checkReport struct {
	Handler   string         `json:"handler"`
	Engine    string         `json:"engine"` // embedded or real (--engine)
	Failed    bool           `json:"failed"`
	Verdict   sim.Verdict    `json:"verdict,omitempty"`
	Script    string         `json:"script,omitempty"`
	Steps     int            `json:"steps,omitempty"`
	Permalink string         `json:"permalink,omitempty"`
	Failures  []checkFailure `json:"failures"`
	// Omitted counts the distinct failures found beyond the ones listed
	// (check.MaxStories a handler).
	Omitted  int    `json:"omitted,omitempty"`
	Explored int    `json:"explored"`
	Depth    int    `json:"depth"`
	Runs     int    `json:"runs"`
	Seed     uint64 `json:"seed"`
	Partial  bool   `json:"partial,omitempty"`
	// Redelivery says how the broker's redelivery after a crash was
	// modelled ("redelivery at once" without a visibility-timeout:
	// header); empty on the API side.
	Redelivery string `json:"redelivery,omitempty"`
	// Scripts is how many scripts the search ran, shrinking included (the
	// same count as explored); DistinctStates, with --dedup-states, how
	// many distinct states its exhaustive part reached.
	Scripts        int `json:"scripts"`
	DistinctStates int `json:"distinct_states,omitempty"`
	// PerSecond is how many scripts a second the search ran.
	PerSecond int `json:"schedules_per_second"`
}

type checkFailure struct {
	Verdict sim.Verdict `json:"verdict"`
	// Cause is the kinds of step that make this failure differ from the
	// others of its verdict (check.Failure.Cause).
	Cause     string `json:"cause"`
	Script    string `json:"script"`
	Steps     int    `json:"steps"`
	Permalink string `json:"permalink"`
	Settled   int64  `json:"settled"`
	Expected  int64  `json:"expected"`
	Reason    string `json:"reason"` // the oracle's, as lab run prints it
	// Address is the lab's address that opens the story: the permalink,
	// and for an API handler (which has none) its card in the lab.
	Address string `json:"address"`
}

// cmdCheck searches schedules for the shortest failure of each handler.
// Exit status: 0 when every handler passed, 1 when any failed (or the lab
// broke), 2 on bad input.
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lab check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	depth := fs.Int("depth", check.DefaultDepth, "run every script up to this many steps")
	runs := fs.Int("runs", check.DefaultRuns, "then this many random scripts (0: none)")
	length := fs.Int("len", check.DefaultLen, "the longest random script")
	seed := fs.Uint64("seed", check.DefaultSeed, "the random scripts' seed (the same seed, the same report)")
	budget := fs.Duration("budget", 0, "stop each handler's search after this long (0: no limit; the report then says partial)")
	header := fs.String("header", "", `header lines every script starts with, such as "inbox-retention: 1h" (separate lines with ;)`)
	sweep := fs.Bool("visibility-sweep", false, "also run every script that redelivers after a crash or a timeout under visibility timeouts a minute below and above each TTL of the header (and at once)")
	dedup := fs.Bool("dedup-states", false, "expand each state of the exhaustive part once, as a model checker does: the same verdicts and shortest stories from fewer scripts (the counts change; not with --visibility-sweep)")
	asJSON := fs.Bool("json", false, "print the reports as JSON")
	base := fs.String("base", os.Getenv("LAB_BASE"), "the lab's server, such as http://127.0.0.1:8080: print each address as a whole URL (default: $LAB_BASE; without either, addresses start at /lab)")
	code := addCodeFlags(fs, 2*time.Minute)
	eng := addEngineFlags(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage
	}
	if code.given() && len(pos) == 0 {
		pos = []string{""} // yours alone
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "lab check: want the handlers to check (a name, a comma-separated list, core or all), got %d arguments\n", len(pos))
		return exitUsage
	}
	switch {
	case *depth < 1 || *depth > 6:
		fmt.Fprintf(stderr, "lab check: --depth %d: must be from 1 to 6 (each step multiplies the scripts by about 15)\n", *depth)
		return exitUsage
	case *runs < 0:
		fmt.Fprintf(stderr, "lab check: --runs %d: must be 0 (none) or more\n", *runs)
		return exitUsage
	case *length < 1 || *length > 50:
		fmt.Fprintf(stderr, "lab check: --len %d: must be from 1 to 50\n", *length)
		return exitUsage
	case *budget < 0:
		fmt.Fprintf(stderr, "lab check: --budget %v: must be 0 (no limit) or more\n", *budget)
		return exitUsage
	case *dedup && *sweep:
		fmt.Fprintln(stderr, "lab check: --dedup-states does not go with --visibility-sweep: a state alike under one visibility timeout may differ under another")
		return exitUsage
	}
	root, err := baseURL(*base)
	if err != nil {
		fmt.Fprintf(stderr, "lab check: --base (or LAB_BASE) %q: %v\n", *base, err)
		return exitUsage
	}
	var infos []handlers.Info
	if pos[0] != "" {
		if infos, err = checkHandlers(strings.Split(pos[0], ",")); err != nil {
			fmt.Fprintf(stderr, "lab check: %v\n", err)
			return exitUsage
		}
	}
	var src string
	if code.given() {
		if src, err = code.load(); err != nil {
			fmt.Fprintf(stderr, "lab check: %v\n", err)
			return exitUsage
		}
	}
	engine, err := eng.open(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "lab check: %v\n", err)
		return exitUsage
	}
	if engine != nil {
		defer engine.Close()
	}
	opt := check.Options{Depth: *depth, Runs: *runs, Len: *length, Seed: *seed, Budget: *budget,
		Header: strings.ReplaceAll(*header, ";", "\n"), VisibilitySweep: *sweep, Engine: engine, DedupStates: *dedup}
	if opt.Runs == 0 {
		opt.Runs = -1 // the flag's 0 means none; the package's 0 means its default
	}
	var reports []checkReport
	failed := false
	if code.given() {
		infos = append(infos, handlers.Info{Name: *code.name}) // searched in the sandbox, below
	}
	for _, h := range infos {
		start := time.Now()
		var rep check.Report
		if h.Handle == nil && h.API == nil { // the --code handler
			req := sandbox.Request{Op: "check", Code: src, Check: opt}
			if engine != nil {
				// The child connects on its own, to the same servers.
				req.Postgres, req.Redis = *eng.postgres, *eng.redis
			}
			resp, status, err := code.do(ctx, req, stderr)
			if err != nil {
				fmt.Fprintf(stderr, "lab check: %v\n", err)
				return status
			}
			rep = *resp.Report
		} else if rep, err = check.Check(ctx, h.Name, opt); err != nil {
			fmt.Fprintf(stderr, "lab check: %s: %v\n", h.Name, err)
			if errors.Is(err, context.Canceled) || strings.HasPrefix(err.Error(), "header") {
				return exitUsage
			}
			return exitError
		}
		elapsed := time.Since(start)
		cr := checkReport{Handler: h.Name, Engine: *eng.engine, Failed: rep.Failed(), Explored: rep.Explored, Depth: rep.Depth,
			Runs: rep.Runs, Seed: rep.Seed, Partial: rep.Partial, Failures: []checkFailure{}, Redelivery: rep.Redelivery("en"),
			Scripts: rep.Explored, DistinctStates: rep.DistinctStates}
		if elapsed > 0 {
			cr.PerSecond = int(float64(rep.Explored) / elapsed.Seconds())
		}
		for _, f := range rep.Failures {
			pl := permalink(f.Script, h, src, engine != nil)
			cr.Failures = append(cr.Failures, checkFailure{Verdict: f.Verdict, Script: f.Script, Steps: f.Steps,
				Permalink: whole(root, pl), Settled: f.Settled, Expected: f.Expected, Reason: f.Reason,
				Cause: f.Cause, Address: whole(root, address(pl, f.Script, h))})
		}
		cr.Omitted = rep.Omitted
		if rep.Failed() {
			failed = true
			top := cr.Failures[0]
			cr.Verdict, cr.Script, cr.Steps, cr.Permalink = top.Verdict, top.Script, top.Steps, top.Permalink
		}
		reports = append(reports, cr)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			fmt.Fprintf(stderr, "lab check: %v\n", err)
			return exitError
		}
	} else {
		if engine != nil {
			fmt.Fprintf(stdout, "engine: %s\n\n", engine)
		}
		printCheck(stdout, reports)
		if root == "" && failed {
			fmt.Fprintln(stdout, "\nThe addresses start at /lab: open them on a lab server (lab serve: http://127.0.0.1:8080/lab?…), or give --base URL (or set LAB_BASE) to print them whole.")
		}
	}
	if failed {
		return exitError
	}
	return exitOK
}

// printCheck writes a table of handlers and their shortest failures, then
// each minimal script with the address that replays it.
func printCheck(w io.Writer, reports []checkReport) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "handler\tshortest failure\tsteps\tother verdicts\tstories\tscripts run")
	for _, r := range reports {
		if !r.Failed {
			note := fmt.Sprintf("none up to depth %d and %d random scripts", r.Depth, r.Runs)
			if r.Partial {
				note += " (stopped by --budget)"
			}
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t%d\n", r.Handler, note, r.Explored)
			continue
		}
		// The other verdicts, each with its shortest story; the column
		// after counts every story listed below (and those left out).
		var others []string
		for i, f := range r.Failures {
			if i > 0 && f.Verdict != r.Failures[i-1].Verdict {
				others = append(others, fmt.Sprintf("%s (%d)", f.Verdict, f.Steps))
			}
		}
		stories := strconv.Itoa(len(r.Failures))
		if r.Omitted > 0 {
			stories += fmt.Sprintf(" (+%d not listed)", r.Omitted)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\n", r.Handler, r.Verdict, r.Steps, strings.Join(others, ", "), stories, r.Explored)
	}
	tw.Flush()
	// The model of time the stories hold under: the same for every
	// handler of the broker side, as they share the header.
	for _, r := range reports {
		if r.Redelivery != "" {
			fmt.Fprintf(w, "\nmodel: %s\n", r.Redelivery)
			break
		}
	}
	// Each handler's stories, one for each distinct failure: under each
	// verdict its shortest first, then its other causes.
	for _, r := range reports {
		if r.Failed {
			fmt.Fprintf(w, "\n%s: %s\n", r.Handler, plural(len(r.Failures), "distinct failure"))
		}
		for _, f := range r.Failures {
			fmt.Fprintf(w, "\n%s: %s in %s (settled %s, expected %s)\n  cause: %s\n", r.Handler, f.Verdict, plural(f.Steps, "step"),
				money.Plain(f.Settled), money.Plain(f.Expected), f.Cause)
			for _, line := range strings.Split(strings.TrimRight(f.Script, "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
			if f.Permalink != "" {
				fmt.Fprintf(w, "  replay: %s\n", f.Permalink)
			} else {
				fmt.Fprintf(w, "  replay: save the script above to a file and run lab run FILE --handlers %s\n", r.Handler)
			}
		}
		if r.Omitted > 0 {
			fmt.Fprintf(w, "\n%s: %s not listed (at most %d stories a handler: the longest of the other causes are left out)\n",
				r.Handler, plural(r.Omitted, "more distinct failure"), check.MaxStories)
		}
	}
}

// baseURL checks the --base flag: "" (none), or an http(s) URL of a
// server, without a query, returned without its trailing slash.
func baseURL(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", errors.New("not a URL; give one such as http://127.0.0.1:8080")
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return "", errors.New("want an http:// or https:// address with a host, such as http://127.0.0.1:8080")
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return "", errors.New("want the server's address alone, without a query, a fragment or a user, such as https://lab.example.org")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// whole makes an address a whole URL on root (no root: as it is).
func whole(root, address string) string {
	if root == "" || address == "" {
		return address
	}
	return root + address
}

// address is the lab's address that opens a story: its permalink, or for
// an API handler, which has none, the story on its card.
func address(permalink, script string, h handlers.Info) string {
	if permalink != "" || h.API == nil {
		return permalink
	}
	return link.Lab{Script: script, Handlers: []string{h.Name}}.String()
}

// permalink is the lab's address that replays a failure: on the lab's
// handler (on the real engine, engine=real, when the search ran there:
// a server started with one replays it there), or on the --code file,
// which travels in the address too (a server runs a file on the embedded
// engine only).
func permalink(script string, h handlers.Info, src string, real bool) string {
	if h.API != nil {
		return "" // the lab's pages do not show the API side yet: lab run replays it
	}
	if h.Handle == nil {
		return link.Lab{Script: script, Code: src, Name: h.Name}.String()
	}
	l := link.Lab{Script: script, Handlers: []string{h.Name}}
	if real {
		l.Engine = link.EngineReal
	}
	return l.String()
}

// checkHandlers resolves the handlers to check: message handlers and API
// handlers by name, core (the message handlers' five), api (every API
// handler) and all (both kinds).
func checkHandlers(names []string) ([]handlers.Info, error) {
	api := sim.APIHandlers()
	var out []handlers.Info
	for _, n := range names {
		n = strings.TrimSpace(n)
		var hs []handlers.Info
		switch n {
		case "api":
			hs = api
		case "all":
			all, _ := sim.Handlers([]string{"all"})
			hs = append(all, api...)
		default:
			var err error
			if hs, err = sim.Handlers([]string{n}); err != nil {
				i := slices.IndexFunc(api, func(h handlers.Info) bool { return h.Name == n })
				if i < 0 {
					return nil, fmt.Errorf("%v; or an API handler: %s (or api)", err, apiNames(api))
				}
				hs = api[i : i+1]
			}
		}
		for _, h := range hs {
			if !slices.ContainsFunc(out, func(o handlers.Info) bool { return o.Name == h.Name }) {
				out = append(out, h)
			}
		}
	}
	return out, nil
}

func apiNames(hs []handlers.Info) string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	return strings.Join(out, ", ")
}
