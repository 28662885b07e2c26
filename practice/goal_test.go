package practice

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/idempotency-lab/lab/sim"
)

// TestParseGoal reads good goal lines and writes them back canonically.
func TestParseGoal(t *testing.T) {
	for _, tc := range []struct{ in, canonical string }{
		{"handler=naive verdict=duplicate steps<=2", ""},
		{"handler=setnx verdict=duplicate steps<=3 without=crash", ""},
		// Terms in any order; the canonical form puts the handler first,
		// then the conditions, then the limit and what is forbidden.
		{"  steps<=4   dlq>=1 handler=unique-error ", "handler=unique-error dlq>=1 steps<=4"},
		{"handler=inbox settled>expected verdict!=ok without=crash,retry,gateway", ""},
		// No step limit: a goal outside a challenge file may go without.
		{"handler=inbox quarantined=1", ""},
		{"handler=naive balance<10000 deliveries>2 gateway-calls!=0 conflicts<=1 timeouts>=0 dlq=0", ""},
	} {
		g, err := ParseGoal(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		want := tc.canonical
		if want == "" {
			want = tc.in
		}
		if g.String() != want {
			t.Errorf("%q written as %q, want %q", tc.in, g.String(), want)
		}
		if again, err := ParseGoal(g.String()); err != nil || again.String() != g.String() {
			t.Errorf("%q does not read back: %v", g.String(), err)
		}
	}
}

// TestParseGoalErrors: every way a goal line can be wrong, each error
// naming the problem and, where there is a list, the valid choices.
func TestParseGoalErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "   ", "the goal is empty"},
		{"no operator", "handler=naive duplicate", `term "duplicate" has no operator`},
		{"a lone bang", "handler=naive verdict!", `has no operator`},
		{"no value", "handler=naive verdict=", `no value after =`},
		{"unknown term", "handler=naive color=red", `unknown term "color"; valid terms: handler, steps, without, verdict, balance,`},
		{"handler twice", "handler=naive handler=unique verdict=ok", "handler is given twice"},
		{"steps twice", "handler=naive verdict=ok steps<=2 steps<=3", "steps is given twice"},
		{"without twice", "handler=naive verdict=ok without=crash without=retry", "without is given twice"},
		{"handler operator", "handler!=naive verdict=ok", "handler takes =, not !="},
		{"unknown handler", "handler=magic verdict=ok", "handler=magic: unknown handler; valid handlers: naive,"},
		{"steps operator", "handler=naive verdict=ok steps<3", "steps takes <= (steps<=N), not <"},
		{"steps not a number", "handler=naive verdict=ok steps<=two", "steps<=two: not a whole number from 1 to 1000"},
		{"steps zero", "handler=naive verdict=ok steps<=0", "not a whole number from 1"},
		{"without operator", "handler=naive verdict=ok without!=crash", "without takes ="},
		{"without unknown", "handler=naive verdict=ok without=crash,fly", `"fly" is neither crash, fresh-key nor a step; valid: crash, fresh-key, publish, retry,`},
		{"without repeated", "handler=naive verdict=ok without=retry,retry", "retry is listed twice"},
		{"verdict operator", "handler=naive verdict<ok", "verdict takes = or !=, not <"},
		{"unknown verdict", "handler=naive verdict=twice", "unknown verdict; valid verdicts: ok, duplicate, lost, poison, silent-conflict, wrong-status"},
		{"measure value", "handler=naive dlq>=some", `dlq>=some: "some" is neither a whole number from 0 nor a measure; measures: balance, settled,`},
		{"negative value", "handler=naive balance>-1", "neither a whole number from 0"},
		{"no handler", "verdict=duplicate steps<=2", "the goal names no handler; add handler=NAME"},
		// Without a condition the empty script would win.
		{"no condition", "handler=naive steps<=2 without=crash", "no condition on the outcome"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseGoal(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseGoal(%q) = %v, want an error with %q", tc.in, err, tc.want)
			}
		})
	}
}

// TestGoalMet judges results by hand-made figures, so each operator and
// each kind of value is seen both ways.
func TestGoalMet(t *testing.T) {
	r := sim.Result{Verdict: sim.Duplicate, Balance: 10000, Settled: 20000, Expected: 10000, Deliveries: 3, DeadLettered: 1}
	for _, tc := range []struct {
		goal string
		met  bool
	}{
		{"verdict=duplicate", true},
		{"verdict=lost", false},
		{"verdict!=ok", true},
		{"verdict!=duplicate", false},
		{"settled>expected", true},
		{"balance>expected", false}, // the second credit came at settlement
		{"balance=expected", true},
		{"settled<expected", false},
		{"settled<=20000", true},
		{"deliveries<3", false},
		{"deliveries>=3", true},
		{"dlq!=1", false},
		{"dlq=1 verdict=duplicate", true},
		{"dlq=1 verdict=ok", false}, // every condition must hold
		{"quarantined>0", false},
	} {
		g, err := ParseGoal("handler=naive " + tc.goal)
		if err != nil {
			t.Fatal(err)
		}
		if g.Met(r) != tc.met {
			t.Errorf("%s: met %v, want %v", tc.goal, !tc.met, tc.met)
		}
	}
}

