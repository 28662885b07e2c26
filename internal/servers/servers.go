// Package servers starts throwaway PostgreSQL, Redis and RabbitMQ servers
// for tests: each in a temporary folder, on a free port, stopped when the
// test binary is done. The binaries come from Debian's postgresql,
// redis-server and rabbitmq-server packages (.ci/run installs them). Without them a test skips with a
// message naming the package, except in CI (CI set), where it fails: there
// the real-engine tests must run.
//
// A test binary that dies before TestMain's Stop (go test's -timeout, a
// Ctrl-C, a kill) takes its servers with it: both are direct children of
// the test process (postgres itself, not pg_ctl, which would hand it to
// init), started with a parent-death signal (Linux's PR_SET_PDEATHSIG):
// SIGQUIT for PostgreSQL, its immediate shutdown, which ends its own
// children too, and SIGKILL for Redis and RabbitMQ's Erlang VM. The first server a process starts
// also sweeps what dead runs left in the temporary folder (sweep).
package servers

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is a running throwaway server.
type Server struct {
	URL  string // postgres://… or redis://…
	Pid  int    // the server's process (PostgreSQL's postmaster)
	dir  string
	stop func()
}

var (
	pgOnce, redisOnce, rabbitOnce sync.Once
	pg, rd, rabbit                *Server
	pgErr, rdErr, rabbitErr       error
	mu                            sync.Mutex
	started                       []*Server
)

// Stop stops every server started; call it from TestMain after m.Run.
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	for _, s := range started {
		s.stop()
		os.RemoveAll(s.dir)
	}
	started = nil
}

// unavailable skips the test, or fails it in CI.
func unavailable(tb testing.TB, pkg string, err error) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("%v: in CI the real-engine tests must run (apt-get install -y %s)", err, pkg)
	}
	tb.Skipf("%v: install Debian's %s to run this test", err, pkg)
}

// Unavailable skips the test for want of what pkg (a Debian package, or
// what to run) provides, or fails it in CI, where it must run.
func Unavailable(tb testing.TB, pkg string, err error) {
	tb.Helper()
	unavailable(tb, pkg, err)
}

// Postgres returns the URL of a throwaway PostgreSQL, started on first use.
func Postgres(tb testing.TB) string {
	tb.Helper()
	return PostgresServer(tb).URL
}

// PostgresServer is Postgres's server itself: its URL and its process.
func PostgresServer(tb testing.TB) *Server {
	tb.Helper()
	pgOnce.Do(func() { pg, pgErr = startPostgres() })
	if pgErr != nil {
		unavailable(tb, "postgresql", pgErr)
	}
	return pg
}

// Redis returns the URL of a throwaway Redis server, started on first use.
func Redis(tb testing.TB) string {
	tb.Helper()
	return RedisServer(tb).URL
}

// RedisServer is Redis's server itself: its URL and its process.
func RedisServer(tb testing.TB) *Server {
	tb.Helper()
	redisOnce.Do(func() { rd, rdErr = startRedis() })
	if rdErr != nil {
		unavailable(tb, "redis-server", rdErr)
	}
	return rd
}

// RabbitMQ returns the amqp:// URL of a throwaway RabbitMQ server,
// started on first use.
func RabbitMQ(tb testing.TB) string {
	tb.Helper()
	return RabbitMQServer(tb).URL
}

// RabbitMQServer is RabbitMQ's server itself: its URL and its process
// (the Erlang VM).
func RabbitMQServer(tb testing.TB) *Server {
	tb.Helper()
	rabbitOnce.Do(func() { rabbit, rabbitErr = startRabbitMQ() })
	if rabbitErr != nil {
		unavailable(tb, "rabbitmq-server", rabbitErr)
	}
	return rabbit
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitPort waits until something listens on the port.
func waitPort(port int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on port %d after %v", port, d)
}

// pgBin finds PostgreSQL's programs: pg_config --bindir (Debian keeps them
// under /usr/lib/postgresql/N/bin), else the newest such folder.
func pgBin() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", errors.New("no PostgreSQL found (initdb)")
}

// asUser runs a PostgreSQL program; as root it runs as the postgres user,
// since PostgreSQL refuses to run as root.
func asUser(name string, args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	return exec.Command(name, args...)
}

