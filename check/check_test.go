package check

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// quick is a search small enough for every test run: every script up to
// three steps, then a few random ones.
var quick = Options{Depth: 3, Runs: 200, Len: 6}

func mustCheck(t *testing.T, handler string, opt Options) Report {
	t.Helper()
	rep, err := Check(context.Background(), handler, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func failure(rep Report, v sim.Verdict) (Failure, bool) {
	for _, f := range rep.Failures {
		if f.Verdict == v {
			return f, true
		}
	}
	return Failure{}, false
}

// TestNaiveFailsInTwoSteps: the lectures' first story, found first: a
// crash after the credit, before the ack, and the redelivery credits again.
func TestNaiveFailsInTwoSteps(t *testing.T) {
	rep := mustCheck(t, "naive", quick)
	if !rep.Failed() {
		t.Fatal("naive passed")
	}
	top := rep.Failures[0]
	if top.Verdict != sim.Duplicate || top.Steps != 2 ||
		top.Script != "publish a amount=10000\ndeliver crash=before-ack\n" {
		t.Errorf("shortest failure %s in %d steps:\n%s", top.Verdict, top.Steps, top.Script)
	}
}

// TestAntiPatternsShowTheirFailure: each anti-pattern fails the way its
// lesson says, among whatever else the search finds.
func TestAntiPatternsShowTheirFailure(t *testing.T) {
	for _, tc := range []struct {
		handler string
		verdict sim.Verdict
		why     string
	}{
		{"check-then-insert", sim.Duplicate, "a race: two workers pass the SELECT before either INSERTs"},
		{"unique-error", sim.Poison, "a repeat hits UNIQUE, is reported as a failure and loops to the DLQ"},
		{"marker-first", sim.Lost, "the marker commits, the worker dies before the credit"},
		{"effect-first", sim.Duplicate, "the credit commits, the worker dies before the marker"},
		{"broker-key", sim.Duplicate, "a producer retry has a new transport id"},
		{"setnx-no-release", sim.Lost, "a dead worker's claim blocks every copy"},
		{"inbox-no-hash", sim.SilentConflict, "a changed payload is acked as a repeat"},
		{"absolute-update", sim.Lost, "a stale message overwrites a newer state"},
		{"redelivered-flag", sim.Duplicate, "a producer's retry arrives with redelivered=false"},
		{"offset-in-db", sim.Duplicate, "a producer's retry is a new record at a new offset"},
		{"offset-in-db", sim.Lost, "a message requeued behind a newer one sits below the stored offset"},
		// unique-same-tx is not here: its poison message needs PostgreSQL,
		// and the search runs on the embedded engine (SQLite), where it fails
		// only as unique does (TestUniqueSameTxIsUniqueOnSQLite).
	} {
		t.Run(tc.handler+"/"+string(tc.verdict), func(t *testing.T) {
			rep := mustCheck(t, tc.handler, quick)
			if _, ok := failure(rep, tc.verdict); !ok {
				t.Errorf("%s: no %s found (%s); found %+v", tc.handler, tc.verdict, tc.why, rep.Failures)
			}
		})
	}
}

// TestUniqueSameTxIsUniqueOnSQLite: after the duplicate-key error SQLite
// lets unique-same-tx go on in its transaction, so on the embedded engine
// the search finds exactly unique's failures and no poison. Its own bug
// (25P02 after the error, then the DLQ) shows only on PostgreSQL. The
// corrected unique-on-conflict fails as unique does too: the tenant-free
// key and the unchecked payload are unique's own weaknesses.
func TestUniqueSameTxIsUniqueOnSQLite(t *testing.T) {
	want := mustCheck(t, "unique", quick).Failures
	for _, h := range []string{"unique-same-tx", "unique-on-conflict"} {
		got := mustCheck(t, h, quick).Failures
		if len(got) != len(want) {
			t.Errorf("%s: %d failures %+v, unique's %d %+v", h, len(got), got, len(want), want)
			continue
		}
		for i := range got {
			if got[i].Verdict != want[i].Verdict || got[i].Script != want[i].Script {
				t.Errorf("%s: failure %d is %s %q, unique's %s %q", h, i, got[i].Verdict, got[i].Script, want[i].Verdict, want[i].Script)
			}
		}
	}
}

// TestFailuresReplayAndAreMinimal: every reported script, run from scratch
// on a fresh world, gives the reported verdict and balances; and removing
// any one of its steps makes that verdict go (1-minimal).
func TestFailuresReplayAndAreMinimal(t *testing.T) {
	for _, h := range []string{"naive", "unique", "setnx", "check-then-insert", "unique-error"} {
		rep := mustCheck(t, h, quick)
		for _, f := range rep.Failures {
			res := replay(t, f.Script, h)
			if res.Verdict != f.Verdict || res.Settled != f.Settled || res.Expected != f.Expected {
				t.Errorf("%s: replaying %q gives %s %d/%d, the report says %s %d/%d", h, f.Script,
					res.Verdict, res.Settled, res.Expected, f.Verdict, f.Settled, f.Expected)
			}
			lines := strings.Split(strings.TrimSpace(f.Script), "\n")
			for i := range lines {
				shorter := strings.Join(append(append([]string(nil), lines[:i]...), lines[i+1:]...), "\n") + "\n"
				sc, err := script.Parse(shorter)
				if err != nil || len(sc.Steps) == 0 {
					continue // not a script without this line: it cannot go
				}
				if r := replay(t, shorter, h); r.Verdict == f.Verdict {
					t.Errorf("%s: %s is not minimal: without line %d it is still %s:\n%s", h, f.Verdict, i+1, r.Verdict, shorter)
				}
			}
		}
	}
}

func replay(t *testing.T, src, handler string) sim.Result {
	t.Helper()
	sc, err := script.Parse(src)
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	run, err := sim.Execute(context.Background(), sc, sim.Options{Handlers: []string{handler}})
	if err != nil {
		t.Fatal(err)
	}
	return run.Results[0]
}

// TestDeterministic: the same options give the same report, random part
// included; another seed may explore differently.
func TestDeterministic(t *testing.T) {
	a := mustCheck(t, "setnx", quick)
	b := mustCheck(t, "setnx", quick)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two searches differ:\n%+v\n%+v", a, b)
	}
}

// TestBudgetStopsTheSearch: past its time budget the search stops and says
// so. The clock is the test's: it moves a second on every reading.
func TestBudgetStopsTheSearch(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	opt := quick
	opt.Budget = 10 * time.Second
	opt.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	rep := mustCheck(t, "inbox", opt)
	if !rep.Partial || rep.Explored > 10 {
		t.Errorf("partial %v after %d scripts; want a stop within about 10", rep.Partial, rep.Explored)
	}
}

// TestHeaderTTLsAreCrossed: the alphabet advances past each TTL of the
// header, so a short inbox retention is found out (the late duplicate).
func TestHeaderTTLsAreCrossed(t *testing.T) {
	opt := quick
	opt.Header = "inbox-retention: 1h\n"
	rep := mustCheck(t, "inbox", opt)
	f, ok := failure(rep, sim.Duplicate)
	if !ok || !strings.Contains(f.Script, "advance 1h1m") || !strings.Contains(f.Script, "inbox-retention: 1h") {
		t.Errorf("no late duplicate past a 1h retention: %+v", rep.Failures)
	}
}

func TestCheckRefuses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		handler, header, want string
	}{
		{"nope", "", "unknown handler"},
		{"core", "", "one handler at a time"},
		{"naive", "publish a amount=1\n", "only header lines"},
		{"naive", "max-deliveries: many\n", "header"},
	} {
		_, err := Check(ctx, tc.handler, Options{Header: tc.header})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%q, header %q) = %v, want an error mentioning %q", tc.handler, tc.header, err, tc.want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Check(cancelled, "naive", quick); err == nil {
		t.Error("a cancelled search reported no error")
	}
}

