package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idempotency-lab/lab/brokers"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/classroom/room"
)

// cmdServe runs the web lab until ctx is cancelled (Ctrl-C), then lets the
// requests in progress finish.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lab serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (host:port)")
	dev := fs.Bool("dev", false, "read ./static and ./lessons on every request, so edits to CSS and lessons show on reload")
	quiet := fs.Bool("quiet", false, "log only errors, not every request")
	defaultData, _ := practice.DefaultPath()
	data := fs.String("data", defaultData, "the SQLite `file` that keeps practice progress (created if missing)")
	maxRooms := fs.Int("max-rooms", 50, "how many live classrooms may be open at once")
	maxStudents := fs.Int("max-students", 300, "how many students may follow one room")
	roomIdle := fs.Duration("room-idle", 2*time.Hour, "close a room after this long without a step, a poll or a vote")
	grace := fs.Duration("grace", 10*time.Second, "on Ctrl-C, let requests in progress finish for this long, then cut them")
	budget := fs.Int("budget", sim.DefaultBudget, "the handler deliveries one replay of a script may make, over all its handlers (more: 422)")
	maxReplays := fs.Int("max-replays", 2*runtime.GOMAXPROCS(0), "how many replays may run at once")
	replayWait := fs.Duration("replay-wait", 500*time.Millisecond, "how long a request waits for a replay slot before a 503")
	cacheMB := fs.Int64("cache-size", 64, "MiB of rendered pages to keep in memory (0 turns the cache off)")
	checkBudget := fs.Duration("check-budget", 2*time.Second, "how long the checker (/check) may search one handler's schedules")
	bench := fs.Bool("bench", true, "let the cost page (/cost) run benches on this server, one at a time (false for a public server: the page shows the reference run only)")
	code := fs.Bool("code", true, "let people run handler files they write (in a sandboxed child process); false hides the editor")
	codeMemory := fs.Int64("code-memory", 512, "megabytes of resident memory a handler file's child process may use")
	codeTimeout := fs.Duration("code-timeout", 5*time.Second, "CPU time a handler file's child process may use (its wall clock: 3 times this, at least 15s)")
	maxLedgers := fs.Int("max-ledgers", 200, "how many ledgers of the live API endpoint (/try-api) may exist at once (more: 503 with Retry-After)")
	ledgerIdle := fs.Duration("ledger-idle", time.Hour, "drop a ledger of the live API endpoint after this long without a payment")
	codeChildren := fs.Int("code-children", 4, "handler-file child processes at once (more: 503 with Retry-After)")
	pgURL := fs.String("postgres", os.Getenv("LAB_POSTGRES_URL"), "a PostgreSQL URL: practice progress is kept there (schema lab_progress) instead of --data, and with --redis the lab offers to run its handlers on both (default $LAB_POSTGRES_URL)")
	redisURL := fs.String("redis", os.Getenv("LAB_REDIS_URL"), "a Redis `URL` (redis://[:password@]host:port/db): live classrooms are kept there, so that several lab servers sharing it serve one classroom; with --postgres the lab also offers to run its handlers on it, and the rooms must be in database 0 (default $LAB_REDIS_URL)")
	rabbitURL := fs.String("rabbitmq", os.Getenv("LAB_RABBITMQ_URL"), "a RabbitMQ `URL` (amqp://user:pass@host:port/vhost): the pages then offer it as a real broker (broker=rabbitmq), beside NATS JetStream and Kafka (default $LAB_RABBITMQ_URL)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lab serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	// Each bad value is named with the range it must be in.
	for _, c := range []struct {
		bad         bool
		flag, value string
		want        string
	}{
		{*maxRooms < 1, "--max-rooms", strconv.Itoa(*maxRooms), "at least 1"},
		{*maxStudents < 1, "--max-students", strconv.Itoa(*maxStudents), "at least 1"},
		{*roomIdle <= 0, "--room-idle", roomIdle.String(), "longer than 0 (for example 2h)"},
		{*grace <= 0, "--grace", grace.String(), "longer than 0 (for example 10s)"},
		{*budget < 1, "--budget", strconv.Itoa(*budget), "at least 1"},
		{*maxReplays < 1, "--max-replays", strconv.Itoa(*maxReplays), "at least 1"},
		{*replayWait <= 0, "--replay-wait", replayWait.String(), "longer than 0 (for example 500ms)"},
		{*checkBudget <= 0, "--check-budget", checkBudget.String(), "longer than 0 (for example 2s)"},
		{*codeMemory < 32 || *codeMemory > 16<<10, "--code-memory", strconv.FormatInt(*codeMemory, 10), "from 32 to 16384 (MB)"},
		{*codeTimeout <= 0 || *codeTimeout > 5*time.Minute, "--code-timeout", codeTimeout.String(), "longer than 0 and at most 5m (for example 5s)"},
		{*codeChildren < 1, "--code-children", strconv.Itoa(*codeChildren), "at least 1"},
		{*maxLedgers < 1 || *maxLedgers > 100_000, "--max-ledgers", strconv.Itoa(*maxLedgers), "from 1 to 100000"},
		{*ledgerIdle < time.Second || *ledgerIdle > 7*24*time.Hour, "--ledger-idle", ledgerIdle.String(), "from 1s to 168h (for example 1h)"},
		{*cacheMB < 0 || *cacheMB > maxCacheMB, "--cache-size", strconv.FormatInt(*cacheMB, 10),
			fmt.Sprintf("from 0 (no cache) to %d (MiB)", maxCacheMB)},
	} {
		if c.bad {
			fmt.Fprintf(stderr, "lab serve: %s %s is out of range: it must be %s\n", c.flag, c.value, c.want)
			return exitUsage
		}
	}
	cacheBytes := *cacheMB << 20
	if cacheBytes == 0 {
		cacheBytes = -1 // web.Config: 0 is the default size, a negative value no cache
	}
	level := slog.LevelInfo
	if *quiet {
		level = slog.LevelError
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if *data == "" {
		fmt.Fprintln(stderr, "lab serve: there is no default place for the progress file here; choose one with --data FILE")
		return exitUsage
	}
	var rdb *redis.Client // the rooms' Redis, if any
	if *redisURL != "" {
		var err error
		if rdb, err = redisClient(*redisURL, *pgURL != ""); err != nil {
			fmt.Fprintf(stderr, "lab serve: %v\n", err)
			return exitUsage
		}
		defer rdb.Close()
	}
	bank, err := practice.Load()
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return exitError
	}
	var store *practice.Store
	if *pgURL != "" {
		// Several lab servers can share one progress store there.
		store, err = practice.OpenPostgres(context.WithoutCancel(ctx), *pgURL, "lab_progress", bank)
		if err != nil {
			fmt.Fprintf(stderr, "lab serve: --postgres: %v\n", err)
			return exitUsage
		}
	} else {
		store, err = practice.Open(*data, bank)
	}
	var damaged *practice.DamagedError
	if errors.As(err, &damaged) {
		// The message names the file and says what to do.
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: --data %s: cannot open the progress database: %v\n", *data, err)
		return exitUsage
	}
	defer store.Close()
	roomCfg := room.Config{MaxRooms: *maxRooms, MaxStudents: *maxStudents, IdleTTL: *roomIdle}
	rooms := room.NewHub(roomCfg)
	if rdb != nil {
		if rooms, err = room.NewRedisHub(roomCfg, rdb); err != nil {
			fmt.Fprintf(stderr, "lab serve: --redis %s: %v\n", redactURL(*redisURL), err)
			return exitUsage
		}
		defer rooms.Close()
	}
	defer sweepRooms(rooms, min(*roomIdle, time.Minute))()
	streamsEnd := make(chan struct{}) // closed by Shutdown: room event streams end
	var engine *sim.Engine
	if *pgURL != "" && *redisURL != "" {
		if engine, err = sim.NewEngine(context.WithoutCancel(ctx), *pgURL, *redisURL); err != nil {
			fmt.Fprintf(stderr, "lab serve: %v\n", err)
			return exitUsage
		}
		defer engine.Close()
	}
	// The real brokers the pages offer (broker=): none starts before a
	// page asks for it.
	var realBrokers brokers.Lazy
	defer realBrokers.Close()
	if *rabbitURL != "" {
		if !brokers.IsAMQP(*rabbitURL) {
			fmt.Fprintf(stderr, "lab serve: --rabbitmq %s: want %s\n", redactURL(*rabbitURL), brokers.AMQPForm)
			return exitUsage
		}
		if err := realBrokers.OfferRabbitMQ(ctx, *rabbitURL); err != nil {
			fmt.Fprintf(stderr, "lab serve: %v\n", err)
			return exitUsage
		}
	}
	var runner *sandbox.Runner
	noCode, isolated := "", ""
	if *code {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "lab serve: the sandbox needs this program's path: %v (or --code=false)\n", err)
			return exitError
		}
		runner = sandbox.NewRunner([]string{exe, "sandbox-child"}, sandbox.Limits{Memory: *codeMemory << 20,
			Timeout: *codeTimeout, MaxChildren: *codeChildren})
		// The self-test: a child isolated as visitors' files will be tries
		// to read a file made here, and must fail. Where it cannot be
		// isolated, no visitor's code runs at all.
		if mode, err := runner.Isolation(); err != nil {
			fmt.Fprintf(stderr, "lab serve: %v\nlab serve: the editor, the coding exercises and \"Find a failure\" on files are off: a visitor's code never runs unisolated\n", err)
			noCode, runner = err.Error(), nil
		} else {
			isolated = mode
		}
	}
	h, err := web.NewServer(web.Config{Dev: *dev, Logger: logger, Practice: store, Bank: bank, Now: time.Now,
		Rooms: rooms, Stop: streamsEnd, Sandbox: runner, NoCode: noCode, Engine: engine,
		Brokers: realBrokers.Available(), OpenBroker: realBrokers.Open,
		Budget: *budget, MaxReplays: *maxReplays, ReplayWait: *replayWait, CacheBytes: cacheBytes, CheckBudget: *checkBudget, NoBench: !*bench,
		MaxLedgers: *maxLedgers, LedgerIdle: *ledgerIdle})
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return exitError
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return exitUsage
	}
	var open inFlight
	srv := &http.Server{
		Handler:           open.count(h),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    256 << 10, // a permalink travels in the URL
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(func() { close(streamsEnd) })
	fmt.Fprintf(stdout, "The idempotency lab is open at http://%s/lab (Ctrl-C to stop)\n", displayAddr(ln.Addr()))
	if *pgURL != "" {
		fmt.Fprintln(stdout, "Practice progress is kept in PostgreSQL, schema lab_progress")
	} else {
		fmt.Fprintf(stdout, "Practice progress is kept in %s\n", *data)
	}
	if isolated != "" {
		fmt.Fprintf(stdout, "Handler files run in isolated child processes (%s; see the README's sandbox section)\n", isolated)
	}
	if engine != nil {
		fmt.Fprintln(stdout, "Lab pages offer the real engine: PostgreSQL + Redis")
	}
	if *redisURL != "" {
		fmt.Fprintf(stdout, "Live classrooms are kept in Redis at %s, shared with every lab server using it\n", redactURL(*redisURL))
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return exitError
	case <-ctx.Done():
	}
	// Shutdown closes the listener, ends the room event streams (each
	// says "stopped" first) and waits for the other requests until the
	// grace period runs out; then what is still open is cut.
	start := time.Now()
	logger.Info("shutdown started", "grace", *grace,
		"requests", open.requests.Load(), "streams", open.streams.Load())
	shutdown, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	var cutRequests, cutStreams int64
	if err := srv.Shutdown(shutdown); errors.Is(err, context.DeadlineExceeded) {
		cutRequests, cutStreams = open.requests.Load(), open.streams.Load()
		srv.Close()
	} else if err != nil {
		fmt.Fprintf(stderr, "lab serve: shutdown: %v\n", err)
		return exitError
	}
	finished := slog.LevelInfo
	if cutRequests+cutStreams > 0 {
		finished = slog.LevelWarn // requests were cut: a reader may have lost an answer
	}
	logger.Log(context.Background(), finished, "shutdown finished", "took", time.Since(start).Round(time.Millisecond),
		"cut_requests", cutRequests, "cut_streams", cutStreams)
	return exitOK
}