// postgresUser is the uid and gid PostgreSQL runs as: the postgres
// user's when the tests run as root (PostgreSQL refuses root), else nil
// (the test's own user).
func postgresUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root needs the postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func startPostgres() (*Server, error) {
	sweepOnce.Do(func() { sweep(os.TempDir()) })
	bin, err := pgBin()
	if err != nil {
		return nil, err
	}
	cred, err := postgresUser()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", pgPrefix)
	if err != nil {
		return nil, err
	}
	if err := claim(dir); err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := asUser(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own copy
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200")
	cmd.Stdout, cmd.Stderr = logf, logf
	// SIGQUIT is PostgreSQL's immediate shutdown: the postmaster ends its
	// backends and exits.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	exited, err := spawn(cmd)
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	stop := func() {
		cmd.Process.Signal(syscall.SIGQUIT)
		<-exited
	}
	if err := waitReady(exited, func() bool {
		return exec.Command(filepath.Join(bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(port)).Run() == nil
	}, 60*time.Second); err != nil {
		stop()
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		return nil, fmt.Errorf("postgres: %v: %s", err, log)
	}
	s := &Server{URL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), dir: dir, Pid: cmd.Process.Pid, stop: stop}
	mu.Lock()
	started = append(started, s)
	mu.Unlock()
	return s, nil
}

func startRedis() (*Server, error) {
	sweepOnce.Do(func() { sweep(os.TempDir()) })
	exe, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errors.New("no redis-server found")
	}
	dir, err := os.MkdirTemp("", redisPrefix)
	if err != nil {
		return nil, err
	}
	if err := claim(dir); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	exited, err := spawn(cmd)
	if err != nil {
		return nil, err
	}
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	if err := waitReady(exited, func() bool { return waitPort(port, 200*time.Millisecond) == nil }, 20*time.Second); err != nil {
		stop()
		return nil, fmt.Errorf("redis-server: %w", err)
	}
	s := &Server{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), dir: dir, Pid: cmd.Process.Pid, stop: stop}
	mu.Lock()
	started = append(started, s)
	mu.Unlock()
	return s, nil
}

// waitReady polls ready until it holds, the server exits, or d passes.
func waitReady(exited <-chan struct{}, ready func() bool, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		select {
		case <-exited:
			return errors.New("the server exited while starting")
		default:
		}
		if ready() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v", d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rabbitBin finds RabbitMQ's start script: Debian's, not the
// /usr/sbin/rabbitmq-server wrapper, which as root runs the server as the
// rabbitmq user through su (and so not as this process's child).
func rabbitBin() (string, error) {
	const debian = "/usr/lib/rabbitmq/bin/rabbitmq-server"
	if _, err := os.Stat(debian); err == nil {
		return debian, nil
	}
	if exe, err := exec.LookPath("rabbitmq-server"); err == nil {
		return exe, nil
	}
	return "", errors.New("no rabbitmq-server found")
}

func startRabbitMQ() (*Server, error) {
	sweepOnce.Do(func() { sweep(os.TempDir()) })
	exe, err := rabbitBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", rabbitPrefix)
	if err != nil {
		return nil, err
	}
	if err := claim(dir); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dist, err := freePort()
	if err != nil {
		return nil, err
	}
	// Everything the node keeps or reads is in dir: its configuration
	// (no plugins: the management plugin would only slow the start), its
	// database, its logs, its Erlang cookie (HOME). The node name is this
	// folder's, so that nodes of runs side by side never meet in epmd,
	// Erlang's port mapper on its usual port 4369, which the node starts
	// if none runs and which stays, as it does for every Erlang node (it
	// holds nothing but the names of the nodes running).
	conf := filepath.Join(dir, "rabbitmq.conf")
	if err := os.WriteFile(conf, []byte("loopback_users = none\nlog.console = false\nlog.file.level = warning\n"), 0o644); err != nil {
		return nil, err
	}
	plugins := filepath.Join(dir, "enabled_plugins")
	if err := os.WriteFile(plugins, []byte("[].\n"), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own copy
	node := "lab-" + strings.TrimPrefix(filepath.Base(dir), rabbitPrefix)
	cmd := exec.Command(exe)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"HOME="+dir,
		"RABBITMQ_NODENAME="+node+"@localhost",
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT="+strconv.Itoa(port),
		"RABBITMQ_DIST_PORT="+strconv.Itoa(dist),
		"RABBITMQ_CONFIG_FILE="+conf,
		"RABBITMQ_ADVANCED_CONFIG_FILE="+filepath.Join(dir, "advanced.config"),
		"RABBITMQ_CONF_ENV_FILE="+filepath.Join(dir, "rabbitmq-env.conf"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+plugins,
		"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
		// The script then execs the Erlang VM itself, which keeps the
		// parent-death signal, rather than waiting on it in a shell;
		// -noinput keeps the VM's shell off all the same.
		"RABBITMQ_ALLOW_INPUT=1",
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-noinput",
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	exited, err := spawn(cmd)
	if err != nil {
		return nil, fmt.Errorf("start rabbitmq-server: %w", err)
	}
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	url := fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", port)
	// Ready when it speaks AMQP: the listener opens near the end of the
	// boot.
	if err := waitReady(exited, func() bool { return amqpAnswers(port) }, 90*time.Second); err != nil {
		stop()
		out, _ := os.ReadFile(filepath.Join(dir, "out"))
		return nil, fmt.Errorf("rabbitmq-server: %v: %s", err, out)
	}
	s := &Server{URL: url, dir: dir, Pid: cmd.Process.Pid, stop: stop}
	mu.Lock()
	started = append(started, s)
	mu.Unlock()
	return s, nil
}

// amqpAnswers reports whether an AMQP server answers the protocol header
// on the port with its connection.start (a frame of type 1 on channel 0).
func amqpAnswers(port int) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("AMQP\x00\x00\x09\x01")); err != nil {
		return false
	}
	var frame [7]byte
	if _, err := io.ReadFull(c, frame[:]); err != nil {
		return false
	}
	return frame[0] == 1 && frame[1] == 0 && frame[2] == 0
}
