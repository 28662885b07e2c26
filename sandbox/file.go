// Package sandbox runs a handler file a person wrote: a whole Go file in
// package handler with a Handle function (and optionally a Schema), the
// same shape in the browser, the CLI and labtest (an API handler's Handle
// is func(ctx, d, r handlers.APIRequest) handlers.APIResponse instead):
//
//	package handler
//
//	import (
//		"context"
//
//		"github.com/idempotency-lab/lab/handlers"
//	)
//
//	const Schema = `CREATE TABLE processed (key TEXT PRIMARY KEY);`
//
//	func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
//		// ...
//	}
//
// Parse checks the file without running it. The file is interpreted with
// yaegi only in a child process of the lab's own binary (Runner starts it,
// Child is its main), under limits on memory, CPU, wall-clock time and
// output; the server never interprets a person's code itself.
package sandbox

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/idempotency-lab/lab/narration"
)

// MaxSourceBytes bounds a handler file: the lab's own handlers are under
// 4 KB, and the file travels in a permalink.
const MaxSourceBytes = 16 << 10

// Allowed is every import a handler file may use.
var Allowed = []string{
	"context", "crypto/sha256", "database/sql", "encoding/hex", "encoding/json", "errors", "fmt",
	"strconv", "strings", "time",
	"github.com/idempotency-lab/lab/handlers", "github.com/redis/go-redis/v9",
}

// Error is what is wrong with a handler file, or what happened when it
// ran: a message of package narration (its key and arguments; the words
// in both languages are narration's), with the line when there is one.
// The child process sends it to the parent as JSON.
type Error struct {
	Line int            `json:"line,omitempty"`
	Text narration.Text `json:"text"`
}

func (e *Error) Error() string { return e.In("en") }

// In returns the message in a language ("ru" or anything else for
// English), with the line.
func (e *Error) In(lang string) string {
	if e.Line > 0 {
		return narration.T("sandbox.line", strconv.Itoa(e.Line), e.Text.In(lang)).In(lang)
	}
	return e.Text.In(lang)
}

// errf is the Error on line of narration's message key, its arguments
// written as fmt's %v writes them.
func errf(line int, key string, args ...any) *Error {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = fmt.Sprint(a)
	}
	return &Error{Line: line, Text: narration.T(key, words...)}
}

// File is a handler file that passed Parse.
type File struct {
	Source string
	Schema string // the Schema constant, "" when there is none
	Redis  bool   // it uses d.Redis: its world gets a Redis
	// Absolute: const Absolute = true; the handler writes the balance a
	// message states, and the lab judges it by each account's final
	// balance (handlers.Info.Absolute).
	Absolute bool
	// API: Handle serves API requests (func Handle(ctx, d, r
	// handlers.APIRequest) handlers.APIResponse) instead of consuming
	// messages.
	API bool
	// vars: the file declares package-level variables that could carry
	// state from one delivery to the next; LoadHandler interprets such a
	// file anew for each delivery. Sentinels (see sentinels) do not count.
	vars bool
}

// The two shapes of Handle, as the errors name them.
const (
	MessageShape = "func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error"
	APIShape     = "func Handle(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse"
)

// handleShape tells the two shapes of Handle apart by its parameters and
// result: the message handler's returns error, the API handler's takes a
// handlers.APIRequest and returns a handlers.APIResponse. ok is false for
// anything else. Load checks the exact types.
func handleShape(fn *ast.FuncDecl) (api, ok bool) {
	if fn.Type.TypeParams != nil || fn.Type.Params.NumFields() != 3 || fn.Type.Results.NumFields() != 1 {
		return false, false
	}
	params := fn.Type.Params.List
	last := params[len(params)-1].Type
	result := fn.Type.Results.List[0].Type
	if id, isIdent := result.(*ast.Ident); isIdent && id.Name == "error" {
		return false, !isSelector(last, "APIRequest")
	}
	if isSelector(result, "APIResponse") && isSelector(last, "APIRequest") {
		return true, true
	}
	return false, false
}

// isSelector says whether e is pkg.name for some pkg.
func isSelector(e ast.Expr, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name
}

