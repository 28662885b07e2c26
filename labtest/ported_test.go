package labtest_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/check"
	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/labtest"
)

// The ported module (testdata/ported): handlers the lab did not write,
// in the shapes of well-known idempotency code (a deduplicator
// middleware, a received-messages detector, an idempotent receiver over
// a metadata store, a serverless utility's in-progress record with
// expiry, an HTTP idempotency middleware, an inbox with a row-per-message
// quarantine). Each file's comment says what its design predicts; the
// checker must find that (must) and nothing its design does not have
// (not), under redelivery at once and under a visibility timeout longer
// than its lease.
//
// A verdict is "verdict" (any cause) or "verdict|cause", the cause as
// check.Failure.Cause names it.

// leaseHeader makes the lease one minute and the queue's visibility
// timeout two: the platform's rule (the timeout at least the function's).
const leaseHeader = "processing-ttl: 1m\ndone-ttl: 1m\nvisibility-timeout: 2m"

func TestPortedHandlers(t *testing.T) {
	for _, c := range []struct {
		file, header string
		must, not    []string
	}{
		// The mark before the work: a crash between them loses the
		// message (the redelivery at once finds the mark); a crash before
		// the ack is safe until the window ends, then the redelivery
		// credits again. No tenant in the key, no payload kept.
		{"dedup-middleware", "",
			[]string{"lost|crash=before-effect", "lost|tenant=globex", "silent-conflict|change-payload", "duplicate|advance 24h1m + crash=before-ack"},
			[]string{"poison", "duplicate|crash=before-ack"}},
		// A redelivery after the window (2m > 1m) finds no mark: the
		// crash before the credit is retried (no loss), the one before the
		// ack credits again. The tenant and payload failures stay.
		{"dedup-middleware", leaseHeader,
			[]string{"duplicate|crash=before-ack", "lost|tenant=globex", "silent-conflict|change-payload"},
			[]string{"lost|crash=before-effect", "poison"}},
		// No lease: the removal on failure never runs for a dead worker,
		// whenever the redelivery comes.
		{"metadata-receiver", "",
			[]string{"lost|crash=before-effect", "lost|tenant=globex", "silent-conflict|change-payload"},
			[]string{"duplicate", "poison"}},
		{"metadata-receiver", leaseHeader,
			[]string{"lost|crash=before-effect", "lost|tenant=globex", "silent-conflict|change-payload"},
			[]string{"duplicate", "poison"}},
		// Redelivery at once meets a live INPROGRESS record: lost before
		// the charge, poison after it (the false alarms of redelivery
		// that takes no time); a retry after the record's expiry charges
		// again, as the utility documents; another payload is its
		// validation error, redelivered until the dead-letter queue.
		{"inprogress-expiry", "",
			[]string{"lost|crash=before-effect", "poison|crash=after-effect", "poison|change-payload", "duplicate|advance 24h1m + crash=before-ack"},
			[]string{"duplicate|crash=after-effect"}},
		// As on its platform: a crash after the charge charges again, no
		// crash loses or poisons.
		{"inprogress-expiry", leaseHeader,
			[]string{"duplicate|crash=after-effect", "poison|change-payload"},
			[]string{"lost", "poison|crash=after-effect", "poison|crash=before-effect"}},
		// On SQLite the detector is correct (its PostgreSQL failure is
		// TestPortedDetectorOnPostgres).
		{"received-ids", "", nil, []string{"duplicate", "lost", "poison", "silent-conflict"}},
		{"received-ids", leaseHeader, nil, []string{"duplicate", "lost", "poison", "silent-conflict"}},
		// A plain quarantine table, one row per message: it passes.
		{"quarantine-rows", "", nil, []string{"duplicate", "lost", "poison", "silent-conflict"}},
		{"quarantine-rows", leaseHeader, nil, []string{"duplicate", "lost", "poison", "silent-conflict"}},
		// The API side (no broker, so no visibility timeout): the raw
		// header as the key misses the tenant (another tenant's request
		// gets the saved 201 and is never charged) and the spelling ("a"
		// and a are two keys); no fingerprint, so another amount under
		// the key is answered with the first one's 201.
		{"http-middleware", "",
			[]string{"lost|tenant=globex", "duplicate|key=quoted + retry", "silent-conflict|retry + retry amount"},
			[]string{"poison"}},
	} {
		t.Run(c.file+" "+strings.ReplaceAll(c.header, "\n", ", "), func(t *testing.T) {
			t.Parallel()
			h, err := labtest.File("testdata/ported/" + c.file + ".go")
			if err != nil {
				t.Fatal(err)
			}
			rep, err := labtest.Run(context.Background(), h, labtest.Depth(3), labtest.Runs(-1), labtest.Header(c.header))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range verdictProblems(rep, c.must, c.not) {
				t.Error(p)
			}
		})
	}
}

