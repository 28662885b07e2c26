package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sandbox"
	divergent "github.com/idempotency-lab/lab/sandbox/testdata/divergent"
)

// handlerFile is a message handler file with decls after its imports.
func handlerFile(decls string) string {
	return "package handler\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\n\t\"github.com/idempotency-lab/lab/handlers\"\n)\n\n" +
		"var _ = errors.New\nvar _ = fmt.Sprint\n\n" +
		"func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error { return nil }\n" + decls
}

// line is the line of a handlerFile's first decl line.
const line = 15

// TestDivergentIdiomsAreRefused: Parse refuses each construct the
// interpreter runs otherwise than Go, on its line, naming it and what to
// write instead, in English and Russian; the constructs next to them
// that the interpreter runs as Go pass.
func TestDivergentIdiomsAreRefused(t *testing.T) {
	for _, c := range []struct {
		name, decls string
		line        int
		en, ru      string // "" for a file Parse accepts
	}{
		{"error constant of a named string type", "type errCode string\nfunc (e errCode) Error() string { return string(e) }\nconst ErrX errCode = \"x\"\n",
			line + 1, "type errCode has an Error method", "у типа errCode есть метод Error"},
		{"error struct type", "type E struct{}\n\nfunc (e *E) Error() string { return \"e\" }\n",
			line + 2, "declare sentinel errors instead (var ErrBusy = errors.New(\"busy\"))", "объявите вместо него ошибки-метки"},
		{"String method", "type s int\nfunc (s) String() string { return \"\" }\n", line + 1, "method s.String: fmt calls String", "метод s.String: fmt вызывает String"},
		{"MarshalJSON method", "type a int\nfunc (a) MarshalJSON() ([]byte, error) { return nil, nil }\n", line + 1, "encoding/json calls MarshalJSON", "encoding/json вызывает MarshalJSON"},
		// An Error method with parameters is no error type.
		{"Error with a parameter", "type t int\nfunc (t) Error(x int) string { return \"\" }\n", 0, "", ""},
		{"method expression", "type c struct{}\nfunc (*c) Add(int) {}\nfunc f() { g := (*c).Add; g(&c{}, 1) }\n", line + 2,
			"method expression (*c).Add", "выражение-метод (*c).Add"},
		// A variable of the type's name is no method expression... when
		// the type has no such method.
		{"a field of a value", "type c struct{ n int }\nfunc f() int { var v c; return v.n }\n", 0, "", ""},
		{"method value of a value receiver", "type w struct{ n int }\nfunc (v w) get() int { return v.n }\nfunc f() int { x := w{}\n\tg := x.get\n\treturn g() + x.get() }\n", line + 3,
			"method value x.get of a value receiver", "значение-метод x.get с получателем-значением"},
		// A pointer receiver's method value binds the pointer, as Go does.
		{"method value of a pointer receiver", "type w struct{ n int }\nfunc (v *w) get() int { return v.n }\nfunc f() int { x := &w{}\n\tg := x.get\n\treturn g() }\n", 0, "", ""},
		// m.Key is a field of handlers.Message, not the file's Key method.
		{"a field named as a value method", "type w struct{}\nfunc (w) Key() string { return \"\" }\nfunc f(m handlers.Message) string { k := m.Key\n\treturn k }\n", 0, "", ""},
		{"a loop variable changed and captured", "func f() (fs []func() int) { for i := 0; i < 3; i++ {\n\ti++\n\tfs = append(fs, func() int { return i }) }\n\treturn }\n", line,
			"the loop's variable i is changed in its body and captured there", "переменная цикла i меняется в его теле"},
		// Changed or captured, not both: the copy, or none, runs as Go.
		{"a loop variable changed, not captured", "func f() (n int) { for i := 0; i < 3; i++ {\n\ti++\n\tn += i }\n\treturn }\n", 0, "", ""},
		{"a loop variable's address", "func f() (ps []*int) { for i := 0; i < 3; i++ {\n\tps = append(ps, &i) }\n\treturn }\n", 0, "", ""},
		{"defer with a variable argument", "func f() { x := 1\n\tdefer fmt.Println(x)\n\tx = 2 }\n", line + 1,
			"defer with an argument that is not a constant", "defer с аргументом, который не константа"},
		{"defer of a literal with an argument", "func f() { x := 1\n\tdefer func(v int) {}(x) }\n", line + 1,
			"defer func() { … }()", "defer func() { … }()"},
		{"defer with constants", "const k = \"k\"\nfunc f(d handlers.Deps) { defer d.Point(handlers.AfterEffect)\n\tdefer fmt.Println(k, 1+2, \"x\", nil) }\n", 0, "", ""},
		{"defer with no arguments", "func f(ctx context.Context) { ctx, cancel := context.WithCancel(ctx)\n\tdefer cancel()\n\t_ = ctx\n\tdefer func() {}() }\n", 0, "", ""},
		{"defer in a loop", "func f() { for i := 0; i < 3; i++ {\n\tdefer func() {}() } }\n", line + 1,
			"defer inside a loop", "defer внутри цикла"},
		{"defer in a range loop", "func f(xs []int) { for range xs { if true {\n\tdefer func() {}() } } }\n", line + 1, "defer inside a loop", "defer внутри цикла"},
		{"range over an integer", "const n = 3\nfunc f(xs []int) { for range xs {}\n\tfor i := range len(xs) + n { _ = i } }\n", line + 2,
			"range over an integer (for i := range len(xs) + n)", "range по целому числу (for i := range len(xs) + n)"},
		// A function literal called in the loop has a frame of its own.
		{"defer in a literal in a loop", "func f() { for i := 0; i < 3; i++ { func() {\n\tdefer func() {}() }() } }\n", 0, "", ""},
		{"assertion to an interface the file declares", "type tt interface{ Timeout() bool }\nfunc f(err error) bool { _, ok := err.(tt); return ok }\n", line + 1,
			"type assertion to the interface tt", "приведение к интерфейсу tt"},
		{"assertion to an interface literal", "func f(err error) bool { _, ok := err.(interface{ Unwrap() error }); return ok }\n", line,
			"type assertion to the interface interface{ Unwrap() error }", "приведение к интерфейсу interface{ Unwrap() error }"},
		{"type switch case of an interface", "type tt interface{ Timeout() bool }\nfunc f(err error) {\n\tswitch err.(type) {\n\tcase nil, tt:\n\t} }\n", line + 3,
			"type assertion to the interface tt", "приведение к интерфейсу tt"},
		{"assertion to the empty interface and to a type", "type s struct{}\nfunc f(x any) bool { _, a := x.(interface{}); _, b := x.(*s); _, c := x.(error); return a && b && c }\n", 0, "", ""},
		{"errors.As into an interface", "type tt interface{ Timeout() bool }\nfunc f(err error) bool { var t tt\n\treturn errors.As(err, &t) }\n", line + 2,
			"errors.As into t", "errors.As в t"},
		{"the recovered value asserted", "func f() { defer func() {\n\tif r := recover(); r != nil {\n\t\t_ = r.(error) } }() }\n", line + 2,
			"the value recover() returns is used beyond a test for nil and printing", "значение recover() используется"},
		{"the recovered value compared", "func f() { defer func() {\n\tif recover() == \"boom\" {} }() }\n", line + 1,
			"the value recover() returns", "значение recover()"},
		{"the recovered value tested and printed", "func f() (err error) { defer func() {\n\tif r := recover(); r != nil { err = fmt.Errorf(\"panic: %v\", r) } }()\n\treturn nil }\n", 0, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := sandbox.Parse(handlerFile(c.decls))
			if c.en == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *sandbox.Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse: %v, want a refusal", err)
			}
			if e.Line != c.line || !strings.Contains(e.Text.String(), c.en) || !strings.Contains(e.Text.In("ru"), c.ru) {
				t.Errorf("line %d: %s\n%s\nwant line %d, %q and %q", e.Line, e.Text.String(), e.Text.In("ru"), c.line, c.en, c.ru)
			}
		})
	}
}

