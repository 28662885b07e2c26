package web_test

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
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/practicepage"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestCodeExercise is a candidate on a coding exercise: the editor opens
// with the starter; the starter fails with the story the search found and
// a link that opens it in the lab with the file; the model solution stays
// hidden until a pass or a third try; the solution passes; and the
// result's address shows the same grade again.
func TestCodeExercise(t *testing.T) {
	h, bank := webtest.CodePracticeServer(t)
	q, ok := bank.Question("code-crash-before-ack")
	if !ok {
		t.Fatal("no exercise code-crash-before-ack")
	}
	v := webtest.NewVisitor(t, h)
	ask := v.Get("/practice/q/" + q.ID)
	if ask.Status != 200 || !strings.Contains(ask.Body, `name="code"`) || !strings.Contains(ask.Body, html.EscapeString(q.Code.Starter()[:60])) {
		t.Fatalf("no editor with the starter\n%s", webtest.Excerpt(ask.Body))
	}
	for try := 1; try <= 3; try++ {
		// Three different files: the same file again would count no try.
		file := q.Code.Starter() + strings.Repeat("\n", try)
		loc, res := v.Answer(q.ID, url.Values{"code": {file}})
		if !strings.Contains(loc, "c=1") || !strings.Contains(res.Body, `data-result="wrong"`) {
			t.Fatalf("try %d: %q\n%s", try, loc, webtest.Excerpt(res.Body))
		}
		if !strings.Contains(res.Body, `id="code-failure"`) || !strings.Contains(res.Body, `id="open-failure"`) || !strings.Contains(res.Body, "code=1") {
			t.Errorf("try %d: no failure story with its lab link", try)
		}
		if shown := strings.Contains(res.Body, `id="code-solution"`); shown != (try == 3) {
			t.Errorf("try %d: model solution shown %v", try, shown)
		}
		if again := v.Get(loc); again.Body != res.Body {
			t.Errorf("try %d: the result's address grades differently when opened again", try)
		}
	}
	_, res := v.Answer(q.ID, url.Values{"code": {q.Code.Solution()}})
	if !strings.Contains(res.Body, `data-result="right"`) || !strings.Contains(res.Body, `id="code-passed"`) || !strings.Contains(res.Body, `id="code-solution"`) {
		t.Errorf("the model solution does not pass\n%s", webtest.Excerpt(res.Body))
	}
	// A file that does not parse says why, on its line, with the file
	// back in the editor, and is not counted.
	broken := strings.Replace(q.Code.Solution(), "func Handle(", "func Handle(((", 1)
	_, res = v.Answer(q.ID, url.Values{"code": {broken}})
	if !strings.Contains(res.Body, `id="code-error"`) || !strings.Contains(res.Body, "syntax error") || !strings.Contains(res.Body, `id="retry-form-code"`) ||
		webtest.ResultOf(t, res.Body) != "unparsed" || !strings.Contains(res.Body, "not counted") {
		t.Errorf("a broken file\n%s", webtest.Excerpt(res.Body))
	}
	if r := v.Post("/practice/q/"+q.ID, url.Values{"code": {"  "}}); r.Status != 400 {
		t.Errorf("an empty file: %d", r.Status)
	}
}

