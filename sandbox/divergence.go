package sandbox

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The interpreter (yaegi) runs some Go otherwise than Go does. The corpus
// of idioms handlers use (testdata/idioms, TestInterpreterIsGo) runs each
// compiled and interpreted; where they differ, the sandbox either makes
// the interpreter behave as Go (goSemantics rewrites the source it is
// given) or Parse refuses the construct (divergent), naming it and what
// to write instead. TestRefusedIdiomsStillDiverge keeps each refusal
// honest: it fails once the interpreter runs the construct as Go.

// implicitMethods are methods the standard library calls on a value it
// is given (fmt, errors, encoding/json), with the packages that call
// them. The interpreter's types have no methods the compiled library can
// see (apart from Error, through a wrapper that breaks errors.As, type
// switches and equality), so a file may not declare them.
var implicitMethods = map[string]string{
	"String": "fmt", "GoString": "fmt", "Format": "fmt",
	"MarshalJSON": "encoding/json", "UnmarshalJSON": "encoding/json",
	"MarshalText": "encoding/json", "UnmarshalText": "encoding/json",
}

// divergent refuses the constructs the interpreter runs otherwise than
// Go, on their line: a file's own error type, a method the library would
// call implicitly, a method expression or a value receiver's method
// value, a defer in a loop or with arguments that are not constants, a
// range over an integer, a loop variable the body both changes and
// captures, a type assertion or errors.As to an interface the file
// declares, and a use of recover()'s value beyond a nil test and
// printing (recovered).
func divergent(fset *token.FileSet, f *ast.File) error {
	line := func(n ast.Node) int { return fset.Position(n.Pos()).Line }
	types, consts, imports := map[string]bool{}, map[string]bool{}, map[string]bool{}
	methods := map[string]bool{} // "T.M"
	ifaces := map[string]bool{}  // the interfaces the file declares
	// isIface: an interface literal or one the file declares.
	isIface := func(e ast.Expr) bool {
		switch e := ast.Unparen(e).(type) {
		case *ast.InterfaceType:
			return len(e.Methods.List) > 0
		case *ast.Ident:
			return ifaces[e.Name]
		}
		return false
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := packageVars()[path].name
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = true
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range g.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				types[s.Name.Name] = true
				if _, ok := s.Type.(*ast.InterfaceType); ok {
					ifaces[s.Name.Name] = true
				}
			case *ast.ValueSpec:
				if g.Tok == token.CONST {
					for _, n := range s.Names {
						consts[n.Name] = true
					}
				}
			}
		}
	}
	valueMethods := map[string]bool{} // "T.M" of a value receiver
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) > 0 {
			recv := fn.Recv.List[0].Type
			methods[receiverName(recv)+"."+fn.Name.Name] = true
			if _, ptr := recv.(*ast.StarExpr); !ptr {
				valueMethods[receiverName(recv)+"."+fn.Name.Name] = true
			}
		}
	}
	typed := typedVars(f, types)
	called := map[*ast.SelectorExpr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
				called[sel] = true
			}
		}
		return true
	})
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 {
			continue
		}
		recv := receiverName(fn.Recv.List[0].Type)
		name := fn.Name.Name
		if name == "Error" && fn.Type.Params.NumFields() == 0 && fn.Type.Results.NumFields() == 1 {
			return errf(line(fn),
				"sandbox.error-type",
				recv)
		}
		if pkg, ok := implicitMethods[name]; ok {
			return errf(line(fn),
				"sandbox.method-not-called",
				recv, name, pkg, name)
		}
	}
	ifaceVars := map[string]bool{} // variables declared of such an interface (by name)
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && vs.Type != nil && isIface(vs.Type) {
			for _, name := range vs.Names {
				ifaceVars[name.Name] = true
			}
		}
		return true
	})
	assertion := func(n ast.Node, t ast.Expr) *Error {
		return errf(line(n),
			"sandbox.interface-assertion",
			exprString(t))
	}
	if bad := recovered(fset, f); bad != nil {
		return bad
	}
	var bad *Error
	var walk func(n ast.Node, loops int)
	walk = func(n ast.Node, loops int) {
		ast.Inspect(n, func(c ast.Node) bool {
			if bad != nil {
				return false
			}
			switch c := c.(type) {
			case *ast.FuncLit: // a frame of its own: its defers are not the loop's
				if c != n {
					walk(c.Body, 0)
					return false
				}
			case *ast.ForStmt:
				if init, ok := c.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE {
					for _, name := range named(init.Lhs...) {
						if writes(c.Body, name) && captured(c.Body, name) {
							bad = errf(line(c),
								"sandbox.loop-variable",
								name, name, name)
							return false
						}
					}
				}
				if c != n {
					walk(c, loops+1)
					return false
				}
			case *ast.RangeStmt:
				if integer(c.X, consts) {
					bad = errf(line(c),
						"sandbox.range-int",
						exprString(c.X), exprString(c.X))
					return false
				}
				if c != n {
					walk(c, loops+1)
					return false
				}
			case *ast.SelectorExpr:
				if t, name, ok := typeExpr(c.X, types); ok && methods[name+"."+c.Sel.Name] {
					bad = errf(line(c),
						"sandbox.method-expression",
						t, c.Sel.Name, c.Sel.Name)
				}
				if id, ok := c.X.(*ast.Ident); ok && !called[c] && valueMethods[typed[id.Name]+"."+c.Sel.Name] {
					bad = errf(line(c),
						"sandbox.method-value",
						id.Name, c.Sel.Name, id.Name, id.Name, c.Sel.Name, id.Name)
				}
			case *ast.TypeAssertExpr:
				if c.Type != nil && isIface(c.Type) {
					bad = assertion(c, c.Type)
				}
			case *ast.TypeSwitchStmt:
				for _, clause := range c.Body.List {
					for _, t := range clause.(*ast.CaseClause).List {
						if isIface(t) && bad == nil {
							bad = assertion(t, t)
						}
					}
				}
			case *ast.CallExpr:
				if fun, ok := c.Fun.(*ast.SelectorExpr); ok && fun.Sel.Name == "As" && len(c.Args) == 2 {
					if pkg, ok := fun.X.(*ast.Ident); ok && pkg.Name == "errors" {
						if u, ok := ast.Unparen(c.Args[1]).(*ast.UnaryExpr); ok && u.Op == token.AND {
							if id, ok := ast.Unparen(u.X).(*ast.Ident); ok && ifaceVars[id.Name] {
								bad = errf(line(c),
									"sandbox.errors-as-interface",
									id.Name)
							}
						}
					}
				}
			case *ast.DeferStmt:
				if loops > 0 {
					bad = errf(line(c),
						"sandbox.defer-in-loop",
					)
					return false
				}
				for _, a := range c.Call.Args {
					if !constant(a, consts, imports) {
						bad = errf(line(c),
							"sandbox.defer-argument",
						)
						return false
					}
				}
			}
			return true
		})
	}
	walk(f, 0)
	if bad != nil {
		return bad
	}
	return nil
}

