package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Warm children. A child spends most of its CPU before it reads a byte of
// its request: the runtime starting a large binary, the packages'
// initialisation, its isolation (sandbox/child.go). So the Runner starts
// children ahead, each isolated as Run would isolate it and blocked
// reading its request, and a Run hands its request to one that waits.
// Nothing else changes: a child still serves exactly one request and
// ends, so no file, no visitor and no request ever meets another's
// process; its limits (memory, CPU, stack, files) are set, as before,
// once its request is read, and its wall-clock time counts from then.
//
// The first is started once the self-test has passed (Isolation), and
// each Run that takes a child (or finds none) starts one in the
// background for the next request, up to Limits.Warm waiting at once: a
// Runner keeps as many as its busiest moment asked for. A waiting child
// is blocked reading its request: it holds its memory (measured: 32 MB
// resident, 3.6 MB of it anonymous, the rest the binary's clean pages,
// shared with every process that runs the binary) and the
// Go runtime's own timers wake it now and then (measured: 0.2–0.35 ms
// of CPU a second, which counts towards its RLIMIT_CPU). One that dies
// while waiting is replaced, unless it died within minLife of its start
// (a child that cannot even start would otherwise be started again and
// again; the next request starts its own and says why). One that has
// waited maxWait is ended, and replaced only if the Runner had a request
// in that time: an idle Runner ends up with no child at all.
const (
	maxWait = time.Minute
	minLife = time.Second
)

// child is one started sandbox child, until it has ended.
type child struct {
	cmd    *exec.Cmd
	iso    isolation
	born   time.Time
	stdin  *os.File // its request is written here, then it is closed
	stdout *capped
	notes  []note        // what it wrote on notesFD, once noted is closed
	noted  chan struct{} // closed when its notes are all read
	done   chan struct{} // closed when it has ended and been reaped
	err    error         // cmd.Wait's answer, once done is closed
	timer  *time.Timer   // while it waits in a pool: the end of its wait
}

// startChild starts command as a sandbox child isolated as iso (not at
// all when iso.mode is ""); it initialises, isolates itself and waits
// for its request on stdin.
func startChild(command []string, maxOutput int, iso isolation) (*child, error) {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	notesR, notesW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	c := &child{iso: iso, born: time.Now(), stdin: stdinW, stdout: &capped{max: maxOutput},
		noted: make(chan struct{}), done: make(chan struct{})}
	cmd := exec.Command(command[0], command[1:]...)
	// GOGC=off: no collection while the binary's packages initialise
	// (the web's highlighter alone allocates megabytes the child never
	// uses), several milliseconds of a child's CPU; Child turns the
	// collector back on before it reads the request (#30).
	cmd.Env = []string{"LAB_SANDBOX_CHILD=1", "GOMAXPROCS=1", "GOTRACEBACK=single", "GOGC=off"}
	if iso.mode != "" {
		cmd.Env = append(cmd.Env, isolateEnv+"="+iso.mode)
		cmd.SysProcAttr = iso.attr()
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	cmd.Stdin, cmd.Stdout = stdinR, c.stdout // stderr: what the handler prints, read by nobody
	cmd.ExtraFiles = []*os.File{notesW}
	err = spawn(cmd.Start)
	stdinR.Close()
	notesW.Close()
	if err != nil {
		stdinW.Close()
		notesR.Close()
		return nil, fmt.Errorf("sandbox: start: %w", err)
	}
	c.cmd = cmd
	go func() {
		defer close(c.noted)
		defer notesR.Close()
		sc := bufio.NewScanner(io.LimitReader(notesR, 1<<20))
		for sc.Scan() {
			var n note
			if json.Unmarshal(sc.Bytes(), &n) == nil && len(c.notes) < 1000 {
				c.notes = append(c.notes, n)
			}
		}
		io.Copy(io.Discard, notesR) // past the limit: let the child go on writing
	}()
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// kill ends the child (and any process it left behind) and returns once
// it is reaped.
func (c *child) kill() {
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.done
}

// discard ends a child that will get no request.
func (c *child) discard() {
	c.stdin.Close()
	c.kill()
}

// pool is a Runner's waiting children.
type pool struct {
	command   []string
	maxOutput int
	max       int // Limits.Warm: at most this many waiting or starting; none when <= 0

	mu       sync.Mutex
	changed  *sync.Cond // broadcast when starting or waiting changes
	waiting  []*child   // the oldest first
	starting int
	lastUse  time.Time
	closed   bool
	starts   sync.WaitGroup
}

func newPool(command []string, limits Limits) *pool {
	p := &pool{command: command, maxOutput: limits.MaxOutput, max: limits.Warm}
	p.changed = sync.NewCond(&p.mu)
	return p
}

// take removes the oldest live child isolated as mode from the pool and
// returns it, or nil when none waits. While one is starting, it waits
// for it: it is further on than a child started now would be.
func (p *pool) take(mode string) *child {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastUse = time.Now()
	for {
		for i := 0; i < len(p.waiting); {
			c := p.waiting[i]
			if c.iso.mode != mode {
				i++
				continue
			}
			p.remove(c)
			select {
			case <-c.done: // it died a moment ago
				c.stdin.Close()
				continue
			default:
			}
			return c
		}
		if p.starting == 0 {
			return nil
		}
		p.changed.Wait()
	}
}

// refill starts a child isolated as iso in the background, unless the
// pool is closed or full.
func (p *pool) refill(iso isolation) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.waiting)+p.starting >= p.max {
		return
	}
	p.starting++
	p.starts.Add(1)
	go p.add(iso)
}

