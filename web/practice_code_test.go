package web

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web/practicepage"
)

// codePracticeServer is the practice pages with a sandbox (this test
// binary as its children).
func codePracticeServer(t *testing.T) (http.Handler, *practice.Bank) {
	t.Helper()
	bank, store := openProgress(t, "")
	h, err := NewServer(Config{Practice: store, Bank: bank, Now: newTestClock().Now,
		Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	if err != nil {
		t.Fatal(err)
	}
	return h, bank
}

// TestCodeExercise is a candidate on a coding exercise: the editor opens
// with the starter; the starter fails with the story the search found and
// a link that opens it in the lab with the file; the model solution stays
// hidden until a pass or a third try; the solution passes; and the
// result's address shows the same grade again.
func TestCodeExercise(t *testing.T) {
	h, bank := codePracticeServer(t)
	q, ok := bank.Question("code-crash-before-ack")
	if !ok {
		t.Fatal("no exercise code-crash-before-ack")
	}
	v := newVisitor(t, h)
	ask := v.get("/practice/q/" + q.ID)
	if ask.status != 200 || !strings.Contains(ask.body, `name="code"`) || !strings.Contains(ask.body, html.EscapeString(q.Code.Starter()[:60])) {
		t.Fatalf("no editor with the starter\n%s", excerpt(ask.body))
	}
	for try := 1; try <= 3; try++ {
		// Three different files: the same file again would count no try.
		file := q.Code.Starter() + strings.Repeat("\n", try)
		loc, res := v.answer(q.ID, url.Values{"code": {file}})
		if !strings.Contains(loc, "c=1") || !strings.Contains(res.body, `data-result="wrong"`) {
			t.Fatalf("try %d: %q\n%s", try, loc, excerpt(res.body))
		}
		if !strings.Contains(res.body, `id="code-failure"`) || !strings.Contains(res.body, `id="open-failure"`) || !strings.Contains(res.body, "code=1") {
			t.Errorf("try %d: no failure story with its lab link", try)
		}
		if shown := strings.Contains(res.body, `id="code-solution"`); shown != (try == 3) {
			t.Errorf("try %d: model solution shown %v", try, shown)
		}
		if again := v.get(loc); again.body != res.body {
			t.Errorf("try %d: the result's address grades differently when opened again", try)
		}
	}
	_, res := v.answer(q.ID, url.Values{"code": {q.Code.Solution()}})
	if !strings.Contains(res.body, `data-result="right"`) || !strings.Contains(res.body, `id="code-passed"`) || !strings.Contains(res.body, `id="code-solution"`) {
		t.Errorf("the model solution does not pass\n%s", excerpt(res.body))
	}
	// A file that does not parse says why, on its line, with the file
	// back in the editor, and is not counted.
	broken := strings.Replace(q.Code.Solution(), "func Handle(", "func Handle(((", 1)
	_, res = v.answer(q.ID, url.Values{"code": {broken}})
	if !strings.Contains(res.body, `id="code-error"`) || !strings.Contains(res.body, "syntax error") || !strings.Contains(res.body, `id="retry-form-code"`) ||
		resultOf(t, res.body) != "unparsed" || !strings.Contains(res.body, "not counted") {
		t.Errorf("a broken file\n%s", excerpt(res.body))
	}
	if r := v.post("/practice/q/"+q.ID, url.Values{"code": {"  "}}); r.status != 400 {
		t.Errorf("an empty file: %d", r.status)
	}
}

// Without a sandbox a coding exercise says it cannot be graded here.
func TestCodeExerciseWithoutSandbox(t *testing.T) {
	bank, store := openProgress(t, "")
	h, err := NewServer(Config{Practice: store, Bank: bank, Now: newTestClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	r := newVisitor(t, h).post("/practice/q/code-crash-before-ack", url.Values{"code": {"package handler"}})
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "--code=false") {
		t.Errorf("%d\n%s", r.status, excerpt(r.body))
	}
}

// notCompiling parses (package handler, a Handle of the right shape, no
// forbidden import) but does not compile: a wrong answer, and a try.
const notCompiling = `package handler

import (
	"context"

	"github.com/idempotency-lab/lab/handlers"
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	return notDefinedAnywhere
}
`

// gradingServer is the practice pages with a sandbox of the given limits,
// with the practice part (to count the grades handed to the sandbox) and
// the store.
func gradingServer(t *testing.T, lim sandbox.Limits) (http.Handler, *practicepage.Practice, *practice.Store, *practice.Bank) {
	t.Helper()
	bank, store := openProgress(t, "")
	s, err := newServer(Config{Practice: store, Bank: bank, Now: newTestClock().Now,
		Sandbox: sandbox.NewRunner([]string{os.Args[0]}, lim)})
	if err != nil {
		t.Fatal(err)
	}
	return s.routes(), s.practice, store, bank
}

// codeTries is how many tries a profile has at an exercise.
func codeTries(t *testing.T, store *practice.Store, profile, id string) int {
	t.Helper()
	if profile == "" {
		return 0
	}
	p, err := store.Progress(context.Background(), profile)
	if err != nil {
		t.Fatal(err)
	}
	return p.Items[id].Attempts
}

// TestCodeGradeIsKept: a file is graded once per profile. Its result
// page, opened again, shows the kept grade without a child; the same file
// posted again gets it too, with no child and no new try. Another reader
// opening the address sees the file in the editor, ungraded, and nothing
// runs until they press the button.
func TestCodeGradeIsKept(t *testing.T) {
	h, part, store, bank := gradingServer(t, sandbox.Limits{})
	q, ok := bank.Question("code-crash-before-ack")
	if !ok {
		t.Fatal("no exercise code-crash-before-ack")
	}
	v := newVisitor(t, h)
	loc, res := v.answer(q.ID, url.Values{"code": {q.Code.Solution()}})
	if resultOf(t, res.body) != "right" || part.GradeRuns() != 1 {
		t.Fatalf("the model solution: %s, %d grades run\n%s", resultOf(t, res.body), part.GradeRuns(), excerpt(res.body))
	}
	for i := range 3 {
		if again := v.get(loc); again.body != res.body {
			t.Errorf("visit %d: the result page differs from the kept grade", i+2)
		}
		again, _ := v.answer(q.ID, url.Values{"code": {q.Code.Solution()}})
		if again != loc {
			t.Errorf("the same file again leads to %q, want %q", again, loc)
		}
	}
	if n := part.GradeRuns(); n != 1 {
		t.Errorf("%d grades run for one file, want 1", n)
	}
	if n := codeTries(t, store, v.profile(), q.ID); n != 1 {
		t.Errorf("%d tries counted for one file, want 1", n)
	}

	other := newVisitor(t, h)
	r := other.get(loc)
	if r.status != http.StatusOK || strings.Contains(r.body, `id="result"`) || !strings.Contains(r.body, `id="code-ungraded"`) ||
		!strings.Contains(r.body, html.EscapeString(q.Code.Solution()[:60])) || !strings.Contains(r.body, `id="answer-form-submit"`) {
		t.Errorf("another reader's view of the address: %d\n%s", r.status, excerpt(r.body))
	}
	noMissingKeys(t, loc, r.body)
	if ru := other.get(loc + "&lang=ru"); !strings.Contains(ru.body, "ещё не проверялся") {
		t.Errorf("the note in Russian\n%s", excerpt(ru.body))
	}
	if part.GradeRuns() != 1 || other.profile() != "" {
		t.Errorf("opening the address graded (%d runs) or made a profile (%q)", part.GradeRuns(), other.profile())
	}
	if _, res := other.answer(q.ID, url.Values{"code": {q.Code.Solution()}}); resultOf(t, res.body) != "right" || part.GradeRuns() != 2 {
		t.Errorf("the other reader's own grade: %d runs", part.GradeRuns())
	}
	if n := codeTries(t, store, other.profile(), q.ID); n != 1 {
		t.Errorf("the other reader has %d tries, want 1", n)
	}
}

// TestCodeTriesCountFilesThatParse: files that do not parse (a syntax
// error, the wrong package, a forbidden import, too big) count nothing,
// run nothing and never reveal the model solution; three files that parse
// and fail (do not compile, fail the checks) are three tries, and the
// third shows it.
func TestCodeTriesCountFilesThatParse(t *testing.T) {
	h, part, store, bank := gradingServer(t, sandbox.Limits{})
	q, ok := bank.Question("code-crash-before-ack")
	if !ok {
		t.Fatal("no exercise code-crash-before-ack")
	}
	v := newVisitor(t, h)
	unparsed := []string{
		strings.Replace(q.Code.Solution(), "func Handle(", "func Handle(((", 1),
		strings.Replace(q.Code.Solution(), "package handler", "package main", 1),
		strings.Replace(q.Code.Solution(), "import (", "import (\n\t\"os\"", 1),
		q.Code.Solution() + "\n// " + strings.Repeat("x", sandbox.MaxSourceBytes),
	}
	for i, file := range unparsed {
		if _, err := sandbox.Parse(file); err == nil {
			t.Fatalf("file %d parses", i)
		}
		_, res := v.answer(q.ID, url.Values{"code": {file}})
		if resultOf(t, res.body) != "unparsed" || !strings.Contains(res.body, `id="code-error"`) || strings.Contains(res.body, `id="code-solution"`) {
			t.Errorf("file %d that does not parse\n%s", i, excerpt(res.body))
		}
	}
	if n := codeTries(t, store, v.profile(), q.ID); n != 0 || part.GradeRuns() != 0 {
		t.Fatalf("files that do not parse: %d tries, %d grades run; want none", n, part.GradeRuns())
	}
	for i, file := range []string{notCompiling, q.Code.Starter(), q.Code.Starter() + "\n"} {
		_, res := v.answer(q.ID, url.Values{"code": {file}})
		if resultOf(t, res.body) != "wrong" {
			t.Errorf("try %d: %s", i+1, resultOf(t, res.body))
		}
		if shown := strings.Contains(res.body, `id="code-solution"`); shown != (i == 2) {
			t.Errorf("try %d: model solution shown %v", i+1, shown)
		}
		if i == 0 && !strings.Contains(res.body, "notDefinedAnywhere") {
			t.Errorf("a file that does not compile does not say why\n%s", excerpt(res.body))
		}
	}
	if n := codeTries(t, store, v.profile(), q.ID); n != 3 || part.GradeRuns() != 3 {
		t.Errorf("three files that parse: %d tries, %d grades run; want 3 and 3", n, part.GradeRuns())
	}
	// A file that does not parse, after them, still shows the solution
	// earned, and counts nothing.
	_, res := v.answer(q.ID, url.Values{"code": {unparsed[0]}})
	if !strings.Contains(res.body, `id="code-solution"`) || codeTries(t, store, v.profile(), q.ID) != 3 {
		t.Errorf("a file that does not parse after three tries\n%s", excerpt(res.body))
	}
}

// TestCodeGradesAtOnce: four readers post the model solutions of four
// exercises at once to a sandbox with two child slots: the grades wait
// for a slot, and every one passes (none is refused or scored 0 for a
// busy slot).
func TestCodeGradesAtOnce(t *testing.T) {
	h, part, store, bank := gradingServer(t, sandbox.Limits{MaxChildren: 2})
	var qs []practice.Question
	for _, q := range bank.Questions() {
		if q.Kind == practice.KindCode && len(qs) < 4 {
			qs = append(qs, q)
		}
	}
	if len(qs) < 4 {
		t.Fatalf("%d coding exercises, want 4", len(qs))
	}
	visitors := make([]*visitor, len(qs))
	locs := make([]string, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		visitors[i] = newVisitor(t, h)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := visitors[i].post("/practice/q/"+q.ID, url.Values{"code": {q.Code.Solution()}})
			if r.status != http.StatusSeeOther {
				t.Errorf("%s: status %d\n%s", q.ID, r.status, excerpt(r.body))
				return
			}
			locs[i] = r.header.Get("Location")
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i, q := range qs {
		r := visitors[i].get(locs[i])
		if got := resultOf(t, r.body); got != "right" {
			t.Errorf("%s: %s\n%s", q.ID, got, excerpt(r.body))
		}
		p, err := store.Progress(context.Background(), visitors[i].profile())
		if err != nil {
			t.Fatal(err)
		}
		if it := p.Items[q.ID]; it.Attempts != 1 || it.LastScore != 1 {
			t.Errorf("%s: %+v, want one try scored 1", q.ID, it)
		}
	}
	if n := part.GradeRuns(); n != 4 {
		t.Errorf("%d grades run, want 4", n)
	}
}