// receiverName is the name of a method's receiver type: T for T or *T.
func receiverName(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr: // a generic type's receiver
		return receiverName(e.X)
	case *ast.IndexListExpr:
		return receiverName(e.X)
	}
	return "?"
}

// typeExpr says whether e names a type the file declares (T, (T), (*T)),
// as a method expression's operand does: how it is written, and the
// type's name.
func typeExpr(e ast.Expr, types map[string]bool) (written, name string, ok bool) {
	star := false
	if paren, isParen := e.(*ast.ParenExpr); isParen {
		e = paren.X
		if s, isStar := e.(*ast.StarExpr); isStar {
			e, star = s.X, true
		}
	}
	id, isIdent := e.(*ast.Ident)
	if !isIdent || !types[id.Name] {
		return "", "", false
	}
	if star {
		return "(*" + id.Name + ")", id.Name, true
	}
	return id.Name, id.Name, true
}

// constant says whether e is a constant: a literal, true, false, nil,
// a constant the file declares, an imported package's name
// (handlers.AfterEffect: Parse keeps a file from changing one), or an
// operation on constants.
func constant(e ast.Expr, consts, imports map[string]bool) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return consts[e.Name] || e.Name == "true" || e.Name == "false" || e.Name == "nil"
	case *ast.SelectorExpr:
		pkg, ok := e.X.(*ast.Ident)
		return ok && imports[pkg.Name]
	case *ast.BinaryExpr:
		return constant(e.X, consts, imports) && constant(e.Y, consts, imports)
	case *ast.UnaryExpr:
		return e.Op != token.AND && constant(e.X, consts, imports)
	}
	return false
}

