package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits bound every child.
type Limits struct {
	Memory      int64         // bytes a child may allocate (default 512 MB)
	Timeout     time.Duration // wall-clock time before the child is killed (default 5 s)
	MaxChildren int           // children at once; past it Run returns ErrBusy (default 4)
	MaxOutput   int           // bytes of response a child may write (default 16 MB)
	MaxLog      int           // bytes of what a handler prints kept for the message (default 4 KB)
}

func (l Limits) withDefaults() Limits {
	if l.Memory <= 0 {
		l.Memory = 512 << 20
	}
	if l.Timeout <= 0 {
		l.Timeout = 5 * time.Second
	}
	if l.MaxChildren <= 0 {
		l.MaxChildren = 4
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = 16 << 20
	}
	if l.MaxLog <= 0 {
		l.MaxLog = 4 << 10
	}
	return l
}

// ErrBusy is Run's answer when MaxChildren are running already.
var ErrBusy = errors.New("sandbox: every child slot is busy")

// Runner starts sandbox children: the lab's own binary with the hidden
// subcommand sandbox-child (or, in tests, the test binary with
// LAB_SANDBOX_CHILD=1 set).
type Runner struct {
	command []string
	limits  Limits
	slots   chan struct{}

	netOnce sync.Once
	netNS   uintptr // the clone flags that give a child no network, if this system allows them
}

// NewRunner makes a Runner that starts command (its program and
// arguments) for each child.
func NewRunner(command []string, limits Limits) *Runner {
	limits = limits.withDefaults()
	return &Runner{command: command, limits: limits, slots: make(chan struct{}, limits.MaxChildren)}
}

// Limits returns the runner's limits, defaults filled in.
func (r *Runner) Limits() Limits { return r.limits }

// Run starts a child, hands it req and returns its response. A file that
// does not compile is a Response with Error. A child that ran too long,
// used too much memory or CPU, crashed or wrote too much is killed and
// Run returns an *Error that says which. ctx ending kills the child too.
func (r *Runner) Run(ctx context.Context, req Request) (*Response, error) {
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	default:
		return nil, ErrBusy
	}
	if _, err := Parse(req.Code); err != nil {
		return &Response{Error: asError(err)}, nil // no child for a file that cannot run
	}
	req.Memory = r.limits.Memory
	req.CPU = int(r.limits.Timeout/time.Second) + 1
	in, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, r.limits.Timeout)
	defer cancel()
	stdout := &capped{max: r.limits.MaxOutput}
	stderr := &tail{max: r.limits.MaxLog}
	cmd := exec.Command(r.command[0], r.command[1:]...)
	cmd.Env = []string{"LAB_SANDBOX_CHILD=1", "GOMAXPROCS=1", "GOTRACEBACK=single"}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: r.noNetwork(req)}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sandbox: start: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		if parent.Err() == nil { // the child's own time ran out
			return nil, errf(0, "the handler ran for more than %s and was stopped: an endless loop, or waiting for something that never comes?",
				"обработчик работал дольше %s и был остановлен: бесконечный цикл или ожидание того, что не наступит?", r.limits.Timeout)
		}
		return nil, ctx.Err()
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // any process it left behind
	if stdout.over {
		return nil, errf(0, "the result was larger than %d MB and was dropped", "результат оказался больше %d МБ и отброшен", r.limits.MaxOutput>>20)
	}
	if waitErr != nil {
		return nil, r.failure(waitErr, stderr.String())
	}
	var resp Response
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return nil, fmt.Errorf("sandbox: response: %w", err)
	}
	return &resp, nil
}

// panicAt finds the line yaegi reports a panic at ("10:14: panic: ...");
// panicValue the value Go reports.
var (
	panicAt    = regexp.MustCompile(`(?m)^(\d+):\d+: panic`)
	panicValue = regexp.MustCompile(`(?m)^panic: (.*)$`)
)

// failure says why a child ended badly.
func (r *Runner) failure(err error, stderr string) *Error {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return errf(0, "the child process failed: %v", "дочерний процесс завершился с ошибкой: %v", err)
	}
	ws, _ := exit.Sys().(syscall.WaitStatus)
	mb := r.limits.Memory >> 20
	switch {
	case ws.Exited() && ws.ExitStatus() == exitMemory,
		strings.Contains(stderr, "out of memory"), strings.Contains(stderr, "cannot allocate memory"):
		return errf(0, "the handler used more than %d MB of memory and was stopped (an allocation in a loop, or goroutines started without end?)",
			"обработчик занял больше %d МБ памяти и был остановлен (выделение памяти в цикле или бесконечный запуск горутин?)", mb)
	case ws.Signaled() && (ws.Signal() == syscall.SIGXCPU || ws.Signal() == syscall.SIGKILL):
		return errf(0, "the handler used more than %d s of CPU and was stopped: an endless loop?",
			"обработчик израсходовал больше %d с процессорного времени и был остановлен: бесконечный цикл?", int(r.limits.Timeout/time.Second)+1)
	case strings.Contains(stderr, "panic:"):
		// yaegi writes "10:14: panic: ..." at the panic's place, then Go
		// writes "panic: VALUE [recovered, repanicked]".
		// The engine's own crash points panic through the interpreter
		// too, and yaegi reports each: the fatal one is the last.
		line := 0
		if all := panicAt.FindAllStringSubmatch(stderr, -1); len(all) > 0 {
			line, _ = strconv.Atoi(all[len(all)-1][1])
		}
		what := "panic"
		if m := panicValue.FindStringSubmatch(stderr); m != nil {
			what = "panic: " + strings.TrimSuffix(m[1], " [recovered, repanicked]")
		}
		return &Error{Line: line, Msg: "the handler crashed its process: " + what + " (a panic in a goroutine of its own?)",
			MsgRU: "обработчик обрушил свой процесс: " + what + " (паника в собственной горутине?)"}
	}
	tail := strings.TrimSpace(stderr)
	if len(tail) > 300 {
		tail = tail[len(tail)-300:]
	}
	return errf(0, "the child process failed (%v): %s", "дочерний процесс завершился с ошибкой (%v): %s", err, tail)
}

// noNetwork returns the clone flags that put a child in a network
// namespace of its own, with no interface but loopback, where this system
// allows it (root, or unprivileged user namespaces); else none. A handler
// cannot reach the network from the interpreter anyway: no net package,
// and no way to open a connection of its own (see denied).
func (r *Runner) noNetwork(req Request) uintptr {
	if req.Postgres != "" {
		return 0 // the real engine's servers are on the network
	}
	r.netOnce.Do(func() {
		flags := uintptr(syscall.CLONE_NEWNET)
		if os.Geteuid() != 0 {
			flags |= syscall.CLONE_NEWUSER
		}
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags}
		if cmd.Run() == nil {
			r.netNS = flags
		}
	})
	return r.netNS
}

// NoNetwork reports whether children run without a network.
func (r *Runner) NoNetwork() bool { return r.noNetwork(Request{}) != 0 }

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

// tail keeps the first and the last max/2 bytes written to it: how a
// crash report starts says what happened (out of memory), how it ends
// where (the fatal panic comes last).
type tail struct {
	head, buf []byte
	max       int
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if room := t.max/2 - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max/2; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return n, nil
}

func (t *tail) String() string { return string(t.head) + "\n" + string(t.buf) }
