package web

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
)

// codePracticeServer is the practice pages with a sandbox (this test
// binary as its children).
func codePracticeServer(t *testing.T) (http.Handler, *practice.Bank) {
	t.Helper()
	bank := mustBank(t)
	store, err := practice.Open(filepath.Join(t.TempDir(), "progress.db"), bank)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
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
// result's address grades the same again.
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
		loc, res := v.answer(q.ID, url.Values{"code": {q.Code.Starter()}})
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
	// A file that does not compile is a wrong answer that says why, on
	// its line, with the file back in the editor.
	broken := strings.Replace(q.Code.Solution(), "func Handle(", "func Handle(((", 1)
	_, res = v.answer(q.ID, url.Values{"code": {broken}})
	if !strings.Contains(res.body, `id="code-error"`) || !strings.Contains(res.body, "syntax error") || !strings.Contains(res.body, `id="retry-form-code"`) {
		t.Errorf("a broken file\n%s", excerpt(res.body))
	}
	if r := v.post("/practice/q/"+q.ID, url.Values{"code": {"  "}}); r.status != 400 {
		t.Errorf("an empty file: %d", r.status)
	}
}

// Without a sandbox a coding exercise says it cannot be graded here.
func TestCodeExerciseWithoutSandbox(t *testing.T) {
	bank := mustBank(t)
	store, err := practice.Open(filepath.Join(t.TempDir(), "progress.db"), bank)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h, err := NewServer(Config{Practice: store, Bank: bank, Now: newTestClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	r := newVisitor(t, h).post("/practice/q/code-crash-before-ack", url.Values{"code": {"package handler"}})
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "--code=false") {
		t.Errorf("%d\n%s", r.status, excerpt(r.body))
	}
}
