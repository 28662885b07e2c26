package practice

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/sim"
)

// codeQuestion is a coding exercise of the bank.
func codeQuestion(tb testing.TB, b *Bank) Question {
	tb.Helper()
	for _, q := range b.Questions() {
		if q.Kind == KindCode {
			return q
		}
	}
	tb.Fatal("the bank has no coding exercise")
	return Question{}
}

// failedOutcome is what the checks might find on a wrong file.
func failedOutcome(code string) CodeOutcome {
	return CodeOutcome{Code: code, Explored: 42,
		Presets: []PresetResult{{Preset: "crash-before-ack", Verdict: sim.Duplicate, Settled: 20000, Expected: 10000, Reason: "twice"}},
		Failure: &CodeFailure{Verdict: sim.Duplicate, Script: "publish a\ndeliver\n", Steps: 2, Settled: 20000, Expected: 10000,
			LabURL: "/lab?code=1xyz"}}
}

// testCodeGrades is the kept grades' contract, on either store: a grade is
// kept per profile, exercise and file, shown without grading again, and
// saved once with one try; the same file saved again counts nothing.
func testCodeGrades(t *testing.T, s *Store, b *Bank) {
	ctx := context.Background()
	q := codeQuestion(t, b)
	alice, bob := NewProfileID(), NewProfileID()
	wrong, right := q.Code.Starter(), q.Code.Solution()

	if _, ok, err := s.KeptCodeGrade(ctx, alice, q.ID, wrong); ok || err != nil {
		t.Fatalf("a grade kept before any was saved: %v %v", ok, err)
	}
	g, err := b.GradeCode(q.ID, failedOutcome(wrong))
	if err != nil {
		t.Fatal(err)
	}
	kept, counted, err := s.SaveCodeGrade(ctx, alice, g, day)
	if err != nil || !counted || !reflect.DeepEqual(kept, g) {
		t.Fatalf("first save: counted %v, %v\n got %+v\nwant %+v", counted, err, kept, g)
	}
	got, ok, err := s.KeptCodeGrade(ctx, alice, q.ID, wrong)
	if err != nil || !ok || !reflect.DeepEqual(got, g) || !reflect.DeepEqual(*got.Code, *g.Code) {
		t.Fatalf("kept grade: %v %v\n got %+v\nwant %+v", ok, err, got.Code, g.Code)
	}
	// The same file again, graded differently (it cannot be, but the
	// store must not care): the first grade stands and no try counts.
	again, err := b.GradeCode(q.ID, CodeOutcome{Code: wrong, Pass: true})
	if err != nil {
		t.Fatal(err)
	}
	kept, counted, err = s.SaveCodeGrade(ctx, alice, again, day.Add(time.Minute))
	if err != nil || counted || kept.Score != 0 || kept.Code.Failure == nil {
		t.Errorf("the same file again: counted %v, score %v, %v", counted, kept.Score, err)
	}
	// Another file is another try; an error's words come back in both
	// languages.
	broken, _ := b.GradeCode(q.ID, CodeOutcome{Code: wrong + "\n// x\n", ErrorLine: 3,
		Error: Text{EN: "undefined: x", RU: "не определено: x"}})
	if _, counted, err := s.SaveCodeGrade(ctx, alice, broken, day.Add(2*time.Minute)); err != nil || !counted {
		t.Fatalf("another file: counted %v, %v", counted, err)
	}
	if got, ok, _ := s.KeptCodeGrade(ctx, alice, q.ID, wrong+"\n// x\n"); !ok || got.Code.Error.RU != "не определено: x" || got.Code.ErrorLine != 3 {
		t.Errorf("the error's grade: %+v", got.Code)
	}
	pass, _ := b.GradeCode(q.ID, CodeOutcome{Code: right, Pass: true, Explored: 7})
	if _, counted, err := s.SaveCodeGrade(ctx, alice, pass, day.Add(3*time.Minute)); err != nil || !counted {
		t.Fatalf("the solution: counted %v, %v", counted, err)
	}
	as := mustAttempts(t, s, alice)
	if len(as) != 3 {
		t.Fatalf("%d attempts, want 3 (one per file): %+v", len(as), as)
	}
	for i, want := range []float64{0, 0, 1} {
		if as[i].Question != q.ID || as[i].Score != want {
			t.Errorf("attempt %d: %+v, want score %v", i, as[i], want)
		}
	}
	// Grades are the profile's own.
	if _, ok, err := s.KeptCodeGrade(ctx, bob, q.ID, right); ok || err != nil {
		t.Errorf("bob sees alice's grade: %v %v", ok, err)
	}
	if _, ok, err := s.KeptCodeGrade(ctx, alice, q.ID, right+" "); ok || err != nil {
		t.Errorf("a different file has the grade: %v %v", ok, err)
	}

	// Two saves of the same file at once count one try.
	carol := NewProfileID()
	var wg sync.WaitGroup
	counts := make([]bool, 4)
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, c, err := s.SaveCodeGrade(ctx, carol, pass, day.Add(time.Duration(i)*time.Second))
			if err != nil {
				t.Error(err)
			}
			counts[i] = c
		}()
	}
	wg.Wait()
	n := 0
	for _, c := range counts {
		if c {
			n++
		}
	}
	if n != 1 || len(mustAttempts(t, s, carol)) != 1 {
		t.Errorf("four saves at once: %d counted, %d attempts; want 1 and 1", n, len(mustAttempts(t, s, carol)))
	}

	// What is refused writes nothing.
	choice := findKind(t, b, KindChoice)
	for _, bad := range []struct {
		profile string
		g       Grade
		want    error
	}{
		{"nope", pass, ErrBadProfile},
		{alice, Grade{Question: choice.ID, Kind: KindChoice, Score: 1}, ErrBadCodeGrade},
		{alice, Grade{Question: "no-such", Kind: KindCode, Code: &CodeOutcome{}}, ErrUnknownQuestion},
	} {
		if _, _, err := s.SaveCodeGrade(ctx, bad.profile, bad.g, day); !errors.Is(err, bad.want) {
			t.Errorf("%s %s: %v, want %v", bad.profile, bad.g.Question, err, bad.want)
		}
	}
	if _, _, err := s.KeptCodeGrade(ctx, alice, choice.ID, right); !errors.Is(err, ErrWrongKind) {
		t.Errorf("a kept grade of a choice question: %v", err)
	}
	if len(mustAttempts(t, s, alice)) != 3 {
		t.Error("a refused save was recorded")
	}
}

