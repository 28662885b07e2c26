package readme

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

// TestEveryPackageHasAComment: `go doc` on any package of the module opens
// on a sentence about what the package is for, not on its first constant.
// Each package says so in one of its files, usually doc.go.
func TestEveryPackageHasAComment(t *testing.T) {
	for _, dir := range packages(t) {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		fset := token.NewFileSet()
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || filepath.Ext(name) != ".go" || len(name) > 8 && name[len(name)-8:] == "_test.go" {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(root, dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if f.Doc != nil && len(f.Doc.Text()) > 0 {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("package %s has no package comment: add a doc.go that says what it is for", dir)
		}
	}
}
