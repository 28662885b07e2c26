package servers

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The temporary folders the servers live in, named so that a later run
// knows the lab's own.
const (
	pgPrefix     = "lab-pg-"
	redisPrefix  = "lab-redis-"
	rabbitPrefix = "lab-rabbitmq-"
	// ownerFile, in each folder, names the test process that made it:
	// its pid and its start time (so that a reused pid is not taken for
	// the owner).
	ownerFile = "owner"
	// legacyAge: a folder without an owner file was made before the file
	// existed; it counts as stale once older than any test run may last
	// (the Makefile gives go test 40 minutes).
	legacyAge = time.Hour
)

var sweepOnce sync.Once

// spawner starts every server from one OS thread that lives as long as
// the process. A parent-death signal fires when the thread that started
// the child exits, not the process; Go may end a thread under a goroutine
// that locked it, so the servers are started from a goroutine that locks
// its thread for good.
var spawner = sync.OnceValue(func() chan spawnRequest {
	ch := make(chan spawnRequest)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread stays
		for req := range ch {
			req.done <- req.cmd.Start()
		}
	}()
	return ch
})

type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

// spawn starts cmd on the spawner's thread; the channel is closed once it
// has exited and been waited for.
func spawn(cmd *exec.Cmd) (<-chan struct{}, error) {
	req := spawnRequest{cmd: cmd, done: make(chan error)}
	spawner() <- req
	if err := <-req.done; err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	return exited, nil
}

// claim writes the owner file of a server's folder: this process.
func claim(dir string) error {
	start, err := startTime(os.Getpid())
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ownerFile), fmt.Appendf(nil, "%d %d\n", os.Getpid(), start), 0o644)
}

// startTime is a process's start time in clock ticks since boot, from
// /proc/PID/stat (field 22).
func startTime(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// ownerAlive reports whether the process an owner file names still runs.
func ownerAlive(dir string) (alive, known bool) {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return false, false
	}
	var pid int
	var start uint64
	if _, err := fmt.Sscan(string(b), &pid, &start); err != nil {
		return false, false
	}
	now, err := startTime(pid)
	return err == nil && now == start, true
}

// stale reports whether a server folder is left over from a run that is
// gone: its owner has exited, or, for a folder from before owner files,
// it is older than any run.
func stale(dir string) bool {
	if alive, known := ownerAlive(dir); known {
		return !alive
	}
	fi, err := os.Stat(dir)
	return err == nil && time.Since(fi.ModTime()) > legacyAge
}

// sweep stops the servers of stale lab folders in tmp and removes the
// folders. A server is found by its arguments (postgres -D DIR/data -k
// DIR) or its working folder (DIR for redis-server, which rewrites its
// arguments, DIR/data for PostgreSQL). It returns the
// folders removed. Best effort: what it cannot remove stays for the next
// sweep.
func sweep(tmp string) []string {
	var dirs []string
	for _, prefix := range []string{pgPrefix, redisPrefix, rabbitPrefix} {
		m, _ := filepath.Glob(filepath.Join(tmp, prefix+"*"))
		for _, d := range m {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() && stale(d) {
				dirs = append(dirs, d)
			}
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	var killed []int
	for pid, p := range processes() {
		for _, d := range dirs {
			in := func(s string) bool { return s == d || strings.HasPrefix(s, d+"/") }
			named := slices.ContainsFunc(p.args, in)
			if !named && !in(p.cwd) {
				continue
			}
			sig := syscall.SIGKILL
			if filepath.Base(p.args[0]) == "postgres" {
				sig = syscall.SIGQUIT // immediate shutdown: the postmaster ends its backends
			}
			if syscall.Kill(pid, sig) == nil {
				killed = append(killed, pid)
			}
		}
	}
	// Give them a moment to go before their files are removed.
	for range 100 {
		if !anyAlive(killed) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var removed []string
	for _, d := range dirs {
		if os.RemoveAll(d) == nil {
			removed = append(removed, d)
		}
	}
	return removed
}

// process is what the sweep reads of a process: its arguments and its
// working folder. Both servers work in their folder (PostgreSQL in its
// data folder); redis-server rewrites its arguments to its address, so
// its working folder is what names it.
type process struct {
	args []string
	cwd  string
}

// processes lists the processes this user may read, by pid.
func processes() map[int]process {
	out := map[int]process{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		out[pid] = process{args: args, cwd: cwd}
	}
	return out
}

// anyAlive reports whether any of the processes still runs (a zombie
// counts as gone).
func anyAlive(pids []int) bool {
	for _, pid := range pids {
		if alive(pid) {
			return true
		}
	}
	return false
}

// alive reports whether a process runs: it exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}
