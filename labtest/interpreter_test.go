package labtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/labtest"
)

// TestFileRefusesWhatTheInterpreterRunsOtherwise: a handler file with an
// error constant of a named string type (in the interpreter not equal to
// itself) is refused by the kit's loader with the sandbox's message and
// its line, and CheckFile stops there (t.Fatalf), never a verdict.
func TestFileRefusesWhatTheInterpreterRunsOtherwise(t *testing.T) {
	src := `package handler

import (
	"context"
	"errors"

	"github.com/idempotency-lab/lab/handlers"
)

type errCode string

func (e errCode) Error() string { return string(e) }

const ErrBusy errCode = "busy"

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	if errors.Is(ErrBusy, ErrBusy) {
		return nil
	}
	return ErrBusy
}
`
	path := filepath.Join(t.TempDir(), "named-error.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "line 12: type errCode has an Error method"
	if _, err := labtest.File(path); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("File: %v, want %q", err, want)
	}
	rec := &recorder{TB: t}
	labtest.CheckFile(rec, path, labtest.Depth(1), labtest.Runs(-1))
	if !strings.Contains(rec.fatal, want) || len(rec.errors) > 0 {
		t.Errorf("CheckFile: fatal %q, reports %q", rec.fatal, rec.errors)
	}
}
