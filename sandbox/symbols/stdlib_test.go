package symbols_test

import (
	"fmt"
	"go/constant"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/traefik/yaegi/stdlib"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sandbox/symbols"
)

// TestStdlibIsYaegis holds the copies of the standard library's tables
// (stdlib_*.go) to yaegi's own stdlib package at the pinned version: for
// every allowed package of the standard library, the same names, each
// the same function, type, variable or constant. Only this test links
// yaegi's stdlib; the lab's binary does not (#30).
func TestStdlibIsYaegis(t *testing.T) {
	var std []string // the allowed packages of the standard library
	for _, p := range sandbox.Allowed {
		if !strings.Contains(strings.Split(p, "/")[0], ".") {
			std = append(std, p)
		}
	}
	if len(std) == 0 {
		t.Fatal("no standard library package in sandbox.Allowed")
	}
	for key, want := range stdlib.Symbols {
		slash := strings.LastIndex(key, "/")
		if slash < 0 || !slices.Contains(std, key[:slash]) {
			if _, ok := symbols.Symbols[key]; ok {
				t.Errorf("%s: copied, but not an allowed package of yaegi's stdlib", key)
			}
			continue
		}
		got, ok := symbols.Symbols[key]
		if !ok {
			t.Errorf("%s: yaegi's stdlib has it, the copies do not", key)
			continue
		}
		if g, w := names(got), names(want); !slices.Equal(g, w) {
			t.Errorf("%s: names\n got %v\nwant %v", key, g, w)
			continue
		}
		for name, w := range want {
			if g := got[name]; !same(g, w) {
				t.Errorf("%s.%s: got %v (%s), want %v (%s)", key, name, g, g.Type(), w, w.Type())
			}
		}
	}
	for _, p := range std {
		found := false
		for key := range symbols.Symbols {
			found = found || strings.HasPrefix(key, p+"/") && !strings.Contains(key[len(p)+1:], "/")
		}
		if !found {
			t.Errorf("%s: allowed, but no table copied", p)
		}
	}
}

func names(m map[string]reflect.Value) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// same says whether two symbols are the same: a constant by its kind and
// exact value, an interface wrapper (a nil *_pkg_Name, of the package
// it is declared in) by its name and fields, a function or pointer by its
// address, a variable by its address (a settable Value is the variable
// itself), anything else by its type and value.
func same(a, b reflect.Value) bool {
	if ca, ok := a.Interface().(constant.Value); ok {
		cb, ok := b.Interface().(constant.Value)
		return ok && ca.Kind() == cb.Kind() && ca.ExactString() == cb.ExactString()
	}
	if wrapper(a) && wrapper(b) {
		ta, tb := a.Type().Elem(), b.Type().Elem()
		if ta.Name() != tb.Name() || ta.NumField() != tb.NumField() {
			return false
		}
		for i := range ta.NumField() {
			if ta.Field(i).Name != tb.Field(i).Name || ta.Field(i).Type != tb.Field(i).Type {
				return false
			}
		}
		return true
	}
	if a.Type() != b.Type() || a.CanSet() != b.CanSet() {
		return false
	}
	switch {
	case a.CanSet():
		return a.Addr().Pointer() == b.Addr().Pointer()
	case a.Kind() == reflect.Func, a.Kind() == reflect.Pointer, a.Kind() == reflect.Map:
		return a.Pointer() == b.Pointer()
	}
	return fmt.Sprint(a.Interface()) == fmt.Sprint(b.Interface())
}

// wrapper says whether v names one of yaegi's interface wrappers: a nil
// pointer to a struct type whose name starts with an underscore.
func wrapper(v reflect.Value) bool {
	t := v.Type()
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && strings.HasPrefix(t.Elem().Name(), "_")
}
