package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// lab runs the command line with args and stdin and returns its exit
// status, standard output and standard error.
func lab(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// labOK runs the command line and fails the test unless it exits 0 with
// nothing on standard error.
func labOK(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	code, out, errOut := lab(t, stdin, args...)
	if code != exitOK {
		t.Fatalf("lab %s: exit %d, want 0\nstderr: %s", strings.Join(args, " "), code, errOut)
	}
	if errOut != "" {
		t.Errorf("lab %s: unexpected stderr: %s", strings.Join(args, " "), errOut)
	}
	return out
}

// jsonRun is the part of `lab run --json` output the tests read.
type jsonRun struct {
	Scenario string `json:"scenario"`
	Title    string `json:"title"`
	Steps    int    `json:"steps"`
	Results  []struct {
		Handler  string      `json:"handler"`
		Verdict  string      `json:"verdict"`
		Balance  int64       `json:"balance"`
		Settled  int64       `json:"settled"`
		Expected int64       `json:"expected"`
		Reason   string      `json:"reason"`
		Trace    []sim.Trace `json:"trace"`
	} `json:"results"`
}

func decodeRun(t *testing.T, out string) jsonRun {
	t.Helper()
	var r jsonRun
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return r
}

func verdicts(r jsonRun) map[string]string {
	v := map[string]string{}
	for _, res := range r.Results {
		v[res.Handler] = res.Verdict
	}
	return v
}

func presetNames(t *testing.T) []string {
	t.Helper()
	presets, err := sim.Presets()
	if err != nil {
		t.Fatalf("Presets: %v", err)
	}
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return names
}

func coreNames() []string {
	var names []string
	for _, h := range handlers.List() {
		if h.Core {
			names = append(names, h.Name)
		}
	}
	return names
}

// tableRows reads the result table of `lab run`: the fields of each row
// with nine columns (handler, balance, settled, expected, verdict,
// deliveries, dead-lettered, quarantined, gateway calls), by handler.
func tableRows(out string) map[string][]string {
	rows := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 9 && f[0] != "handler" {
			rows[f[0]] = f
		}
	}
	return rows
}

func TestRunPresetJSON(t *testing.T) {
	for _, args := range [][]string{
		{"run", "crash-before-ack", "--json"},
		{"run", "--json", "crash-before-ack"},
		{"run", "-json", "crash-before-ack", "--handlers=core"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := decodeRun(t, labOK(t, "", args...))
			if r.Scenario != "crash-before-ack" || r.Title != "Crash before the ack" || r.Steps != 4 {
				t.Errorf("scenario %q, title %q, steps %d; want crash-before-ack, Crash before the ack, 4",
					r.Scenario, r.Title, r.Steps)
			}
			want := map[string]string{"naive": "duplicate", "unique": "ok", "setnx": "ok", "statemachine": "ok", "inbox": "ok"}
			if got := verdicts(r); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("verdicts = %v, want %v", got, want)
			}
			for i, res := range r.Results {
				if res.Handler != coreNames()[i] {
					t.Errorf("result %d is %s, want %s (core handlers in order)", i, res.Handler, coreNames()[i])
				}
				if len(res.Trace) != 4 {
					t.Errorf("%s: %d trace steps, want 4", res.Handler, len(res.Trace))
				}
				if res.Expected != 10000 || res.Reason == "" {
					t.Errorf("%s: expected %d, reason %q", res.Handler, res.Expected, res.Reason)
				}
			}
			if !strings.HasPrefix(labOK(t, "", args...), "{\n  \"scenario\"") {
				t.Error("JSON output is not indented")
			}
		})
	}
}

