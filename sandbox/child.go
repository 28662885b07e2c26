package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
)

// Request is what the server asks of a child: run a script on the file,
// or search its schedules.
type Request struct {
	Op     string `json:"op"` // "run", "check" or "grade"
	Name   string `json:"name"`
	Code   string `json:"code"`
	Memory int64  `json:"memory"` // bytes the child may allocate
	CPU    int    `json:"cpu"`    // seconds of CPU the child may use

	// run
	// Postgres and Redis, both set, run on the real engine (sim.NewEngine)
	// instead of the embedded one. The child then keeps the network, to
	// reach them: only the operator's own runs ask for it (lab run --code
	// --engine real), never a visitor's.
	Postgres   string `json:"postgres,omitempty"`
	Redis      string `json:"redis,omitempty"`
	Script     string `json:"script,omitempty"`
	Steps      int    `json:"steps,omitempty"`
	Snapshots  bool   `json:"snapshots,omitempty"`
	Budget     int    `json:"budget,omitempty"`
	StepEvents int    `json:"step_events,omitempty"`

	// check
	Check CheckOptions `json:"check"`

	// grade
	Exercise Exercise `json:"exercise"`
}

// CheckOptions are check.Options as they travel.
type CheckOptions struct {
	Depth, Runs, Len int
	Seed             uint64
	Budget           time.Duration
	Header           string
}

// Response is what the child answers.
type Response struct {
	Error  *Error           `json:"error,omitempty"`  // the file does not compile, or is refused
	Budget *sim.BudgetError `json:"budget,omitempty"` // the run made more deliveries than its budget
	Run    *RunResult       `json:"run,omitempty"`
	Report *check.Report    `json:"report,omitempty"`
	Grade  *Grade           `json:"grade,omitempty"`
	Schema string           `json:"schema"`
	Redis  bool             `json:"redis"`
}

// RunResult is a sim.Result with the parts its JSON leaves out.
type RunResult struct {
	Result    sim.Result      `json:"result"`
	Broker    sim.BrokerState `json:"broker"`
	Final     *sim.State      `json:"final"`
	States    []*sim.State    `json:"states,omitempty"` // per step, with Snapshots
	Crashed   []bool          `json:"crashed"`
	Conflicts int             `json:"conflicts"`
}

// Restore puts the parts back into the Result.
func (r *RunResult) Restore() sim.Result {
	res := r.Result
	res.Broker, res.Final, res.Conflicts = r.Broker, r.Final, r.Conflicts
	for i := range res.Trace {
		if i < len(r.States) {
			res.Trace[i].State = r.States[i]
		}
		if i < len(r.Crashed) {
			res.Trace[i].Crashed = r.Crashed[i]
		}
	}
	return res
}

func wrap(res sim.Result) *RunResult {
	r := &RunResult{Result: res, Broker: res.Broker, Final: res.Final, Conflicts: res.Conflicts}
	for _, tr := range res.Trace {
		r.Crashed = append(r.Crashed, tr.Crashed)
		if tr.State != nil {
			r.States = append(r.States, tr.State)
		}
	}
	return r
}

// Exit statuses of a child, besides 0 (a response written).
const (
	exitMemory  = 3 // over its memory
	exitRequest = 4 // the request could not be read
)

// maxRequest bounds what a child reads: a file, a script, options.
const maxRequest = 1 << 20

// IsChild reports whether this process was started as a sandbox child:
// test binaries call Child from TestMain when it is.
func IsChild() bool { return os.Getenv("LAB_SANDBOX_CHILD") == "1" }

// Child is a sandbox child's main: it reads one Request on stdin, limits
// itself, interprets the file, does what was asked and writes the Response
// on stdout. It returns the process's exit status. Whatever the handler
// prints goes to stderr, which the server caps.
func Child() int {
	out := os.Stdout
	os.Stdout = os.Stderr
	var req Request
	if err := json.NewDecoder(io.LimitReader(os.Stdin, maxRequest)).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox: request:", err)
		return exitRequest
	}
	limit(req.Memory, req.CPU)
	resp := serve(req)
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
	switch req.Op {
	case "run":
		sc, err := sim.Parse(req.Script)
		if err != nil {
			resp.Error = errf(0, "script: %v", "сценарий: %v", err)
			return resp
		}
		if info.API != nil && len(sc.Steps) == 0 {
			// A script cut to its first 0 steps (the lab's step 0) has no
			// verb to tell its side: it is the API side's for an API
			// handler.
			sc.API = true
		}
		var engine *sim.Engine
		if req.Postgres != "" && req.Redis != "" {
			if engine, err = sim.NewEngine(ctx, req.Postgres, req.Redis); err != nil {
				resp.Error = errf(0, "the real engine: %v", "настоящий движок: %v", err)
				return resp
			}
			defer engine.Close()
		}
		run, err := sim.Execute(ctx, sc, sim.Options{Custom: []handlers.Info{info}, Steps: req.Steps,
			Snapshots: req.Snapshots, Budget: req.Budget, StepEvents: req.StepEvents, Engine: engine})
		var be *sim.BudgetError
		switch {
		case errors.As(err, &be):
			resp.Budget = be
		case err != nil:
			resp.Error = errf(0, "the run failed: %v", "прогон не удался: %v", err)
		default:
			resp.Run = wrap(run.Results[0])
		}
	case "check":
		o := req.Check
		rep, err := check.CheckHandler(ctx, info, check.Options{Depth: o.Depth, Runs: o.Runs, Len: o.Len,
			Seed: o.Seed, Budget: o.Budget, Header: o.Header})
		if err != nil {
			resp.Error = errf(0, "the check failed: %v", "проверка не удалась: %v", err)
			return resp
		}
		resp.Report = &rep
	case "grade":
		g, err := GradeHandler(ctx, info, req.Exercise)
		if err != nil {
			resp.Error = errf(0, "the grading failed: %v", "проверка не удалась: %v", err)
			return resp
		}
		resp.Grade = &g
	default:
		resp.Error = errf(0, "unknown operation %q", "неизвестная операция %q", req.Op)
	}
	return resp
}

func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return errf(0, "%v", "%v", err)
}

// limit caps this process: its address space (the runtime's own mapping
// plus memory, a hard stop), a watchdog that exits with exitMemory once
// the heap and stacks pass memory (so the server can say what happened),
// its CPU seconds (the kernel sends SIGXCPU, then kills), the files it may
// write (none) and open.
func limit(memory int64, cpu int) {
	if memory > 0 {
		debug.SetMemoryLimit(memory * 3 / 4)
		if vm := vmSize(); vm > 0 {
			as := uint64(vm + memory*2)
			syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: as, Max: as})
		}
		go watch(memory)
	}
	if cpu > 0 {
		syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: uint64(cpu), Max: uint64(cpu) + 1})
	}
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 0, Max: 0})
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 64, Max: 64})
}

// watch exits the process when its heap and goroutine stacks pass memory.
func watch(memory int64) {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	for {
		metrics.Read(samples)
		var used uint64
		for _, s := range samples {
			if s.Value.Kind() == metrics.KindUint64 {
				used += s.Value.Uint64()
			}
		}
		if int64(used) > memory {
			fmt.Fprintf(os.Stderr, "sandbox: memory limit: %d bytes in use, %d goroutines\n", used, runtime.NumGoroutine())
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