// Parse checks a handler file: its size, its syntax, package handler, the
// imports, a Handle function of one of the two shapes (a message
// handler's or an API handler's) and, if present, a Schema
// constant that is one string literal. It runs nothing.
func Parse(src string) (*File, error) {
	if len(src) > MaxSourceBytes {
		return nil, errf(0, "sandbox.too-big",
			len(src), strings.Count(src, "\n")+1, MaxSourceBytes)
	}
	if strings.TrimSpace(src) == "" {
		return nil, errf(0, "sandbox.empty")
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "handler.go", src, parser.SkipObjectResolution)
	if err != nil {
		line := 0
		if pos := firstPos(err); pos.IsValid() {
			line = pos.Line
		}
		msg := err.Error()
		if _, after, ok := strings.Cut(msg, ": "); ok && line > 0 {
			msg = after
		}
		return nil, errf(line, "sandbox.syntax", msg)
	}
	if f.Name.Name != "handler" {
		return nil, errf(fset.Position(f.Name.Pos()).Line, "sandbox.package", f.Name.Name)
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !slices.Contains(Allowed, path) {
			return nil, errf(fset.Position(imp.Pos()).Line, "sandbox.import-not-allowed", strconv.Quote(path), strings.Join(Allowed, ", "))
		}
		if imp.Name != nil && (imp.Name.Name == "." || imp.Name.Name == "_") {
			return nil, errf(fset.Position(imp.Pos()).Line, "sandbox.import-dot-blank", imp.Name.Name, strconv.Quote(path))
		}
	}
	file := &File{Source: src}
	var handle *ast.FuncDecl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "Handle" {
				handle = d
			}
			if d.Recv == nil && d.Name.Name == "init" {
				return nil, errf(fset.Position(d.Pos()).Line, "sandbox.init")
			}
		case *ast.GenDecl:
			if d.Tok == token.VAR && !sentinels(f, d) {
				file.vars = true
			}
			if d.Tok != token.CONST {
				continue
			}
			for _, spec := range d.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if name.Name == "Absolute" {
						id, ok := valueAt(vs, i).(*ast.Ident)
						if !ok || (id.Name != "true" && id.Name != "false") {
							return nil, errf(fset.Position(name.Pos()).Line, "sandbox.absolute")
						}
						file.Absolute = id.Name == "true"
						continue
					}
					if name.Name != "Schema" {
						continue
					}
					lit, ok := valueAt(vs, i).(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return nil, errf(fset.Position(name.Pos()).Line, "sandbox.schema")
					}
					file.Schema, _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	if handle == nil {
		return nil, errf(0, "sandbox.no-handle", MessageShape, APIShape)
	}
	api, ok := handleShape(handle)
	if !ok {
		return nil, errf(fset.Position(handle.Pos()).Line, "sandbox.handle-shape", MessageShape, APIShape)
	}
	file.API = api
	if err := importedVarWrites(fset, f); err != nil {
		return nil, err
	}
	if err := pointerWrites(fset, f); err != nil {
		return nil, err
	}
	if err := divergent(fset, f); err != nil {
		return nil, err
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Redis" {
			file.Redis = true
		}
		return !file.Redis
	})
	return file, nil
}

// importedVarWrites refuses a file that assigns, increments or takes the
// address of an imported package's variable (strconv.ErrRange = …,
// &sql.ErrNoRows, *time.UTC = …). Such a variable is a global of the
// process the file runs in: a value stored there would outlive the worker
// that stored it and reach the next run, where no crash clears it.
func importedVarWrites(fset *token.FileSet, f *ast.File) error {
	byName := map[string]importVars{} // by the name the file gives the import
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		iv, ok := packageVars()[path]
		if !ok || len(iv.vars) == 0 {
			continue
		}
		name := iv.name
		if imp.Name != nil {
			name = imp.Name.Name
		}
		byName[name] = iv
	}
	if len(byName) == 0 {
		return nil
	}
	// imported names the variable e is (pkg.Var, or *pkg.Var), if it is one.
	imported := func(e ast.Expr) (string, bool) {
		e = ast.Unparen(e)
		if star, ok := e.(*ast.StarExpr); ok {
			e = ast.Unparen(star.X)
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok || !byName[pkg.Name].vars[sel.Sel.Name] {
			return "", false
		}
		return pkg.Name + "." + sel.Sel.Name, true
	}
	var bad *Error
	refuse := func(e ast.Expr) {
		if name, ok := imported(e); ok && bad == nil {
			pkg, _, _ := strings.Cut(name, ".")
			bad = errf(fset.Position(e.Pos()).Line,
				"sandbox.package-variable",
				name, pkg)
		}
	}
	eachWrite(f, true, func(e ast.Expr) bool {
		refuse(e)
		return bad == nil
	})
	if bad != nil {
		return bad
	}
	return nil
}

