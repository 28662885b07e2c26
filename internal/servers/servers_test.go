package servers

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// childEnv marks the test binary run by TestServersDieWithTheTestProcess.
const childEnv = "LAB_SERVERS_TEST_CHILD"

// TestChildHoldsServers is the child's part: it starts both servers,
// says which they are, and waits to be killed.
func TestChildHoldsServers(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestServersDieWithTheTestProcess")
	}
	p, r := PostgresServer(t), RedisServer(t)
	fmt.Printf("server %d %s\nserver %d %s\nready\n", p.Pid, p.dir, r.Pid, r.dir)
	select {}
}

// TestServersDieWithTheTestProcess: a test binary killed while its
// servers run (as go test's -timeout or a Ctrl-C would end it, before
// TestMain's Stop) takes PostgreSQL and Redis with it, and the next run's
// sweep removes the folders it left.
func TestServersDieWithTheTestProcess(t *testing.T) {
	// The child's servers live in a folder of this test's, so the sweep
	// below touches nothing else. PostgreSQL, run as the postgres user
	// when the tests run as root, must be able to enter it.
	tmp := t.TempDir()
	for _, d := range []string{tmp, filepath.Dir(tmp)} { // t.TempDir makes both 0700
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestChildHoldsServers$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1", "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	var dirs, lines []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		var pid int
		var dir string
		if _, err := fmt.Sscanf(line, "server %d %s", &pid, &dir); err == nil {
			pids, dirs = append(pids, pid), append(dirs, dir)
		}
		if line == "ready" {
			break
		}
	}
	if len(pids) != 2 {
		cmd.Process.Kill()
		cmd.Wait()
		// The child skips where the servers are not installed.
		if os.Getenv("CI") == "" && slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "SKIP") }) {
			t.Skipf("the child could not start the servers:\n%s", strings.Join(lines, "\n"))
		}
		t.Fatalf("the child did not start two servers:\n%s", strings.Join(lines, "\n"))
	}
	for i, pid := range pids {
		if !alive(pid) {
			t.Fatalf("server %d (%s) is not running before the kill", pid, dirs[i])
		}
	}
	// SIGKILL: no deferred function, no TestMain, no signal handler runs.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// The servers get their parent-death signal as the child dies; they
	// take a moment to exit. This waits for that, with a deadline only as
	// a safety net.
	deadline := time.Now().Add(60 * time.Second)
	for anyAlive(pids) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	for i, pid := range pids {
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL) // not leave it to the next run
			t.Errorf("server %d (%s) outlived its test process", pid, dirs[i])
		}
	}
	// The folders stay (nobody removed them); the next run's sweep does.
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v; the killed run should have left it", d, err)
		}
	}
	removed := sweep(tmp)
	slices.Sort(removed)
	slices.Sort(dirs)
	if !slices.Equal(removed, dirs) {
		t.Errorf("the sweep removed %q, want %q", removed, dirs)
	}
}

// TestSweepKeepsLiveRuns: the sweep removes a folder whose owner has
// exited, and a folder from before owner files once it is older than any
// run; it keeps a live run's folders, a young folder without an owner
// file (a run of the older code may be using it) and folders that are
// not the lab's.
func TestSweepKeepsLiveRuns(t *testing.T) {
	tmp := t.TempDir()
	mk := func(name string) string {
		d := filepath.Join(tmp, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	live := mk(pgPrefix + "live")
	if err := claim(live); err != nil {
		t.Fatal(err)
	}
	// A process that has exited: a child run and waited for.
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	dead := mk(redisPrefix + "dead")
	os.WriteFile(filepath.Join(dead, ownerFile), fmt.Appendf(nil, "%d 1\n", done.Process.Pid), 0o644)
	// This process's pid with another start time: the pid was reused.
	reused := mk(pgPrefix + "reused")
	os.WriteFile(filepath.Join(reused, ownerFile), fmt.Appendf(nil, "%d 1\n", os.Getpid()), 0o644)
	young := mk(pgPrefix + "young")
	old := mk(redisPrefix + "old")
	then := time.Now().Add(-2 * legacyAge)
	if err := os.Chtimes(old, then, then); err != nil {
		t.Fatal(err)
	}
	other := mk("not-the-lab")
	os.Chtimes(other, then, then)

	removed := sweep(tmp)
	slices.Sort(removed)
	want := []string{reused, dead, old}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	for _, d := range []string{live, young, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(d), err)
		}
	}
	// Nothing stale: nothing to do.
	if got := sweep(tmp); len(got) != 0 {
		t.Errorf("a second sweep removed %q", got)
	}
}

// TestSweepStopsAStaleServer: a server still running in a stale folder
// (left by a run of the code before parent-death signals, say) is
// stopped, found by its working folder: redis-server rewrites its
// arguments, so they no longer name it.
func TestSweepStopsAStaleServer(t *testing.T) {
	exe, err := exec.LookPath("redis-server")
	if err != nil {
		Unavailable(t, "redis-server", err)
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, redisPrefix+"orphan")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ownerFile), fmt.Appendf(nil, "%d 1\n", done.Process.Pid), 0o644)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(exe, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { srv.Wait(); close(exited) }()
	t.Cleanup(func() { srv.Process.Kill(); <-exited })
	if err := waitReady(exited, func() bool { return waitPort(port, 200*time.Millisecond) == nil }, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if removed := sweep(tmp); !slices.Equal(removed, []string{dir}) {
		t.Errorf("the sweep removed %q, want %q", removed, dir)
	}
	select {
	case <-exited:
	case <-time.After(60 * time.Second): // a safety net, not a measure
		t.Error("the sweep left the stale folder's redis-server running")
	}
}

// TestRabbitMQStarts: the throwaway RabbitMQ speaks AMQP at its URL, as
// guest from the loopback address, and lives in its own folder.
func TestRabbitMQStarts(t *testing.T) {
	s := RabbitMQServer(t)
	if !strings.HasPrefix(s.URL, "amqp://guest:guest@127.0.0.1:") || !strings.Contains(s.dir, rabbitPrefix) {
		t.Errorf("URL %s, folder %s", s.URL, s.dir)
	}
	var port int
	if _, err := fmt.Sscanf(s.URL, "amqp://guest:guest@127.0.0.1:%d/", &port); err != nil || !amqpAnswers(port) {
		t.Errorf("%s does not answer AMQP (%v)", s.URL, err)
	}
	if !alive(s.Pid) {
		t.Errorf("the server's process %d is gone", s.Pid)
	}
}
