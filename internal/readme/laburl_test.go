package readme

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLabAddressOnlyInLink: the map says package link owns the lab's
// address (/lab?…), so no other package writes one by hand: a string
// literal that starts with "/lab?" appears in the code of package link
// only. Comments may show the address; tests may spell the address they
// expect. Generated templ files count: they are code. Testdata and the
// examples module are skipped, as in TestNoAliasedImports.
func TestLabAddressOnlyInLink(t *testing.T) {
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
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "link" && filepath.Base(filepath.Dir(path)) == "link" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "/lab?") {
				t.Errorf("%s: %s writes a lab address by hand: build a link.Lab and call String", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