// Without a sandbox a coding exercise says it cannot be graded here.
func TestCodeExerciseWithoutSandbox(t *testing.T) {
	bank, store := webtest.OpenProgress(t, "")
	h, err := web.NewServer(web.Config{Practice: store, Bank: bank, Now: webtest.NewClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	r := webtest.NewVisitor(t, h).Post("/practice/q/code-crash-before-ack", url.Values{"code": {"package handler"}})
	if r.Status != http.StatusServiceUnavailable || !strings.Contains(r.Body, "--code=false") {
		t.Errorf("%d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
}

// gradingServer is the practice pages with a sandbox of the given limits,
// with the practice part (to count the grades handed to the sandbox) and
// the store.
func gradingServer(t *testing.T, lim sandbox.Limits) (http.Handler, *practicepage.Practice, *practice.Store, *practice.Bank) {
	t.Helper()
	bank, store := webtest.OpenProgress(t, "")
	s, err := web.InternalServer(web.Config{Practice: store, Bank: bank, Now: webtest.NewClock().Now,
		Sandbox: sandbox.NewRunner([]string{os.Args[0]}, lim)})
	if err != nil {
		t.Fatal(err)
	}
	return s.Routes(), s.Practice(), store, bank
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
	v := webtest.NewVisitor(t, h)
	loc, res := v.Answer(q.ID, url.Values{"code": {q.Code.Solution()}})
	if webtest.ResultOf(t, res.Body) != "right" || part.GradeRuns() != 1 {
		t.Fatalf("the model solution: %s, %d grades run\n%s", webtest.ResultOf(t, res.Body), part.GradeRuns(), webtest.Excerpt(res.Body))
	}
	for i := range 3 {
		if again := v.Get(loc); again.Body != res.Body {
			t.Errorf("visit %d: the result page differs from the kept grade", i+2)
		}
		again, _ := v.Answer(q.ID, url.Values{"code": {q.Code.Solution()}})
		if again != loc {
			t.Errorf("the same file again leads to %q, want %q", again, loc)
		}
	}
	if n := part.GradeRuns(); n != 1 {
		t.Errorf("%d grades run for one file, want 1", n)
	}
	if n := codeTries(t, store, v.Profile(), q.ID); n != 1 {
		t.Errorf("%d tries counted for one file, want 1", n)
	}

	other := webtest.NewVisitor(t, h)
	r := other.Get(loc)
	if r.Status != http.StatusOK || strings.Contains(r.Body, `id="result"`) || !strings.Contains(r.Body, `id="code-ungraded"`) ||
		!strings.Contains(r.Body, html.EscapeString(q.Code.Solution()[:60])) || !strings.Contains(r.Body, `id="answer-form-submit"`) {
		t.Errorf("another reader's view of the address: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	webtest.NoMissingKeys(t, loc, r.Body)
	if ru := other.Get(loc + "&lang=ru"); !strings.Contains(ru.Body, "ещё не проверялся") {
		t.Errorf("the note in Russian\n%s", webtest.Excerpt(ru.Body))
	}
	if part.GradeRuns() != 1 || other.Profile() != "" {
		t.Errorf("opening the address graded (%d runs) or made a profile (%q)", part.GradeRuns(), other.Profile())
	}
	if _, res := other.Answer(q.ID, url.Values{"code": {q.Code.Solution()}}); webtest.ResultOf(t, res.Body) != "right" || part.GradeRuns() != 2 {
		t.Errorf("the other reader's own grade: %d runs", part.GradeRuns())
	}
	if n := codeTries(t, store, other.Profile(), q.ID); n != 1 {
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
	v := webtest.NewVisitor(t, h)
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
		_, res := v.Answer(q.ID, url.Values{"code": {file}})
		if webtest.ResultOf(t, res.Body) != "unparsed" || !strings.Contains(res.Body, `id="code-error"`) || strings.Contains(res.Body, `id="code-solution"`) {
			t.Errorf("file %d that does not parse\n%s", i, webtest.Excerpt(res.Body))
		}
	}
	if n := codeTries(t, store, v.Profile(), q.ID); n != 0 || part.GradeRuns() != 0 {
		t.Fatalf("files that do not parse: %d tries, %d grades run; want none", n, part.GradeRuns())
	}
	for i, file := range []string{webtest.NotCompiling, q.Code.Starter(), q.Code.Starter() + "\n"} {
		_, res := v.Answer(q.ID, url.Values{"code": {file}})
		if webtest.ResultOf(t, res.Body) != "wrong" {
			t.Errorf("try %d: %s", i+1, webtest.ResultOf(t, res.Body))
		}
		if shown := strings.Contains(res.Body, `id="code-solution"`); shown != (i == 2) {
			t.Errorf("try %d: model solution shown %v", i+1, shown)
		}
		if i == 0 && !strings.Contains(res.Body, "notDefinedAnywhere") {
			t.Errorf("a file that does not compile does not say why\n%s", webtest.Excerpt(res.Body))
		}
	}
	if n := codeTries(t, store, v.Profile(), q.ID); n != 3 || part.GradeRuns() != 3 {
		t.Errorf("three files that parse: %d tries, %d grades run; want 3 and 3", n, part.GradeRuns())
	}
	// A file that does not parse, after them, still shows the solution
	// earned, and counts nothing.
	_, res := v.Answer(q.ID, url.Values{"code": {unparsed[0]}})
	if !strings.Contains(res.Body, `id="code-solution"`) || codeTries(t, store, v.Profile(), q.ID) != 3 {
		t.Errorf("a file that does not parse after three tries\n%s", webtest.Excerpt(res.Body))
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
	visitors := make([]*webtest.Visitor, len(qs))
	locs := make([]string, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		visitors[i] = webtest.NewVisitor(t, h)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := visitors[i].Post("/practice/q/"+q.ID, url.Values{"code": {q.Code.Solution()}})
			if r.Status != http.StatusSeeOther {
				t.Errorf("%s: status %d\n%s", q.ID, r.Status, webtest.Excerpt(r.Body))
				return
			}
			locs[i] = r.Header.Get("Location")
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i, q := range qs {
		r := visitors[i].Get(locs[i])
		if got := webtest.ResultOf(t, r.Body); got != "right" {
			t.Errorf("%s: %s\n%s", q.ID, got, webtest.Excerpt(r.Body))
		}
		p, err := store.Progress(context.Background(), visitors[i].Profile())
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
