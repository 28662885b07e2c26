// Package labtest checks a message handler of your own against the lab's
// at-least-once broker, in a plain `go test`, with no server:
//
//	func TestChargeHandler(t *testing.T) {
//		labtest.Check(t, labtest.Handler{
//			Name:   "charge",
//			Schema: `CREATE TABLE processed (key TEXT PRIMARY KEY);`,
//			Handle: Charge, // func(ctx, handlers.Deps, handlers.Message) error
//		})
//	}
//
// Check runs every script of up to Depth steps that the lab's script
// language can write, then Runs random ones, on a fresh world each time
// (an in-memory SQLite database with the accounts and orders tables plus
// Schema, and a miniredis when Redis is set), settles each run and judges
// it with the lab's oracle. For each way the handler fails (a duplicate
// credit, a lost one, a poison message, a changed payload acked without a
// trace), and within a verdict for each cause (the kinds of step that
// make the difference: a crash point, a race, a producer's retry, time
// moving, a second tenant, the gateway's modes), it reports the shortest
// script it found, shrunk until removing any step makes the failure go,
// with the verdict, the cause and the balances.
//
// A handler needs no marks. The oracle counts what each delivery made
// durable from the data (the accounts' balances and the gateway's
// charges), and the search crashes a worker at every I/O call it makes
// (every SQL statement, BEGIN, COMMIT and ROLLBACK included, every Redis
// command or pipeline, every gateway call: deliver crash=after-call:2) and
// switches two racing workers at any of them (deliver-concurrent
// switch=2). Marks add named places that read better in a story:
// d.Point(handlers.BeforeEffect) and d.Point(handlers.AfterEffect) are
// crash points, d.Point(handlers.Yield) is a race window. A
// message the handler sets aside for a person (the same key with another
// payload) counts as quarantined when the handler calls
// d.Quarantine(reason), or adds to a table named quarantine: with a count
// column, as the lab's inbox has, the column counts; without one, each
// row is one message. The example module under examples/ has a handler
// that keeps such a table.
//
// What the model covers: one consumer group on one queue with the lab's
// broker semantics (at-least-once delivery, redelivery of unacked
// messages after a visibility timeout, max-deliveries then a dead-letter
// queue, DLQ replay with new transport ids); producer retries (same key,
// new transport id) and changed payloads under a reused key; two tenants
// with the same operation id; a worker that dies before the effect, after
// it, or before the ack (at the points the handler marks), or at any of
// its I/O calls; two workers racing at d.Point(handlers.Yield) or
// switching at any pair of calls (a switch inside a transaction waits for
// its end, as SQLite's lock makes the other worker wait); time moving past
// the Redis TTLs and the inbox retention, and, with a visibility-timeout:
// header (Header), a redelivery after a crash that waits for the timeout
// (without one, redelivery is at once, and the report says so;
// VisibilitySweep tries timeouts around each lifetime); a nack redelivered
// at once; a payment gateway that is down,
// times out after charging, or stalls. What it does not cover: more than
// two workers, crashes inside the database or Redis themselves (a call
// either ran or did not), other isolation levels than SQLite's
// serializable transactions (with Engine: PostgreSQL's default, read
// committed), real network partitions, several consumer
// groups or partitions, and message ordering beyond the broker's FIFO with
// redelivery at the back.
//
// An API handler (Handler.API, or a file whose Handle takes a
// handlers.APIRequest) is searched with a client's requests instead: a
// request, its retries (the same body, another amount, the key spelled as
// an RFC 8941 string, "a", beside the bare token a), a lost answer, two
// copies at once, a second tenant sending the same key and body, servers
// that die at every point and call, time past the key's lifetime, and
// the gateway's modes; the oracle judges the money and every answer
// against the one the Idempotency-Key draft makes due.
package labtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/money"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Handler is the handler to check: a message handler (Handle) or an API
// handler (API), which is searched with the API side's scripts: a
// client's requests with an Idempotency-Key, retries, lost answers, a
// second tenant, servers that die.
type Handler struct {
	Name   string
	Schema string        // CREATE TABLE statements it needs besides accounts and orders
	Redis  bool          // it needs Redis (d.Redis)
	Handle handlers.Func // func(ctx, handlers.Deps, handlers.Message) error
	// API is an API handler, set instead of Handle:
	// func(ctx, handlers.Deps, handlers.APIRequest) handlers.APIResponse.
	API handlers.APIFunc
	// Absolute: it writes the balance a message states (const Absolute =
	// true in a file), judged by each account's final balance.
	Absolute bool

	// Source is the handler file it was loaded from (File), "" for a
	// compiled one: a failure's permalink then carries the file, and the
	// lab replays the story on it.
	Source string
	// fresh interprets the file anew (handlers.Info.Fresh), for a file
	// that declares package-level variables: each delivery starts with
	// them as the file declares them, as in the lab.
	fresh func() (handlers.Func, handlers.APIFunc, error)
}