// eachWrite calls fn for every expression the file writes to: each left
// side of an assignment, an increment's operand, a range's key and value
// when the range assigns (:= makes new locals) and, with addr, the
// operand of & (a place the file may write through later). It stops when
// fn returns false.
func eachWrite(f *ast.File, addr bool, fn func(ast.Expr) bool) {
	more := true
	visit := func(e ast.Expr) {
		if more && e != nil {
			more = fn(e)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				visit(lhs)
			}
		case *ast.IncDecStmt:
			visit(n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				visit(n.Key)
				visit(n.Value)
			}
		case *ast.UnaryExpr:
			if addr && n.Op == token.AND {
				visit(n.X)
			}
		}
		return more
	})
}

// sentinels reports whether a var declaration holds only values no run
// can change: each variable is an error or a Redis script made from
// constants (errors.New("…"), fmt.Errorf("…", …), redis.NewScript(…)),
// and the file never assigns one, increments it or takes its address
// (by name, wherever: a local of the same name counts too). The values
// are immutable, so one interpreter may keep them for every delivery;
// any other variable makes the file fresh per delivery, which costs the
// checker about six times the time.
func sentinels(f *ast.File, d *ast.GenDecl) bool {
	names := map[string]bool{}
	for _, spec := range d.Specs {
		vs := spec.(*ast.ValueSpec)
		if len(vs.Values) != len(vs.Names) {
			return false
		}
		for i, name := range vs.Names {
			call, ok := vs.Values[i].(*ast.CallExpr)
			if !ok || !isSelector(call.Fun, "New") && !isSelector(call.Fun, "Errorf") && !isSelector(call.Fun, "NewScript") {
				return false
			}
			sel := call.Fun.(*ast.SelectorExpr)
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || !(pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf" ||
				pkg.Name == "redis" && sel.Sel.Name == "NewScript") {
				return false
			}
			for _, a := range call.Args {
				if _, lit := a.(*ast.BasicLit); !lit {
					if _, id := a.(*ast.Ident); !id { // a constant, or another sentinel
						return false
					}
				}
			}
			names[name.Name] = true
		}
	}
	written := false
	eachWrite(f, true, func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		written = ok && names[id.Name]
		return !written
	})
	return !written
}

// pointerWrites refuses a write through a pointer (*p = v, *p++): the
// one way left to change a value the process shares with every run, as
// *d.Now().Location() = … would change time.UTC itself. A handler has no
// need of it: its state belongs in the database or Redis.
func pointerWrites(fset *token.FileSet, f *ast.File) error {
	var bad *Error
	star := func(e ast.Expr) {
		if _, ok := ast.Unparen(e).(*ast.StarExpr); ok && bad == nil {
			bad = errf(fset.Position(e.Pos()).Line,
				"sandbox.pointer-write")
		}
	}
	eachWrite(f, false, func(e ast.Expr) bool {
		star(e)
		return bad == nil
	})
	if bad != nil {
		return bad
	}
	return nil
}

// valueAt is the i-th value of a const spec, nil when it has none.
func valueAt(vs *ast.ValueSpec, i int) ast.Expr {
	if i < len(vs.Values) {
		return vs.Values[i]
	}
	return nil
}

// firstPos is the position of a parse error.
func firstPos(err error) token.Position {
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return list[0].Pos
	}
	return token.Position{}
}
