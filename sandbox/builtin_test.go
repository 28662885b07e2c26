package sandbox_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sandbox"
)

// Builtin serves the very files TestFaithfulCopiesOfTheBuiltins and
// TestFaithfulCopiesOfTheAPIBuiltins prove faithful, one for every
// built-in message handler and every API handler, each naming on its
// first line the file and function it copies; anything else is an error
// that lists the names there are.
func TestBuiltin(t *testing.T) {
	type builtin struct{ Name, File, Func string }
	var all []builtin
	for _, h := range handlers.List() {
		all = append(all, builtin{h.Name, h.File, h.Func})
	}
	for _, h := range handlers.APIList() {
		all = append(all, builtin{h.Name, h.File, h.Func})
	}
	var names []string
	for _, h := range all {
		names = append(names, h.Name)
		src, err := sandbox.Builtin(h.Name)
		if err != nil {
			t.Errorf("%s: %v", h.Name, err)
			continue
		}
		disk, err := os.ReadFile(filepath.Join("testdata", "builtin", h.Name+".go"))
		if err != nil || string(disk) != src {
			t.Errorf("%s: Builtin is not testdata/builtin/%s.go (%v)", h.Name, h.Name, err)
		}
		if file, fn, ok := sandbox.BuiltinOrigin(src); !ok || file != h.File || fn != h.Func {
			t.Errorf("%s: the file's first line names %s %s (ok %v), the handler is %s %s", h.Name, file, fn, ok, h.File, h.Func)
		}
		if _, err := sandbox.Parse(src); err != nil {
			t.Errorf("%s: %v", h.Name, err)
		}
	}
	slices.Sort(names)
	if got := sandbox.BuiltinNames(); !slices.Equal(got, names) {
		t.Errorf("BuiltinNames() = %v, want the built-in handlers %v", got, names)
	}
	for _, bad := range []string{"", "api-complete", "../builtin/unique", "unique.go", "no-such"} {
		if _, err := sandbox.Builtin(bad); err == nil || !strings.Contains(err.Error(), "there are files for: absolute-update, api-idempotency-key, api-key-no-fingerprint,") {
			t.Errorf("Builtin(%q): %v", bad, err)
		}
	}
	for _, line := range []string{"", "package handler", "// A copy of (handlers/x.go) as a file.", "// (handlers/x.go, ) x"} {
		if _, _, ok := sandbox.BuiltinOrigin(line + "\n"); ok {
			t.Errorf("BuiltinOrigin(%q) ok", line)
		}
	}
}
