package sandbox_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// A file keeps no state outside the database and Redis: its
// package-level variables start anew for every delivery (each is a worker
// process of its own, which may die), the imported packages' variables
// cannot be changed, and a crash cannot be recovered.

// mapDedup remembers the keys it credited in a package-level map: no
// table, no transaction. Within one process it would look idempotent.
const mapDedup = `package handler

import (
	"context"

	"github.com/idempotency-lab/lab/handlers"
)

var seen = map[string]bool{}

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	if seen[m.Key] {
		d.Log("seen %s before: skipped", m.Key)
		return nil
	}
	if _, err := d.DB.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account); err != nil {
		return err
	}
	seen[m.Key] = true
	return nil
}
`

// load parses and interprets a file in this process, as labtest does.
func load(t *testing.T, src, name string) handlers.Info {
	t.Helper()
	f, err := sandbox.Parse(src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	info, err := sandbox.LoadHandler(f)
	if err != nil {
		t.Fatalf("LoadHandler: %v", err)
	}
	info.Name = name
	return info
}

// execute runs a script on a handler in this process.
func execute(t *testing.T, h handlers.Info, src string) sim.Result {
	t.Helper()
	sc, err := script.Parse(src)
	if err != nil {
		t.Fatalf("script.Parse: %v", err)
	}
	run, err := sim.Execute(context.Background(), sc, sim.Options{Custom: []handlers.Info{h}})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return run.Results[0]
}

func logged(r sim.Result, part string) bool {
	for _, tr := range append(r.Trace, r.Settlement) {
		for _, e := range tr.Events {
			if e.Kind == sim.KindLog && strings.Contains(e.Text, part) {
				return true
			}
		}
	}
	return false
}

// The map is empty at every delivery, in this process as in a child of
// its own (lab run): the verdict of a script does not depend on what ran
// before it, and it is naive's.
func TestPackageStateDiesWithTheWorker(t *testing.T) {
	cases := []struct {
		name, script string
		want         sim.Verdict
	}{
		// The redelivery after the crash goes to a new worker process,
		// whose map is empty: it credits again.
		{"crash before the ack", "publish a amount=100\ndeliver crash=before-ack\n", sim.Duplicate},
		// A producer's retry is a second message: the worker that takes
		// it has not seen the first.
		{"producer retry", "publish a amount=100\nretry a\ndeliver\ndeliver\n", sim.Duplicate},
		// One delivery: nothing to remember, and the credit is right.
		{"one delivery", "publish a amount=100\ndeliver\n", sim.OK},
	}
	h := load(t, mapDedup, "map-dedup")
	if h.Fresh == nil {
		t.Fatal("a file with a package-level variable has no Info.Fresh")
	}
	r := runner(sandbox.Limits{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Twice in this process, the same key each time: the second
			// run must not find the first one's map.
			for i := range 2 {
				if got := execute(t, h, c.script); got.Verdict != c.want || logged(got, "seen") {
					t.Errorf("run %d in this process: %s (%s), want %s with no key seen before", i+1, got.Verdict, got.Reason, c.want)
				}
			}
			resp, err := r.Run(context.Background(), sandbox.Request{Op: "run", Name: "map-dedup", Code: mapDedup, Script: c.script})
			if err != nil || resp.Error != nil {
				t.Fatalf("%v %+v", err, resp)
			}
			if got := resp.Run.Unwire(); got.Verdict != c.want {
				t.Errorf("in a child (lab run): %s, want %s", got.Verdict, c.want)
			}
		})
	}
}

