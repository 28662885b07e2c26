package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Request is what the server asks of a child: run a script on the file,
// or search its schedules.
type Request struct {
	Op     string `json:"op"` // "run", "check" or "grade"
	Name   string `json:"name"`
	Code   string `json:"code"`
	Memory int64  `json:"memory"` // bytes the child may keep resident
	CPU    int    `json:"cpu"`    // seconds of CPU the child may use
	// selftest: a file the server made, which the child must not read.
	Path string `json:"path,omitempty"`

	// run and check
	// Postgres and Redis, both set, run (or search) on the real engine
	// (sim.NewEngine) instead of the embedded one. The child then keeps
	// the network, to reach them: only the operator's own runs ask for it
	// (lab run, check and conform --code with the real engine), never a
	// visitor's.
	Postgres   string `json:"postgres,omitempty"`
	Redis      string `json:"redis,omitempty"`
	Script     string `json:"script,omitempty"`
	Steps      int    `json:"steps,omitempty"`
	Snapshots  bool   `json:"snapshots,omitempty"`
	Budget     int    `json:"budget,omitempty"`
	StepEvents int    `json:"step_events,omitempty"`

	// check
	Check check.Options `json:"check"`

	// grade
	Exercise Exercise `json:"exercise"`
}

// Response is what the child answers.
type Response struct {
	Error  *Error           `json:"error,omitempty"`  // the file does not compile, or is refused
	Budget *sim.BudgetError `json:"budget,omitempty"` // the run made more deliveries than its budget
	Run    *sim.Wire        `json:"run,omitempty"`
	Report *check.Report    `json:"report,omitempty"`
	Grade  *Grade           `json:"grade,omitempty"`
	Schema string           `json:"schema"`
	Redis  bool             `json:"redis"`
	// SelfTest is what an isolated child could do that it should not
	// (Op "selftest"): empty when the isolation holds.
	SelfTest []string `json:"self_test,omitempty"`
}

// Exit statuses of a child, besides 0 (a response written) and the Go
// runtime's 2 (a fatal error: a panic in a goroutine of the handler's
// own, a stack overflow). A handler file cannot exit with a status of its
// choosing: it has no os package.
const (
	exitMemory    = 3 // over its memory
	exitRequest   = 4 // the request could not be read
	exitIsolation = 5 // the child could not isolate itself: the lab's failure, never the handler's
)

// maxRequest bounds what a child reads: a file, a script, options.
const maxRequest = 1 << 20

// notesFD is the child's third descriptor (Runner's ExtraFiles[0]): where
// it writes notes for the server, one JSON object a line, as things
// happen, so that the server learns what happened to a child that died
// without answering. The handler cannot write there: it has no os
// package, and what it prints goes to stderr, which nobody reads for
// meaning.
const notesFD = 3

// note is one line on notesFD.
type note struct {
	PanicLine int    `json:"panic_line,omitempty"` // yaegi reported a panic on this line of the file
	Memory    int64  `json:"memory,omitempty"`     // the child stopped itself at this many bytes resident
	Isolation string `json:"isolation,omitempty"`  // why the child could not isolate itself
}

// notes writes notes; nil (and then silent) outside a child.
var notes *json.Encoder

func writeNote(n note) {
	if notes != nil {
		notes.Encode(n) // a note that cannot be written changes nothing
	}
}

// IsChild reports whether this process was started as a sandbox child:
// test binaries call Child from TestMain when it is.
func IsChild() bool { return os.Getenv("LAB_SANDBOX_CHILD") == "1" }