// File loads a handler file, either shape the lab's editor and `lab run
// --code` take (package handler, an optional Schema, and func Handle: a
// message handler's, or an API handler's, which File returns as
// Handler.API): it is checked (the allowed imports, the size) and
// interpreted with yaegi in this process, the test's own. The handler is
// named after the file.
func File(path string) (Handler, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return Handler{}, err
	}
	f, err := sandbox.Parse(string(src))
	if err != nil {
		return Handler{}, fmt.Errorf("%s: %w", path, err)
	}
	in, err := sandbox.LoadHandler(f)
	if err != nil {
		return Handler{}, fmt.Errorf("%s: %w", path, err)
	}
	return Handler{Name: fileName(path), Schema: f.Schema, Redis: f.Redis, Absolute: f.Absolute, Handle: in.Handle, API: in.API,
		Source: f.Source, fresh: in.Fresh}, nil
}

// fileName is the handler's name for a file: its base name when the lab
// would take it as a name (lower-case letters, digits and dashes, no
// name of the lab's own handlers), else "yours".
func fileName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".go")
	ok := name != "" && len(name) <= 30
	for _, r := range name {
		ok = ok && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}
	for _, h := range handlers.List() {
		ok = ok && h.Name != name
	}
	for _, h := range handlers.APIList() {
		ok = ok && h.Name != name
	}
	if !ok {
		return "yours"
	}
	return name
}

// CheckFile is Check on a handler file (File).
func CheckFile(t testing.TB, path string, opts ...Option) {
	t.Helper()
	h, err := File(path)
	if err != nil {
		t.Fatalf("labtest: %v", err)
		return
	}
	Check(t, h, opts...)
}

// Option tunes a search.
type Option func(*options)

// options are the search's (check.Options) and the real engine's
// servers, which Run connects to (Engine).
type options struct {
	check.Options
	postgres, redis string
	real            bool
}

// Depth runs every script of up to n steps (default 4).
func Depth(n int) Option { return func(o *options) { o.Depth = n } }

// Runs runs n random scripts after the exhaustive part (default 2000;
// a negative n: none).
func Runs(n int) Option { return func(o *options) { o.Runs = n } }

// Seed chooses the random scripts (default 1): the same seed, the same
// search.
func Seed(s int64) Option { return func(o *options) { o.Seed = uint64(s) } }

// Budget stops the search after d; the report then says it is partial.
func Budget(d time.Duration) Option { return func(o *options) { o.Budget = d } }

// Header starts every script with header lines, such as
// "inbox-retention: 1h" or "processing-ttl: 30s".
func Header(lines string) Option { return func(o *options) { o.Header = lines } }

// VisibilitySweep also runs every script that redelivers after a crash
// under visibility timeouts a minute below and above each lifetime of
// the header, and at once (check.Options.VisibilitySweep).
func VisibilitySweep() Option { return func(o *options) { o.VisibilitySweep = true } }

// Engine searches on a real PostgreSQL and Redis instead of the embedded
// SQLite and miniredis: each script's world gets a schema of its own,
// dropped after, and a Redis database of its own, emptied after (the
// servers are left as they were found). Some handlers fail there that
// pass on SQLite: PostgreSQL aborts a transaction at its first error,
// and runs transactions at read committed. The URLs are as lab run
// --engine real takes them (postgres://…, redis://…); a server that
// does not answer fails the search (Check: t.Fatalf). Replay and the
// traces Check prints run on the same servers.
func Engine(postgresURL, redisURL string) Option {
	return func(o *options) { o.postgres, o.redis, o.real = postgresURL, redisURL, true }
}

// collect applies opts and connects to the real engine when one is asked
// for; close releases it.
func collect(ctx context.Context, opts []Option) (o options, close func(), err error) {
	for _, opt := range opts {
		opt(&o)
	}
	if !o.real {
		return o, func() {}, nil
	}
	if o.postgres == "" || o.redis == "" {
		return o, nil, fmt.Errorf("labtest.Engine needs a PostgreSQL URL and a Redis URL, got %q and %q", o.postgres, o.redis)
	}
	if o.Engine, err = sim.NewEngine(ctx, o.postgres, o.redis); err != nil {
		return o, nil, fmt.Errorf("labtest.Engine: %w", err)
	}
	return o, func() { o.Engine.Close() }, nil
}

// Run searches h and returns the report, for callers that want it whole.
func Run(ctx context.Context, h Handler, opts ...Option) (check.Report, error) {
	o, close, err := collect(ctx, opts)
	if err != nil {
		return check.Report{}, err
	}
	defer close()
	return check.CheckHandler(ctx, info(h), o.Options)
}

