package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits bound every child.
type Limits struct {
	Memory int64 // bytes of resident memory a child may use (default 512 MB)
	// Timeout is the CPU time a child may use (default 5 s): the kernel
	// stops it there, however loaded the machine is.
	Timeout time.Duration
	// Wall is the wall-clock time after which a child is killed whatever
	// its CPU (default 3 × Timeout, at least 15 s): a handler waiting for
	// something that never comes uses no CPU.
	Wall        time.Duration
	MaxChildren int // children at once; past it Run returns ErrBusy, or a grade waits (default 4)
	MaxOutput   int // bytes of response a child may write (default 16 MB)
	// Warm is how many children the Runner keeps started and waiting for
	// a request, at most one a slot (default MaxChildren): each Run takes
	// one and starts the next. Negative: none, every child starts when
	// its request comes.
	Warm int
	// Unisolated lets the Runner run a child without isolation where the
	// system cannot isolate it. Only for one's own files on one's own
	// machine (lab run --code): a server never sets it.
	Unisolated bool
}

func (l Limits) withDefaults() Limits {
	if l.Memory <= 0 {
		l.Memory = 512 << 20
	}
	if l.Timeout <= 0 {
		l.Timeout = 5 * time.Second
	}
	if l.Wall <= 0 {
		l.Wall = max(3*l.Timeout, 15*time.Second)
	}
	if l.MaxChildren <= 0 {
		l.MaxChildren = 4
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = 16 << 20
	}
	if l.Warm == 0 || l.Warm > l.MaxChildren {
		l.Warm = l.MaxChildren
	}
	return l
}

// ErrBusy is Run's answer when MaxChildren are running already.
var ErrBusy = errors.New("sandbox: every child slot is busy")

// Runner starts sandbox children: the lab's own binary with the hidden
// subcommand sandbox-child (or, in tests, the test binary with
// LAB_SANDBOX_CHILD=1 set). It keeps children started and waiting
// (Limits.Warm; see warm.go), each for one request: Close ends them.
type Runner struct {
	command []string
	limits  Limits
	slots   chan struct{}
	warm    *pool

	isoOnce sync.Once
	iso     isolation

	served func(pid int) // tests: told each child's process id as it gets its request
}

// NewRunner makes a Runner that starts command (its program and
// arguments) for each child.
func NewRunner(command []string, limits Limits) *Runner {
	limits = limits.withDefaults()
	r := &Runner{command: command, limits: limits, slots: make(chan struct{}, limits.MaxChildren),
		warm: newPool(command, limits)}
	// A Runner dropped without Close (a test's server) takes its waiting
	// children with it at the next collection.
	runtime.AddCleanup(r, (*pool).close, r.warm)
	return r
}

// Close ends the children waiting for a request and starts no more; it
// returns once they are gone. A Run after Close starts its child when
// its request comes, and a child already running ends with its request.
func (r *Runner) Close() { r.warm.close() }

// Limits returns the runner's limits, defaults filled in.
func (r *Runner) Limits() Limits { return r.limits }

// Isolation says how this Runner isolates its children, finding out the
// first time: it runs the self-test (a child tries to read a file this
// process made, to see /proc, /dev and the root's files, and to write a
// file) in each way this system may allow, and keeps the first that
// holds. The error says why none does.
func (r *Runner) Isolation() (string, error) {
	r.isoOnce.Do(func() {
		var why []string
		for _, iso := range ways() {
			err := r.selfTest(iso)
			if err == nil {
				r.iso = iso
				r.warm.refill(iso) // the first request's child
				return
			}
			why = append(why, fmt.Sprintf("%s: %v", iso.mode, err))
		}
		r.iso = isolation{err: fmt.Errorf("%w (%s)", ErrNoIsolation, strings.Join(why, "; "))}
	})
	return r.iso.mode, r.iso.err
}

// selfTest runs a child isolated one way and checks that it cannot read
// a file made here, nor see or write anything else.
func (r *Runner) selfTest(iso isolation) error {
	f, err := os.CreateTemp("", "lab-sandbox-selftest-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString("a secret the child must not read\n"); err != nil {
		f.Close()
		return err
	}
	f.Close()
	os.Chmod(f.Name(), 0o644) // readable by anyone: only the isolation may stop the child
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := r.start(ctx, iso, Request{Op: "selftest", Path: f.Name()}, false)
	if err != nil {
		return err
	}
	if len(resp.SelfTest) > 0 {
		return fmt.Errorf("the child %s", strings.Join(resp.SelfTest, "; "))
	}
	return nil
}

