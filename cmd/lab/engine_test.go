package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/internal/servers"
)

// TestRunOnRealEngines: the same preset on SQLite and on PostgreSQL +
// Redis gives the same verdicts.
func TestRunOnRealEngines(t *testing.T) {
	pg, rd := servers.Postgres(t), servers.Redis(t)
	embedded := verdicts(decodeRun(t, labOK(t, "", "run", "crash-before-ack", "--handlers", "all", "--json")))
	real := verdicts(decodeRun(t, labOK(t, "", "run", "crash-before-ack", "--handlers", "all", "--json",
		"--engine", "real", "--postgres", pg, "--redis", rd)))
	for h, v := range embedded {
		want := v
		if h == "unique-same-tx" {
			// The documented difference: the redelivery hits the key, and
			// the statement after the error fails on PostgreSQL (25P02), so
			// the repeat is nacked until the dead-letter queue.
			want = "poison"
		}
		if real[h] != want {
			t.Errorf("%s: embedded %s, real %s, want %s", h, v, real[h], want)
		}
	}
}

// TestConform: every difference between the engines is a documented one.
func TestConform(t *testing.T) {
	pg, rd := servers.Postgres(t), servers.Redis(t)
	code, out, stderr := lab(t, "", "conform", "--engine", "real", "--postgres", pg, "--redis", rd, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	var diffs []struct {
		Preset, Handler string
		Documented      bool
	}
	if err := json.Unmarshal([]byte(out), &diffs); err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		if !d.Documented {
			t.Errorf("%s on %s differs and is not documented", d.Handler, d.Preset)
		}
	}
}

// TestBadEngineFlags: a wrong engine, missing URLs or a server that does
// not answer is bad input, said at once (the connection times out).
func TestBadEngineFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "mars"}, `--engine "mars": valid engines: embedded, real`},
		{[]string{"--engine", "real", "--postgres", "", "--redis", ""}, "--engine real needs --postgres URL and --redis URL"},
		{[]string{"--engine", "real", "--postgres", "postgres://nobody@127.0.0.1:1/x?sslmode=disable", "--redis", "redis://127.0.0.1:1/0"}, "--postgres postgres://nobody@127.0.0.1:1/x"},
		{[]string{"--engine", "real", "--postgres", "::not a url", "--redis", "redis://127.0.0.1:1/0"}, "--postgres:"},
	} {
		start := time.Now()
		code, _, stderr := lab(t, "", append([]string{"run", "happy-path"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%v took %v", c.args, d)
		}
	}
	if code, _, stderr := lab(t, "", "conform"); code != exitUsage || !strings.Contains(stderr, "--engine real") {
		t.Errorf("conform without an engine: %d %q", code, stderr)
	}
}

// TestServeOnPostgres: lab serve keeps progress in PostgreSQL with
// --postgres, and offers the real engine with --redis too (the rooms in
// Redis besides).
func TestServeOnPostgres(t *testing.T) {
	pg, rd := servers.Postgres(t), servers.Redis(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // serve starts, then shuts down at once
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--quiet", "--postgres", pg, "--redis", rd}, strings.NewReader(""), &out, &errOut)
	if code != exitOK || !strings.Contains(out.String(), "Practice progress is kept in PostgreSQL") ||
		!strings.Contains(out.String(), "the real engine") {
		t.Errorf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "Live classrooms are kept in Redis at "+rd) {
		t.Errorf("no word of the rooms in Redis:\n%s", out.String())
	}
}

// TestRunCodeOnRealEngines: a person's handler file runs in its sandbox
// child on the real engine too. This one asks PostgreSQL for its version
// first, which SQLite cannot answer: it fails on the embedded engine and
// passes on the real one, so the real one is what ran it.
func TestRunCodeOnRealEngines(t *testing.T) {
	pg, rd := servers.Postgres(t), servers.Redis(t)
	src := strings.Replace(fixed, "	tx, err := d.DB.BeginTx(ctx, nil)",
		"	if _, err := d.DB.ExecContext(ctx, \"SELECT current_setting('server_version_num')\"); err != nil {\n\t\treturn err\n\t}\n	tx, err := d.DB.BeginTx(ctx, nil)", 1)
	path := writeCode(t, src)
	if v := verdicts(decodeRun(t, labOK(t, "", "run", "crash-before-ack", "--code", path, "--json"))); v["yours"] == "ok" {
		t.Errorf("embedded: %v, want a failure (SQLite has no current_setting)", v)
	}
	args := []string{"run", "crash-before-ack", "--code", path, "--json", "--engine", "real", "--postgres", pg, "--redis", rd}
	code, out, errOut := lab(t, "", args...)
	if code != exitOK {
		t.Fatalf("lab %s: exit %d\nstderr: %s", strings.Join(args, " "), code, errOut)
	}
	if v := verdicts(decodeRun(t, out)); v["yours"] != "ok" {
		t.Errorf("real: %v, want ok\n%s", v, out)
	}
	// The child keeps the network to reach the servers: one's own file
	// on one's own machine, unisolated, and said so once.
	if want := "lab: " + path + " runs unisolated, with your own rights (the real engine's servers are reached over the network)\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}