// goSemantics rewrites a handler file's source so that the interpreter
// runs it as Go does where a rewrite can, keeping every line where it
// was (an error's line is the file's):
//
//   - Go 1.22's loop variables: each iteration of a loop that declares
//     its variables (:=) has its own, as a closure made in it sees; the
//     interpreter has one for the whole loop. The body starts with
//     i := i (k, v := k, v for a range), unless the body of a three-clause
//     loop changes the variable, whose change must carry to the next
//     iteration, and but for a name the body declares itself (the v := v
//     of code written before Go 1.22, which does the same).
//   - a function's parameters without names (func(int64) error) are
//     named _: the interpreter mixes up the results of a call returned
//     from such a function.
//   - encoding/json skips a struct's unexported fields; the interpreter
//     exports them (inner becomes Xinner) and json would write them. Each
//     unexported field without a json key in its tag gets json:"-".
//
// A source that does not parse is returned as it is (the interpreter
// reports its errors).
func goSemantics(src string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "handler.go", src, parser.SkipObjectResolution)
	if err != nil {
		return src
	}
	type edit struct {
		from, to int // byte offsets replaced
		text     string
	}
	var edits []edit
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	fresh := func(body *ast.BlockStmt, names []string) {
		own := declared(body)
		names = slices.DeleteFunc(names, func(n string) bool { return own[n] })
		if len(names) > 0 {
			list := strings.Join(names, ", ")
			at := off(body.Lbrace) + 1
			edits = append(edits, edit{at, at, " " + list + " := " + list + ";"})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				fresh(n.Body, named(n.Key, n.Value))
			}
		case *ast.ForStmt:
			init, ok := n.Init.(*ast.AssignStmt)
			if !ok || init.Tok != token.DEFINE {
				break
			}
			var names []string
			for _, name := range named(init.Lhs...) {
				if !writes(n.Body, name) {
					names = append(names, name)
				}
			}
			fresh(n.Body, names)
		case *ast.FuncType:
			// Parameters without names (func(int64) error) make the
			// interpreter mix up a returned call's results: each gets _.
			for _, p := range n.Params.List {
				if len(p.Names) == 0 {
					at := off(p.Type.Pos())
					edits = append(edits, edit{at, at, "_ "})
				}
			}
		case *ast.StructType:
			for _, field := range n.Fields.List {
				if len(field.Names) == 0 || field.Names[0].IsExported() {
					continue
				}
				if field.Tag == nil {
					at := off(field.Type.End())
					edits = append(edits, edit{at, at, " `json:\"-\"`"})
					continue
				}
				tag, err := strconv.Unquote(field.Tag.Value)
				if _, has := reflect.StructTag(tag).Lookup("json"); err == nil && !has {
					edits = append(edits, edit{off(field.Tag.Pos()), off(field.Tag.End()), strconv.Quote(strings.TrimSpace(tag + ` json:"-"`))})
				}
			}
		}
		return true
	})
	if len(edits) == 0 {
		return src
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.WriteString(src[last:e.from])
		b.WriteString(e.text)
		last = e.to
	}
	b.WriteString(src[last:])
	return b.String()
}

// declared is the names a block declares itself, at its top level (the
// v := v of code written before Go 1.22 among them): a copy of a loop's
// variable of the same name would be declared twice.
func declared(body *ast.BlockStmt) map[string]bool {
	out := map[string]bool{}
	for _, st := range body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, name := range named(st.Lhs...) {
					out[name] = true
				}
			}
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok {
				for _, spec := range g.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							out[n.Name] = true
						}
					case *ast.TypeSpec:
						out[spec.Name.Name] = true
					}
				}
			}
		}
	}
	return out
}

// named is the names among a loop's variables, blanks left out.
func named(es ...ast.Expr) []string {
	var out []string
	for _, e := range es {
		if id, ok := e.(*ast.Ident); ok && id.Name != "_" && !slices.Contains(out, id.Name) {
			out = append(out, id.Name)
		}
	}
	return out
}

