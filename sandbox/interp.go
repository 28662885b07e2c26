package sandbox

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

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

// symbolTable is what the interpreter may reach: the allowed packages of
// the standard library, the go-redis types and the handlers package's
// types and constants (symbols/), less the denied functions. yaegi refuses
// any other import.
func symbolTable() interp.Exports {
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
	keep(stdlib.Symbols)
	keep(symbols.Symbols)
	return out
}

// yaegiPos finds "handler.go:12:3" or "12:3" at the start of a yaegi error.
var yaegiPos = regexp.MustCompile(`(?:^|[^0-9])(\d+):(\d+): `)

// Load interprets a parsed message handler's file and returns its Handle
// function; an API handler's file is refused (LoadHandler takes both).
func Load(f *File) (handlers.Func, error) {
	if f.API {
		return nil, errf(0, "this is an API handler (%s); a message handler is needed here: %s",
			"это обработчик API (%s), а здесь нужен обработчик сообщений: %s", APIShape, MessageShape)
	}
	info, err := LoadHandler(f)
	return info.Handle, err
}

// LoadHandler interprets a parsed file and returns it as a handler: its
// Schema and Redis, and its Handle function as Info.Handle for a message
// handler or as Info.API for an API handler (File.API). The Name is left
// to the caller. Only the child process, and tests, call it.
func LoadHandler(f *File) (handlers.Info, error) {
	info := handlers.Info{Schema: f.Schema, Redis: f.Redis, Absolute: f.Absolute}
	i := interp.New(interp.Options{GoPath: "/nonexistent"})
	if err := i.Use(symbolTable()); err != nil {
		return info, fmt.Errorf("symbols: %w", err)
	}
	if _, err := i.Eval(f.Source); err != nil {
		return info, compileError(err)
	}
	v, err := i.Eval("handler.Handle")
	if err != nil {
		return info, compileError(err)
	}
	if f.API {
		fn, ok := v.Interface().(func(context.Context, handlers.Deps, handlers.APIRequest) handlers.APIResponse)
		if !ok {
			return info, errf(0, "Handle has the type %s; an API handler's must be func(context.Context, handlers.Deps, handlers.APIRequest) handlers.APIResponse",
				"у Handle тип %s, а у обработчика API нужен func(context.Context, handlers.Deps, handlers.APIRequest) handlers.APIResponse", v.Type())
		}
		info.API = fn
		return info, nil
	}
	fn, ok := v.Interface().(func(context.Context, handlers.Deps, handlers.Message) error)
	if !ok {
		return info, errf(0, "Handle has the type %s; it must be func(context.Context, handlers.Deps, handlers.Message) error",
			"у Handle тип %s, а нужен func(context.Context, handlers.Deps, handlers.Message) error", v.Type())
	}
	info.Handle = fn
	return info, nil
}

// compileError turns a yaegi error into an Error on its line.
func compileError(err error) *Error {
	msg := err.Error()
	line := 0
	if m := yaegiPos.FindStringSubmatchIndex(msg); m != nil {
		line, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = msg[m[1]:]
	}
	return errf(line, "does not compile: %s", "не компилируется: %s", msg)
}