// TestCorePatternsFailOnlyOnTheirWeaknesses: unique, statemachine and
// setnx fail, but only on what their lessons document: a second tenant
// with the same operation id (the key is not scoped by tenant), a changed
// payload under a reused key (no payload hash), and for setnx a claim that
// outlives a dead worker or expires (TTLs) and the gateway's ambiguous
// answers. Every failure's script shows its cause. With one story for
// each cause, statemachine also shows a refund that reaches it before its
// payment: it has no order to take the money back from yet (the ordering
// lesson's story), which one story per verdict hid behind the tenant
// collision.
func TestCorePatternsFailOnlyOnTheirWeaknesses(t *testing.T) {
	causes := map[string][]string{
		"unique":       {"tenant=globex", "change-payload"},
		"statemachine": {"tenant=globex", "change-payload", "kind=refund"},
		"setnx":        {"tenant=globex", "change-payload", "advance", "gateway", "crash=before-effect"},
	}
	for h, want := range causes {
		rep := mustCheck(t, h, quick)
		if !rep.Failed() {
			t.Errorf("%s passed; its lessons say it fails", h)
		}
		for _, f := range rep.Failures {
			ok := false
			for _, c := range want {
				ok = ok || strings.Contains(f.Script, c)
			}
			if !ok {
				t.Errorf("%s: %s for a reason its lessons do not name:\n%s", h, f.Verdict, f.Script)
			}
		}
	}
}

