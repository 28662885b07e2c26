package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/idempotency-lab/lab/sandbox"
)

// codeFlags are the flags of a command that runs a person's handler file
// (--code) in the sandbox.
type codeFlags struct {
	path    *string
	name    *string
	timeout *time.Duration
	memory  *int64
	warned  *bool // the note that the file runs unisolated was printed
}

func addCodeFlags(fs *flag.FlagSet, timeout time.Duration) codeFlags {
	return codeFlags{
		path:    fs.String("code", "", "a handler file of your own (package handler, func Handle), run in the sandbox"),
		name:    fs.String("name", "yours", "the name of the --code handler"),
		timeout: fs.Duration("timeout", timeout, "the --code handler's child process is killed after this long"),
		memory:  fs.Int64("memory", 512, "megabytes of resident memory the --code handler's child process may use"),
		warned:  new(bool),
	}
}

// given reports whether --code was set.
func (c codeFlags) given() bool { return *c.path != "" }

// load reads the file and checks its flags; the error is bad input.
func (c codeFlags) load() (string, error) {
	switch {
	case *c.timeout <= 0:
		return "", fmt.Errorf("--timeout %v: must be more than 0", *c.timeout)
	case *c.memory < 32 || *c.memory > 16<<10:
		return "", fmt.Errorf("--memory %d: must be from 32 to 16384 (megabytes)", *c.memory)
	case *c.name == "" || len(*c.name) > 40:
		return "", fmt.Errorf("--name %q: must be 1 to 40 characters", *c.name)
	}
	f, err := os.Open(*c.path)
	if err != nil {
		return "", fmt.Errorf("--code: %v", err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, sandbox.MaxSourceBytes+1))
	if err != nil {
		return "", fmt.Errorf("--code: %v", err)
	}
	if _, err := sandbox.Parse(string(src)); err != nil {
		return "", fmt.Errorf("%s: %v", *c.path, err)
	}
	return string(src), nil
}

// runner starts sandbox children of this very binary.
func (c codeFlags) runner() (*sandbox.Runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// One's own file on one's own machine: where the system cannot
	// isolate the child, it runs unisolated (do says so). A server never
	// does.
	return sandbox.NewRunner([]string{exe, "sandbox-child"},
		sandbox.Limits{Memory: *c.memory << 20, Timeout: *c.timeout, MaxChildren: 1, Unisolated: true}), nil
}

// do runs req in the sandbox. A failure of the handler (it does not
// compile, ran too long, used too much memory) is bad input; the rest is
// the lab's.
func (c codeFlags) do(ctx context.Context, req sandbox.Request, stderr io.Writer) (*sandbox.Response, int, error) {
	r, err := c.runner()
	if err != nil {
		return nil, exitError, err
	}
	if !*c.warned {
		why := ""
		if _, err := r.Isolation(); err != nil {
			why = err.Error()
		} else if req.Postgres != "" {
			why = "the real engine's servers are reached over the network"
		}
		if why != "" {
			fmt.Fprintf(stderr, "lab: %s runs unisolated, with your own rights (%s)\n", *c.path, why)
			*c.warned = true
		}
	}
	req.Name = *c.name
	resp, err := r.Run(ctx, req)
	var se *sandbox.Error
	switch {
	case errors.As(err, &se):
		return nil, exitUsage, fmt.Errorf("%s: %v", *c.path, se)
	case err != nil:
		return nil, exitError, err
	case resp.Error != nil:
		return nil, exitUsage, fmt.Errorf("%s: %v", *c.path, resp.Error)
	}
	return resp, exitOK, nil
}
