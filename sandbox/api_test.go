package sandbox_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
)

// apiExercise reads one of the api-fingerprint exercise's files: an API
// handler that replays saved answers by key (starter.go), and one that
// also compares the request's fingerprint (solution.go).
func apiExercise(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../practice/_exercises/api-fingerprint/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// apiFile is an API handler file whose Handle has the given body.
func apiFile(body string) string {
	return "package handler\n\nimport (\n\t\"context\"\n\n\t\"github.com/idempotency-lab/lab/handlers\"\n)\n\n" +
		"func Handle(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse {\n" + body + "\n}\n"
}

func TestParseAPIHandler(t *testing.T) {
	for _, src := range []string{apiFile("\treturn handlers.APIResponse{Status: 400}"), apiExercise(t, "starter.go"), apiExercise(t, "solution.go")} {
		f, err := sandbox.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if !f.API {
			t.Errorf("an API handler's file parsed with API false:\n%s", src)
		}
	}
	f, err := sandbox.Parse(file("", naiveBody))
	if err != nil || f.API {
		t.Errorf("a message handler's file: %v, API %v", err, f != nil && f.API)
	}
	if !strings.Contains(apiExercise(t, "solution.go"), "const Schema") {
		t.Fatal("the exercise declares no Schema")
	}
	if f, _ := sandbox.Parse(apiExercise(t, "solution.go")); !strings.Contains(f.Schema, "fingerprint") {
		t.Errorf("the solution's Schema was not read: %q", f.Schema)
	}
}

// A Handle of neither shape is refused, in both languages, with both
// shapes named.
func TestParseWrongShapes(t *testing.T) {
	head := "package handler\n\nimport (\n\t\"context\"\n\n\t\"github.com/idempotency-lab/lab/handlers\"\n)\n\n"
	cases := []struct {
		name, src string
		line      int
	}{
		{"an API request returning error", head + "func Handle(ctx context.Context, d handlers.Deps, r handlers.APIRequest) error { return nil }\n", 9},
		{"a message returning a response", head + "func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) handlers.APIResponse {\n\treturn handlers.APIResponse{}\n}\n", 9},
		{"two parameters", head + "func Handle(ctx context.Context, r handlers.APIRequest) handlers.APIResponse {\n\treturn handlers.APIResponse{}\n}\n", 9},
		{"two results", head + "func Handle(ctx context.Context, d handlers.Deps, r handlers.APIRequest) (handlers.APIResponse, error) {\n\treturn handlers.APIResponse{}, nil\n}\n", 9},
		{"no Handle", head + "func Serve() {}\n", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := sandbox.Parse(c.src)
			se, ok := err.(*sandbox.Error)
			if !ok {
				t.Fatalf("got %v, want a *sandbox.Error", err)
			}
			for _, msg := range []string{se.Text.String(), se.Text.In("ru")} {
				if !strings.Contains(msg, sandbox.MessageShape) || !strings.Contains(msg, sandbox.APIShape) {
					t.Errorf("%q does not name both shapes", msg)
				}
			}
			if se.Line != c.line || se.Text.String() == se.Text.In("ru") {
				t.Errorf("line %d, want %d; en %q, ru %q", se.Line, c.line, se.Text.String(), se.Text.In("ru"))
			}
		})
	}
}