// effectFirstUnmarked is effect-first with no marks at all: it credits,
// then records the key, in two statements that each commit alone.
func effectFirstUnmarked(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	var n int
	if err := d.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM seen WHERE key = ?`, m.Key).Scan(&n); err != nil || n > 0 {
		return err
	}
	if _, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	_, err := d.DB.ExecContext(ctx, `INSERT INTO seen (key) VALUES (?)`, m.Key)
	return err
}

// checkThenInsertUnmarked is check-then-insert with no race window marked:
// only a switch between the workers at an I/O call can find its race.
func checkThenInsertUnmarked(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	var n int
	if err := d.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM seen WHERE key = ?`, m.Key).Scan(&n); err != nil || n > 0 {
		return err
	}
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO seen (key) VALUES (?)`, m.Key); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	return tx.Commit()
}

// TestUnmarkedHandlersAreCrashedEverywhere: a handler that marks no crash
// point and no race window still fails where it should, at a numbered
// call, and the story replays.
func TestUnmarkedHandlersAreCrashedEverywhere(t *testing.T) {
	for _, tc := range []struct {
		name   string
		handle handlers.Func
		want   string // the shortest duplicate
	}{
		// Dying right after the credit (call 2), before the key is
		// recorded: the redelivery credits again.
		{"effect-first", effectFirstUnmarked, "publish a amount=10000\ndeliver crash=after-call:2\n"},
		// Worker A checks (call 1) and stops before BEGIN; B checks too,
		// and both insert: seen has no UNIQUE constraint.
		{"check-then-insert", checkThenInsertUnmarked, "publish a amount=10000\nretry a\ndeliver-concurrent switch=2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := handlers.Info{Name: tc.name, Schema: `CREATE TABLE seen (key TEXT);`, Handle: tc.handle}
			rep, err := CheckHandler(context.Background(), h, quick)
			if err != nil {
				t.Fatal(err)
			}
			// (Keyed by the key alone, both also fail on a tenant
			// collision and a changed payload: not the point here.)
			if f, ok := failure(rep, sim.Duplicate); !ok || f.Script != tc.want {
				t.Fatalf("failures %+v, want this duplicate:\n%s", rep.Failures, tc.want)
			}
			run, err := sim.Execute(context.Background(), script.MustParse(tc.want), sim.Options{Custom: []handlers.Info{h}})
			if err != nil || run.Results[0].Verdict != sim.Duplicate {
				t.Errorf("replay: %v %v", run, err)
			}
		})
	}
}

// TestSimplerCallBoundaries: a crash at a call shrinks toward no crash,
// the named points, then lower calls; a switch toward one worker, the
// Yield race, B run to its end, then lower calls. Each form is plainer,
// so shrinking ends.
func TestSimplerCallBoundaries(t *testing.T) {
	for step, want := range map[string][]string{
		"deliver crash=call:3": {"deliver", "deliver crash=before-effect", "deliver crash=after-effect", "deliver crash=before-ack",
			"deliver crash=call:2", "deliver crash=call:1"},
		"deliver crash=after-call:2": {"deliver", "deliver crash=before-effect", "deliver crash=after-effect", "deliver crash=before-ack",
			"deliver crash=call:2", "deliver crash=after-call:1"},
		"deliver-concurrent switch=2,3": {"deliver", "deliver-concurrent", "deliver-concurrent switch=2",
			"deliver-concurrent switch=1,3", "deliver-concurrent switch=2,2", "deliver-concurrent switch=2,1"},
		"deliver-concurrent same switch=2": {"deliver", "deliver-concurrent same", "deliver-concurrent switch=2",
			"deliver-concurrent same switch=1"},
	} {
		if got := simpler(step); !reflect.DeepEqual(got, want) {
			t.Errorf("simpler(%q) = %q, want %q", step, got, want)
		}
	}
}

// TestAPIHandlers: the checker searches the API handlers with the API
// side's alphabet, and every failure it reports replays from scratch to
// the same verdict.
func TestAPIHandlers(t *testing.T) {
	opt := Options{Depth: 2, Runs: 100, Len: 5}
	rep := mustCheck(t, "api-key-no-fingerprint", opt)
	f, ok := failure(rep, sim.SilentConflict)
	if !ok || f.Steps != 2 || !strings.Contains(f.Script, "request a amount=10000\nretry a amount=15000\n") {
		t.Errorf("api-key-no-fingerprint: no 2-step silent conflict (a key reused with another amount): %+v", rep.Failures)
	}
	// The right handler fails only where nothing it keeps could help
	// (rightOnlyFails): its shortest story is the server dying right
	// after the charge, which the provider does not deduplicate and
	// nothing recorded.
	rep = mustCheck(t, "api-idempotency-key", opt)
	if !rep.Failed() || rep.Failures[0].Verdict != sim.Duplicate || rep.Failures[0].Cause != "crash=after-effect" {
		t.Errorf("api-idempotency-key: %+v", rep.Failures)
	}
	rightOnlyFails(t, rep)
	for _, name := range []string{"api-naive", "api-key-no-lock", "api-key-short-ttl"} {
		rep := mustCheck(t, name, opt)
		if !rep.Failed() {
			t.Errorf("%s: no failure found", name)
		}
		for _, f := range rep.Failures {
			run, err := sim.Execute(context.Background(), script.MustParse(f.Script), sim.Options{Handlers: []string{name}})
			if err != nil || run.Results[0].Verdict != f.Verdict {
				t.Errorf("%s: %s does not replay to %s: %v", name, f.Script, f.Verdict, err)
			}
		}
	}
}

// savedByHeaderSchema is savedByHeader's key store: one row per
// Idempotency-Key header as sent, whatever the tenant.
const savedByHeaderSchema = `CREATE TABLE saved_by_header (
    header      TEXT    PRIMARY KEY,
    fingerprint TEXT    NOT NULL,
    locked_at   INTEGER,
    status      INTEGER,
    body        TEXT
);`

// savedByHeader is an Idempotency-Key middleware of a common kind,
// written for these tests: sound in every way but one. It fingerprints
// the request, takes a lock on the key in one transaction before the
// charge (a lock a minute old belongs to a dead server and is taken
// over), and saves the answer under the lock; but it keys the saved
// answers by the header's text alone: not the tenant's, and not parsed,
// so "a" and a are two keys.
func savedByHeader(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse {
	if r.Header == "" {
		return handlers.APIResponse{Status: 400, Body: `{"title":"Idempotency-Key required"}`}
	}
	fp, now := handlers.Fingerprint(r), d.Now().UnixMilli()
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return handlers.APIResponse{Status: 500, Body: `{"title":"begin"}`}
	}
	defer tx.Rollback()
	var savedFP string
	var locked, status sql.NullInt64
	var body sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT fingerprint, locked_at, status, body FROM saved_by_header WHERE header = ?`, r.Header).
		Scan(&savedFP, &locked, &status, &body)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, `INSERT INTO saved_by_header (header, fingerprint, locked_at) VALUES (?, ?, ?)`, r.Header, fp, now)
	case err != nil:
	case savedFP != fp:
		return handlers.APIResponse{Status: 422, Body: `{"title":"Idempotency-Key reused"}`}
	case status.Valid:
		return handlers.APIResponse{Status: int(status.Int64), Body: body.String, Replayed: true}
	case locked.Valid && locked.Int64 > now-time.Minute.Milliseconds():
		return handlers.APIResponse{Status: 409, Body: `{"title":"Request in progress"}`}
	default:
		_, err = tx.ExecContext(ctx, `UPDATE saved_by_header SET locked_at = ? WHERE header = ?`, now, r.Header)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return handlers.APIResponse{Status: 500, Body: `{"title":"key store"}`}
	}
	if err := d.Gateway.Charge(ctx, r.Account, r.Amount, r.Header); err != nil {
		d.DB.ExecContext(ctx, `UPDATE saved_by_header SET locked_at = NULL WHERE header = ? AND locked_at = ?`, r.Header, now)
		return handlers.APIResponse{Status: 502, Body: `{"title":"Payment provider failed"}`}
	}
	resp := handlers.APIResponse{Status: 201, Body: fmt.Sprintf(`{"account":%q,"amount":%d,"status":"succeeded"}`, r.Account, r.Amount)}
	res, err := d.DB.ExecContext(ctx, `UPDATE saved_by_header SET locked_at = NULL, status = ?, body = ? WHERE header = ? AND locked_at = ?`,
		resp.Status, resp.Body, r.Header, now)
	if err != nil {
		return handlers.APIResponse{Status: 500, Body: `{"title":"save"}`}
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return handlers.APIResponse{Status: 409, Body: `{"title":"another request took the key over"}`}
	}
	return resp
}

