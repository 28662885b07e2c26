package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idempotency-lab/lab/internal/servers"
)

// receivedMessages is a duplicate detector in the shape of other
// people's code: it inserts each message into a received-messages table
// in the transaction that credits, and takes the INSERT's error for a
// repeat. It passes on SQLite and loops to the dead-letter queue on
// PostgreSQL (labtest/testdata/received-messages.go says why).
const receivedMessages = "../../labtest/testdata/received-messages.go"

// checkJSON is the part of lab check --json the tests read.
type checkJSON struct {
	Handler  string
	Engine   string
	Failed   bool
	Failures []struct{ Verdict, Script, Permalink string }
}

func decodeCheck(t *testing.T, out string) []checkJSON {
	t.Helper()
	var reps []checkJSON
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return reps
}

// redisKeyCounts counts the keys of each of a Redis server's 16
// databases with SCAN (DBSIZE counts keys whose lifetime ran out).
func redisKeyCounts(t *testing.T, url string) [16]int {
	t.Helper()
	var out [16]int
	for db := range out {
		opt, err := redis.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		opt.DB = db
		c := redis.NewClient(opt)
		var cursor uint64
		for {
			keys, next, err := c.Scan(context.Background(), cursor, "*", 1000).Result()
			if err != nil {
				c.Close()
				t.Fatal(err)
			}
			out[db] += len(keys)
			if cursor = next; cursor == 0 {
				break
			}
		}
		c.Close()
	}
	return out
}

// TestCheckCodeOnRealEngine: the detector passes lab check on SQLite and
// fails with --engine real, where the repeat's transaction is aborted by
// the duplicate key: a poison message (the PostgreSQL-specific verdict).
// The search leaves every Redis database as it found it.
func TestCheckCodeOnRealEngine(t *testing.T) {
	pg, rd := servers.Postgres(t), servers.Redis(t)
	args := []string{"check", "--code", receivedMessages, "--name", "received-messages", "--depth", "2", "--runs", "0", "--json"}
	code, out, errOut := lab(t, "", args...)
	if code != exitOK {
		t.Fatalf("embedded: exit %d, want 0 (a pass)\nstderr: %s\n%s", code, errOut, out)
	}
	if reps := decodeCheck(t, out); len(reps) != 1 || reps[0].Failed || reps[0].Engine != "embedded" {
		t.Fatalf("embedded: %+v", reps)
	}
	before := redisKeyCounts(t, rd)
	code, out, errOut = lab(t, "", append(args, "--engine", "real", "--postgres", pg, "--redis", rd)...)
	if code != exitError {
		t.Fatalf("real: exit %d, want 1 (a failure)\nstderr: %s\n%s", code, errOut, out)
	}
	reps := decodeCheck(t, out)
	if len(reps) != 1 || !reps[0].Failed || reps[0].Engine != "real" {
		t.Fatalf("real: %+v", reps)
	}
	var verdicts []string
	for _, f := range reps[0].Failures {
		verdicts = append(verdicts, f.Verdict)
		// A file's story opens on the file, which a server runs on the
		// embedded engine only: the address does not ask for the real one.
		if strings.Contains(f.Permalink, "engine=real") {
			t.Errorf("a --code story's address asks for the real engine: %s", f.Permalink)
		}
	}
	if !strings.Contains(strings.Join(verdicts, " "), "poison") {
		t.Errorf("real: verdicts %v, want poison among them", verdicts)
	}
	if after := redisKeyCounts(t, rd); after != before {
		t.Errorf("Redis keys by database: before %v, after %v", before, after)
	}
}

// TestCheckOnRealEngine: the lab's own handler with the same mistake
// (unique-same-tx) passes on SQLite at depth 2 with no poison, and gets
// poison on PostgreSQL; its stories' addresses open on the real engine.
// The table says which engine searched.
func TestCheckOnRealEngine(t *testing.T) {
	pg, rd := servers.Postgres(t), servers.Redis(t)
	args := []string{"check", "unique-same-tx", "--depth", "2", "--runs", "0"}
	_, out, _ := lab(t, "", append(args, "--json")...)
	for _, f := range decodeCheck(t, out)[0].Failures {
		if f.Verdict == "poison" {
			t.Fatalf("embedded: poison, which only PostgreSQL gives:\n%s", out)
		}
	}
	code, out, errOut := lab(t, "", append(args, "--json", "--engine", "real", "--postgres", pg, "--redis", rd)...)
	if code != exitError {
		t.Fatalf("real: exit %d\nstderr: %s", code, errOut)
	}
	found := false
	for _, f := range decodeCheck(t, out)[0].Failures {
		if f.Verdict == "poison" {
			found = true
			if !strings.Contains(f.Permalink, "engine=real") {
				t.Errorf("the story's address does not open on the real engine: %s", f.Permalink)
			}
		}
	}
	if !found {
		t.Errorf("real: no poison:\n%s", out)
	}
	_, out, _ = lab(t, "", append(args, "--engine", "real", "--postgres", pg, "--redis", rd)...)
	if !strings.HasPrefix(out, "engine: real (PostgreSQL + Redis)\n") {
		t.Errorf("the table does not say the engine:\n%s", out)
	}
}

// TestCheckBadEngine: a wrong engine or missing URLs are bad input,
// before any search.
func TestCheckBadEngine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "mars"}, `lab check: --engine "mars": valid engines: embedded, real`},
		{[]string{"--engine", "real", "--postgres", "", "--redis", ""}, "lab check: --engine real needs --postgres URL and --redis URL"},
	} {
		code, out, errOut := lab(t, "", append([]string{"check", "naive", "--depth", "1", "--runs", "0"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestConformCode: lab conform --code runs every preset of the broker
// side on the file on both engines, prints the presets where they differ
// (the detector's repeats: ok on SQLite, poison on PostgreSQL) and exits
// 1, as none of a file's differences is documented.
func TestConformCode(t *testing.T) {
	pg, rd := servers.Postgres(t), servers.Redis(t)
	before := redisKeyCounts(t, rd)
	code, out, errOut := lab(t, "", "conform", "--code", receivedMessages, "--name", "received-messages",
		"--engine", "real", "--postgres", pg, "--redis", rd, "--json")
	if code != exitError || !strings.Contains(errOut, "lab conform: "+receivedMessages+": the engines differ on ") {
		t.Fatalf("exit %d, want 1\nstderr: %s\n%s", code, errOut, out)
	}
	var diffs []struct {
		Preset, Handler string
		Embedded, Real  string
		Documented      bool
	}
	if err := json.Unmarshal([]byte(out), &diffs); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	poison := 0
	for _, d := range diffs {
		if d.Handler != "received-messages" || d.Documented || strings.HasPrefix(d.Preset, "api-") {
			t.Errorf("%+v", d)
		}
		if d.Embedded == "ok" && d.Real == "poison" {
			poison++
		}
	}
	if poison == 0 {
		t.Errorf("no preset ok on SQLite and poison on PostgreSQL: %+v", diffs)
	}
	if after := redisKeyCounts(t, rd); after != before {
		t.Errorf("Redis keys by database: before %v, after %v", before, after)
	}
	// The table: the summary line, then a row per preset that differs.
	_, out, _ = lab(t, "", "conform", "--code", receivedMessages, "--name", "received-messages",
		"--engine", "real", "--postgres", pg, "--redis", rd)
	if !strings.Contains(out, "presets of the broker side on received-messages on SQLite + miniredis and on PostgreSQL + Redis: ") ||
		!strings.Contains(out, "received-messages  ok ") {
		t.Errorf("table:\n%s", out)
	}
}