// Load is for message handlers; LoadHandler takes both.
func TestLoadAPIHandler(t *testing.T) {
	f, err := sandbox.Parse(apiFile("\treturn handlers.APIResponse{Status: 400}"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.Load(f); err == nil || !strings.Contains(err.Error(), "API handler") {
		t.Errorf("Load of an API handler's file: %v", err)
	}
	info, err := sandbox.LoadHandler(f)
	if err != nil || info.API == nil || info.Handle != nil {
		t.Fatalf("LoadHandler: %v, API set %v, Handle set %v", err, info.API != nil, info.Handle != nil)
	}
}

// An API handler's file runs in the child on a script of requests: the
// starter replays the first payment's answer for a request with another
// amount (a silent conflict), the solution refuses it.
func TestRunsAnAPIHandlerFile(t *testing.T) {
	presets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	p, err := sim.FindPreset(presets, "api-reused-key")
	if err != nil {
		t.Fatal(err)
	}
	r := runner(sandbox.Limits{})
	for _, c := range []struct {
		file string
		want sim.Verdict
	}{{"starter.go", sim.SilentConflict}, {"solution.go", sim.OK}} {
		resp, err := r.Run(context.Background(), sandbox.Request{Op: "run", Name: "yours", Code: apiExercise(t, c.file), Script: p.Source})
		if err != nil || resp.Error != nil {
			t.Fatalf("%s: %v %+v", c.file, err, resp)
		}
		res := resp.Run.Unwire()
		if res.Handler != "yours" || res.Verdict != c.want {
			t.Errorf("%s: got %s %s (%s), want %s", c.file, res.Handler, res.Verdict, res.Reason, c.want)
		}
	}
}

// The exercise grades in the child as the practice page asks: the starter
// fails on api-reused-key and the search's silent conflict, the solution
// passes.
func TestGradesAnAPIExercise(t *testing.T) {
	ex := sandbox.Exercise{Presets: []string{"api-lost-response", "api-reused-key", "api-key-expired", "api-missing-key"},
		Forbid: []sim.Verdict{sim.SilentConflict, sim.WrongStatus}, Depth: 2}
	r := runner(sandbox.Limits{})
	for _, c := range []struct {
		file string
		pass bool
	}{{"starter.go", false}, {"solution.go", true}} {
		resp, err := r.Run(context.Background(), sandbox.Request{Op: "grade", Name: "yours", Code: apiExercise(t, c.file), Exercise: ex})
		if err != nil || resp.Error != nil || resp.Grade == nil {
			t.Fatalf("%s: %v %+v", c.file, err, resp)
		}
		g := resp.Grade
		if g.Pass != c.pass || len(g.Presets) != len(ex.Presets) {
			t.Errorf("%s: pass %v, want %v: %+v", c.file, g.Pass, c.pass, g)
		}
		if !c.pass {
			if g.Presets[1].Verdict != sim.SilentConflict || g.Failure == nil || g.Failure.Verdict != sim.SilentConflict {
				t.Errorf("the starter's grade: %+v, failure %+v", g.Presets, g.Failure)
			}
		}
	}
}

// A message handler's file handed to an API exercise is told which shape
// the exercise needs.
func TestGradeOtherSide(t *testing.T) {
	resp, err := runner(sandbox.Limits{}).Run(context.Background(), sandbox.Request{Op: "grade", Name: "yours", Code: file("", naiveBody),
		Exercise: sandbox.Exercise{Presets: []string{"api-reused-key"}, Depth: 1}})
	if err != nil || resp.Error == nil || !strings.Contains(resp.Error.Text.String(), sandbox.APIShape) {
		t.Errorf("%v %+v", err, resp)
	}
}

// const Absolute = true marks a handler that writes the balance a message
// states; anything but true or false is refused with its line.
func TestParseAbsolute(t *testing.T) {
	head := "package handler\n\nimport (\n\t\"context\"\n\n\t\"github.com/idempotency-lab/lab/handlers\"\n)\n\n"
	body := "func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error { return nil }\n"
	for src, want := range map[string]bool{
		head + body: false,
		head + "const Absolute = true\n\n" + body:  true,
		head + "const Absolute = false\n\n" + body: false,
	} {
		f, err := sandbox.Parse(src)
		if err != nil || f.Absolute != want {
			t.Errorf("%v, Absolute %v, want %v:\n%s", err, f != nil && f.Absolute, want, src)
		}
	}
	_, err := sandbox.Parse(head + "const Absolute = 1\n\n" + body)
	se, ok := err.(*sandbox.Error)
	if !ok || se.Line != 9 || !strings.Contains(se.Text.String(), "Absolute must be true or false") || se.Text.In("ru") == se.Text.String() {
		t.Errorf("const Absolute = 1: %v", err)
	}
	if f, err := sandbox.Parse(mustRead(t, "../practice/_exercises/version-guard/solution.go")); err != nil || !f.Absolute {
		t.Errorf("the version-guard exercise is not absolute: %v", err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