// TestAPITenantsAndSpellings: the API alphabet sends a second tenant with
// the same operation id and body, and the key spelled as an RFC 8941
// string beside the bare token. A middleware that keys its saved answers
// by the header as sent is found out by a two-tenant story (the second
// tenant gets the first one's saved 201 and is never charged: lost), and
// the spelling story replays to a second charge on it; the lab's
// api-idempotency-key, which keys by tenant and the parsed key, gets
// neither.
func TestAPITenantsAndSpellings(t *testing.T) {
	alpha := (&searcher{api: true, header: &script.Script{}}).apiAlphabet([]string{"request a amount=10000"})
	for _, want := range []string{"request a amount=10000 tenant=globex", "retry a key=quoted"} {
		if !slices.Contains(alpha, want) {
			t.Errorf("the API alphabet after one request lacks %q: %q", want, alpha)
		}
	}
	alpha = (&searcher{api: true, header: &script.Script{}}).apiAlphabet([]string{"request a amount=10000", "request a amount=10000 tenant=globex"})
	if !slices.Contains(alpha, "retry a tenant=globex") {
		t.Errorf("the second tenant's operation is not retried under its tenant: %q", alpha)
	}
	// Later than right after the first request, only the random search
	// offers them.
	later := []string{"request a amount=10000", "advance 2m"}
	if s := (&searcher{api: true, header: &script.Script{}}); slices.Contains(s.apiAlphabet(later), "retry a key=quoted") ||
		!slices.Contains(s.apiExtras(later), "retry a key=quoted") || !slices.Contains(s.apiExtras(later), "request a amount=10000 tenant=globex") {
		t.Errorf("after two steps: alphabet %q, extras %q", s.apiAlphabet(later), s.apiExtras(later))
	}

	raw := handlers.Info{Name: "saved-by-header", Schema: savedByHeaderSchema, API: savedByHeader}
	rep, err := CheckHandler(context.Background(), raw, Options{Depth: 2, Runs: 100, Len: 5})
	if err != nil {
		t.Fatal(err)
	}
	f, ok := failure(rep, sim.Lost)
	if !ok || f.Script != "request a amount=10000\nrequest a amount=10000 tenant=globex\n" {
		t.Fatalf("no two-tenant story for a key store keyed by the header: %+v", rep.Failures)
	}
	if strings.Contains(f.Reason, "publish") || strings.Contains(f.Reason, "message") {
		t.Errorf("the API side's reason speaks of the broker: %s", f.Reason)
	}
	// The duplicate it also has (a crash right after the charge, which no
	// key store can see) is the shortest of its verdict, so the spelling
	// story is checked by replay.
	const spelled = "request a amount=10000\nretry a key=quoted\n"
	for _, tc := range []struct {
		h    handlers.Info
		want sim.Verdict
	}{{raw, sim.Duplicate}, {apiHandler(t, "api-idempotency-key"), sim.OK}} {
		run, err := sim.Execute(context.Background(), script.MustParse(spelled), sim.Options{Custom: []handlers.Info{tc.h}})
		if err != nil || run.Results[0].Verdict != tc.want {
			t.Errorf("%s on %q: %v %v, want %s", tc.h.Name, spelled, run.Results[0].Verdict, err, tc.want)
		}
	}

	// The lab's right handler: no new failure from either step.
	rightOnlyFails(t, mustCheck(t, "api-idempotency-key", Options{Depth: 3, Runs: 200, Len: 6}))
}

// rightOnlyFails checks that the lab's right API handler fails only
// where nothing a server keeps can help, each a duplicate charge: the
// server dies right after the charge (nothing recorded it), the gateway
// times out after charging (only a provider that deduplicates helps), or
// a retry comes after the key's lifetime (24h, as Stripe keeps keys).
// One story per verdict showed the first alone.
func rightOnlyFails(t *testing.T, rep Report) {
	t.Helper()
	for _, f := range rep.Failures {
		ok := false
		for _, c := range []string{"crash=after-effect", "gateway timeout", "advance 24h1m"} {
			ok = ok || strings.Contains(f.Cause, c)
		}
		if f.Verdict != sim.Duplicate || !ok {
			t.Errorf("api-idempotency-key: a failure besides the crash after the charge, the gateway's timeout and the key's lifetime: %s (%s)\n%s",
				f.Verdict, f.Cause, f.Script)
		}
	}
}

func apiHandler(t *testing.T, name string) handlers.Info {
	t.Helper()
	for _, h := range sim.APIHandlers() {
		if h.Name == name {
			return h
		}
	}
	t.Fatalf("no API handler %s", name)
	return handlers.Info{}
}