func (p *pool) add(iso isolation) {
	defer p.starts.Done()
	c, err := startChild(p.command, p.maxOutput, iso)
	p.mu.Lock()
	p.starting--
	p.changed.Broadcast()
	if err != nil { // the next request starts its own child, and says why it cannot
		p.mu.Unlock()
		return
	}
	if p.closed {
		p.mu.Unlock()
		c.discard()
		return
	}
	c.timer = time.AfterFunc(maxWait, func() { p.expire(c) })
	p.waiting = append(p.waiting, c)
	p.mu.Unlock()
	go p.watch(c)
}

// remove takes c out of the pool, if it is there still.
func (p *pool) remove(c *child) bool {
	i := slices.Index(p.waiting, c)
	if i < 0 {
		return false
	}
	p.waiting = slices.Delete(p.waiting, i, i+1)
	c.timer.Stop()
	p.changed.Broadcast()
	return true
}

// watch replaces c if it dies while it waits.
func (p *pool) watch(c *child) {
	<-c.done
	p.mu.Lock()
	removed := p.remove(c)
	p.mu.Unlock()
	if !removed {
		return // taken, or ended by the pool
	}
	c.stdin.Close()
	if time.Since(c.born) >= minLife {
		p.refill(c.iso)
	}
}

// expire ends c once it has waited maxWait.
func (p *pool) expire(c *child) {
	p.mu.Lock()
	removed := p.remove(c)
	inUse := time.Since(p.lastUse) < maxWait
	p.mu.Unlock()
	if !removed {
		return
	}
	c.discard()
	if inUse {
		p.refill(c.iso)
	}
}

// close ends every waiting child, and each one starting as it starts,
// and starts no more.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	waiting := p.waiting
	p.waiting = nil
	for _, c := range waiting {
		c.timer.Stop()
	}
	p.changed.Broadcast()
	p.mu.Unlock()
	for _, c := range waiting {
		c.discard()
	}
	p.starts.Wait()
}

// settle waits until no child is starting and returns the process ids
// of those waiting, the oldest first.
func (p *pool) settle() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.starting > 0 {
		p.changed.Wait()
	}
	var pids []int
	for _, c := range p.waiting {
		pids = append(pids, c.cmd.Process.Pid)
	}
	return pids
}