// The checker finds the map's failures, and each story it reports replays
// to the same verdict: no script depends on what an earlier one left.
func TestCheckerStoriesOfAStatefulFileReplay(t *testing.T) {
	h := load(t, mapDedup, "map-dedup")
	rep, err := check.CheckHandler(context.Background(), h, check.Options{Depth: 2, Runs: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() {
		t.Fatal("the checker found no failure of a handler that keeps its keys in memory")
	}
	duplicate := false
	for _, f := range rep.Failures {
		duplicate = duplicate || (f.Verdict == sim.Duplicate && f.Steps <= 2)
		if got := execute(t, h, f.Script); got.Verdict != f.Verdict {
			t.Errorf("the story of %s replays as %s:\n%s", f.Verdict, got.Verdict, f.Script)
		}
	}
	if !duplicate {
		t.Errorf("no duplicate in two steps (publish, a crash before the ack) among %+v", rep.Failures)
	}
}

// Parse refuses a file that changes an imported package's variable, a
// global of the process every run shares.
func TestImportedVariablesAreRefused(t *testing.T) {
	cases := []struct {
		name, imports, body string
		refused             string // "" when the file is fine
	}{
		{"assigning strconv.ErrRange", "\t\"errors\"\n\t\"strconv\"", "\tstrconv.ErrRange = errors.New(m.Key)\n\treturn nil", "strconv.ErrRange is a variable of package strconv"},
		{"assigning sql.ErrNoRows", "\t\"database/sql\"", "\tsql.ErrNoRows = nil\n\treturn nil", "sql.ErrNoRows is a variable"},
		{"its address", "\t\"strconv\"", "\tp := &strconv.ErrSyntax\n\t_ = p\n\treturn nil", "strconv.ErrSyntax is a variable"},
		// The variable is a pointer: what it points to is as shared.
		{"through the pointer", "\t\"time\"", "\t*time.UTC = *time.FixedZone(m.Key, 0)\n\treturn nil", "time.UTC is a variable"},
		{"under another name", "\tconv \"strconv\"", "\tconv.ErrRange = nil\n\treturn nil", "conv.ErrRange is a variable of package conv"},
		{"as a range variable", "\t\"context\"\n\t\"errors\"", "\tfor _, context.Canceled = range []error{errors.New(m.Key)} {\n\t}\n\treturn nil", "context.Canceled is a variable"},
		{"errors.ErrUnsupported in a pair", "\t\"errors\"", "\tvar x int\n\tx, errors.ErrUnsupported = 1, nil\n\t_ = x\n\treturn nil", "errors.ErrUnsupported is a variable"},
		// Reading one is what handlers do.
		{"comparing with one", "\t\"database/sql\"\n\t\"errors\"", "\tvar err error\n\tif errors.Is(err, sql.ErrNoRows) {\n\t\treturn err\n\t}\n\treturn nil", ""},
		// A local variable of the same name is the file's own.
		{"a local of the same name", "", "\tErrRange := m.Key\n\tErrRange = \"x\"\n\t_ = ErrRange\n\treturn nil", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := sandbox.Parse(file(c.imports, c.body))
			var e *sandbox.Error
			switch {
			case c.refused == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.refused == "":
			case !errors.As(err, &e) || !strings.Contains(e.Text.String(), c.refused) || e.Line == 0:
				t.Errorf("got %v, want a refusal on its line naming %q", err, c.refused)
			case !strings.Contains(e.Text.In("ru"), "переменная пакета"):
				t.Errorf("no Russian message: %q", e.Text.In("ru"))
			}
		})
	}
}

// The second wall, for a file Parse did not see: each interpreter has
// its own copy of every imported variable, holding the original value.
// What one stores there, the next interpreter does not see, and the
// process's own variable keeps its value.
func TestImportedVariablesAreTheInterpretersOwn(t *testing.T) {
	const src = `package handler

import (
	"context"
	"errors"
	"strconv"

	"github.com/idempotency-lab/lab/handlers"
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	_, err := strconv.Atoi("99999999999999999999")
	d.Log("before: %v, the original: %v", strconv.ErrRange, errors.Is(err, strconv.ErrRange))
	strconv.ErrRange = errors.New("stored " + m.Key)
	_, err = d.DB.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account)
	return err
}
`
	original := strconv.ErrRange
	for i := range 2 {
		// Parse would refuse the file: it is loaded as it stands.
		info, err := sandbox.LoadHandler(&sandbox.File{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		info.Name = "stores"
		res := execute(t, info, "publish a amount=100\ndeliver\n")
		if !logged(res, "before: value out of range, the original: true") || logged(res, "stored") {
			t.Errorf("interpreter %d saw another's value, or lost the original's identity: %v", i+1, res.Trace[1].Events)
		}
	}
	if strconv.ErrRange != original {
		t.Errorf("the process's strconv.ErrRange changed to %v", strconv.ErrRange)
	}
}

// A handler that recovers in a defer cannot see its crash: recover()
// returns nil, the worker is dead all the same, and the run is the one of
// the same handler without the defer.
func TestAFileCannotRecoverItsCrash(t *testing.T) {
	const body = `	d.Point(handlers.BeforeEffect)
	_, err := d.DB.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account)
	if err != nil {
		return err
	}
	d.Point(handlers.AfterEffect)
	return nil`
	const recovers = `	defer func() {
		if r := recover(); r != nil {
			d.Log("recovered %v", r)
		}
		d.Log("deferred")
	}()
`
	cases := []struct {
		name, script string
		want         sim.Verdict
	}{
		// Dead before the credit: the redelivery credits once.
		{"before the effect", "publish a amount=100\ndeliver crash=before-effect\n", sim.OK},
		// Dead after it: naive's redelivery credits twice.
		{"after the effect", "publish a amount=100\ndeliver crash=after-effect\n", sim.Duplicate},
	}
	r := runner(sandbox.Limits{Timeout: time.Minute})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var verdicts []sim.Verdict
			for _, code := range []string{file("", body), file("", recovers+body)} {
				resp, err := r.Run(context.Background(), sandbox.Request{Op: "run", Name: "yours", Code: code, Script: c.script})
				if err != nil || resp.Error != nil {
					t.Fatalf("%v %+v", err, resp)
				}
				res := resp.Run.Unwire()
				if logged(res, "recovered") || !res.Trace[1].Crashed {
					t.Errorf("the handler saw its crash, or the worker did not die: %v", res.Trace[1].Events)
				}
				verdicts = append(verdicts, res.Verdict)
			}
			if verdicts[0] != c.want || verdicts[1] != c.want {
				t.Errorf("verdicts %v (without and with the recover), want %s", verdicts, c.want)
			}
		})
	}
}

