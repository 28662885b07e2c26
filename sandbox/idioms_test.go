package sandbox_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/idempotency-lab/lab/sandbox"
	idioms "github.com/idempotency-lab/lab/sandbox/testdata/idioms"
)

// TestInterpreterIsGo: every idiom of the corpus (testdata/idioms) gives
// the same result compiled, from the package this test imports, and
// interpreted, from the same source through the sandbox's interpreter.
// The corpus is a handler file: Parse accepts it. A difference is the
// interpreter judging a handler on behaviour Go does not have; the
// sandbox must make it behave as Go or refuse the construct
// (TestDivergentIdiomsAreRefused).
func TestInterpreterIsGo(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "idioms", "idioms.go"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.Parse(string(src)); err != nil {
		t.Fatalf("Parse refuses the corpus: %v", err)
	}
	eval, err := sandbox.Interpret(string(src))
	if err != nil {
		t.Fatalf("the corpus does not interpret: %v", err)
	}
	cases := []struct {
		name     string
		compiled func() string
	}{
		{"SentinelWrapped", idioms.SentinelWrapped},
		{"WrapTwice", idioms.WrapTwice},
		{"ErrorfWithoutWrap", idioms.ErrorfWithoutWrap}, // %v does not wrap: errors.Is is false
		{"AsStandardTypes", idioms.AsStandardTypes},
		{"SentinelIdentity", idioms.SentinelIdentity}, // two errors.New("x") are not equal
		{"UnwrapChains", idioms.UnwrapChains},
		{"TypeSwitchOnErrors", idioms.TypeSwitchOnErrors},
		{"NilErrorInterface", idioms.NilErrorInterface}, // a nil pointer in an error is not a nil error
		{"StandardSentinels", idioms.StandardSentinels},
		{"ErrorsInFmt", idioms.ErrorsInFmt},
		{"EnumNames", idioms.EnumNames},
		{"Closures", idioms.Closures},
		// Go 1.22's loop variables: a closure made in each iteration sees
		// that iteration's value (0a 1b 2c), not the last one's.
		{"LoopVariablesPerIteration", idioms.LoopVariablesPerIteration},
		// The body's change to a three-clause loop's variable carries on
		// to the next iteration, per-iteration variables or not.
		{"LoopVariableAddresses", idioms.LoopVariableAddresses}, // each iteration's own address: 0 1 2 false
		{"LoopVariableChangedInBody", idioms.LoopVariableChangedInBody},
		{"DeferOrder", idioms.DeferOrder}, // last deferred, first run; a deferred closure reads x at the return

		{"DeferRecover", idioms.DeferRecover},
		{"Receivers", idioms.Receivers}, // a value receiver works on a copy; a method value binds &a
		{"MapsOfStructs", idioms.MapsOfStructs},
		{"MapIterationSorted", idioms.MapIterationSorted},
		{"Slices", idioms.Slices}, // append within capacity shares the array
		{"StringsAndStrconv", idioms.StringsAndStrconv},
		{"JSONAndHash", idioms.JSONAndHash},
		{"Time", idioms.Time},
		{"InterfacesAndEmbedding", idioms.InterfacesAndEmbedding},
		{"FunctionValues", idioms.FunctionValues},
		{"Labels", idioms.Labels},
		{"Shadowing", idioms.Shadowing},
		{"ContextValues", idioms.ContextValues},
		{"AnonymousStructsAndArrays", idioms.AnonymousStructsAndArrays},
		{"Generics", idioms.Generics},
		{"MethodValues", idioms.MethodValues},                         // a literal reads a at the call: 101
		{"AssignmentsAndArithmetic", idioms.AssignmentsAndArithmetic}, // int8 127+1 wraps to -128; -7/2 is -3
		{"NamedResults", idioms.NamedResults},
		{"SlicesThroughFunctions", idioms.SlicesThroughFunctions}, // two appends within capacity share the array
		{"SwitchForms", idioms.SwitchForms},
		{"Channels", idioms.Channels},
		{"ClosuresOverStructs", idioms.ClosuresOverStructs},
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
			fn, ok := v.(func() string)
			if !ok {
				t.Fatalf("interpreted %s is a %T", c.name, v)
			}
			if got := callInterpreted(fn); got != want {
				t.Errorf("interpreted: %s\n      compiled: %s", got, want)
			}
		})
	}
	// Every idiom of the corpus is in the table.
	for _, name := range corpusFuncs(t, string(src)) {
		if !listed[name] {
			t.Errorf("%s is in the corpus but not in this test's table", name)
		}
	}
}

// corpusFuncs lists the corpus's idioms: its exported functions of no
// parameters and one result.
func corpusFuncs(t *testing.T, src string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "idioms.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if ok && fn.Recv == nil && fn.Name.IsExported() && fn.Type.Params.NumFields() == 0 && fn.Type.Results.NumFields() == 1 {
			out = append(out, fn.Name.Name)
		}
	}
	return out
}

// callInterpreted calls an interpreted idiom; a panic is its result.
func callInterpreted(fn func() string) (got string) {
	defer func() {
		if r := recover(); r != nil {
			got = fmt.Sprintf("panic: %v", r)
		}
	}()
	return fn()
}
