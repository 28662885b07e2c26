package sandbox

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sandbox/symbols"
)

// denied are functions of the allowed packages a handler must not reach:
// they open databases, connections or files of their own instead of the
// ones the lab gives it (d.DB, d.Redis).
var denied = map[string]bool{
	"database/sql/sql.Open": true, "database/sql/sql.OpenDB": true, "database/sql/sql.Register": true,
	"database/sql/sql.Drivers": true,
}

// allowedSymbols is what any interpreter may reach: the allowed packages
// of the standard library, the go-redis types and the handlers package's
// types and constants (symbols/), less the denied functions. yaegi refuses
// any other import. It is filtered once; Use copies what it is given, so
// every interpreter may share these maps.
var allowedSymbols = sync.OnceValue(func() interp.Exports {
	out := interp.Exports{}
	keep := func(from interp.Exports) {
		for key, syms := range from {
			slash := strings.LastIndex(key, "/")
			if slash < 0 || !slices.Contains(Allowed, key[:slash]) {
				continue
			}
			m := map[string]reflect.Value{}
			for name, v := range syms {
				if !denied[key+"."+name] {
					m[name] = v
				}
			}
			out[key] = m
		}
	}
	keep(symbols.Symbols)
	return out
})

// symbolTable is what one interpreter may reach (allowedSymbols), each
// exported variable of those packages (strconv.ErrRange, sql.ErrNoRows,
// time.UTC, …) replaced by a variable of the interpreter's own that holds
// the same value. yaegi would otherwise hand a file the process's real
// variable: an assignment to it would outlive the interpreter and carry
// one run's state into the next (Parse refuses such assignments; this is
// the second wall). The copy holds the original's value, so
// errors.Is(err, sql.ErrNoRows) holds as it does in compiled code.
func symbolTable() interp.Exports {
	out := interp.Exports{}
	for key, syms := range allowedSymbols() {
		var own map[string]reflect.Value
		for name, v := range syms {
			if !v.CanSet() {
				continue // a function, a constant or a type
			}
			if own == nil {
				own = maps.Clone(syms)
			}
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			own[name] = c
		}
		if own == nil {
			own = syms // nothing to copy: the shared map will do
		}
		out[key] = own
	}
	return out
}

// packageVars maps each allowed import path to its package's name and
// the names of its exported variables, the ones Parse keeps a file from
// assigning.
var packageVars = sync.OnceValue(func() map[string]importVars {
	out := map[string]importVars{}
	for key, syms := range allowedSymbols() {
		slash := strings.LastIndex(key, "/")
		iv := importVars{name: key[slash+1:], vars: map[string]bool{}}
		for name, v := range syms {
			if v.CanSet() {
				iv.vars[name] = true
			}
		}
		out[key[:slash]] = iv
	}
	return out
})

// importVars is an allowed package's name and its exported variables.
type importVars struct {
	name string
	vars map[string]bool
}

// yaegiPos finds "handler.go:12:3" or "12:3" at the start of a yaegi error.
var yaegiPos = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[^0-9])(\d+):(\d+): `) })

// Load interprets a parsed message handler's file and returns its Handle
// function; an API handler's file is refused (LoadHandler takes both).
// Every call of that Handle shares one interpreter, and so the file's
// package-level variables: LoadHandler's Info makes them fresh for every
// delivery.
func Load(f *File) (handlers.Func, error) {
	if f.API {
		return nil, errf(0, "sandbox.api-not-message", APIShape, MessageShape)
	}
	info, err := LoadHandler(f)
	return info.Handle, err
}

// LoadHandler interprets a parsed file and returns it as a handler: its
// Schema and Redis, and its Handle function as Info.Handle for a message
// handler or as Info.API for an API handler (File.API). The Name is left
// to the caller. Only the child process, and tests, call it.
//
// No delivery sees state an earlier one left, in this run or another: a
// file that declares package-level variables gets Info.Fresh, which
// interprets it anew, and the engine calls it for every delivery (a
// worker process of its own, which may die). A file without them shares
// one interpreter: its constants, types and functions hold nothing, and
// Parse keeps it from assigning the imported packages' variables (each
// interpreter has its own copies of those anyway: symbolTable).
func LoadHandler(f *File) (handlers.Info, error) {
	info := handlers.Info{Schema: f.Schema, Redis: f.Redis, Absolute: f.Absolute}
	var err error
	if info.Handle, info.API, err = interpret(f); err != nil {
		return info, err
	}
	if f.vars {
		info.Fresh = func() (handlers.Func, handlers.APIFunc, error) { return interpret(f) }
	}
	return info, nil
}

// interpret makes an interpreter of its own for the file and returns the
// file's Handle: a message handler's, or an API handler's (File.API).
func interpret(f *File) (handlers.Func, handlers.APIFunc, error) {
	i, err := evaluate(f.Source)
	if err != nil {
		return nil, nil, err
	}
	v, err := i.Eval("handler.Handle")
	if err != nil {
		return nil, nil, compileError(err)
	}
	if f.API {
		fn, ok := v.Interface().(func(context.Context, handlers.Deps, handlers.APIRequest) handlers.APIResponse)
		if !ok {
			return nil, nil, errf(0, "sandbox.api-handle-type", v.Type())
		}
		return nil, fn, nil
	}
	fn, ok := v.Interface().(func(context.Context, handlers.Deps, handlers.Message) error)
	if !ok {
		return nil, nil, errf(0, "sandbox.message-handle-type", v.Type())
	}
	return fn, nil, nil
}

// evaluate makes an interpreter of its own, with the symbols a handler
// file may reach, and evaluates src in it: the one way every handler
// file, and the interpreter's corpus of idioms (idioms_test.go), is
// interpreted.
func evaluate(src string) (_ *interp.Interpreter, err error) {
	// yaegi's compiler panics on some Go it does not know (a range over
	// an integer, Go 1.22's, is one): a clear error, not a crash of the
	// process (the child, or the test that loads the file).
	defer func() {
		if r := recover(); r != nil {
			err = errf(0, "sandbox.interpreter-panic", r)
		}
	}()
	i := interp.New(interp.Options{GoPath: "/nonexistent", Stderr: interpStderr})
	syms := symbolTable()
	// yaegi compiles the sources of the generic packages (slices, maps,
	// cmp) into every interpreter given "fmt/fmt", the mark of a standard
	// library: half the cost of an interpreter, for packages a file may
	// not import. "fmt/./fmt" names the same package to yaegi (import path
	// "fmt", name fmt) without the mark. fmt's Print functions then write
	// to os.Stdout as compiled code does, not to the interpreter's stdout,
	// which is os.Stdout too.
	syms["fmt/./fmt"] = syms["fmt/fmt"]
	delete(syms, "fmt/fmt")
	if err := i.Use(syms); err != nil {
		return nil, fmt.Errorf("symbols: %w", err)
	}
	if _, err := i.Eval(goSemantics(src)); err != nil {
		return nil, compileError(err)
	}
	return i, nil
}

// compileError turns a yaegi error into an Error on its line.
func compileError(err error) *Error {
	msg := err.Error()
	line := 0
	if m := yaegiPos().FindStringSubmatchIndex(msg); m != nil {
		line, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = msg[m[1]:]
	}
	return errf(line, "sandbox.compile", msg)
}
