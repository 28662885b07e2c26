package sandbox

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// builtins are the lab's own message handlers and API handlers, each
// written out as a handler file (testdata/builtin/NAME.go).
// TestFaithfulCopiesOfTheBuiltins interprets every message handler's and
// runs every preset on it and on the compiled handler it copies, and
// TestFaithfulCopiesOfTheAPIBuiltins every API handler's on every API
// preset: the same verdict, balances and trace, event for event. So the
// copy is the handler, in the shape the editor takes. (A handler file
// has a Handle and no completer: api-idempotency-key's file is its
// Handle, without handlers.APIIdempotencyKeyComplete.)
//
//go:embed testdata/builtin/*.go
var builtins embed.FS

// Builtin returns the built-in handler name (handlers.Info.Name or
// handlers.APIInfo.Name) as a handler file, the whole file the editor
// opens: a lesson's "Open in the editor" puts it in the lab's editor. Its
// first line names the file and the function it copies (see
// BuiltinOrigin). An unknown name is an error that lists the names there
// are.
func Builtin(name string) (string, error) {
	var data []byte
	err := fs.ErrNotExist
	if name != "" && !strings.ContainsAny(name, "/.") {
		data, err = fs.ReadFile(builtins, path.Join("testdata", "builtin", name+".go"))
	}
	if err != nil {
		return "", fmt.Errorf("no handler file for the built-in handler %q; there are files for: %s", name, strings.Join(BuiltinNames(), ", "))
	}
	return string(data), nil
}

// BuiltinNames lists the built-in handlers Builtin has a file for, in
// alphabetical order.
func BuiltinNames() []string {
	entries, _ := fs.ReadDir(builtins, "testdata/builtin") // embedded: cannot fail
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".go"); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// BuiltinOrigin reads the first line of a Builtin file, "// A copy of the
// built-in handler NAME (handlers/FILE, FUNC) as a handler file.", and
// returns FILE and FUNC: where in handlers/ the copied code lives. ok is
// false for a file without that line.
func BuiltinOrigin(src string) (file, fn string, ok bool) {
	first, _, _ := strings.Cut(src, "\n")
	_, rest, found := strings.Cut(first, "(handlers/")
	if !found {
		return "", "", false
	}
	inner, _, found := strings.Cut(rest, ")")
	if !found {
		return "", "", false
	}
	file, fn, found = strings.Cut(inner, ", ")
	if !found || file == "" || fn == "" {
		return "", "", false
	}
	return file, fn, true
}
