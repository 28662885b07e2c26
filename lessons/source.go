package lessons

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"github.com/idempotency-lab/lab/handlers"
)

// snippet is a declaration quoted from a handlers/ file.
type snippet struct {
	file, decl string
	code       string   // the declaration with its doc comment, verbatim
	first      int      // its first line in the file
	marks      [][2]int // lines (in the file) where the handler calls Deps.Point
}

// quote finds the declaration named decl in the handlers/ file and returns
// it with its doc comment. decl is a function, a type, a constant or a
// variable, or Type.Method for a method. A constant or variable declared
// in a parenthesised group is quoted with its whole group.
func (b *builder) quote(file, decl string) (snippet, error) {
	src, err := b.source(file)
	if err != nil {
		return snippet{}, fmt.Errorf("no file %q in handlers/", file)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return snippet{}, fmt.Errorf("handlers/%s: %v", file, err)
	}
	var names []string
	for _, d := range f.Decls {
		var doc *ast.CommentGroup
		var declared []string
		switch d := d.(type) {
		case *ast.FuncDecl:
			doc = d.Doc
			declared = []string{funcName(d)}
		case *ast.GenDecl:
			doc = d.Doc
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					declared = append(declared, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						declared = append(declared, n.Name)
					}
				}
			}
		}
		names = append(names, declared...)
		for _, n := range declared {
			if n != decl {
				continue
			}
			start := d.Pos()
			if doc != nil {
				start = doc.Pos()
			}
			from, to := fset.Position(start), fset.Position(d.End())
			s := snippet{file: file, decl: decl, code: src[from.Offset:to.Offset], first: from.Line}
			for _, lines := range handlers.Marks(src) {
				for _, l := range lines {
					if l >= from.Line && l <= to.Line {
						s.marks = append(s.marks, [2]int{l, l})
					}
				}
			}
			return s, nil
		}
	}
	return snippet{}, fmt.Errorf("no declaration %q in handlers/%s; it declares: %s", decl, file, strings.Join(names, ", "))
}

// funcName is Name for a function and Type.Name for a method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + d.Name.Name
		}
		return d.Name.Name
	}
}