// TestRefusedIdiomsStillDiverge: each construct Parse refuses still runs
// otherwise in the interpreter than compiled (testdata/divergent,
// interpreted past Parse). When one agrees (a new yaegi), its refusal
// can go: this test says which.
func TestRefusedIdiomsStillDiverge(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "divergent", "divergent.go"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.Parse(string(src)); err == nil {
		t.Error("Parse accepts the divergent idioms")
	}
	eval, err := sandbox.Interpret(string(src))
	if err != nil {
		t.Fatalf("the divergent idioms do not interpret: %v", err)
	}
	cases := []struct {
		name     string
		compiled func() string
	}{
		{"NamedStringConstant", divergent.NamedStringConstant}, // Go: true true true; the interpreter: false
		{"ErrorsAsOwnType", divergent.ErrorsAsOwnType},         // the interpreter panics
		{"TypeSwitchOwnType", divergent.TypeSwitchOwnType},
		{"StringerThroughFmt", divergent.StringerThroughFmt}, // the interpreter prints 2
		{"MarshalJSONMethod", divergent.MarshalJSONMethod},
		{"MethodExpression", divergent.MethodExpression},
		{"DeferArgument", divergent.DeferArgument}, // Go reads the argument at the defer: 1
		{"DeferInLoop", divergent.DeferInLoop},     // Go: c,b,a; the interpreter: c,c,c
		{"AssertToOwnInterface", divergent.AssertToOwnInterface},
		{"ErrorsAsOwnInterface", divergent.ErrorsAsOwnInterface},
		{"RecoveredValue", divergent.RecoveredValue},
		{"MethodValueOfValueReceiver", divergent.MethodValueOfValueReceiver},         // Go: 2; the interpreter: 101
		{"LoopVariableChangedAndCaptured", divergent.LoopVariableChangedAndCaptured}, // Go: 1 3
	}
	listed := map[string]bool{}
	for _, c := range cases {
		listed[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			want := c.compiled()
			v, err := eval(c.name)
			if err != nil {
				t.Fatalf("interpreted: %v", err)
			}
			got := callInterpreted(v.(func() string))
			if got == want {
				t.Errorf("the interpreter now runs %s as Go does (%s): its refusal in divergent (divergence.go) can go", c.name, got)
			}
			t.Logf("compiled %q, interpreted %q", want, got)
		})
	}
	for _, name := range corpusFuncs(t, string(src)) {
		if !listed[name] {
			t.Errorf("%s is in testdata/divergent but not in this test's table", name)
		}
	}
}

