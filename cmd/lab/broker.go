package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/idempotency-lab/lab/brokers"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
)

// addBrokerFlag is --broker: where a script's broker steps run, the lab's
// model (the default) or a real broker (package brokers).
func addBrokerFlag(fs *flag.FlagSet) *string {
	return fs.String("broker", "lab", "where the broker steps run: lab (the lab's model), "+brokers.Names+", or "+brokers.AMQPForm+
		" (nats: NATS JetStream, embedded in the process: publish, fetch, ack, nak on a real server; "+
		"kafka: franz-go's in-process Kafka cluster, kfake: produce, fetch at the group's position, commit, seek back; "+
		"amqp://…: a RabbitMQ server: a quorum queue, confirmed publishes, basic.get, ack, reject, a closed channel for a crash)")
}

// openBroker starts the broker --broker names: nil for the model. The
// embedded server starts only here, when a command asks for it.
func openBroker(ctx context.Context, spec string) (brokers.Server, error) {
	return brokers.Open(ctx, spec)
}

// cmdConformBroker is lab conform --broker NAME: every preset of the
// broker side on every message handler, on the model under the broker's
// profile and on the real broker (twice, the two traces required to
// match), and where they differ. Exit status: 0 when every difference is
// documented (brokers.Differences), 1 when one is not, 2 on bad input.
func cmdConformBroker(ctx context.Context, spec string, asJSON bool, stdout, stderr io.Writer) int {
	srv, err := openBroker(ctx, spec)
	if err != nil {
		fmt.Fprintf(stderr, "lab conform: %v\n", err)
		return exitUsage
	}
	if srv == nil {
		fmt.Fprintln(stderr, "lab conform: --broker compares the model with a real broker: give --broker "+brokers.Names+", or "+brokers.AMQPForm)
		return exitUsage
	}
	defer srv.Close()
	presets, err := sim.Presets()
	if err != nil {
		fmt.Fprintf(stderr, "lab conform: %v\n", err)
		return exitError
	}
	rep, err := brokers.Conform(ctx, srv, presets)
	if err != nil {
		fmt.Fprintf(stderr, "lab conform: %v\n", err)
		return exitError
	}
	printBrokerConform(stdout, rep, asJSON)
	if n := rep.Undocumented(); n > 0 {
		fmt.Fprintf(stderr, "lab conform: %d differences are not documented (brokers.Differences)\n", n)
		return exitError
	}
	if stale := rep.Stale(presets); len(stale) > 0 {
		for _, d := range stale {
			fmt.Fprintf(stderr, "lab conform: brokers.Differences documents %s, %s on %s, which no longer differs: remove the row\n", d.Preset, cmp.Or(d.Handler, "every handler"), d.Broker)
		}
		return exitError
	}
	return exitOK
}

// printBrokerConform prints a broker's conformance report, as JSON or as
// a summary and a table.
func printBrokerConform(stdout io.Writer, rep *brokers.Report, asJSON bool) {
	if asJSON {
		type row struct {
			Preset, Handler           string
			Model, Real               sim.Verdict `json:",omitempty"`
			ModelSettled, RealSettled int64
			ModelDeliveries           int
			RealDeliveries            int
			Skipped                   bool `json:",omitempty"`
			Documented                bool
			Why                       string `json:",omitempty"`
		}
		out := []row{}
		for _, d := range rep.Rows {
			out = append(out, row{Preset: d.Preset, Handler: d.Handler, Model: d.Model.Verdict, Real: d.Real.Verdict,
				ModelSettled: d.Model.Settled, RealSettled: d.Real.Settled, ModelDeliveries: d.Model.Deliveries,
				RealDeliveries: d.Real.Deliveries, Documented: d.Documented, Why: d.Why})
		}
		for _, d := range rep.Skipped {
			out = append(out, row{Preset: d.Preset, Skipped: true, Documented: d.Documented, Why: d.Why})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
		return
	}
	fmt.Fprintf(stdout, "%d presets × %d message handlers on the model (broker: %s) and on %s, each real story run twice with the same trace: %d runs each, %d differences (%d documented), %d presets not run\n",
		rep.Presets, len(handlers.List()), rep.Broker, rep.Broker, rep.Runs, len(rep.Rows), countDocumentedRows(rep.Rows), len(rep.Skipped))
	if len(rep.Rows) > 0 {
		fmt.Fprintln(stdout)
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "preset\thandler\tmodel\t"+rep.Broker+"\tdocumented")
		for _, d := range rep.Rows {
			fmt.Fprintf(tw, "%s\t%s\t%s %d (%d deliveries, %d dead)\t%s %d (%d deliveries, %d dead)\t%v\n", d.Preset, d.Handler,
				d.Model.Verdict, d.Model.Settled, d.Model.Deliveries, d.Model.DeadLettered,
				d.Real.Verdict, d.Real.Settled, d.Real.Deliveries, d.Real.DeadLettered, d.Documented)
		}
		tw.Flush()
	}
	for _, d := range rep.Rows {
		if d.Documented {
			fmt.Fprintf(stdout, "\n%s, %s: %s\n", d.Preset, d.Handler, d.Why)
		}
	}
	for _, d := range rep.Skipped {
		why := d.Why
		if !d.Documented {
			why = "not documented"
		}
		fmt.Fprintf(stdout, "\n%s: %s\n", d.Preset, why)
	}
}

func countDocumentedRows(rows []brokers.Row) int {
	n := 0
	for _, r := range rows {
		if r.Documented {
			n++
		}
	}
	return n
}
