package practice

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

func TestGradeChoice(t *testing.T) {
	b := mustLoad(t)
	// dup-sources: a, b and c are correct, d is not.
	for _, tc := range []struct {
		name   string
		picked []string
		score  float64
	}{
		{"exact set", []string{"a", "b", "c"}, 1},
		{"exact set, any order, repeats", []string{"c", "a", "b", "a"}, 1},
		{"subset", []string{"a", "b"}, 0},
		{"superset", []string{"a", "b", "c", "d"}, 0},
		{"only the wrong one", []string{"d"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := b.GradeChoice("dup-sources", tc.picked)
			if err != nil {
				t.Fatal(err)
			}
			if g.Score != tc.score || g.Correct() != (tc.score == 1) {
				t.Errorf("score %v, want %v", g.Score, tc.score)
			}
			if len(g.Options) != 4 {
				t.Fatalf("%d options in the feedback, want 4", len(g.Options))
			}
			for _, o := range g.Options {
				if o.Picked != slices.Contains(tc.picked, o.ID) {
					t.Errorf("option %s: picked = %v", o.ID, o.Picked)
				}
				if o.Right() != (o.Picked == o.Correct) {
					t.Errorf("option %s: Right() = %v", o.ID, o.Right())
				}
				if o.Why.EN == "" || o.Why.RU == "" {
					t.Errorf("option %s: no explanation", o.ID)
				}
			}
		})
	}
}

