package labtest_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/labtest"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// chargeTwice is the bug every lesson starts with: it credits whatever it
// is given, so a redelivered message credits again.
func chargeTwice(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.BeforeEffect)
	if _, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	d.Point(handlers.AfterEffect)
	return nil
}

// recorder is a testing.TB that keeps what Check reports instead of
// failing the test that runs it.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	fatal  string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }
func (r *recorder) Logf(string, ...any)               {}

// TestBuggyHandlerFails: the kit finds the two-step duplicate, prints the
// script, and the script replays to the same verdict in the engine.
func TestBuggyHandlerFails(t *testing.T) {
	rec := &recorder{TB: t}
	labtest.Check(rec, labtest.Handler{Name: "charge-twice", Handle: chargeTwice}, labtest.Depth(2), labtest.Runs(-1))
	if len(rec.errors) == 0 || !strings.Contains(rec.errors[0], "charge-twice: duplicate in 2 steps") ||
		!strings.Contains(rec.errors[0], "deliver crash=before-ack") {
		t.Fatalf("reports: %q", rec.errors)
	}
	rep, err := labtest.Run(context.Background(), labtest.Handler{Name: "charge-twice", Handle: chargeTwice}, labtest.Depth(2), labtest.Runs(-1))
	if err != nil || !rep.Failed() {
		t.Fatalf("Run: %+v, %v", rep, err)
	}
	sc, err := script.Parse(rep.Failures[0].Script)
	if err != nil {
		t.Fatal(err)
	}
	// The same script on the lab's naive handler, which is the same code:
	// the same verdict, replayed from scratch.
	run, err := sim.Execute(context.Background(), sc, sim.Options{Handlers: []string{"naive"}})
	if err != nil || run.Results[0].Verdict != rep.Failures[0].Verdict {
		t.Errorf("replay on naive: %v, %v; want %s", run.Results[0].Verdict, err, rep.Failures[0].Verdict)
	}
}

// TestPermalinkReplaysTheVerdict: the address a failure prints carries
// the script whole: decoded as the lab decodes it and replayed on the
// handler, it gives the same verdict and balances. The report shows the
// trace, with the crash where it fell.
func TestPermalinkReplaysTheVerdict(t *testing.T) {
	h := labtest.Handler{Name: "charge-twice", Handle: chargeTwice}
	rep, err := labtest.Run(context.Background(), h, labtest.Depth(2), labtest.Runs(-1))
	if err != nil || !rep.Failed() {
		t.Fatalf("Run: %+v, %v", rep, err)
	}
	f := rep.Failures[0]
	addr, err := url.Parse(labtest.Permalink(f))
	if err != nil || addr.Path != "/lab" {
		t.Fatalf("permalink %q: %v", labtest.Permalink(f), err)
	}
	script, err := link.Unpack(addr.Query().Get("s"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := labtest.Replay(context.Background(), h, script)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != f.Verdict || res.Settled != f.Settled || res.Expected != f.Expected {
		t.Errorf("the permalink replays to %s %d/%d, the report says %s %d/%d", res.Verdict, res.Settled, res.Expected, f.Verdict, f.Settled, f.Expected)
	}

	rec := &recorder{TB: t}
	labtest.Check(rec, h, labtest.Depth(2), labtest.Runs(-1))
	for _, want := range []string{"open the story in the lab: " + labtest.Permalink(f), "trace:",
		"worker-1 sql: #1 UPDATE accounts SET balance = balance + ? WHERE id = ? [10000, 'alice'] → 1 row affected",
		"worker-1 crash: worker dies before it can ack"} {
		if len(rec.errors) == 0 || !strings.Contains(rec.errors[0], want) {
			t.Errorf("the report lacks %q:\n%s", want, rec.errors)
		}
	}
}

// TestCorrectHandlerPasses: the lab's inbox (key by tenant, payload hash,
// quarantine, one transaction) passes the whole default-depth search of
// three steps and some random scripts.
func TestCorrectHandlerPasses(t *testing.T) {
	var inbox handlers.Info
	for _, h := range handlers.List() {
		if h.Name == "inbox" {
			inbox = h
		}
	}
	rec := &recorder{TB: t}
	labtest.Check(rec, labtest.Handler{Name: "my-inbox", Schema: inbox.Schema, Handle: inbox.Handle},
		labtest.Depth(3), labtest.Runs(200), labtest.Seed(7))
	if len(rec.errors) > 0 || rec.fatal != "" {
		t.Errorf("a correct handler failed: %q %q", rec.errors, rec.fatal)
	}
}

// TestRowsAffectedWithoutHashIsFoundOut: a handler that inserts with ON
// CONFLICT DO NOTHING and credits only when a row went in is safe against
// repeats, but without a payload hash it acks a changed payload as a
// repeat: a silent conflict.
func TestRowsAffectedWithoutHashIsFoundOut(t *testing.T) {
	handle := func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		tx, err := d.DB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		res, err := tx.ExecContext(ctx, `INSERT INTO processed (tenant, key) VALUES (?, ?) ON CONFLICT DO NOTHING`, m.Tenant, m.Key)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // seen before: ack
		}
		if err := credit(ctx, tx, m.Account, m.Amount); err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		d.Point(handlers.AfterEffect) // a named crash point: the credit is durable
		return nil
	}
	rep, err := labtest.Run(context.Background(), labtest.Handler{Name: "rows-affected",
		Schema: `CREATE TABLE processed (tenant TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (tenant, key));`, Handle: handle},
		labtest.Depth(2), labtest.Runs(-1))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failures) != 1 || rep.Failures[0].Verdict != sim.SilentConflict {
		t.Errorf("failures %+v; want a silent conflict alone", rep.Failures)
	}
}

