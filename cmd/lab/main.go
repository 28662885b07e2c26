// Command lab is the idempotency lab: a playground, a course and a drill
// for message handlers that survive duplicates.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/idempotency-lab/lab/sandbox"
)

func main() {
	if sandbox.IsChild() {
		os.Exit(sandbox.Child())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // something broke inside the lab
	exitUsage = 2 // bad input: a flag, a name, a script
)

const usage = `lab: the idempotency lab

Usage:
  lab [serve] [--addr 127.0.0.1:8080] [--dev] [--quiet] [--data FILE]
            [--max-rooms 50] [--max-students 300] [--room-idle 2h]
            [--budget 20000] [--max-replays N] [--replay-wait 500ms]
            [--cache-size 64] [--grace 10s] [--check-budget 2s]
            [--bench=false] [--code=false] [--code-memory 512]
            [--code-timeout 5s] [--code-children 4]
            [--max-ledgers 200] [--ledger-idle 1h]
            [--postgres URL] [--redis URL] [--rabbitmq URL]
                          start the web lab (the default command)
  lab run PRESET|FILE|- [--handlers a,b|core|all] [--json] [--steps N]
            [--budget 20000] [--code my.go [--name yours] [--timeout 5s]
            [--memory 512]] [--engine embedded|real --postgres URL --redis URL]
            [--broker lab|nats|kafka|amqp://user:pass@host:port/vhost]
                          run a scenario on each handler and print the outcome;
                          --code runs a handler file of your own, in a sandbox;
                          --broker nats runs the broker steps on NATS
                          JetStream, embedded (publish, fetch, ack, nak);
                          --broker amqp://… on a RabbitMQ server (a quorum
                          queue: basic.get, ack, reject)
  lab check HANDLER[,HANDLER...]|core|api|all [--depth 4] [--runs 2000]
            [--len 8] [--seed 1] [--budget DUR] [--header "..."]
            [--visibility-sweep] [--dedup-states] [--json] [--base URL]
            [--engine embedded|real --postgres URL --redis URL]
  lab check --code my.go [--name yours] [--timeout 2m] [--memory 512] [...]
                          search every schedule up to a depth, then random
                          ones, for the shortest failure of each handler;
                          lab check api searches the API handlers with a
                          client's requests; --engine real searches on
                          PostgreSQL + Redis, where some handlers fail that
                          pass on SQLite
  lab conform --engine real --postgres URL --redis URL [--json]
            [--code my.go [--name yours] [--timeout 5s] [--memory 512]]
                          run every preset on every handler (or on your
                          file, with --code) on SQLite and on PostgreSQL +
                          Redis, and print where they differ; exit 1 when a
                          difference is not documented (any of a --code
                          file's)
            or: lab conform --broker nats|kafka|amqp://… [--json]
                          every preset on every handler on the broker model
                          (the broker's profile) and on the real broker, twice, and
                          where they differ; exit 1 when a difference is
                          not documented
  lab bench [--handlers core|all|a,b] [--messages 1000] [--duplicates 10%]
            [--engine embedded|real --postgres URL --redis URL] [--json]
                          measure what each handler's idempotency costs:
                          speed, calls and storage per message
  lab scenarios           list the preset scenarios
  lab handlers            list the handlers
  lab help                show this help

A FILE is a scenario script; - reads one from standard input.
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// No command, or only flags, means serve: `lab`, `lab --dev`.
	if len(args) == 0 || (strings.HasPrefix(args[0], "-") && !isHelp(args[0])) {
		return cmdServe(ctx, args, stdout, stderr)
	}
	switch args[0] {
	case "serve":
		return cmdServe(ctx, args[1:], stdout, stderr)
	case "run":
		return cmdRun(ctx, args[1:], stdin, stdout, stderr)
	case "check":
		return cmdCheck(ctx, args[1:], stdout, stderr)
	case "conform":
		return cmdConform(ctx, args[1:], stdout, stderr)
	case "bench":
		return cmdBench(ctx, args[1:], stdout, stderr)
	case "scenarios":
		return cmdScenarios(args[1:], stdout, stderr)
	case "handlers":
		return cmdHandlers(args[1:], stdout, stderr)
	case "sandbox-child": // hidden: a sandbox child, started by the lab itself
		return sandbox.Child()
	case "help", "-h", "-help", "--help": // keep in step with isHelp
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "lab: unknown command %q; valid commands: serve, run, check, conform, bench, scenarios, handlers, help\n\n%s", args[0], usage)
	return exitUsage
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}