// verdictProblems lists each must verdict the report lacks and each not
// verdict it has, with the story.
func verdictProblems(rep check.Report, must, not []string) []string {
	matches := func(f check.Failure, want string) bool {
		v, cause, withCause := strings.Cut(want, "|")
		return string(f.Verdict) == v && (!withCause || f.Cause == cause)
	}
	var out []string
	for _, want := range must {
		if !slices.ContainsFunc(rep.Failures, func(f check.Failure) bool { return matches(f, want) }) {
			var got []string
			for _, f := range rep.Failures {
				got = append(got, string(f.Verdict)+"|"+f.Cause)
			}
			out = append(out, fmt.Sprintf("no %s story; the stories: %q", want, got))
		}
	}
	for _, f := range rep.Failures {
		for _, bad := range not {
			if matches(f, bad) {
				out = append(out, fmt.Sprintf("a %s|%s story its design does not have:\n%s", f.Verdict, f.Cause, f.Script))
			}
		}
	}
	return out
}

// TestPortedVerdictsCanFail: the comparison reports a must verdict that
// is missing and a not verdict that is there.
func TestPortedVerdictsCanFail(t *testing.T) {
	rep := check.Report{Failures: []check.Failure{{Verdict: "lost", Cause: "tenant=globex", Script: "publish a\n"}}}
	if p := verdictProblems(rep, []string{"lost|tenant=globex"}, []string{"duplicate"}); len(p) != 0 {
		t.Errorf("a report as expected: %q", p)
	}
	if p := verdictProblems(rep, []string{"lost|crash=before-effect"}, nil); len(p) != 1 || !strings.Contains(p[0], "no lost|crash=before-effect story") {
		t.Errorf("a missing must: %q", p)
	}
	if p := verdictProblems(rep, nil, []string{"lost"}); len(p) != 1 || !strings.Contains(p[0], "a lost|tenant=globex story its design does not have") {
		t.Errorf("a present not: %q", p)
	}
}

// TestPortedTwoTenantStory: the HTTP middleware's report tells the
// two-tenant story whole: the second tenant's request with the same key
// and body, and the first tenant's saved answer replayed to it.
func TestPortedTwoTenantStory(t *testing.T) {
	rec := &recorder{TB: t}
	labtest.CheckFile(rec, "testdata/ported/http-middleware.go", labtest.Depth(2), labtest.Runs(-1))
	if rec.fatal != "" {
		t.Fatal(rec.fatal)
	}
	var story string
	for _, e := range rec.errors {
		if strings.Contains(e, "cause: tenant=globex") {
			story = e
		}
	}
	for _, want := range []string{"http-middleware: lost in 2 steps", "request a amount=10000\n    request a amount=10000 tenant=globex", "&code="} {
		if !strings.Contains(story, want) {
			t.Errorf("the two-tenant story lacks %q:\n%s", want, story)
		}
	}
}

// TestPortedDetectorOnPostgres: the received-messages detector that
// passes on SQLite loops to the dead-letter queue on PostgreSQL, which
// aborts the transaction at the duplicate key: poison, searched on the
// real engine (labtest.Engine), its story replayed there.
func TestPortedDetectorOnPostgres(t *testing.T) {
	pg, rd := servers.Postgres(t), servers.Redis(t)
	h, err := labtest.File("testdata/ported/received-ids.go")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rep, err := labtest.Run(ctx, h, labtest.Depth(2), labtest.Runs(-1), labtest.Engine(pg, rd))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range verdictProblems(rep, []string{"poison|retry", "poison|crash=before-ack"}, []string{"duplicate", "lost"}) {
		t.Error(p)
	}
	for _, f := range rep.Failures {
		if res, err := labtest.Replay(ctx, h, f.Script, labtest.Engine(pg, rd)); err != nil || res.Verdict != f.Verdict {
			t.Errorf("%s replays on PostgreSQL as %s (%v):\n%s", f.Verdict, res.Verdict, err, f.Script)
		}
	}
}