func TestRunPresetTable(t *testing.T) {
	out := labOK(t, "", "run", "crash-before-ack")
	lines := strings.Split(out, "\n")
	if lines[0] != "Crash before the ack (crash-before-ack): 4 steps" {
		t.Errorf("first line = %q", lines[0])
	}
	for _, col := range []string{"handler", "balance", "settled", "expected", "verdict", "deliveries", "dead-lettered", "quarantined", "gateway calls"} {
		if !strings.Contains(lines[2], col) {
			t.Errorf("header line %q lacks column %q", lines[2], col)
		}
	}
	for i, l := range lines {
		if strings.TrimRight(l, " \t") != l {
			t.Errorf("line %d ends in spaces: %q", i+1, l)
		}
	}
	rows := tableRows(out)
	for _, h := range coreNames() {
		f, ok := rows[h]
		if !ok {
			t.Errorf("no table row for %s in\n%s", h, out)
			continue
		}
		row := strings.Join(f, " ")
		verdict := "ok"
		if h == "naive" {
			verdict = "duplicate"
		}
		// Major units, as the web shows them.
		if f[4] != verdict || f[3] != "100.00" {
			t.Errorf("%s row %q: want expected 100.00 and verdict %s", h, row, verdict)
		}
		if !strings.Contains(out, "\n"+h+":") {
			t.Errorf("no reason line for %s", h)
		}
	}
	if len(rows) != len(coreNames()) {
		t.Errorf("%d rows, want %d (core handlers only)\n%s", len(rows), len(coreNames()), out)
	}
	if !strings.Contains(out, "credited 20000, expected 10000: 10000 too much") {
		t.Errorf("naive's reason is missing:\n%s", out)
	}
}

func TestRunHandlersFlag(t *testing.T) {
	t.Run("all", func(t *testing.T) {
		r := decodeRun(t, labOK(t, "", "run", "crash-before-ack", "--handlers", "all", "--json"))
		if len(r.Results) != len(handlers.List()) {
			t.Fatalf("%d results, want %d", len(r.Results), len(handlers.List()))
		}
		v := verdicts(r)
		if v["unique-error"] != "poison" || v["naive"] != "duplicate" || v["check-then-insert"] != "ok" {
			t.Errorf("verdicts = %v", v)
		}
	})
	t.Run("all in the table", func(t *testing.T) {
		out := labOK(t, "", "run", "crash-before-ack", "--handlers=all")
		rows := tableRows(out)
		for _, h := range handlers.List() {
			if _, ok := rows[h.Name]; !ok {
				t.Errorf("table lacks %s:\n%s", h.Name, out)
			}
		}
		if f := rows["unique-error"]; len(f) < 7 || f[4] != "poison" || f[6] != "1" {
			t.Errorf("unique-error row = %v, want verdict poison and 1 dead-lettered", f)
		}
		if len(rows) != len(handlers.List()) {
			t.Errorf("%d rows, want %d", len(rows), len(handlers.List()))
		}
	})
	t.Run("a list with spaces, empty items and a repeat", func(t *testing.T) {
		r := decodeRun(t, labOK(t, "", "run", "crash-before-ack", "--json", "--handlers", " naive, ,inbox,naive,"))
		if len(r.Results) != 2 || r.Results[0].Handler != "naive" || r.Results[1].Handler != "inbox" {
			t.Errorf("results = %+v, want naive and inbox", verdicts(r))
		}
	})
	t.Run("core", func(t *testing.T) {
		r := decodeRun(t, labOK(t, "", "run", "happy-path", "--json", "--handlers", "core"))
		if len(r.Results) != len(coreNames()) {
			t.Errorf("%d results, want %d", len(r.Results), len(coreNames()))
		}
	})
}