func info(h Handler) handlers.Info {
	return handlers.Info{Name: h.Name, Schema: h.Schema, Redis: h.Redis, Absolute: h.Absolute, Handle: h.Handle, API: h.API, Fresh: h.fresh}
}

// Check searches h and reports each distinct failure found (each verdict
// and cause, check.Failure.Cause) with t.Errorf: its verdict and cause,
// the settled and expected balances, why, the minimal script,
// the lab's address that opens the story (Permalink) and the trace of the
// handler's run of it, statement by statement. A search that could not
// run is t.Fatalf.
func Check(t testing.TB, h Handler, opts ...Option) {
	t.Helper()
	ctx := context.Background()
	o, close, err := collect(ctx, opts)
	if err != nil {
		t.Fatalf("labtest: %s: %v", h.Name, err)
		return
	}
	defer close()
	rep, err := check.CheckHandler(ctx, info(h), o.Options)
	if err != nil {
		t.Fatalf("labtest: %s: %v", h.Name, err)
		return
	}
	for _, f := range rep.Failures {
		t.Errorf("labtest: %s: %s in %s (settled %s, expected %s): %s\n  cause: %s\n%s\n  open the story in the lab: %s\n  trace:\n%s",
			h.Name, f.Verdict, steps(f.Steps), money.Plain(f.Settled), money.Plain(f.Expected), f.Reason, f.Cause,
			indent(f.Script), h.permalink(f), trace(ctx, h, f.Script, o.Engine))
	}
	if rep.Omitted > 0 {
		t.Errorf("labtest: %s: %d more distinct failures not listed (at most %d stories a handler)", h.Name, rep.Omitted, check.MaxStories)
	}
	if rep.Partial {
		t.Logf("labtest: %s: the time budget ended the search after %d scripts", h.Name, rep.Explored)
	}
}

// Permalink is the lab's address that carries a failure's script. The
// lab replays it on its own handlers; run it on yours with Replay.
func Permalink(f check.Failure) string { return link.Lab{Script: f.Script}.String() }

// permalink is the failure's address: with the handler's file when it
// came from one, so the lab replays the story on it.
func (h Handler) permalink(f check.Failure) string {
	if h.Source != "" {
		return link.Lab{Script: f.Script, Code: h.Source, Name: h.Name}.String()
	}
	return Permalink(f)
}

// Replay runs a script (a failure's, or one a permalink carries) on h,
// settled and judged as the search does: on the real engine with
// Engine (the other options do not matter to one script).
func Replay(ctx context.Context, h Handler, script string, opts ...Option) (sim.Result, error) {
	o, close, err := collect(ctx, opts)
	if err != nil {
		return sim.Result{}, err
	}
	defer close()
	return replay(ctx, h, script, o.Engine)
}

func replay(ctx context.Context, h Handler, src string, engine *sim.Engine) (sim.Result, error) {
	sc, err := script.Parse(src)
	if err != nil {
		return sim.Result{}, err
	}
	run, err := sim.Execute(ctx, sc, sim.Options{Custom: []handlers.Info{info(h)}, Engine: engine})
	if err != nil {
		return sim.Result{}, err
	}
	return run.Results[0], nil
}

// maxTraceLines bounds the trace a failure prints.
const maxTraceLines = 80

// trace writes the handler's run of a script: each step and what happened
// in it, the settlement last.
func trace(ctx context.Context, h Handler, script string, engine *sim.Engine) string {
	res, err := replay(ctx, h, script, engine)
	if err != nil {
		return "    (the replay failed: " + err.Error() + ")"
	}
	var lines []string
	for _, tr := range append(res.Trace, res.Settlement) {
		head := fmt.Sprintf("%d %s", tr.Step, tr.Text)
		if tr.Step == 0 {
			head = tr.Text
		}
		lines = append(lines, "    "+head)
		for _, e := range tr.Events {
			line := "        " + e.Actor + " " + e.Kind + ":"
			if e.Call > 0 {
				line += fmt.Sprintf(" #%d", e.Call)
			}
			line += " " + e.Text
			if e.Args != "" {
				line += " [" + e.Args + "]"
			}
			if e.Result != "" {
				line += " → " + e.Result
			}
			lines = append(lines, line)
		}
	}
	if len(lines) > maxTraceLines {
		lines = append(lines[:maxTraceLines], fmt.Sprintf("    … %d more lines", len(lines)-maxTraceLines))
	}
	return strings.Join(lines, "\n")
}

// steps is "1 step" or "n steps".
func steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

func indent(script string) string {
	lines := strings.Split(strings.TrimRight(script, "\n"), "\n")
	return "    " + strings.Join(lines, "\n    ")
}