func TestGradeChoiceErrors(t *testing.T) {
	b := mustLoad(t)
	for _, tc := range []struct {
		name   string
		id     string
		picked []string
		want   error
	}{
		{"unknown question", "no-such-question", []string{"a"}, ErrUnknownQuestion},
		{"open question", "unique-payment-webhook", []string{"a"}, ErrWrongKind},
		{"unknown option", "dup-sources", []string{"a", "z"}, ErrBadOption},
		{"option past the end", "dup-sources", []string{"e"}, ErrBadOption},
		{"nothing picked", "dup-sources", nil, ErrBadOption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.GradeChoice(tc.id, tc.picked)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestGradeOpen(t *testing.T) {
	b := mustLoad(t)
	q, _ := b.Question("unique-payment-webhook") // 5 key points
	if len(q.Points) != 5 {
		t.Fatalf("test expects 5 key points, have %d", len(q.Points))
	}
	for _, tc := range []struct {
		ticked []int
		score  float64
	}{
		{nil, 0},
		{[]int{0}, 0.2},
		{[]int{4, 0, 2}, 0.6},
		{[]int{1, 1, 1}, 0.2},
		{[]int{0, 1, 2, 3, 4}, 1},
	} {
		g, err := b.GradeOpen(q.ID, tc.ticked)
		if err != nil {
			t.Fatal(err)
		}
		if g.Score != tc.score {
			t.Errorf("ticked %v: score %v, want %v", tc.ticked, g.Score, tc.score)
		}
		if g.Answer != q.Answer || len(g.Points) != 5 {
			t.Errorf("ticked %v: the model answer and all points must come back", tc.ticked)
		}
		for i, p := range g.Points {
			if p.Ticked != slices.Contains(tc.ticked, i) {
				t.Errorf("ticked %v: point %d Ticked = %v", tc.ticked, i, p.Ticked)
			}
		}
	}
	for _, tc := range []struct {
		name   string
		id     string
		ticked []int
		want   error
	}{
		{"unknown question", "nope", nil, ErrUnknownQuestion},
		{"choice question", "dup-sources", nil, ErrWrongKind},
		{"index too big", q.ID, []int{5}, ErrBadPoint},
		{"negative index", q.ID, []int{-1}, ErrBadPoint},
	} {
		if _, err := b.GradeOpen(tc.id, tc.ticked); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// Predict grading asks the engine; the test asks it too, independently, and
// checks that grading agrees with it.
func TestGradePredict(t *testing.T) {
	b := mustLoad(t)
	const id = "predict-naive-crash-before-ack"
	q, _ := b.Question(id)
	run, err := sim.Execute(context.Background(), script.MustParse(q.Source()), sim.Options{Handlers: []string{"naive"}})
	if err != nil {
		t.Fatal(err)
	}
	want := run.Results[0]
	if want.Verdict != sim.Duplicate || want.Settled != 20000 {
		t.Fatalf("the engine changed its mind about crash-before-ack on naive: %d %s", want.Settled, want.Verdict)
	}
	for _, tc := range []struct {
		name, balance, verdict string
		score                  float64
	}{
		{"both right", "200", "duplicate", 1}, // a person types major units: 200 is 200.00
		{"both right, relaxed spelling", " 200 ₽ ", "Duplicate", 1},
		{"two decimals", "200.00", "duplicate", 1},
		{"decimal comma", "200,00", "DUPLICATE", 1},
		{"currency code", "200 RUB", "duplicate", 1},
		{"balance only", "200", "ok", 0.5},
		{"verdict only", "100", "duplicate", 0.5},
		{"neither", "100.00", "lost", 0},
		{"minor units are not read: 20000 is 20000.00", "20000", "duplicate", 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := b.GradePredict(id, tc.balance, tc.verdict)
			if err != nil {
				t.Fatal(err)
			}
			if g.Score != tc.score {
				t.Errorf("score %v, want %v", g.Score, tc.score)
			}
			o := g.Outcome
			if o.Balance != want.Settled || o.Verdict != want.Verdict || o.Reason != want.Reason || o.Expected != want.Expected {
				t.Errorf("outcome %+v does not show the engine's result %d %s %q", o, want.Settled, want.Verdict, want.Reason)
			}
			if o.BalanceRight != (o.PredictedBalance == want.Settled) || o.VerdictRight != (o.PredictedVerdict == want.Verdict) {
				t.Errorf("right/wrong flags %+v", o)
			}
			if o.LabURL != "/lab?preset=crash-before-ack&handlers=naive" {
				t.Errorf("lab URL %q", o.LabURL)
			}
		})
	}
}

func TestGradePredictInlineScriptLink(t *testing.T) {
	b := mustLoad(t)
	g, err := b.GradePredict("predict-check-then-insert-sequential", "70.00", "ok")
	if err != nil {
		t.Fatal(err)
	}
	if !g.Correct() {
		t.Errorf("sequential duplicate on check-then-insert: %+v", g.Outcome)
	}
	u, err := url.Parse(g.Outcome.LabURL)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(g.Outcome.LabURL, "/lab?script=") || u.Query().Get("handlers") != "check-then-insert" ||
		!strings.Contains(u.Query().Get("script"), "deliver crash=before-ack") {
		t.Errorf("lab URL %q", g.Outcome.LabURL)
	}
}

func TestGradePredictErrors(t *testing.T) {
	b := mustLoad(t)
	for _, tc := range []struct {
		name, id, balance, verdict string
		want                       error
	}{
		{"unknown question", "predict-nothing", "1", "ok", ErrUnknownQuestion},
		{"choice question", "dup-sources", "1", "ok", ErrWrongKind},
		{"letters", "predict-naive-crash-before-ack", "lots", "ok", ErrMalformedBalance},
		{"empty balance", "predict-naive-crash-before-ack", "", "ok", ErrMalformedBalance},
		{"third decimal", "predict-naive-crash-before-ack", "200.005", "ok", ErrMalformedBalance},
		{"thousands comma", "predict-naive-crash-before-ack", "20,000", "ok", ErrMalformedBalance},
		{"negative", "predict-naive-crash-before-ack", "-100", "ok", ErrMalformedBalance},
		{"unknown verdict", "predict-naive-crash-before-ack", "200", "twice", ErrUnknownVerdict},
		{"empty verdict", "predict-naive-crash-before-ack", "200", "", ErrUnknownVerdict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := b.GradePredict(tc.id, tc.balance, tc.verdict); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestParseVerdict(t *testing.T) {
	for in, want := range map[string]sim.Verdict{
		"ok": sim.OK, "OK": sim.OK, " duplicate ": sim.Duplicate, "Lost": sim.Lost, "poison": sim.Poison,
		"silent-conflict": sim.SilentConflict, "silent conflict": sim.SilentConflict, "SILENT_CONFLICT": sim.SilentConflict,
	} {
		got, err := ParseVerdict(in)
		if err != nil || got != want {
			t.Errorf("ParseVerdict(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "fine", "dup", "silentconflict"} {
		if _, err := ParseVerdict(in); !errors.Is(err, ErrUnknownVerdict) {
			t.Errorf("ParseVerdict(%q): err = %v", in, err)
		}
	}
	for _, v := range Verdicts() {
		if l := VerdictLabel(v); !strings.HasPrefix(l.EN, string(v)) || !strings.HasPrefix(l.RU, string(v)) {
			t.Errorf("VerdictLabel(%s) = %+v", v, l)
		}
	}
	// The Russian label names the verdict as the lab's verdict badges do.
	for v, word := range map[sim.Verdict]string{
		sim.OK: "верно", sim.Duplicate: "дубль", sim.Lost: "потеря",
		sim.Poison: "зацикливание", sim.SilentConflict: "тихий конфликт",
	} {
		if l := VerdictLabel(v).RU; !strings.HasPrefix(l, string(v)+" ("+word+"):") {
			t.Errorf("VerdictLabel(%s).RU = %q, want it to start %q", v, l, string(v)+" ("+word+"):")
		}
	}
}

// An API predict offers the API side's verdicts, wrong-status among them,
// and grades it; a message predict refuses wrong-status, naming its
// choices.
func TestAPIPredictVerdicts(t *testing.T) {
	b := mustLoad(t)
	g, err := b.GradePredict("predict-api-naive-missing-key", "100.00", "wrong status")
	if err != nil {
		t.Fatal(err)
	}
	if !g.Correct() || g.Outcome.Verdict != sim.WrongStatus {
		t.Errorf("grade %+v, outcome %+v", g, g.Outcome)
	}
	_, err = b.GradePredict("predict-naive-two-topups", "250.00", "wrong-status")
	if !errors.Is(err, ErrUnknownVerdict) || !strings.Contains(err.Error(), "valid verdicts: ok, duplicate, lost, poison, silent-conflict") {
		t.Errorf("a message predict took wrong-status: %v", err)
	}
}
