package link

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestOneOwner: the lab's address is written in this package only. No Go
// or templ file elsewhere in the module (tests and testdata aside) holds
// a "/lab? literal: it builds a Lab and calls String (issue 26, point 1).
func TestOneOwner(t *testing.T) {
	found, walked, err := handBuilt("..")
	if err != nil {
		t.Fatal(err)
	}
	if walked < 100 {
		t.Errorf("walked only %d files: is .. the module's root?", walked)
	}
	for _, f := range found {
		t.Errorf("%s builds the lab's address by hand: build a link.Lab", f)
	}
}

// The walk finds a literal where it must and nowhere else.
func TestHandBuilt(t *testing.T) {
	root := t.TempDir()
	write := func(path, text string) {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("a/a.go", "package a\n\nvar u = \"/lab?preset=p\"\n")
	write("a/a.templ", "<a href={ templ.SafeURL(\"/lab?s=\" + s) }>")
	write("a/a_test.go", "package a\n\nvar u = \"/lab?preset=p\"\n")         // tests aside
	write("a/testdata/g.go", "package g\n\nvar u = \"/lab?preset=p\"\n")     // testdata aside
	write("link/link.go", "package link\n\nvar u = \"/lab?\"\n")             // the owner
	write(".git/x.go", "var u = \"/lab?\"\n")                                // hidden directories aside
	write("b/b.go", "package b\n\n// see /lab?preset=p\nvar u = \"/lab\"\n") // no literal
	found, walked, err := handBuilt(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "a/a.go") + `:3: var u = "/lab?preset=p"`, filepath.Join(root, "a/a.templ") + `:1: <a href={ templ.SafeURL("/lab?s=" + s) }>`}
	if !reflect.DeepEqual(found, want) || walked != 3 {
		t.Errorf("handBuilt = %q over %d files, want %q over 3", found, walked, want)
	}
	if _, _, err := handBuilt(filepath.Join(root, "none")); err == nil {
		t.Error("a root that is not there: no error")
	}
}

// handBuilt walks the module at root and returns, as "path:line: text",
// each line of a Go or templ file (not a test, not under testdata, link
// or a hidden directory) that holds a "/lab? literal, and how many files
// it read.
func handBuilt(root string) (found []string, walked int, err error) {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return nil, 0, fmt.Errorf("no module at %s: %w", root, err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || path == filepath.Join(root, "link")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_test.go") || !strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, ".templ") {
			return nil
		}
		walked++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, `"/lab?`) {
				found = append(found, fmt.Sprintf("%s:%d: %s", path, i+1, strings.TrimSpace(line)))
			}
		}
		return nil
	})
	return found, walked, err
}