// writes says whether a loop's body assigns name or increments it (by
// name: a shadowing local counts too, which only costs the per-iteration
// copy). Taking its address is no write: Parse refuses a write through a
// pointer.
func writes(body *ast.BlockStmt, name string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		var targets []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			targets = n.Lhs
		case *ast.IncDecStmt:
			targets = []ast.Expr{n.X}
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				targets = []ast.Expr{n.Key, n.Value}
			}
		}
		for _, t := range targets {
			if id, ok := ast.Unparen(t).(*ast.Ident); ok && id.Name == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// exprString is how e is written, for a message.
func exprString(e ast.Expr) string {
	var b strings.Builder
	if err := format.Node(&b, token.NewFileSet(), e); err != nil {
		return "?"
	}
	return b.String()
}

// recovered refuses any use of the value recover() returns other than
// comparing it with nil and handing it to a function (fmt.Errorf("%v", r)): in the interpreter it is
// not the value panic was given (neither equal to it nor of its type).
func recovered(fset *token.FileSet, f *ast.File) *Error {
	isRecover := func(e ast.Expr) bool {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		id, ok := call.Fun.(*ast.Ident)
		return ok && id.Name == "recover" && len(call.Args) == 0
	}
	names := map[string]bool{} // variables assigned recover() (by name)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, rhs := range n.Rhs {
				if isRecover(rhs) && i < len(n.Lhs) {
					if id, ok := n.Lhs[i].(*ast.Ident); ok {
						names[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for i, v := range n.Values {
				if isRecover(v) && i < len(n.Names) {
					names[n.Names[i].Name] = true
				}
			}
		}
		return true
	})
	var bad *Error
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if bad != nil {
			return false
		}
		var parent ast.Node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		stack = append(stack, n)
		var use ast.Expr
		switch n := n.(type) {
		case *ast.Ident:
			if names[n.Name] {
				use = n
			}
		case *ast.CallExpr:
			if isRecover(n) {
				use = n
			}
		}
		if use == nil || fineUse(parent, use) {
			return true
		}
		bad = errf(fset.Position(use.Pos()).Line,
			"sandbox.recover-value")
		return false
	})
	return bad
}

// fineUse says whether a use of recover()'s value is one the interpreter
// runs as Go: assigned (r := recover()), compared with nil, or handed to
// a function (fmt's, d.Log) as an argument.
func fineUse(parent ast.Node, use ast.Expr) bool {
	switch p := parent.(type) {
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			if l == use {
				return true
			}
		}
		_, isCall := use.(*ast.CallExpr)
		return isCall // r := recover()
	case *ast.ValueSpec:
		for _, name := range p.Names {
			if name == use {
				return true
			}
		}
		_, isCall := use.(*ast.CallExpr)
		return isCall
	case *ast.BinaryExpr:
		other := p.Y
		if p.Y == use {
			other = p.X
		}
		id, ok := other.(*ast.Ident)
		return (p.Op == token.EQL || p.Op == token.NEQ) && ok && id.Name == "nil"
	case *ast.CallExpr:
		// An argument: to fmt, d.Log, or a function of the file's own
		// (which sees a parameter, not recover's value: not followed).
		return p.Fun != use
	case *ast.ExprStmt: // recover() alone
		return true
	}
	return false
}

// integer says whether e is plainly an integer: a literal, a constant
// the file declares, len or cap of something, or arithmetic on them
// (what a range over an integer is written with; one over an integer
// variable the interpreter's own error catches: evaluate).
func integer(e ast.Expr, consts map[string]bool) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		return e.Kind == token.INT
	case *ast.Ident:
		return consts[e.Name]
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		return ok && (id.Name == "len" || id.Name == "cap" || id.Name == "int" || id.Name == "int64")
	case *ast.BinaryExpr:
		return integer(e.X, consts) || integer(e.Y, consts)
	}
	return false
}

// typedVars maps the names of variables and parameters declared with a
// type the file declares (var a T, a := T{…}, a := &T{…}, func(a T))
// to the type's name: by name, wherever declared, as a method value's
// operand is checked.
func typedVars(f *ast.File, types map[string]bool) map[string]string {
	out := map[string]string{}
	typeOf := func(e ast.Expr) string {
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = u.X
		}
		if lit, ok := e.(*ast.CompositeLit); ok {
			e = lit.Type
		}
		if star, ok := e.(*ast.StarExpr); ok {
			e = star.X
		}
		if id, ok := e.(*ast.Ident); ok && types[id.Name] {
			return id.Name
		}
		return ""
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				t := ""
				if n.Type != nil {
					t = typeOf(n.Type)
				} else if i < len(n.Values) {
					t = typeOf(n.Values[i])
				}
				if t != "" {
					out[name.Name] = t
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						if t := typeOf(n.Rhs[i]); t != "" {
							out[id.Name] = t
						}
					}
				}
			}
		case *ast.Field:
			if t := typeOf(n.Type); t != "" {
				for _, name := range n.Names {
					out[name.Name] = t
				}
			}
		}
		return true
	})
	return out
}

// captured says whether a loop's body captures name: uses it in a
// function literal, or takes its address.
func captured(body *ast.BlockStmt, name string) bool {
	found := false
	uses := func(n ast.Node) bool {
		in := false
		ast.Inspect(n, func(c ast.Node) bool {
			if id, ok := c.(*ast.Ident); ok && id.Name == name {
				in = true
			}
			return !in
		})
		return in
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			found = found || uses(n.Body)
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && uses(n.X)
		}
		return !found
	})
	return found
}
