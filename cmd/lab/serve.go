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
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lab serve: unexpected argument %q\n", fs.Arg(0))
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
	h, err := web.NewServer(web.Config{Dev: *dev, Logger: logger, Practice: store, Bank: bank, Now: time.Now})
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
