package labtest_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/labtest"
	"github.com/idempotency-lab/lab/sim"
)

func TestMain(m *testing.M) {
	code := m.Run()
	servers.Stop() // the throwaway PostgreSQL and Redis, if a test started them
	os.Exit(code)
}

// receivedMessages inserts each message into a received-messages table
// in the transaction that credits and takes the INSERT's error for a
// repeat: fine on SQLite, a poison message on PostgreSQL, which aborts
// the transaction at the duplicate key.
const receivedMessages = "testdata/received-messages.go"

// TestEngineFindsWhatSQLiteHides: CheckFile passes the detector on the
// embedded engine and fails it with labtest.Engine, with a poison story
// whose trace (replayed on the same servers) shows PostgreSQL's abort;
// Run and Replay with Engine agree.
func TestEngineFindsWhatSQLiteHides(t *testing.T) {
	pg, rd := servers.Postgres(t), servers.Redis(t)
	rec := &recorder{TB: t}
	labtest.CheckFile(rec, receivedMessages, labtest.Depth(2), labtest.Runs(-1))
	if len(rec.errors) > 0 || rec.fatal != "" {
		t.Fatalf("embedded: %q %s", rec.errors, rec.fatal)
	}
	rec = &recorder{TB: t}
	labtest.CheckFile(rec, receivedMessages, labtest.Depth(2), labtest.Runs(-1), labtest.Engine(pg, rd))
	if rec.fatal != "" {
		t.Fatal(rec.fatal)
	}
	all := strings.Join(rec.errors, "\n")
	// The trace is the real engine's: the SELECT after the duplicate key
	// fails as PostgreSQL fails it, "current transaction is aborted".
	if !strings.Contains(all, "received-messages: poison in ") || !strings.Contains(all, "current transaction is aborted") {
		t.Fatalf("real: %s", all)
	}
	h, err := labtest.File(receivedMessages)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rep, err := labtest.Run(ctx, h, labtest.Depth(2), labtest.Runs(-1), labtest.Engine(pg, rd))
	if err != nil {
		t.Fatal(err)
	}
	var story string
	for _, f := range rep.Failures {
		if f.Verdict == sim.Poison {
			story = f.Script
		}
	}
	if story == "" {
		t.Fatalf("Run: %+v", rep.Failures)
	}
	if res, err := labtest.Replay(ctx, h, story, labtest.Engine(pg, rd)); err != nil || res.Verdict != sim.Poison {
		t.Errorf("Replay on the real engine: %s, %v", res.Verdict, err)
	}
	if res, err := labtest.Replay(ctx, h, story); err != nil || res.Verdict != sim.OK {
		t.Errorf("Replay on the embedded engine: %s, %v; want ok", res.Verdict, err)
	}
}

// TestEngineBadServers: missing URLs, or servers that do not answer, fail
// the search with the reason, never a verdict.
func TestEngineBadServers(t *testing.T) {
	h := labtest.Handler{Name: "charge-twice", Handle: chargeTwice}
	for _, c := range []struct {
		pg, rd, want string
	}{
		{"", "", `labtest.Engine needs a PostgreSQL URL and a Redis URL, got "" and ""`},
		{"postgres://nobody@127.0.0.1:1/x?sslmode=disable", "redis://127.0.0.1:1/0", "labtest.Engine: --postgres postgres://nobody@127.0.0.1:1/x"},
	} {
		rep, err := labtest.Run(context.Background(), h, labtest.Depth(1), labtest.Runs(-1), labtest.Engine(c.pg, c.rd))
		if err == nil || !strings.Contains(err.Error(), c.want) || rep.Failed() {
			t.Errorf("%q %q: %v, %+v; want %q", c.pg, c.rd, err, rep, c.want)
		}
		rec := &recorder{TB: t}
		labtest.Check(rec, h, labtest.Depth(1), labtest.Runs(-1), labtest.Engine(c.pg, c.rd))
		if !strings.Contains(rec.fatal, c.want) || len(rec.errors) > 0 {
			t.Errorf("Check: fatal %q, errors %q", rec.fatal, rec.errors)
		}
	}
}