func TestRunSteps(t *testing.T) {
	r := decodeRun(t, labOK(t, "", "run", "crash-before-ack", "--json", "--steps", "2"))
	if r.Steps != 2 {
		t.Errorf("steps = %d, want 2", r.Steps)
	}
	for _, res := range r.Results {
		if len(res.Trace) != 2 {
			t.Errorf("%s: %d trace steps, want 2", res.Handler, len(res.Trace))
		}
		// After two steps the crashed delivery is in flight; settlement
		// redelivers it, so every handler still settles.
		if res.Settled == 0 {
			t.Errorf("%s: settled 0 after --steps 2", res.Handler)
		}
	}
	if out := labOK(t, "", "run", "crash-before-ack", "--steps=2"); !strings.Contains(out, ": 2 steps\n") {
		t.Errorf("table does not say 2 steps:\n%s", out)
	}
	if r := decodeRun(t, labOK(t, "", "run", "crash-before-ack", "--json", "--steps", "4")); r.Steps != 4 {
		t.Errorf("--steps 4: steps = %d, want all 4", r.Steps)
	}
	if r := decodeRun(t, labOK(t, "", "run", "crash-before-ack", "--json", "--steps", "0")); r.Steps != 4 {
		t.Errorf("--steps 0: steps = %d, want all 4", r.Steps)
	}
}

// TestRunBudget: --budget bounds the deliveries over all handlers; a script
// past it is refused with status 2 and the line where it ran out.
func TestRunBudget(t *testing.T) {
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	p, err := sim.FindPreset(presets, "crash-before-ack")
	if err != nil {
		t.Fatal(err)
	}
	lastDeliver := p.Script.Steps[3].Line // each handler's second delivery
	// 300 deliveries on each handler.
	var many strings.Builder
	for i := range 300 {
		fmt.Fprintf(&many, "publish pay-%d amount=1\n", i)
	}
	many.WriteString("drain\n")
	// unique-error fails every repeat until the DLQ: 20 retries delivered
	// 100 times each are 2000 deliveries, past its share of the default
	// budget (20000 / 12), on line 24.
	loop := "max-deliveries: 100\npublish pay-1 amount=1\ndeliver\n" + strings.Repeat("retry pay-1\n", 20) + "drain\n"
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string // in stderr
	}{
		{"two deliveries for each of five handlers fit in ten", "", []string{"run", "crash-before-ack", "--budget", "10"}, exitOK, ""},
		{"nine leave each handler one", "", []string{"run", "crash-before-ack", "--budget", "9"}, exitUsage,
			fmt.Sprintf("lab run: crash-before-ack: line %d: the run needs more than 9 handler deliveries, the limit for one run; shorten the script", lastDeliver)},
		{"the share counts the chosen handlers", "", []string{"run", "crash-before-ack", "--handlers", "naive", "--budget", "2"}, exitOK, ""},
		{"the settlement counts", "publish pay-1 amount=1\npublish pay-2 amount=1\n", []string{"run", "-", "--handlers", "naive", "--budget", "1"}, exitUsage,
			"lab run: -: settling after the script: the run needs more than 1 handler deliveries"},
		{"the default budget refuses a redelivery loop", loop, []string{"run", "-", "--handlers", "all"}, exitUsage,
			fmt.Sprintf("lab run: -: line 24: the run needs more than %d handler deliveries", sim.DefaultBudget)},
		{"a budget refuses 300 messages", many.String(), []string{"run", "-", "--handlers", "naive,unique", "--budget", "599"}, exitUsage,
			"lab run: -: line 301: the run needs more than 599 handler deliveries"},
		{"a budget of 600 takes 300 messages on two handlers", many.String(), []string{"run", "-", "--handlers", "naive,unique", "--budget", "600"}, exitOK, ""},
		{"a negative budget is no limit", loop, []string{"run", "-", "--handlers", "unique-error", "--budget", "-1", "--json"}, exitOK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := lab(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tc.code, errOut)
			}
			if tc.code != exitOK && out != "" {
				t.Errorf("stdout should be empty when refused, got:\n%s", out)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr does not contain %q:\n%s", tc.want, errOut)
			}
		})
	}
}

const fileScript = `title: From a file
# a comment
publish pay-1 amount=500
deliver crash=before-ack
redeliver
deliver
`

func TestRunScriptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "my.lab")
	if err := os.WriteFile(path, []byte(fileScript), 0o644); err != nil {
		t.Fatal(err)
	}
	r := decodeRun(t, labOK(t, "", "run", path, "--json"))
	if r.Scenario != path || r.Title != "From a file" || r.Steps != 4 {
		t.Errorf("scenario %q title %q steps %d", r.Scenario, r.Title, r.Steps)
	}
	if v := verdicts(r); v["naive"] != "duplicate" || v["inbox"] != "ok" {
		t.Errorf("verdicts = %v", v)
	}
	if out := labOK(t, "", "run", path); !strings.HasPrefix(out, "From a file ("+path+"): 4 steps\n") {
		t.Errorf("table title line: %q", strings.SplitN(out, "\n", 2)[0])
	}
}

func TestRunStdin(t *testing.T) {
	r := decodeRun(t, labOK(t, fileScript, "run", "-", "--json"))
	if r.Scenario != "-" || r.Steps != 4 || verdicts(r)["naive"] != "duplicate" {
		t.Errorf("scenario %q steps %d verdicts %v", r.Scenario, r.Steps, verdicts(r))
	}
	t.Run("untitled script names the scenario by its argument", func(t *testing.T) {
		out := labOK(t, "publish p amount=1\ndeliver\n", "run", "-")
		if !strings.HasPrefix(out, "-: 2 steps\n") {
			t.Errorf("first line %q", strings.SplitN(out, "\n", 2)[0])
		}
	})
	t.Run("empty script", func(t *testing.T) {
		r := decodeRun(t, labOK(t, "", "run", "-", "--json"))
		if r.Steps != 0 || len(r.Results) != len(coreNames()) {
			t.Errorf("steps %d, %d results", r.Steps, len(r.Results))
		}
		for _, res := range r.Results {
			if res.Verdict != "ok" {
				t.Errorf("%s: verdict %s on an empty script", res.Handler, res.Verdict)
			}
		}
	})
}

