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
	"time"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/room"
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
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lab serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *maxRooms < 1 || *maxStudents < 1 || *roomIdle <= 0 {
		fmt.Fprintf(stderr, "lab serve: --max-rooms (%d) and --max-students (%d) must be at least 1, and --room-idle (%v) longer than 0\n",
			*maxRooms, *maxStudents, *roomIdle)
		return exitUsage
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
	bank, err := practice.Load()
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return exitError
	}
	store, err := practice.Open(*data, bank)
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: --data %s: cannot open the progress database: %v\n", *data, err)
		return exitUsage
	}
	defer store.Close()
	rooms := room.NewHub(room.Config{MaxRooms: *maxRooms, MaxStudents: *maxStudents, IdleTTL: *roomIdle})
	defer sweepRooms(rooms, min(*roomIdle, time.Minute))()
	streamsEnd := make(chan struct{}) // closed by Shutdown: room event streams end
	h, err := web.NewServer(web.Config{Dev: *dev, Logger: logger, Practice: store, Bank: bank, Now: time.Now,
		Rooms: rooms, Stop: streamsEnd})
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return exitError
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return exitUsage
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    256 << 10, // a permalink travels in the URL
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(func() { close(streamsEnd) })
	fmt.Fprintf(stdout, "The idempotency lab is open at http://%s/lab (Ctrl-C to stop)\n", displayAddr(ln.Addr()))
	fmt.Fprintf(stdout, "Practice progress is kept in %s\n", *data)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "lab serve: %v\n", err)
		return exitError
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "lab serve: shutdown: %v\n", err)
		return exitError
	}
	return exitOK
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
