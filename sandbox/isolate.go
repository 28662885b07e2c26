package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// How a child is kept from the machine. The server starts it in new
// mount, PID, network, IPC and UTS namespaces; before it reads a byte of
// the person's file it mounts an empty tmpfs, makes it its root
// (pivot_root), lets go of the old root and makes the new one read-only.
// From then on it has no files, no devices, no /proc, no network but its
// own loopback and no other process to see. Its identity:
//
//   - isolateRoot, when the server runs as root: the child starts as root
//     in the new namespaces, and once its root is empty it becomes nobody
//     (setgroups, setgid, setuid 65534, on every thread): no capability
//     is left anywhere.
//   - isolateUser, when the server is not root (or the system refuses the
//     first way): a new user namespace maps the child's root to the
//     server's own user (to nobody when the server is root). Its root is
//     root only inside namespaces that hold nothing but itself.
//
// Every child also starts with no_new_privs (it is inherited from the
// thread that starts it: see spawn), an RLIMIT_NPROC, and the limits of
// limit. Where the kernel refuses both ways, Run refuses to run a
// person's file at all (ErrNoIsolation), unless the Runner was made for
// one's own files on one's own machine (Limits.Unisolated).
const (
	isolateEnv  = "LAB_SANDBOX_ISOLATE"
	isolateRoot = "root"
	isolateUser = "user"
	nobody      = 65534
	// maxProcs is the child's RLIMIT_NPROC: its threads (the Go runtime
	// makes a few), never a process of its own.
	maxProcs = 256
)

// ErrNoIsolation is Run's answer when this system cannot isolate a child:
// a person's file is never run without isolation.
var ErrNoIsolation = errors.New("sandbox: this system cannot isolate a child")

// isolation is how this Runner's children are isolated, found once by
// running the self-test in each way in turn.
type isolation struct {
	mode  string // isolateRoot, isolateUser, or "" when neither works
	flags uintptr
	uids  []syscall.SysProcIDMap
	gids  []syscall.SysProcIDMap
	err   error // why neither works
}

// ways are the isolations this process may try, the stronger first.
func ways() []isolation {
	ns := uintptr(syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS)
	outside := os.Geteuid()
	outsideG := os.Getegid()
	var out []isolation
	if outside == 0 {
		out = append(out, isolation{mode: isolateRoot, flags: ns})
		outside, outsideG = nobody, nobody
	}
	return append(out, isolation{mode: isolateUser, flags: ns | syscall.CLONE_NEWUSER,
		uids: []syscall.SysProcIDMap{{ContainerID: 0, HostID: outside, Size: 1}},
		gids: []syscall.SysProcIDMap{{ContainerID: 0, HostID: outsideG, Size: 1}}})
}

// attr is the process attributes of a child isolated this way.
func (iso isolation) attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: iso.flags,
		UidMappings: iso.uids, GidMappings: iso.gids}
}

// isolate is the child's first act when the server asked for isolation:
// an empty read-only root of its own, then (isolateRoot) nobody.
func isolate(mode string) error {
	if mode != isolateRoot && mode != isolateUser {
		return fmt.Errorf("unknown isolation %q", mode)
	}
	// Mounts made from here on are this namespace's alone.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %w", err)
	}
	dir := ""
	for _, d := range []string{"/tmp", "/mnt", "/proc"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			dir = d
			break
		}
	}
	if dir == "" {
		return errors.New("no directory to mount the empty root on")
	}
	const flags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if err := unix.Mount("lab-sandbox", dir, "tmpfs", flags, "size=16k,nr_inodes=8,mode=0555"); err != nil {
		return fmt.Errorf("mount an empty root: %w", err)
	}
	old := dir + "/old"
	if err := unix.Mkdir(old, 0); err != nil {
		return fmt.Errorf("mkdir: %w", err)
	}
	if err := unix.PivotRoot(dir, old); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return fmt.Errorf("chdir: %w", err)
	}
	if err := unix.Unmount("/old", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("let go of the old root: %w", err)
	}
	if err := unix.Rmdir("/old"); err != nil {
		return fmt.Errorf("rmdir: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_RDONLY|flags, ""); err != nil {
		return fmt.Errorf("read-only root: %w", err)
	}
	if mode == isolateRoot {
		// Go applies these to every thread of the process: once uid 0 is
		// gone from all three ids, so is every capability.
		if err := syscall.Setgroups(nil); err != nil {
			return fmt.Errorf("setgroups: %w", err)
		}
		if err := syscall.Setgid(nobody); err != nil {
			return fmt.Errorf("setgid: %w", err)
		}
		if err := syscall.Setuid(nobody); err != nil {
			return fmt.Errorf("setuid: %w", err)
		}
	}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: maxProcs, Max: maxProcs}); err != nil {
		return fmt.Errorf("RLIMIT_NPROC: %w", err)
	}
	return nil
}

// spawner is the one thread that starts every child. It has
// no_new_privs set, and a child inherits it from the thread that clones
// it: no program the child could execute would ever gain a privilege.
// The thread never ends, so a child's Pdeathsig (sent when the thread
// that started it exits) fires only when the server itself dies.
var spawner = sync.OnceValue(func() chan func() {
	ch := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: this thread is the spawner's for good
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			panic("sandbox: no_new_privs: " + err.Error())
		}
		for f := range ch {
			f()
		}
	}()
	return ch
})

// spawn starts cmd on the spawner's thread.
func spawn(start func() error) error {
	done := make(chan error, 1)
	spawner() <- func() { done <- start() }
	return <-done
}

// selfTest is the child's side of the self-test (Op "selftest"): once
// isolated, it tries what a visitor's file would, and lists what worked.
// An isolated child lists nothing.
func selfTest(path string) []string {
	var leaks []string
	if b, err := os.ReadFile(path); err == nil {
		leaks = append(leaks, fmt.Sprintf("read %s (%d bytes)", path, len(b)))
	}
	for _, p := range []string{"/proc/self/status", "/dev/null", "/etc/passwd", "/bin/sh"} {
		if _, err := os.Stat(p); err == nil {
			leaks = append(leaks, "saw "+p)
		}
	}
	if names, err := os.ReadDir("/"); err == nil && len(names) > 0 {
		var ns []string
		for _, n := range names {
			ns = append(ns, n.Name())
		}
		leaks = append(leaks, "the root holds "+strings.Join(ns, ", "))
	}
	if f, err := os.Create("/made-by-the-child"); err == nil {
		f.Close()
		leaks = append(leaks, "wrote a file in its root")
	}
	if os.Getenv(isolateEnv) == isolateRoot && (os.Geteuid() != nobody || os.Getegid() != nobody) {
		leaks = append(leaks, fmt.Sprintf("runs as uid %d gid %d, not nobody", os.Geteuid(), os.Getegid()))
	}
	if p, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); err != nil || p != 1 {
		leaks = append(leaks, "may gain privileges (no_new_privs is not set)")
	}
	if os.Getpid() != 1 {
		leaks = append(leaks, fmt.Sprintf("shares a PID namespace (it is process %d)", os.Getpid()))
	}
	if ifs, err := net.Interfaces(); err == nil {
		for _, i := range ifs {
			if i.Flags&net.FlagLoopback == 0 {
				leaks = append(leaks, "has the network interface "+i.Name)
			}
		}
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NPROC, &lim) != nil || lim.Max > maxProcs {
		leaks = append(leaks, "has no RLIMIT_NPROC")
	}
	return leaks
}