// Child is a sandbox child's main: it isolates itself (when the server
// asked), reads one Request on stdin, limits itself, interprets the file,
// does what was asked and writes the Response on stdout. It returns the
// process's exit status. Whatever the handler prints goes to stderr,
// which the server discards.
func Child() int {
	// The runner starts the child with GOGC=off, so that the packages'
	// initialisation runs without a collection; from here the collector
	// runs as Go's default has it (GOGC=100), and limit sets its memory
	// limit.
	debug.SetGCPercent(100)
	out := os.Stdout
	os.Stdout = os.Stderr
	if f := os.NewFile(notesFD, "notes"); f != nil {
		notes = json.NewEncoder(f)
	}
	// What needs the machine's files is read before they are gone: the
	// process's mapped size (for its address-space limit) and the local
	// time zone.
	vm := vmSize()
	rss, _ := os.Open("/proc/self/statm") // nil where there is no /proc
	_ = time.Now().Local()
	if mode := os.Getenv(isolateEnv); mode != "" {
		if err := isolate(mode); err != nil {
			writeNote(note{Isolation: err.Error()})
			return exitIsolation
		}
	}
	interpStderr = panicLines{}
	var req Request
	if err := json.NewDecoder(io.LimitReader(os.Stdin, maxRequest)).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox: request:", err)
		return exitRequest
	}
	limit(req.Memory, req.CPU, vm, rss)
	var resp *Response
	if req.Op == "selftest" {
		resp = &Response{SelfTest: selfTest(req.Path)}
	} else {
		resp = serve(req)
	}
	w := bufio.NewWriter(out)
	if err := json.NewEncoder(w).Encode(resp); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox: response:", err)
		return 1
	}
	if err := w.Flush(); err != nil {
		return 1
	}
	return 0
}

// panicLines is the interpreter's stderr in a child: yaegi writes
// "LINE:COL: panic: ..." there for each frame a panic unwinds, and each
// becomes a note, so that the server can say where a panic that killed
// the process happened. Nothing else yaegi writes is kept.
type panicLines struct{}

func (panicLines) Write(p []byte) (int, error) {
	for _, m := range panicAt().FindAllSubmatch(p, -1) {
		if n, err := strconv.Atoi(string(m[1])); err == nil {
			writeNote(note{PanicLine: n})
		}
	}
	return len(p), nil
}