func credit(ctx context.Context, tx *sql.Tx, account string, amount int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, amount, account)
	return err
}

func TestBadHandler(t *testing.T) {
	rec := &recorder{TB: t}
	labtest.Check(rec, labtest.Handler{Name: "nothing"})
	if !strings.Contains(rec.fatal, "needs a name and a Handle function") {
		t.Errorf("fatal %q", rec.fatal)
	}
}

// TestCheckFile: a handler file, the shape the lab's editor takes, checked
// in the test's own process; the failure's address carries the file, and
// decoded as the lab decodes it, it replays the same verdict.
func TestCheckFile(t *testing.T) {
	rec := &recorder{TB: t}
	labtest.CheckFile(rec, "testdata/charge-twice.go", labtest.Depth(2), labtest.Runs(-1))
	if len(rec.errors) == 0 || !strings.Contains(rec.errors[0], "charge-twice: duplicate in 2 steps") || !strings.Contains(rec.errors[0], "&code=1") {
		t.Fatalf("reports: %q", rec.errors)
	}
	h, err := labtest.File("testdata/charge-twice.go")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := labtest.Run(context.Background(), h, labtest.Depth(2), labtest.Runs(-1))
	if err != nil || !rep.Failed() {
		t.Fatal(rep, err)
	}
	line := rec.errors[0][strings.Index(rec.errors[0], "/lab?"):]
	addr, err := url.Parse(strings.Fields(line)[0])
	if err != nil {
		t.Fatal(err)
	}
	script, err := link.Unpack(addr.Query().Get("s"))
	if err != nil {
		t.Fatal(err)
	}
	code, err := link.Unpack(addr.Query().Get("code"))
	if err != nil || code != h.Source || addr.Query().Get("name") != "charge-twice" {
		t.Fatalf("the address carries %q as %q (%v)", code, addr.Query().Get("name"), err)
	}
	res, err := labtest.Replay(context.Background(), h, script)
	if err != nil || res.Verdict != rep.Failures[0].Verdict {
		t.Errorf("replay: %v %v", res.Verdict, err)
	}
	if _, err := labtest.File("testdata/nothing.go"); err == nil {
		t.Error("a missing file loaded")
	}
}

