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
	"github.com/idempotency-lab/lab/web/webtest"
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
	emb := webtest.Get(t, h, "/check/unique-same-tx")
	if emb.Status != 200 || strings.Contains(emb.Body, `data-verdict="poison"`) ||
		!strings.Contains(emb.Body, "Searched on the embedded engine") || !strings.Contains(emb.Body, `href="/check/unique-same-tx?engine=real"`) {
		t.Fatalf("embedded: %d\n%s", emb.Status, webtest.Excerpt(emb.Body))
	}
	real := webtest.Get(t, h, "/check/unique-same-tx?engine=real")
	if real.Status != 200 || !strings.Contains(real.Body, `data-verdict="poison"`) ||
		!strings.Contains(real.Body, "Searched on the real engine") || !strings.Contains(real.Body, "engine=real") {
		t.Fatalf("real: %d\n%s", real.Status, webtest.Excerpt(real.Body))
	}
	r := webtest.Post(t, h, "/lab/code", url.Values{"code": {webtest.FixedNaive}, "name": {"mine"}, "state": {""}, "action": {"check"}})
	loc := r.Header.Get("Location")
	if r.Status != http.StatusSeeOther {
		t.Fatalf("%d %q", r.Status, loc)
	}
	code := webtest.Get(t, h, loc+"&engine=real")
	if code.Status != 200 || !strings.Contains(code.Body, "searched on the embedded engine only") {
		t.Errorf("a file with engine=real: %d\n%s", code.Status, webtest.Excerpt(code.Body))
	}
}

// TestCheckEngineParameter: engine=real on a server without a real
// engine is a 404 that says how to start one, another engine a 400
// naming the valid ones, both before any search; the pages of such a
// server say nothing of engines.
func TestCheckEngineParameter(t *testing.T) {
	h := webtest.NewServer(t)
	for _, target := range []string{"/check?engine=real", "/check/naive?engine=real"} {
		if r := webtest.Get(t, h, target); r.Status != http.StatusNotFound || !strings.Contains(r.Body, "--postgres URL and --redis URL") {
			t.Errorf("%s: %d\n%s", target, r.Status, webtest.Excerpt(r.Body))
		}
	}
	if r := webtest.Get(t, h, "/check/naive?engine=mars"); r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "use embedded or real") {
		t.Errorf("engine=mars: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if r := webtest.Get(t, h, "/check/naive"); r.Status != 200 || strings.Contains(r.Body, `id="chk-engine"`) {
		t.Errorf("an engine line without a real engine: %d", r.Status)
	}
}
