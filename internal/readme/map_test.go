package readme

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// root is the module's root, two folders up.
const root = "../.."

// theMap is the README's map of the code: the first fenced block after
// its heading.
func theMap(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	_, after, ok := strings.Cut(s, "\n## The map of the code\n")
	if !ok {
		t.Fatal(`the README has no "## The map of the code" section`)
	}
	_, block, ok := strings.Cut(after, "```\n")
	if !ok {
		t.Fatal("the map has no fenced block")
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatal("the map's block does not end")
	}
	return block
}

// packages are the folders of the module that hold a Go package (a
// non-test .go file), testdata, the coding exercises' files and the
// examples module (a module of its own) aside.
func packages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
			name == "testdata" || name == "node_modules" || name == "artifacts" || name == "examples") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			if rel != "." && (len(out) == 0 || out[len(out)-1] != rel) {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// entry is a folder at the start of one of the map's lines.
var entry = regexp.MustCompile(`(?m)^([a-z][a-z0-9_/]*)/\s`)

// TestMapNamesEveryPackage: every package of the module is in the map,
// as a line of its own or named in one (sandbox/symbols, in sandbox's).
func TestMapNamesEveryPackage(t *testing.T) {
	m := theMap(t)
	for _, p := range packages(t) {
		if !strings.Contains(m, p+"/ ") && !regexp.MustCompile(`(^|[\s(])`+regexp.QuoteMeta(p)+`($|[\s),;])`).MatchString(m) {
			t.Errorf("the README's map does not name the package %s", p)
		}
	}
}

// TestMapFoldersExist: every folder the map's lines start with exists.
func TestMapFoldersExist(t *testing.T) {
	found := entry.FindAllStringSubmatch(theMap(t), -1)
	if len(found) < 10 {
		t.Fatalf("the map has %d lines naming a folder; is it still the map?", len(found))
	}
	for _, f := range found {
		if fi, err := os.Stat(filepath.Join(root, f[1])); err != nil || !fi.IsDir() {
			t.Errorf("the README's map names %s/, which is no folder", f[1])
		}
	}
}