func findKind(tb testing.TB, b *Bank, k Kind) Question {
	tb.Helper()
	for _, q := range b.Questions() {
		if q.Kind == k {
			return q
		}
	}
	tb.Fatalf("no %s question", k)
	return Question{}
}

func TestCodeGrades(t *testing.T) {
	b := mustLoad(t)
	testCodeGrades(t, mustOpen(t, filepath.Join(t.TempDir(), "progress.db"), b), b)
}

func TestPostgresCodeGrades(t *testing.T) {
	b := mustLoad(t)
	s, _ := pgStore(t, b)
	testCodeGrades(t, s, b)
	testCodeGradesTrim(t, s, b)
}

// TestCodeGradesSurviveRestart: a kept grade is in the file.
func TestCodeGradesSurviveRestart(t *testing.T) {
	b := mustLoad(t)
	path := filepath.Join(t.TempDir(), "progress.db")
	s := mustOpen(t, path, b)
	q := codeQuestion(t, b)
	p := NewProfileID()
	g, _ := b.GradeCode(q.ID, failedOutcome(q.Code.Starter()))
	if _, _, err := s.SaveCodeGrade(context.Background(), p, g, day); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = mustOpen(t, path, b)
	if got, ok, err := s.KeptCodeGrade(context.Background(), p, q.ID, q.Code.Starter()); !ok || err != nil || !reflect.DeepEqual(got, g) {
		t.Errorf("after reopening: %v %v %+v", ok, err, got)
	}
}

func TestCodeGradesTrim(t *testing.T) {
	b := mustLoad(t)
	testCodeGradesTrim(t, mustOpen(t, filepath.Join(t.TempDir(), "progress.db"), b), b)
}

// testCodeGradesTrim: past MaxCodeGrades a profile's oldest grades go,
// and only its own.
func testCodeGradesTrim(t *testing.T, s *Store, b *Bank) {
	ctx := context.Background()
	q := codeQuestion(t, b)
	p, other := NewProfileID(), NewProfileID()
	file := func(i int) string { return fmt.Sprintf("%s\n// %d\n", q.Code.Starter(), i) }
	g, _ := b.GradeCode(q.ID, failedOutcome(file(-1)))
	if _, _, err := s.SaveCodeGrade(ctx, other, g, day); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.SaveCodeGrade(ctx, p, g, day); err != nil { // the profile exists
		t.Fatal(err)
	}
	// The bound's worth of grades, written at once, then one more saved.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxCodeGrades - 1 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO code_grades (profile, question, hash, outcome, graded_at) VALUES (?, ?, ?, '{}', ?)`,
			p, q.ID, CodeHash(file(i)), day.Add(time.Duration(i+1)*time.Second).UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	last, _ := b.GradeCode(q.ID, failedOutcome(file(MaxCodeGrades)))
	if _, counted, err := s.SaveCodeGrade(ctx, p, last, day.Add(time.Hour)); err != nil || !counted {
		t.Fatalf("one past the bound: %v %v", counted, err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM code_grades WHERE profile = ?`, p).Scan(&n); err != nil || n != MaxCodeGrades {
		t.Errorf("%d grades kept (%v), want %d", n, err, MaxCodeGrades)
	}
	for _, c := range []struct {
		profile, file string
		kept          bool
	}{{p, file(-1), false}, {p, file(0), true}, {p, file(MaxCodeGrades), true}, {other, file(-1), true}} {
		if _, ok, err := s.KeptCodeGrade(ctx, c.profile, q.ID, c.file); ok != c.kept || err != nil {
			t.Errorf("%s: kept %v (%v), want %v", c.file[len(c.file)-6:], ok, err, c.kept)
		}
	}
}

// TestPostgresRecordPastTheCap: at MaxAttempts an answer makes room on
// PostgreSQL too (the trimming query once numbered its placeholders, ?1,
// which Rebind turned into $11 there).
func TestPostgresRecordPastTheCap(t *testing.T) {
	b := mustLoad(t)
	ctx := context.Background()
	s, _ := pgStore(t, b)
	qs := questionIDs(b)
	p := NewProfileID()
	start := newClock().now
	file := Export{Profile: p}
	for i := range MaxAttempts {
		file.Attempts = append(file.Attempts, Attempt{ID: NewProfileID(), Question: qs[i%len(qs)], Score: 1,
			At: start.Add(time.Duration(i) * time.Second)})
	}
	data, err := encodeExport(file)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Import(ctx, p, data); err != nil || r.Added != MaxAttempts {
		t.Fatalf("import to the cap: %+v, %v", r, err)
	}
	a := mustRecord(t, s, p, qs[0], 0, start.Add(3*time.Hour))
	as := mustAttempts(t, s, p)
	if len(as) != MaxAttempts || as[len(as)-1] != a || as[0].ID == file.Attempts[0].ID {
		t.Errorf("%d attempts stored, want %d, the oldest superseded one gone and the new one kept", len(as), MaxAttempts)
	}
}