// Parse refuses a write through a pointer: the way left to change a
// value every run shares (time.UTC, reached from the clock's time).
func TestPointerWritesAreRefused(t *testing.T) {
	for _, c := range []struct{ name, imports, body string }{
		{"the clock's location", "\t\"time\"", "\t*d.Now().Location() = *time.FixedZone(m.Key, 0)\n\treturn nil"},
		{"through a local", "\t\"time\"", "\tp := d.Now().Location()\n\t*p = *time.FixedZone(m.Key, 0)\n\treturn nil"},
		{"an increment", "", "\tn := 1\n\tp := &n\n\t*p++\n\treturn nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := sandbox.Parse(file(c.imports, c.body))
			var e *sandbox.Error
			if !errors.As(err, &e) || !strings.Contains(e.Text.String(), "writing through a pointer") || e.Line == 0 || e.Text.In("ru") == "" {
				t.Errorf("got %v, want the refusal on its line", err)
			}
		})
	}
}

// A file whose package-level variables are only sentinels (errors and
// Redis scripts made from constants, never written) shares one
// interpreter: the checker keeps its speed. Any other variable, or a
// sentinel the file writes, makes the file fresh for every delivery.
func TestSentinelsShareAnInterpreter(t *testing.T) {
	for _, c := range []struct {
		name, decl string
		fresh      bool
	}{
		{"error sentinels", "var (\n\terrBusy = errors.New(\"busy\")\n\terrLate = fmt.Errorf(\"late: %w\", errBusy)\n)\n", false},
		{"a map", "var seen = map[string]bool{}\n", true},
		{"a counter", "var n int\n", true},
		// A sentinel the file assigns is a variable like any other.
		{"a sentinel written", "var errBusy = errors.New(\"busy\")\n\nfunc reset() { errBusy = errors.New(\"again\") }\n", true},
		// An error made from a run's own value is not a constant.
		{"an error from a call", "var errAt = errors.New(fmt.Sprint(1))\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "package handler\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\n\t\"github.com/idempotency-lab/lab/handlers\"\n)\n\n" + c.decl +
				"\nfunc Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {\n\t_ = errors.New\n\t_ = fmt.Sprint\n\treturn nil\n}\n"
			f, err := sandbox.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			info, err := sandbox.LoadHandler(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Fresh != nil; got != c.fresh {
				t.Errorf("fresh per delivery: %v, want %v", got, c.fresh)
			}
		})
	}
}
