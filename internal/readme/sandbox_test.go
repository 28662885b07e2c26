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

// TestWebRunsCodeOnlyThroughTheRunner: the server and its parts run or
// load a person's file only through a *sandbox.Runner, a child process
// per file (the README's map says so). Of package sandbox's functions
// they call only Parse, which checks a file and runs nothing; its types,
// constants and errors they may name. A call of sandbox.Load, say, would
// interpret the file in the server's own process.
func TestWebRunsCodeOnlyThroughTheRunner(t *testing.T) {
	const sandboxPath = "github.com/idempotency-lab/lab/sandbox"
	allowed := map[string]bool{"Parse": true}
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join(root, "web"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "webtest" {
			// The tests' harness: it starts the sandbox child and makes
			// the Runner it hands the server, as cmd/lab does.
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		imported := false
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == sandboxPath {
				imported = true
			}
		}
		if !imported {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "sandbox" && !allowed[sel.Sel.Name] {
				t.Errorf("%s calls sandbox.%s: run a person's file through the *sandbox.Runner (add a Runner method), or add the function here if it runs nothing", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