// TestRewriteKeepsLines: the rewrites that make the interpreter run a
// file as Go (a loop's variables, unnamed parameters, unexported fields'
// json tags) keep every line where it was: an error the interpreter
// reports is on the file's own line.
func TestRewriteKeepsLines(t *testing.T) {
	src := handlerFile("type p struct{ a int }\nfunc f(int) {\n\tfor i := 0; i < 2; i++ {\n\t\tfor _, k := range []string{} { _ = k }\n\t}\n\tundefinedName()\n}\n")
	f, err := sandbox.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sandbox.Load(f)
	var e *sandbox.Error
	if !errors.As(err, &e) || e.Line != line+5 || !strings.Contains(e.Text.String(), "undefinedName") {
		t.Errorf("Load: %v, want line %d", err, line+5)
	}
}

// TestLoopCopies: the per-iteration copies the rewrite adds compile and
// run with the loops handlers write: a variable the body does not use, a
// v := v of its own (declared twice, were it copied again), a var of the
// same name, a range over a map's keys, and one the body changes.
func TestLoopCopies(t *testing.T) {
	src := handlerFile(`func Loops() string {
	n := 0
	for i := 0; i < 3; i++ {
		n++
	}
	var fns []func() string
	for _, m := range []string{"a", "b"} {
		m := m
		fns = append(fns, func() string { return m })
	}
	for _, i := range []int{0, 1} {
		var i = i * 10
		fns = append(fns, func() string { return fmt.Sprint(i) })
	}
	for k := range map[string]int{"x": 1} {
		_ = 0
		fns = append(fns, func() string { return k })
	}
	for i := 0; i < 4; i++ {
		if i == 0 {
			i += 2
		}
		n += i
	}
	out := fmt.Sprint(n)
	for _, f := range fns {
		out += " " + f()
	}
	return out
}
`)
	if _, err := sandbox.Parse(src); err != nil {
		t.Fatal(err)
	}
	eval, err := sandbox.Interpret(src)
	if err != nil {
		t.Fatalf("does not interpret: %v", err)
	}
	v, err := eval("Loops")
	if err != nil {
		t.Fatal(err)
	}
	// 3 increments, then i = 2 and 3 (0 jumps to 2): 3+2+3 = 8.
	if got, want := callInterpreted(v.(func() string)), "8 a b 0 10 x"; got != want {
		t.Errorf("got %q, want %q (Go's)", got, want)
	}
}

// TestInterpreterPanicIsAnError: Go the interpreter's compiler panics on
// (a range over an integer variable, which Parse cannot tell from a
// slice) is an error naming the likely cause, not a crash of the
// process that loads the file.
func TestInterpreterPanicIsAnError(t *testing.T) {
	f, err := sandbox.Parse(handlerFile("func f(n int) { for i := range n { _ = i } }\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sandbox.Load(f)
	var e *sandbox.Error
	if !errors.As(err, &e) || !strings.Contains(e.Text.String(), "could not compile the file") || !strings.Contains(e.Text.String(), "for i := 0; i < n; i++") ||
		!strings.Contains(e.Text.In("ru"), "не смог скомпилировать файл") {
		t.Errorf("Load: %v", err)
	}
}