// redisClient is a client for the rooms' Redis server. A wrong address
// fails in seconds, not minutes. With the real engine (engine), which
// takes databases 1 to 15 and empties them, the rooms must be in 0.
func redisClient(rawURL string, engine bool) (*redis.Client, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the URL, password and all
		}
		return nil, fmt.Errorf("--redis %s is not a Redis URL (redis://[:password@]host:port/db): %v", redactURL(rawURL), err)
	}
	if engine && opt.DB != 0 {
		return nil, fmt.Errorf("--redis %s: with --postgres the real engine uses databases 1 to 15 and empties them; keep the rooms in database 0 (…/0)", redactURL(rawURL))
	}
	opt.DialTimeout = 2 * time.Second
	return redis.NewClient(opt), nil
}

// redactURL is a URL as it may be shown: without its password.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unreadable URL)"
	}
	return u.Redacted()
}

// maxCacheMB bounds --cache-size: 64 GiB is more than any class needs.
const maxCacheMB = 64 << 10

// inFlight counts the requests being served, room event streams (paths
// ending in /events) apart from the rest, so that shutdown can say what
// it waited for and what it cut. A middleware rather than
// http.Server.ConnState: a connection is not a request (keep-alive
// connections sit idle between them), and only the request says whether
// it is a stream.
type inFlight struct {
	requests, streams atomic.Int64
}

func (f *inFlight) count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := &f.requests
		if strings.HasSuffix(r.URL.Path, "/events") {
			n = &f.streams
		}
		n.Add(1)
		defer n.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// sweepRooms closes rooms idle for longer than their idle time, every
// interval, so that students following one learn it has closed. The
// function it returns stops the sweeper and waits for it.
func sweepRooms(hub *room.Hub, every time.Duration) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				hub.Sweep()
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// displayAddr is the listening address as a reader can open it: a server
// listening on every interface is reached through localhost.
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}