func TestScenariosAndHandlers(t *testing.T) {
	t.Run("scenarios lists every preset in order with its summary", func(t *testing.T) {
		out := labOK(t, "", "scenarios")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		presets, _ := sim.Presets()
		api, _ := sim.APIPresets()
		presets = append(presets, api...) // the API side's last
		var names []string
		for _, p := range presets {
			names = append(names, p.Name)
		}
		if len(lines) != len(names) {
			t.Fatalf("%d lines, want %d:\n%s", len(lines), len(names), out)
		}
		for i, l := range lines {
			if f := strings.Fields(l); len(f) == 0 || f[0] != names[i] {
				t.Errorf("line %d = %q, want preset %s", i+1, l, names[i])
			}
			if !strings.HasSuffix(l, presets[i].Script.Summary) {
				t.Errorf("line %d = %q lacks the summary", i+1, l)
			}
		}
	})
	t.Run("handlers lists every handler with its kind and summary", func(t *testing.T) {
		out := labOK(t, "", "handlers")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		all := append(handlers.List(), sim.APIHandlers()...)
		if len(lines) != len(all) {
			t.Fatalf("%d lines, want %d:\n%s", len(lines), len(all), out)
		}
		for i, h := range all {
			f := strings.Fields(lines[i])
			kind := "anti-pattern"
			switch {
			case h.API != nil:
				kind = "api"
			case h.Core:
				kind = "core"
			case h.Variant:
				kind = "variant"
			}
			if len(f) < 3 || f[0] != h.Name || f[1] != kind || !strings.HasSuffix(lines[i], h.Summary) {
				t.Errorf("line %d = %q, want %s %s %s", i+1, lines[i], h.Name, kind, h.Summary)
			}
		}
	})
	for _, arg := range []string{"help", "-h", "--help", "-help"} {
		t.Run(arg, func(t *testing.T) {
			out := labOK(t, "", arg)
			if !strings.Contains(out, "Usage:") || !strings.Contains(out, "lab run PRESET|FILE|-") {
				t.Errorf("help output:\n%s", out)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badScript := write("bad.lab", "title: Bad\npublish pay-1 amount=100\n\ndeliver crash=sometime\n")
	bigScript := write("big.lab", "drain\n#"+strings.Repeat("x", script.MaxScriptBytes))
	retryFirst := write("retry.lab", "retry pay-1\n")
	latin1 := write("latin1.lab", "title: Caf\xe9\npublish pay-1 amount=1\n#en: caf\xe9\ndeliver\n")
	missing := filepath.Join(dir, "missing.lab")
	presets := strings.Join(presetNames(t), ", ")
	var allHandlers []string
	for _, h := range handlers.List() {
		allHandlers = append(allHandlers, h.Name)
	}

	tests := []struct {
		name  string
		stdin string
		args  []string
		want  []string // substrings of stderr
	}{
		{"unknown command lists the valid commands", "", []string{"frobnicate"},
			[]string{`lab: unknown command "frobnicate"; valid commands: `, "run, check, conform, bench, scenarios, handlers, help", "Usage:"}},
		{"run without a scenario", "", []string{"run"}, []string{"lab run: want one scenario (a preset name, a script file or -), got 0"}},
		{"run with two scenarios", "", []string{"run", "happy-path", "crash-before-ack"}, []string{"want one scenario", "got 2"}},
		{"run with two scenarios around a flag", "", []string{"run", "happy-path", "--json", "crash-before-ack"}, []string{"got 2"}},
		{"unknown preset lists the valid ones", "", []string{"run", "crash-before-akc"},
			[]string{`lab run: unknown scenario "crash-before-akc"; valid scenarios: ` + presets, "(or give the path of a script file)"}},
		{"missing file says so", "", []string{"run", missing}, []string{"lab run: " + missing + ": the file does not exist"}},
		{"missing .lab file in this folder says so", "", []string{"run", "missing.lab"}, []string{"lab run: missing.lab: the file does not exist"}},
		{"missing file in a folder says so", "", []string{"run", "scripts/crash"}, []string{"lab run: scripts/crash: the file does not exist"}},
		{"unknown handler lists the valid ones", "", []string{"run", "happy-path", "--handlers", "naive,nope"},
			[]string{`lab run: --handlers: unknown handler "nope"; valid handlers: ` + strings.Join(allHandlers, ", ") + " (or core, all)"}},
		{"handler names are case-sensitive", "", []string{"run", "happy-path", "--handlers=Naive"}, []string{`unknown handler "Naive"`}},
		{"all mixed with names is not a keyword", "", []string{"run", "happy-path", "--handlers=all,naive"}, []string{`unknown handler "all"`}},
		{"bad flag", "", []string{"run", "happy-path", "--jsno"}, []string{"flag provided but not defined: -jsno", "-handlers", "-steps"}},
		{"bad flag before the scenario", "", []string{"run", "--verbose", "happy-path"}, []string{"flag provided but not defined: -verbose"}},
		{"flag without its value", "", []string{"run", "happy-path", "--steps"}, []string{"flag needs an argument: -steps"}},
		{"negative steps", "", []string{"run", "happy-path", "--steps", "-1"}, []string{"lab run: --steps -1: must be 0 (all) or more"}},
		{"steps beyond the script", "", []string{"run", "crash-before-ack", "--steps", "5"}, []string{"lab run: --steps 5: crash-before-ack has only 4 steps"}},
		{"steps beyond a script on stdin", "publish p amount=1\n", []string{"run", "-", "--steps", "2"}, []string{"lab run: --steps 2: - has only 1 step"}},
		{"steps on an empty script", "", []string{"run", "-", "--steps", "1"}, []string{"lab run: --steps 1: - has only 0 steps"}},
		{"non-numeric budget", "", []string{"run", "happy-path", "--budget", "lots"}, []string{`invalid value "lots" for flag -budget`}},
		{"non-numeric steps", "", []string{"run", "happy-path", "--steps", "two"}, []string{`invalid value "two" for flag -steps`}},
		{"help flag of run", "", []string{"run", "--help"}, []string{"-handlers", "-json", "-steps", "-budget"}},
		{"script file with an error names the line", "", []string{"run", badScript},
			[]string{"lab run: " + badScript + ": line 4: crash=sometime: unknown crash point", "before-effect, after-effect, before-ack"}},
		{"script file with a retry before publish", "", []string{"run", retryFirst, "--json"},
			[]string{"line 1: retry: operation pay-1", "has not been published yet"}},
		{"script on stdin with an error names the line", "publish pay-1 amount=1.5\n", []string{"run", "-"},
			[]string{"lab run: -: line 1: amount=1.5", "never a fraction"}},
		{"script file not in UTF-8 names the first bad line", "", []string{"run", latin1},
			[]string{"lab run: " + latin1 + ": line 1: not valid UTF-8 text"}},
		{"script on stdin not in UTF-8 names the line", "publish pay-1 amount=1\ndeliver\n# \xff\n", []string{"run", "-"},
			[]string{"lab run: -: line 3: not valid UTF-8 text"}},
		{"script file over 64 KiB", "", []string{"run", bigScript},
			[]string{"larger than the limit of 65536 bytes"}},
		{"script on stdin over 64 KiB", strings.Repeat("# padding\n", script.MaxScriptBytes/10+1), []string{"run", "-"},
			[]string{fmt.Sprintf("the limit of %d bytes", script.MaxScriptBytes)}},
		{"a directory is not a script", "", []string{"run", dir}, []string{"lab run: ", "is a directory"}},
		{"scenarios takes no arguments", "", []string{"scenarios", "extra"}, []string{`lab scenarios: takes no arguments, got "extra"`}},
		{"handlers takes no arguments", "", []string{"handlers", "core", "all"}, []string{`lab handlers: takes no arguments, got "core all"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := lab(t, tc.stdin, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d\nstderr: %s", code, exitUsage, errOut)
			}
			if out != "" {
				t.Errorf("stdout should be empty on a usage error, got:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// TestRunOversizeScript: the CLI reads at most one byte past the limit, so
// the message states the limit, not a size it never measured.
func TestRunOversizeScript(t *testing.T) {
	src := "drain\n#" + strings.Repeat("x", 2*script.MaxScriptBytes)
	path := filepath.Join(t.TempDir(), "huge.lab")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"run", path}, {"run", "-"}} {
		t.Run(args[1], func(t *testing.T) {
			code, _, errOut := lab(t, src, args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(errOut, "larger than the limit of 65536 bytes") {
				t.Errorf("stderr does not name the limit of 65536 bytes: %s", errOut)
			}
		})
	}
}

// A preset's handlers: header adds the handlers its story is about to the
// core ones when --handlers is not given, as the web lab does; an explicit
// --handlers wins.
func TestRunUsesTheScenarioHandlers(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"run", "gateway-failure"}, "setnx-no-release", ""},
		{[]string{"run", "gateway-failure", "--handlers", "core"}, "setnx ", "setnx-no-release"},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), tc.args, strings.NewReader(""), &out, &errOut); code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut.String())
		}
		if !strings.Contains(out.String(), tc.want) || (tc.not != "" && strings.Contains(out.String(), tc.not)) {
			t.Errorf("%v: output lacks %q or has %q:\n%s", tc.args, tc.want, tc.not, out.String())
		}
	}
}

// TestMain makes the test binary a sandbox child when the lab starts one
// (lab run --code), as `lab sandbox-child` is.
func TestMain(m *testing.M) {
	if sandbox.IsChild() {
		os.Exit(sandbox.Child())
	}
	code := m.Run()
	servers.Stop() // the throwaway PostgreSQL and Redis, if a test started them
	os.Exit(code)
}