// panicAt finds the line yaegi reports a panic at ("10:14: panic: ...").
var panicAt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(?:[^\n:]*\.go:)?(\d+):\d+: panic`) })

func serve(req Request) *Response {
	f, err := Parse(req.Code)
	if err != nil {
		return &Response{Error: asError(err)}
	}
	info, err := LoadHandler(f)
	if err != nil {
		return &Response{Error: asError(err)}
	}
	info.Name = req.Name // Handle, or API for an API handler's file
	resp := &Response{Schema: f.Schema, Redis: f.Redis}
	ctx := context.Background()
	// The real engine, when the operator's own run or check asked for it
	// (lab run/check --code --engine real); nil: the embedded one.
	engine, err := childEngine(ctx, req)
	if err != nil {
		resp.Error = errf(0, "sandbox.engine", err)
		return resp
	}
	if engine != nil {
		defer engine.Close()
	}
	switch req.Op {
	case "run":
		sc, err := script.Parse(req.Script)
		if err != nil {
			resp.Error = errf(0, "sandbox.script", err)
			return resp
		}
		if info.API != nil && len(sc.Steps) == 0 {
			// A script cut to its first 0 steps (the lab's step 0) has no
			// verb to tell its side: it is the API side's for an API
			// handler.
			sc.API = true
		}
		run, err := sim.Execute(ctx, sc, sim.Options{Custom: []handlers.Info{info}, Steps: req.Steps,
			Snapshots: req.Snapshots, Budget: req.Budget, StepEvents: req.StepEvents, Engine: engine})
		var be *sim.BudgetError
		switch {
		case errors.As(err, &be):
			resp.Budget = be
		case err != nil:
			resp.Error = errf(0, "sandbox.run-failed", err)
		default:
			resp.Run = run.Results[0].Wire()
		}
	case "check":
		o := req.Check
		o.Engine = engine
		rep, err := check.CheckHandler(ctx, info, o)
		if err != nil {
			resp.Error = errf(0, "sandbox.check-failed", err)
			return resp
		}
		resp.Report = &rep
	case "grade":
		g, err := GradeHandler(ctx, info, req.Exercise)
		if err != nil {
			resp.Error = errf(0, "sandbox.grade-failed", err)
			return resp
		}
		resp.Grade = &g
	default:
		resp.Error = errf(0, "sandbox.unknown-op", strconv.Quote(req.Op))
	}
	return resp
}

// childEngine connects to the real engine's servers when the request
// names both (an unisolated run of one's own: the Runner refuses them
// otherwise), or returns nil for the embedded engine.
func childEngine(ctx context.Context, req Request) (*sim.Engine, error) {
	if req.Postgres == "" || req.Redis == "" {
		return nil, nil
	}
	return sim.NewEngine(ctx, req.Postgres, req.Redis)
}

func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return errf(0, "sandbox.error", err)
}

// limit caps this process: a watchdog that exits with exitMemory once
// its resident memory (the Go heap, goroutine stacks and SQLite's own
// allocations alike, read from rss) passes memory, so the server can say what happened;
// its address space as a hard stop far behind it (the runtime's own
// mapping, vm, plus eight times memory and 1 GB: the Go heap reserves
// address space in 64 MB arenas, and a loop of fresh allocations, which
// touch no page, reserves it at gigabytes a second, so the watchdog must
// get its turn, within a scheduler's time slice, well before the hard
// stop);
// each goroutine's stack; its CPU seconds (the kernel kills it at cpu);
// the files it may write (none) and open.
func limit(memory int64, cpu int, vm int64, rss *os.File) {
	if memory > 0 {
		debug.SetMemoryLimit(memory * 3 / 4)
		debug.SetMaxStack(int(min(memory/4, 256<<20)))
		if vm > 0 {
			as := uint64(vm + memory*8 + 1<<30)
			syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: as, Max: as})
		}
		go watch(memory, rss)
	}
	if cpu > 0 {
		syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: uint64(cpu), Max: uint64(cpu)})
	}
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 0, Max: 0})
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 64, Max: 64})
}

// watch exits the process when its resident memory, or its Go heap's
// live objects and stacks, pass memory: SQLite's own allocations
// (outside the Go heap) included. It reads
// /proc/self/statm through a descriptor opened before the child's root
// was emptied (rss); where there is none, the kernel's peak resident set
// (getrusage), which starts from the server's own peak, since a child
// begins as a copy of it, and so stops a child early rather than late.
func watch(memory int64, rss *os.File) {
	buf := make([]byte, 128)
	page := int64(os.Getpagesize())
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	for {
		used := int64(-1)
		if rss != nil {
			if n, err := rss.ReadAt(buf, 0); n > 0 && (err == nil || err == io.EOF) {
				if f := strings.Fields(string(buf[:n])); len(f) > 1 {
					if pages, err := strconv.ParseInt(f[1], 10, 64); err == nil {
						used = pages * page
					}
				}
			}
		}
		if used < 0 {
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
				used = ru.Maxrss << 10
			}
		}
		// The Go heap's live objects too: a fresh allocation is not
		// resident until it is written, but it is the handler's.
		metrics.Read(heap)
		var live int64
		for _, s := range heap {
			if s.Value.Kind() == metrics.KindUint64 {
				live += int64(s.Value.Uint64())
			}
		}
		if used = max(used, live); used > memory {
			writeNote(note{Memory: used})
			os.Exit(exitMemory)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// vmSize is this process's mapped address space, from /proc.
func vmSize() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// interpStderr is where the interpreter writes what it reports: a line
// per frame of a panicking handler ("21:5: panic: handler.check(...)").
// In a child, panicLines keeps the line numbers for the lab. In any other
// process (labtest's, a test's) quietStderr drops them: the engine
// reports a handler's panic in the story's trace already, and a search
// that meets one in every other script would print hundreds of them.
var interpStderr io.Writer = quietStderr{}

// quietStderr passes what the interpreter writes to the process's stderr
// (os.Stderr as it is at the time of writing), less its panic lines.
type quietStderr struct{}

func (quietStderr) Write(p []byte) (int, error) {
	var keep []byte
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) > 0 && !panicAt().Match(line) {
			keep = append(keep, line...)
		}
	}
	if len(keep) > 0 {
		if _, err := os.Stderr.Write(keep); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