const goodChallenge = `topic: duplicates
handlers: [naive, unique]
goal: handler=naive verdict=duplicate steps<=2
solution: "publish pay-1 amount=10000\ndeliver crash=before-ack\n"
title: {en: "Charge twice", ru: "Списать дважды"}
task: {en: "Make naive credit twice.", ru: "Заставьте naive зачислить дважды."}
hint: {en: "Crash before the ack.", ru: "Уроните воркер до ack."}
`

// TestLoadChallengesErrors: every way a challenge file can be wrong; the
// error names the file and the problem.
func TestLoadChallengesErrors(t *testing.T) {
	topics, err := challengeFiles.ReadFile("questions/topics.yaml")
	if err != nil {
		t.Fatal(err)
	}
	with := func(name, text string) fstest.MapFS {
		return fstest.MapFS{"questions/topics.yaml": {Data: topics}, "challenges/" + name: {Data: []byte(text)}}
	}
	swap := func(old, new string) string {
		if !strings.Contains(goodChallenge, old) {
			t.Fatalf("the good file has no %q", old)
		}
		return strings.Replace(goodChallenge, old, new, 1)
	}
	if cs, err := LoadChallenges(with("01-twice.yaml", goodChallenge)); err != nil || len(cs) != 1 || cs[0].ID != "twice" || !cs[0].Won(sim.Result{Verdict: sim.Duplicate}) {
		t.Fatalf("the good file: %+v, %v", cs, err)
	}
	// An API challenge starts from one request, kept in canonical form.
	apiGood := strings.NewReplacer("handler=naive", "handler=api-naive", "[naive, unique]", "[api-naive]",
		`solution: "publish pay-1 amount=10000\ndeliver crash=before-ack\n"`, `solution: "retry pay-1\n"`).Replace(goodChallenge) + "setup: \"request   pay-1 amount=100\\n\"\n"
	if cs, err := LoadChallenges(with("01-api.yaml", apiGood)); err != nil || len(cs) != 1 || !cs[0].API || cs[0].Setup != mustParse(t, "request pay-1 amount=100\n").String() {
		t.Fatalf("the good API file: %+v, %v", cs, err)
	}
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"no topics file", fstest.MapFS{"challenges/01-a.yaml": {Data: []byte(goodChallenge)}}, "questions/topics.yaml"},
		{"no challenge files", fstest.MapFS{"questions/topics.yaml": {Data: topics}}, "no challenge files"},
		{"file name without a number", with("twice.yaml", goodChallenge), "challenges/twice.yaml: name the file NN-ID.yaml"},
		{"file name with a bad id", with("01-Twice.yaml", goodChallenge), "name the file NN-ID.yaml"},
		{"empty file", with("01-a.yaml", ""), "challenges/01-a.yaml: the file is empty"},
		{"not yaml", with("01-a.yaml", "topic: [\n"), "challenges/01-a.yaml: yaml:"},
		{"unknown field", with("01-a.yaml", goodChallenge+"won: always\n"), "field won not found"},
		{"unknown topic", with("01-a.yaml", swap("topic: duplicates", "topic: magic")), `topic "magic" is not a lesson; valid topics: duplicates, keys,`},
		{"bad goal", with("01-a.yaml", swap("verdict=duplicate", "verdict=twice")), "goal: verdict=twice: unknown verdict"},
		{"no step limit", with("01-a.yaml", swap(" steps<=2", "")), "goal: a challenge needs a step limit"},
		{"title in one language", with("01-a.yaml", swap(`ru: "Списать дважды"`, `ru: ""`)), "title needs both en and ru"},
		{"task missing", with("01-a.yaml", swap("task:", "taskless: 1\nx:")), "field taskless not found"},
		{"hint in one language", with("01-a.yaml", swap(`ru: "Уроните воркер до ack."`, `ru: " "`)), "hint needs both en and ru"},
		{"no handlers", with("01-a.yaml", swap("handlers: [naive, unique]", "handlers: []")), "the goal's handler naive first"},
		{"goal's handler not first", with("01-a.yaml", swap("[naive, unique]", "[unique, naive]")), "the goal's handler naive first"},
		{"unknown card", with("01-a.yaml", swap("[naive, unique]", "[naive, magic]")), `handlers: unknown handler "magic"; valid handlers:`},
		{"card twice", with("01-a.yaml", swap("[naive, unique]", "[naive, naive]")), "handlers: naive is listed twice"},
		{"no solution", with("01-a.yaml", swap(`solution: "publish pay-1 amount=10000\ndeliver crash=before-ack\n"`, "")), "solution: a challenge needs one"},
		{"solution does not parse", with("01-a.yaml", swap("deliver crash=before-ack", "deliver crash=never")), "solution (after the setup): line 2"},
		{"solution of header lines only", with("01-a.yaml", swap(`"publish pay-1 amount=10000\ndeliver crash=before-ack\n"`, `"inbox-retention: 1h\n"`)), "solution: it has no steps"},
		{"setup does not parse", with("01-a.yaml", goodChallenge+"setup: \"inbox-retention: soon\\n\"\n"), "setup: line 1"},
		{"setup with steps", with("01-a.yaml", goodChallenge+"setup: \"drain\\n\"\n"), "setup: only header lines"},
		// On the API side a setup may send one request (the side is told
		// by a script's steps), and nothing more.
		{"API setup with a retry too", with("01-a.yaml", strings.NewReplacer("handler=naive", "handler=api-naive", "[naive, unique]", "[api-naive]").Replace(goodChallenge)+"setup: \"request pay-1 amount=100\\nretry pay-1\\n\"\n"), "setup: on the API side, header lines and one request"},
		{"API setup starting with request-concurrent", with("01-a.yaml", strings.NewReplacer("handler=naive", "handler=api-naive", "[naive, unique]", "[api-naive]").Replace(goodChallenge)+"setup: \"request-concurrent pay-1 amount=100\\n\"\n"), "setup: on the API side, header lines and one request"},
		{"API setup using every step", with("01-a.yaml", strings.Replace(strings.NewReplacer("handler=naive", "handler=api-naive", "[naive, unique]", "[api-naive]").Replace(goodChallenge), "steps<=2", "steps<=1", 1)+"setup: \"request pay-1 amount=100\\n\"\n"), "steps<=1 leaves none to the person; allow at least 2"},
		{"a message handler on the API side", with("01-a.yaml", goodChallenge+"setup: \"request pay-1 amount=100\\n\"\n"), "goal: handler naive:"},
		{"an API handler on the broker side", with("01-a.yaml", strings.NewReplacer("handler=naive", "handler=api-naive", "[naive, unique]", "[api-naive]").Replace(goodChallenge)), "goal: handler api-naive:"},
		{"an id twice", fstest.MapFS{"questions/topics.yaml": {Data: topics},
			"challenges/01-twice.yaml": {Data: []byte(goodChallenge)}, "challenges/02-twice.yaml": {Data: []byte(goodChallenge)}},
			"challenges/02-twice.yaml: challenge id twice is used by an earlier file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadChallenges(tc.fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one with %q", err, tc.want)
			}
		})
	}
}

