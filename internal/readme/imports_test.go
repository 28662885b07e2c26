package readme

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoAliasedImports: one name per thing, so no import of the module's
// own packages needs an alias (the README's map says so). A package whose
// name would clash with another's is named for what it is instead
// (web/checkpage beside check). Blank imports are allowed; testdata holds
// handler files whose package name is not their folder's, and is skipped.
func TestNoAliasedImports(t *testing.T) {
	const module = "github.com/idempotency-lab/lab/"
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules", "examples":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_templ.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if imp.Name == nil || imp.Name.Name == "_" || !strings.HasPrefix(p, module) || strings.Contains(p, "/testdata/") {
				continue
			}
			t.Errorf("%s imports %s as %s: rename the package so it needs no alias", fset.Position(imp.Pos()), p, imp.Name.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
