package practicepage

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web/page"
)

// gradePart is the practice part over a fresh store, with run standing in
// for the sandbox, and a router for its answers.
func gradePart(t *testing.T, run func(context.Context, sandbox.Request) (*sandbox.Response, error)) (*Practice, *practice.Store, http.Handler) {
	t.Helper()
	bank, err := practice.Load()
	if err != nil {
		t.Fatal(err)
	}
	store, err := practice.Open(filepath.Join(t.TempDir(), "progress.db"), bank)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	shell := page.NewShell(page.MustCatalog(Catalog()), nil, nil, -1)
	s := New(shell, bank, store, func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) })
	s.run = run
	rt := chi.NewRouter()
	rt.Post("/practice/q/{id}", s.Only(s.Answer))
	return s, store, rt
}

// postCode posts a file to an exercise as the profile, with ctx.
func postCode(ctx context.Context, h http.Handler, profile, id, code string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/practice/q/"+id, strings.NewReader(url.Values{"code": {code}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: page.ProfileCookie, Value: profile})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestCodeGradeReaderLeaves: a reader who leaves while the grade waits
// for a child slot (the sandbox queues grades until their context ends)
// gets nothing recorded: no try, no kept grade. The same file posted
// later is graded as a first try.
func TestCodeGradeReaderLeaves(t *testing.T) {
	waiting := make(chan struct{})
	busy := true
	s, store, h := gradePart(t, func(ctx context.Context, req sandbox.Request) (*sandbox.Response, error) {
		if busy {
			close(waiting)
			<-ctx.Done() // every slot stays busy until the reader leaves
			return nil, ctx.Err()
		}
		return &sandbox.Response{Grade: &sandbox.Grade{Pass: true, Explored: 3}}, nil
	})
	q, _ := s.bank.Question("code-crash-before-ack")
	profile := practice.NewProfileID()
	code := q.Code.Solution()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-waiting
		cancel()
	}()
	postCode(ctx, h, profile, q.ID, code)
	if as, err := store.Attempts(context.Background(), profile); err != nil || len(as) != 0 {
		t.Errorf("a reader who left: %d attempts recorded (%v)", len(as), err)
	}
	if _, kept, err := store.KeptCodeGrade(context.Background(), profile, q.ID, code); kept || err != nil {
		t.Errorf("a reader who left: a grade was kept (%v)", err)
	}
	busy = false
	if rec := postCode(context.Background(), h, profile, q.ID, code); rec.Code != http.StatusSeeOther {
		t.Fatalf("posted again: %d", rec.Code)
	}
	as, err := store.Attempts(context.Background(), profile)
	if err != nil || len(as) != 1 || as[0].Score != 1 {
		t.Errorf("posted again: %+v (%v), want one try scored 1", as, err)
	}
	if n := s.GradeRuns(); n != 2 {
		t.Errorf("%d grades handed to the sandbox, want 2", n)
	}
}

// TestCodeGradeLimit: a file the sandbox stops on a limit (CPU seconds,
// memory) is a wrong answer that says why, in both languages, and a try.
func TestCodeGradeLimit(t *testing.T) {
	stopped := &sandbox.Error{Text: narration.T("sandbox.cpu", "5")}
	const en, ru = "the handler used more than 5 s of CPU and was stopped: an endless loop?",
		"обработчик израсходовал больше 5 с процессорного времени и был остановлен: бесконечный цикл?"
	s, store, h := gradePart(t, func(ctx context.Context, req sandbox.Request) (*sandbox.Response, error) {
		return nil, stopped
	})
	q, _ := s.bank.Question("code-crash-before-ack")
	profile := practice.NewProfileID()
	code := q.Code.Starter() + "\n// for {}\n"
	if rec := postCode(context.Background(), h, profile, q.ID, code); rec.Code != http.StatusSeeOther {
		t.Fatalf("status %d\n%s", rec.Code, rec.Body)
	}
	g, kept, err := store.KeptCodeGrade(context.Background(), profile, q.ID, code)
	if err != nil || !kept || g.Score != 0 || g.Code.Error.EN != en || g.Code.Error.RU != ru {
		t.Errorf("kept %v (%v): %+v", kept, err, g.Code)
	}
	if as, _ := store.Attempts(context.Background(), profile); len(as) != 1 || as[0].Score != 0 {
		t.Errorf("%+v, want one try scored 0", as)
	}
}
