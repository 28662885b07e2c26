package labtest_test

import (
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/idempotency-lab/lab/labtest"
)

// captureStderr runs fn with the process's stderr (file descriptor 2,
// and os.Stderr) going to a pipe, and returns what was written there.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := syscall.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup3(int(w.Fd()), 2, 0); err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		read <- string(b)
	}()
	defer func() {
		os.Stderr = stderr
		syscall.Dup3(saved, 2, 0)
		syscall.Close(saved)
	}()
	fn()
	os.Stderr = stderr
	if err := syscall.Dup3(saved, 2, 0); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return <-read
}

// TestCheckFilePrintsNoPanicLines: a handler that panics deep in its own
// calls makes the interpreter write a line per frame on every panic, a
// thousand over a small search; CheckFile prints the stories, their
// traces and their addresses, and none of those lines reaches the test's
// output or the process's stderr.
func TestCheckFilePrintsNoPanicLines(t *testing.T) {
	rec := &recorder{TB: t}
	written := captureStderr(t, func() {
		labtest.CheckFile(rec, "testdata/panics-deep.go", labtest.Depth(3), labtest.Runs(50))
	})
	if panicLine.MatchString(written) {
		t.Errorf("stderr has the interpreter's panic lines:\n%.600s", written)
	}
	if len(rec.errors) == 0 {
		t.Fatalf("no failure reported (fatal %q)", rec.fatal)
	}
	// A payload over 12000 panics: a changed payload of 15000 is the
	// story of one of the failures, and its trace says the handler
	// panicked, in the engine's words.
	all := strings.Join(rec.errors, "\n")
	if !strings.Contains(all, "amount=15000") || !strings.Contains(all, "panic") {
		t.Errorf("no story of the panicking payload:\n%s", all)
	}
	for _, e := range rec.errors {
		if panicLine.MatchString(e) {
			t.Errorf("a report has the interpreter's panic lines:\n%s", e)
		}
	}
}

// panicLine is the interpreter's line per frame: "21:5: panic: ...".
var panicLine = regexp.MustCompile(`(?m)^(?:[^\n:]*\.go:)?\d+:\d+: panic`)