// TestChallengeFiles: the embedded files load, every goal line is in its
// canonical form (so the files read as the lab would write them), and a
// setup keeps to the broker side's settings it names.
func TestChallengeFiles(t *testing.T) {
	cs, err := LoadChallenges(challengeFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(Challenges()) {
		t.Fatalf("%d loaded, %d listed", len(cs), len(Challenges()))
	}
	for _, c := range cs {
		b, err := challengeFiles.ReadFile("challenges/" + challengeFileName(t, c.ID))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "\ngoal: "+c.Rules.String()+"\n") {
			t.Errorf("%s: the goal line is not canonical; write %q", c.ID, c.Rules.String())
		}
	}
}

func challengeFileName(t *testing.T, id string) string {
	t.Helper()
	ents, err := challengeFiles.ReadDir("challenges")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), "-"+id+".yaml") && len(e.Name()) == len(id)+len("NN-.yaml") {
			return e.Name()
		}
	}
	t.Fatalf("no file for %s", id)
	return ""
}

// FuzzParseGoal: any line is a goal or an error, never a panic, and a goal
// reads back from its canonical form to the same form.
func FuzzParseGoal(f *testing.F) {
	for _, s := range []string{"handler=naive verdict=duplicate steps<=2", "handler=inbox settled>expected without=crash,fresh-key", "verdict!", "steps<=<=", "=", "dlq>=dlq handler=unique"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		g, err := ParseGoal(line)
		if err != nil {
			return
		}
		again, err := ParseGoal(g.String())
		if err != nil || again.String() != g.String() {
			t.Fatalf("%q -> %q does not read back: %v", line, g.String(), err)
		}
	})
}