// Run starts a child, hands it req and returns its response. A file that
// does not compile is a Response with Error. A child that ran too long,
// used too much memory or CPU, crashed or wrote too much is killed and
// Run returns an *Error that says which. ctx ending kills the child too.
// A grade waits for a free slot (its context bounds the wait); anything
// else finds one free or gets ErrBusy. Where the system cannot isolate a
// child, Run runs nothing and returns an error wrapping ErrNoIsolation
// (unless Limits.Unisolated).
func (r *Runner) Run(ctx context.Context, req Request) (*Response, error) {
	if req.Op == "grade" {
		select {
		case r.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	} else {
		select {
		case r.slots <- struct{}{}:
		default:
			return nil, ErrBusy
		}
	}
	defer func() { <-r.slots }()
	if _, err := Parse(req.Code); err != nil {
		return &Response{Error: asError(err)}, nil // no child for a file that cannot run
	}
	_, isoErr := r.Isolation()
	var iso isolation
	switch {
	case req.Postgres != "" && !r.limits.Unisolated:
		return nil, errors.New("sandbox: the real engine is for unisolated runs only (lab run, check or conform --code --engine real)")
	case req.Postgres != "":
		// The real engine's servers are on the network and the machine:
		// only one's own runs (lab run, check or conform --code --engine real) ask for it.
	case isoErr == nil:
		iso = r.iso
	case !r.limits.Unisolated:
		return nil, isoErr
	}
	return r.start(ctx, iso, req, true)
}

// start runs req in one child isolated as iso (not at all when iso.mode
// is ""): a waiting child when there is one isolated so and warm is set
// (Run; the self-test never takes one), else one started now. Either way
// the child reads req, its only request, and ends.
func (r *Runner) start(ctx context.Context, iso isolation, req Request, warm bool) (*Response, error) {
	req.Memory = r.limits.Memory
	cpu := int((r.limits.Timeout + time.Second - 1) / time.Second)
	req.CPU = cpu
	in, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var c *child
	if warm {
		c = r.warm.take(iso.mode)
		r.warm.refill(iso) // the child for the next request, started now
	}
	if c == nil {
		if c, err = startChild(r.command, r.limits.MaxOutput, iso); err != nil {
			return nil, err
		}
	}
	if r.served != nil {
		r.served(c.cmd.Process.Pid)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, r.limits.Wall)
	defer cancel()
	go func() {
		c.stdin.Write(in) // a child that died first gets nothing: its end says why
		c.stdin.Close()
	}()
	select {
	case <-c.done:
	case <-ctx.Done():
		c.kill()
		<-c.noted
		if parent.Err() == nil { // the child's own time ran out
			return nil, errf(0, "sandbox.wall", r.limits.Wall)
		}
		return nil, parent.Err()
	}
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL) // any process it left behind
	<-c.noted
	if c.stdout.over {
		return nil, errf(0, "sandbox.output", r.limits.MaxOutput>>20)
	}
	if c.err != nil {
		return nil, r.failure(c.err, c.cmd.ProcessState, c.notes, cpu)
	}
	var resp Response
	if err := json.Unmarshal(c.stdout.Bytes(), &resp); err != nil {
		return nil, fmt.Errorf("sandbox: response: %w", err)
	}
	return &resp, nil
}

// failure says why a child ended badly, from what the kernel says (its
// exit status or signal, its CPU time and peak memory) and the notes the
// child wrote: never from what it printed, which the handler controls.
func (r *Runner) failure(err error, ps *os.ProcessState, read []note, cpu int) error {
	var exit *exec.ExitError
	if !errors.As(err, &exit) || ps == nil {
		return fmt.Errorf("sandbox: the child process failed: %w", err)
	}
	ws, _ := ps.Sys().(syscall.WaitStatus)
	used := ps.UserTime() + ps.SystemTime()
	panicLine, isolationErr := 0, ""
	for _, n := range read {
		if n.PanicLine > 0 {
			panicLine = n.PanicLine // the fatal panic is the last reported
		}
		if n.Isolation != "" {
			isolationErr = n.Isolation
		}
	}
	mb := r.limits.Memory >> 20
	outOfMemory := errf(0, "sandbox.memory", mb)
	switch {
	case ws.Exited() && ws.ExitStatus() == exitIsolation:
		return fmt.Errorf("%w: the child could not isolate itself: %s", ErrNoIsolation, isolationErr)
	case ws.Exited() && ws.ExitStatus() == exitMemory:
		return outOfMemory
	case ws.Signaled() && (ws.Signal() == syscall.SIGXCPU || ws.Signal() == syscall.SIGKILL) && used >= time.Duration(cpu)*time.Second/2:
		return errf(0, "sandbox.cpu", cpu)
	case ws.Exited() && ws.ExitStatus() == 2 && panicLine > 0:
		return errf(panicLine, "sandbox.panic")
	case ws.Exited() && ws.ExitStatus() == 2:
		// The Go runtime's own end: out of address space (the hard stop
		// behind the watchdog) or a goroutine's stack over its limit.
		return errf(0, "sandbox.fatal")
	case ws.Signaled():
		return errf(0, "sandbox.killed", ws.Signal())
	}
	return errf(0, "sandbox.failed", err)
}

// capped keeps at most max bytes and says whether more came.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.over = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}
