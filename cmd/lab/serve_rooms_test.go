package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/idempotency-lab/lab/web/classroom/room"
)

// TestServeRoomFlags: the limits of instructor mode's rooms are flags;
// values that would make rooms useless are usage errors.
func TestServeRoomFlags(t *testing.T) {
	data := filepath.Join(t.TempDir(), "progress.db")
	for _, args := range [][]string{
		{"--max-rooms", "0"}, {"--max-students", "-1"}, {"--room-idle", "0s"}, {"--room-idle", "soon"},
	} {
		code, _, errOut := lab(t, "", append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data}, args...)...)
		if code != exitUsage {
			t.Errorf("serve %v: exit %d, want %d (stderr %q)", args, code, exitUsage, errOut)
		}
	}
	_, _, help := lab(t, "", "serve", "--help")
	for _, flag := range []string{"-max-rooms", "-max-students", "-room-idle"} {
		if !strings.Contains(help, flag) {
			t.Errorf("serve --help does not describe %s", flag)
		}
	}
	// Good values: serve starts, and shuts down (sweeper included) at once
	// on a cancelled context.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--quiet", "--data", data,
		"--max-rooms", "3", "--max-students", "40", "--room-idle", "30m"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", code, errOut.String())
	}
}

// TestSweepRooms: the sweeper closes an idle room and stops when told.
func TestSweepRooms(t *testing.T) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	var clock = func() time.Time { return now }
	hub := room.NewHub(room.Config{IdleTTL: time.Minute, Now: clock})
	code, _, err := hub.Create("deliver\n", 0, []string{"naive"})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := hub.Subscribe(code)
	if err != nil {
		t.Fatal(err)
	}
	<-sub.C
	now = now.Add(2 * time.Minute) // before the sweeper starts: no race on now
	stop := sweepRooms(hub, time.Millisecond)
	defer stop()
	// The sweep closes the student's channel; wait for that, not for time.
	if _, ok := <-sub.C; ok {
		t.Fatal("a state arrived; want the channel closed by the sweep")
	}
	if n := hub.Rooms(); n != 0 {
		t.Fatalf("%d rooms open after the sweep, want 0", n)
	}
}

// TestServeRedisFlag: --redis keeps the rooms in Redis; a bad URL or a
// server that does not answer is a usage error said in seconds, with no
// password in it.
func TestServeRedisFlag(t *testing.T) {
	data := filepath.Join(t.TempDir(), "progress.db")
	for _, c := range []struct {
		url, want string
	}{
		{"http://:hunter2@127.0.0.1:6379/0", "is not a Redis URL"},
		{"redis://:hunter2@127.0.0.1:6379/notanumber", "is not a Redis URL"},
		{"redis://:hunter2@127.0.0.1:1/0", "--redis redis://:xxxxx@127.0.0.1:1/0: rooms in Redis:"},
	} {
		t0 := time.Now()
		code, _, errOut := lab(t, "", "serve", "--addr", "127.0.0.1:0", "--data", data, "--redis", c.url)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("--redis %s: exit %d, stderr %q; want %d and %q", c.url, code, errOut, exitUsage, c.want)
		}
		if strings.Contains(errOut, "hunter2") {
			t.Errorf("--redis %s: the password is in the message %q", c.url, errOut)
		}
		if d := time.Since(t0); d > 20*time.Second {
			t.Errorf("--redis %s: took %s to give up", c.url, d)
		}
	}
	if code, _, errOut := lab(t, "", "serve", "--addr", "127.0.0.1:0", "--postgres", "postgres://x@127.0.0.1:1/x", "--redis", "redis://127.0.0.1:1/3"); code != exitUsage || !strings.Contains(errOut, "database 0") {
		t.Errorf("--redis on database 3 with the real engine: exit %d, %q", code, errOut)
	}

	mr := miniredis.RunT(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // serve starts, then shuts down at once
	var out, errOut bytes.Buffer
	url := "redis://" + mr.Addr() + "/0"
	if code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--quiet", "--data", data, "--redis", url}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "Live classrooms are kept in Redis at "+url) {
		t.Errorf("no word of the rooms in Redis:\n%s", out.String())
	}
}
