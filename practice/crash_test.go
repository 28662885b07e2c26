package practice

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// crashEnv names the database a child process writes to until it is
// killed; see TestKillDuringWrites.
const crashEnv = "PRACTICE_CRASH_DB"

// TestKillDuringWrites runs this test binary again as a child that records
// answers as fast as it can and prints the id of each one after Record has
// returned (so after its commit). Once the child has reported enough
// answers, the parent kills it with SIGKILL, in the middle of whatever
// write it is doing, then opens the file itself and checks that SQLite's
// integrity check passes and that every answer the child reported is there.
// The parent waits on the child's output, never on a timer.
func TestKillDuringWrites(t *testing.T) {
	if path := os.Getenv(crashEnv); path != "" {
		writeUntilKilled(t, path)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "progress.db")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKillDuringWrites$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	const enough = 300
	var committed []string
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if id, ok := strings.CutPrefix(lines.Text(), "committed "); ok {
			committed = append(committed, id)
		}
		if len(committed) == enough {
			if err := cmd.Process.Kill(); err != nil { // SIGKILL on Unix
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	if len(committed) < enough {
		t.Fatalf("the child reported %d answers and stopped (%v)", len(committed), err)
	}
	if err == nil {
		t.Fatal("the child exited normally; it should have been killed")
	}

	s := mustOpen(t, path, mustLoad(t))
	var check string
	if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	stored := map[string]bool{}
	var profile string
	if err := s.db.QueryRow("SELECT id FROM profiles").Scan(&profile); err != nil {
		t.Fatal(err)
	}
	for _, a := range mustAttempts(t, s, profile) {
		stored[a.ID] = true
	}
	for _, id := range committed {
		if !stored[id] {
			t.Fatalf("answer %s was committed before the kill and is missing", id)
		}
	}
	// At most the one write in flight at the kill is beyond what was
	// reported (its commit may have landed before its line was printed).
	if extra := len(stored) - len(committed); extra < 0 || extra > 1 {
		t.Errorf("%d stored, %d reported", len(stored), len(committed))
	}
	t.Logf("killed after %d reported answers; %d stored; integrity ok", len(committed), len(stored))
}

// writeUntilKilled is the child: it records answers in a loop and reports
// each commit on stdout. It only ends when the parent kills it.
func writeUntilKilled(t *testing.T, path string) {
	b := mustLoad(t)
	s, err := Open(path, b)
	if err != nil {
		t.Fatal(err)
	}
	profile := NewProfileID()
	qs := b.Questions()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; ; i++ {
		a, err := s.Record(context.Background(), profile, qs[i%len(qs)].ID, float64(i%5)/4, at.Add(time.Duration(i)*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(os.Stdout, "committed %s\n", a.ID)
	}
}
