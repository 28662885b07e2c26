package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeData: --data names the progress file, which serve creates with
// its folder; a file it cannot open is a usage error naming it.
func TestServeData(t *testing.T) {
	dir := t.TempDir()
	t.Run("created", func(t *testing.T) {
		path := filepath.Join(dir, "new", "folder", "progress.db")
		// A cancelled context: serve starts, then shuts down at once.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var out, errOut bytes.Buffer
		code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--quiet", "--data", path}, strings.NewReader(""), &out, &errOut)
		if code != exitOK {
			t.Fatalf("exit %d\nstderr: %s", code, errOut.String())
		}
		if !strings.Contains(out.String(), "Practice progress is kept in "+path) {
			t.Errorf("stdout does not say where progress is kept:\n%s", out.String())
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("the progress file was not created: %v", err)
		}
	})
	t.Run("cannot open", func(t *testing.T) {
		blocker := filepath.Join(dir, "a-file")
		if err := os.WriteFile(blocker, []byte("not a folder"), 0o644); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(blocker, "progress.db")
		code, out, errOut := lab(t, "", "serve", "--addr", "127.0.0.1:0", "--data", path)
		if code != exitUsage {
			t.Errorf("exit %d, want %d", code, exitUsage)
		}
		if out != "" || !strings.Contains(errOut, "lab serve: --data "+path+": cannot open the progress database") {
			t.Errorf("stdout %q, stderr %q: want a message naming the file", out, errOut)
		}
	})
	t.Run("in the help", func(t *testing.T) {
		_, _, errOut := lab(t, "", "serve", "--help")
		if !strings.Contains(errOut, "-data file") || !strings.Contains(errOut, "practice progress") {
			t.Errorf("serve --help does not describe --data:\n%s", errOut)
		}
	})
}