// TestFileStateIsFresh: a file that dedups in a package-level map is
// judged as the lab judges it, whatever ran before in the test's process:
// the map is empty at every delivery, so the crash before the ack is a
// duplicate, and the story replays to the same verdict every time.
func TestFileStateIsFresh(t *testing.T) {
	h, err := labtest.File("testdata/map-dedup.go")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := labtest.Run(context.Background(), h, labtest.Depth(2), labtest.Runs(-1))
	if err != nil || !rep.Failed() || rep.Failures[0].Verdict != sim.Duplicate || rep.Failures[0].Steps != 2 {
		t.Fatalf("%+v %v", rep, err)
	}
	for i := range 3 {
		res, err := labtest.Replay(context.Background(), h, "publish a amount=100\ndeliver crash=before-ack\n")
		if err != nil || res.Verdict != sim.Duplicate {
			t.Errorf("replay %d: %v %v", i+1, res.Verdict, err)
		}
	}
}

// TestAPIFile: an API handler's file, the editor's other shape, loads
// as Handler.API and is searched with the API side's scripts: a lost
// answer and the client's retry charge twice, one step. The report says
// "1 step", and the story replays.
func TestAPIFile(t *testing.T) {
	h, err := labtest.File("testdata/api-charge-always.go")
	if err != nil {
		t.Fatal(err)
	}
	if h.API == nil || h.Handle != nil || h.Name != "api-charge-always" {
		t.Fatalf("loaded as %+v", h)
	}
	rec := &recorder{TB: t}
	labtest.CheckFile(rec, "testdata/api-charge-always.go", labtest.Depth(1), labtest.Runs(-1))
	if rec.fatal != "" || len(rec.errors) == 0 {
		t.Fatalf("fatal %q, reports %q", rec.fatal, rec.errors)
	}
	for _, want := range []string{"api-charge-always: duplicate in 1 step (", "request a amount=10000 lose-response",
		"client request: req-1 to server-1: POST /payments, Idempotency-Key: a", "&code="} {
		if !strings.Contains(rec.errors[0], want) {
			t.Errorf("the report lacks %q:\n%s", want, rec.errors[0])
		}
	}
	res, err := labtest.Replay(context.Background(), h, "request a amount=10000 lose-response\n")
	if err != nil || res.Verdict != sim.Duplicate {
		t.Errorf("replay: %v %v", res.Verdict, err)
	}
	// A file named as one of the lab's API handlers is not given that
	// name: the lab would take the story for its own handler's.
	src, err := os.ReadFile("testdata/api-charge-always.go")
	if err != nil {
		t.Fatal(err)
	}
	same := filepath.Join(t.TempDir(), "api-naive.go")
	if err := os.WriteFile(same, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err := labtest.File(same); err != nil || h.Name != "yours" {
		t.Errorf("api-naive.go loads as %q (%v), want yours", h.Name, err)
	}
}

// TestEveryDistinctFailureIsReported: the kit reports one story for each
// distinct failure, not one for each verdict: charge-twice's duplicate
// from a crash before the ack and its duplicate from a producer's retry
// are two reports, each with its cause, its shortest first.
func TestEveryDistinctFailureIsReported(t *testing.T) {
	rec := &recorder{TB: t}
	labtest.Check(rec, labtest.Handler{Name: "charge-twice", Handle: chargeTwice}, labtest.Depth(2), labtest.Runs(-1))
	var crash, retry bool
	for _, e := range rec.errors {
		crash = crash || strings.Contains(e, "cause: crash=before-ack\n    publish a amount=10000\n    deliver crash=before-ack\n")
		retry = retry || strings.Contains(e, "cause: retry\n    publish a amount=10000\n    retry a\n")
	}
	if !crash || !retry || len(rec.errors) < 2 || !strings.Contains(rec.errors[0], "cause: crash=before-ack") {
		t.Errorf("want a duplicate from the crash (first) and one from the retry, each reported; got:\n%s", strings.Join(rec.errors, "\n---\n"))
	}
}
