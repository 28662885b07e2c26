package playground_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
)

// TestLabOnRealEngines: a lab started with a real PostgreSQL and Redis
// offers them beside the embedded engine, and the timeline shows the real
// server's answers: 23505, then 25P02 for the handler that goes on in an
// aborted transaction.
func TestLabOnRealEngines(t *testing.T) {
	e, err := sim.NewEngine(context.Background(), servers.Postgres(t), servers.Redis(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	h, err := web.NewServer(web.Config{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	target := "/lab?preset=crash-before-ack&handlers=unique,unique-same-tx&step=4"
	emb := get(t, h, target)
	if !strings.Contains(emb.body, `id="engines"`) || !strings.Contains(emb.body, `engine=real`) {
		t.Fatalf("no engine choice\n%s", excerpt(emb.body))
	}
	real := get(t, h, target+"&engine=real")
	if real.status != 200 {
		t.Fatalf("%d\n%s", real.status, excerpt(real.body))
	}
	for _, want := range []string{"PostgreSQL", "error 23505", "error 25P02"} {
		if !strings.Contains(real.body, want) {
			t.Errorf("the real engine's page lacks %q", want)
		}
	}
	if v := cardVerdicts(real.body); v["unique"] != "ok" || v["unique-same-tx"] != "poison" {
		t.Errorf("verdicts on the real engine: %v", v)
	}
	if v := cardVerdicts(emb.body); v["unique-same-tx"] != "ok" {
		t.Errorf("verdicts on the embedded engine: %v", v)
	}
}

func TestEngineParameter(t *testing.T) {
	h := newTestServer(t)
	if r := get(t, h, "/lab?engine=real"); r.status != http.StatusNotFound || !strings.Contains(r.body, "--postgres URL and --redis URL") {
		t.Errorf("engine=real without one: %d\n%s", r.status, excerpt(r.body))
	}
	if r := get(t, h, "/lab?engine=mars"); r.status != http.StatusBadRequest || !strings.Contains(r.body, "use embedded or real") {
		t.Errorf("engine=mars: %d", r.status)
	}
	if r := get(t, h, "/lab"); strings.Contains(r.body, `id="engines"`) {
		t.Error("an engine choice without a real engine")
	}
}

// TestProgressOnPostgresSurvivesARestart: two lab servers one after the
// other (or side by side) on one PostgreSQL progress store: an answer
// given on the first shows on the second.
func TestProgressOnPostgresSurvivesARestart(t *testing.T) {
	pg := servers.Postgres(t)
	bank := mustBank(t)
	open := func() http.Handler {
		store, err := practice.OpenPostgres(context.Background(), pg, "restart_test", bank)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		h, err := web.NewServer(web.Config{Practice: store, Bank: bank, Now: newTestClock().Now})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	first := newVisitor(t, open())
	q := findQuestion(t, practice.KindChoice, nil)
	first.answer(q.ID, url.Values(answerFor(t, q, true)))
	second := newVisitor(t, open())
	second.Cookies = first.Cookies
	if r := second.get("/practice"); !strings.Contains(r.body, `id="overall" data-answered="`) || strings.Contains(r.body, `id="overall" data-answered="0"`) {
		t.Errorf("the second server does not show the answer\n%s", excerpt(r.body))
	}
}
