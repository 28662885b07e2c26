package checkpage_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
)

// TestCheckOnRealEngine: on a server started with a real PostgreSQL and
// Redis, /check/{handler}?engine=real searches there: unique-same-tx,
// which goes on in a transaction after its duplicate-key error, is
// poison on PostgreSQL only, and the story opens in the lab on the real
// engine. A visitor's file is searched on the embedded engine whatever
// engine= says (the sandbox's child never gets the real one), and its
// page says so.
func TestCheckOnRealEngine(t *testing.T) {
	e, err := sim.NewEngine(context.Background(), servers.Postgres(t), servers.Redis(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	// A budget long enough for the real engine's two-step stories (each
	// world there is a schema of its own); the search stops there.
	h, err := web.NewServer(web.Config{Engine: e, CheckBudget: 20 * time.Second,
		Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	if err != nil {
		t.Fatal(err)
	}
	emb := get(t, h, "/check/unique-same-tx")
	if emb.status != 200 || strings.Contains(emb.body, `data-verdict="poison"`) ||
		!strings.Contains(emb.body, "Searched on the embedded engine") || !strings.Contains(emb.body, `href="/check/unique-same-tx?engine=real"`) {
		t.Fatalf("embedded: %d\n%s", emb.status, excerpt(emb.body))
	}
	real := get(t, h, "/check/unique-same-tx?engine=real")
	if real.status != 200 || !strings.Contains(real.body, `data-verdict="poison"`) ||
		!strings.Contains(real.body, "Searched on the real engine") || !strings.Contains(real.body, "engine=real") {
		t.Fatalf("real: %d\n%s", real.status, excerpt(real.body))
	}
	r := post(t, h, "/lab/code", url.Values{"code": {fixedNaive}, "name": {"mine"}, "state": {""}, "action": {"check"}})
	loc := r.header.Get("Location")
	if r.status != http.StatusSeeOther {
		t.Fatalf("%d %q", r.status, loc)
	}
	code := get(t, h, loc+"&engine=real")
	if code.status != 200 || !strings.Contains(code.body, "searched on the embedded engine only") {
		t.Errorf("a file with engine=real: %d\n%s", code.status, excerpt(code.body))
	}
}

// TestCheckEngineParameter: engine=real on a server without a real
// engine is a 404 that says how to start one, another engine a 400
// naming the valid ones, both before any search; the pages of such a
// server say nothing of engines.
func TestCheckEngineParameter(t *testing.T) {
	h := newTestServer(t)
	for _, target := range []string{"/check?engine=real", "/check/naive?engine=real"} {
		if r := get(t, h, target); r.status != http.StatusNotFound || !strings.Contains(r.body, "--postgres URL and --redis URL") {
			t.Errorf("%s: %d\n%s", target, r.status, excerpt(r.body))
		}
	}
	if r := get(t, h, "/check/naive?engine=mars"); r.status != http.StatusBadRequest || !strings.Contains(r.body, "use embedded or real") {
		t.Errorf("engine=mars: %d\n%s", r.status, excerpt(r.body))
	}
	if r := get(t, h, "/check/naive"); r.status != 200 || strings.Contains(r.body, `id="chk-engine"`) {
		t.Errorf("an engine line without a real engine: %d", r.status)
	}
}
