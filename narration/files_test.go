package narration

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestFileKeysKnown: every key the sandbox's errors (errf), the goal
// line's (goalErr) and their consumers (narration.T) name with a literal
// is registered, so none of them shows as a bare key on a page.
func TestFileKeysKnown(t *testing.T) {
	keys := Keys()
	for _, c := range []struct {
		glob, call string
		arg        int // the key's argument
	}{
		{"../sandbox/*.go", "errf", 1},
		{"../practice/*.go", "goalErr", 0},
		{"../sandbox/*.go", "T", 0},
		{"../practice/*.go", "T", 0},
		{"../web/labview/*.go", "T", 0},
		{"../web/practicepage/*.go", "T", 0},
	} {
		files, err := filepath.Glob(c.glob)
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", c.glob, err)
		}
		found := 0
		fset := token.NewFileSet()
		for _, file := range files {
			f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) <= c.arg {
					return true
				}
				switch fn := call.Fun.(type) {
				case *ast.Ident:
					ok = fn.Name == c.call
				case *ast.SelectorExpr:
					x, isIdent := fn.X.(*ast.Ident)
					ok = isIdent && x.Name == "narration" && fn.Sel.Name == c.call
				default:
					ok = false
				}
				lit, isLit := call.Args[c.arg].(*ast.BasicLit)
				if !ok || !isLit || lit.Kind != token.STRING {
					return true
				}
				found++
				if key, _ := strconv.Unquote(lit.Value); !slices.Contains(keys, key) {
					t.Errorf("%s: key %s is not registered", fset.Position(lit.Pos()), lit.Value)
				}
				return true
			})
		}
		if c.call != "T" && found == 0 {
			t.Errorf("%s: no call of %s found; has it been renamed?", c.glob, c.call)
		}
	}
}
