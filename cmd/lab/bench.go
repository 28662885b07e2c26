package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/idempotency-lab/lab/cost"
)

// cmdBench measures what each handler's idempotency costs on this machine
// (or on real servers): speed, calls and storage per message. Exit
// status: 0, 1 when the lab broke, 2 on bad input.
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lab bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	names := fs.String("handlers", "core", "handlers to measure: a comma-separated list of names, core or all")
	messages := fs.Int("messages", cost.DefaultMessages, fmt.Sprintf("distinct messages per handler (1 to %d)", cost.MaxMessages))
	dup := fs.String("duplicates", fmt.Sprintf("%d%%", cost.DefaultDuplicates), "the share of messages sent a second time, as a producer's retry (0% to 100%)")
	keys := fs.Int("keys", cost.DefaultKeyRows, fmt.Sprintf("then insert this many rows keyed by UUIDv4, UUIDv7, SHA-256 and a sequence, and compare their indexes (0: skip; at most %d)", cost.MaxKeyRows))
	retention := fs.Bool("retention", true, "then run the inbox through three days of traffic with a retention job at 1h, 6h, 24h and none")
	eng := addEngineFlags(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lab bench: unexpected argument %q (the handlers go in --handlers)\n", fs.Arg(0))
		return exitUsage
	}
	pct, err := parsePercent(*dup)
	if err != nil {
		fmt.Fprintf(stderr, "lab bench: --duplicates %s\n", err)
		return exitUsage
	}
	engine, err := eng.open(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "lab bench: %v\n", err)
		return exitUsage
	}
	if engine != nil {
		defer engine.Close()
	}
	if pct == 0 {
		pct = -1 // none: 0 would mean the default to cost.Bench
	}
	if *messages < 1 { // 0 would mean the default to cost.Bench
		fmt.Fprintf(stderr, "lab bench: messages: %d is out of range: from 1 to %d\n", *messages, cost.MaxMessages)
		return exitUsage
	}
	if *keys < 0 || *keys > cost.MaxKeyRows {
		fmt.Fprintf(stderr, "lab bench: --keys %d: from 0 (skip) to %d\n", *keys, cost.MaxKeyRows)
		return exitUsage
	}
	failed := func(err error) int {
		fmt.Fprintf(stderr, "lab bench: %v\n", err)
		if cost.IsBadInput(err) {
			return exitUsage
		}
		return exitError
	}
	out, err := cost.Measure(ctx, cost.MeasureOptions{KeyRows: *keys, Retention: *retention,
		Bench: cost.Options{Handlers: strings.Split(*names, ","), Messages: *messages, Duplicates: pct, Engine: engine}})
	if err != nil {
		return failed(err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return exitError
		}
		return exitOK
	}
	writeBench(stdout, out.Handlers)
	if out.Keys != nil {
		writeKeys(stdout, out.Keys)
	}
	if out.Retention != nil {
		writeRetention(stdout, out.Retention)
	}
	return exitOK
}

func writeKeys(w io.Writer, rep *cost.KeysReport) {
	fmt.Fprintf(w, "\nKeys and the B-tree: %d rows into a UNIQUE index, %s engine", rep.Rows, rep.Engine)
	if rep.CacheKB > 0 {
		fmt.Fprintf(w, " (SQLite in a file, a %d KB page cache)", rep.CacheKB)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "key	key bytes	inserts/s	index bytes	bytes/row	leaf fill")
	for _, k := range rep.Kinds {
		fill := "unknown"
		if k.LeafFill >= 0 {
			fill = fmt.Sprintf("%.0f%%", 100*k.LeafFill)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%.1f\t%s\n", k.Kind, k.KeyBytes, k.PerSecond, k.IndexBytes, float64(k.IndexBytes)/float64(k.Rows), fill)
	}
	tw.Flush()
}

func writeRetention(w io.Writer, rep *cost.RetentionReport) {
	fmt.Fprintf(w, "\nRetention: the inbox after %d hours of %d messages an hour\n", rep.Hours, rep.PerHour)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "retention	rows at the end	bytes at the end")
	for _, s := range rep.Series {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", s.Horizon, s.Rows[len(s.Rows)-1], s.Bytes)
	}
	tw.Flush()
	for _, h := range rep.ReplayHorizons {
		fmt.Fprintf(w, "  a copy %s late in %s: %s\n", h.Late, h.Preset, h.What)
	}
}

// parsePercent reads 10% or 10.
func parsePercent(v string) (int, error) {
	var n int
	s := strings.TrimSuffix(v, "%")
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil || fmt.Sprint(n) != s || n < 0 || n > 100 {
		return 0, fmt.Errorf("%q: a whole percentage from 0%% to 100%%, as in: --duplicates 10%%", v)
	}
	return n, nil
}

func writeBench(w io.Writer, rep *cost.Report) {
	fmt.Fprintf(w, "%d messages per handler, %d%% sent twice (%d copies); %s engine; %s/%s, %d CPUs, %s\n\n",
		rep.Messages, rep.Duplicates, rep.Copies, rep.Engine, rep.Machine.OS, rep.Machine.Arch, rep.Machine.CPUs, rep.Machine.Go)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "handler\tverdict\tmsg/s\tp50 ms\tp99 ms\tSQL/msg\tRedis/msg\ttx/msg\trows\tbytes/msg\tRedis keys\tRedis bytes/key")
	for _, r := range rep.Handlers {
		perKey := "-" // miniredis does not measure memory
		if r.RedisPerKey > 0 {
			perKey = fmt.Sprintf("%.0f", r.RedisPerKey)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.3f\t%.3f\t%.2f\t%.2f\t%.2f\t%d\t%.0f\t%d\t%s\n", r.Handler, r.Verdict, r.PerSecond, r.P50, r.P99,
			r.SQLPer, r.RedisPer, r.TxPer, r.Rows, r.BytesPer, r.RedisKeys, perKey)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nmsg/s is 1 s over the median (p50) time per message, so one slow message moves p99, not msg/s.")
	fmt.Fprintln(w, "Timings are this machine's, now: compare them as ratios within this run. Counters are exact.")
}
