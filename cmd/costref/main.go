// Command costref makes the cost lab's reference run (cost/reference.json),
// which lesson 8 and the cost page show: the bench on the embedded engine
// and, when LAB_POSTGRES_URL and LAB_REDIS_URL are set, on PostgreSQL and
// Redis. `make cost-reference` runs it; commit the file it writes.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/cost"
	"github.com/idempotency-lab/lab/sim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "costref:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	measure := func(e *sim.Engine, messages int, retention bool) (*cost.Measurement, error) {
		return cost.Measure(ctx, cost.MeasureOptions{KeyRows: cost.DefaultKeyRows, Retention: retention,
			Bench: cost.Options{Handlers: []string{"all"}, Messages: messages, Engine: e}})
	}
	ref := cost.ReferenceRun{Date: time.Now().UTC().Format("2006-01-02"),
		Command: "make cost-reference (lab bench --handlers all --messages 2000; with LAB_POSTGRES_URL and LAB_REDIS_URL, lab bench --engine real --handlers all --messages 1000 --retention=false)",
		Note:    "A shared virtual machine: the timings are noisy, so read them as ratios between handlers of one run. The counters (calls, transactions, rows) are exact and do not depend on the machine. Bytes are whole pages, and on PostgreSQL they depend on when vacuum ran: a table gains its free-space map (24 KB) and visibility map (8 KB) then, and dead rows stay until it runs."}
	emb, err := measure(nil, 2000, true)
	if err != nil {
		return err
	}
	ref.Embedded = *emb
	if pg, rd := os.Getenv("LAB_POSTGRES_URL"), os.Getenv("LAB_REDIS_URL"); pg != "" && rd != "" {
		e, err := sim.NewEngine(ctx, pg, rd)
		if err != nil {
			return err
		}
		defer e.Close()
		if ref.Real, err = measure(e, 1000, false); err != nil {
			return err
		}
		ref.Command += "; servers: " + versions()
	}
	b, err := json.MarshalIndent(ref, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile("cost/reference.json", append(b, '\n'), 0o644)
}

// versions names the servers' versions, as their tools report them.
func versions() string {
	var out []string
	for _, c := range [][]string{{"psql", "--version"}, {"redis-server", "--version"}} {
		if b, err := exec.Command(c[0], c[1:]...).Output(); err == nil {
			out = append(out, strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
		}
	}
	return strings.Join(out, ", ")
}
