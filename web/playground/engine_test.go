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
	"github.com/idempotency-lab/lab/web/webtest"
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
	emb := webtest.Get(t, h, target)
	if !strings.Contains(emb.Body, `id="engines"`) || !strings.Contains(emb.Body, `engine=real`) {
		t.Fatalf("no engine choice\n%s", webtest.Excerpt(emb.Body))
	}
	real := webtest.Get(t, h, target+"&engine=real")
	if real.Status != 200 {
		t.Fatalf("%d\n%s", real.Status, webtest.Excerpt(real.Body))
	}
	for _, want := range []string{"PostgreSQL", "error 23505", "error 25P02"} {
		if !strings.Contains(real.Body, want) {
			t.Errorf("the real engine's page lacks %q", want)
		}
	}
	if v := webtest.CardVerdicts(real.Body); v["unique"] != "ok" || v["unique-same-tx"] != "poison" {
		t.Errorf("verdicts on the real engine: %v", v)
	}
	if v := webtest.CardVerdicts(emb.Body); v["unique-same-tx"] != "ok" {
		t.Errorf("verdicts on the embedded engine: %v", v)
	}
}

func TestEngineParameter(t *testing.T) {
	h := webtest.NewServer(t)
	if r := webtest.Get(t, h, "/lab?engine=real"); r.Status != http.StatusNotFound || !strings.Contains(r.Body, "--postgres URL and --redis URL") {
		t.Errorf("engine=real without one: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if r := webtest.Get(t, h, "/lab?engine=mars"); r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "use embedded or real") {
		t.Errorf("engine=mars: %d", r.Status)
	}
	if r := webtest.Get(t, h, "/lab"); strings.Contains(r.Body, `id="engines"`) {
		t.Error("an engine choice without a real engine")
	}
}

// TestProgressOnPostgresSurvivesARestart: two lab servers one after the
// other (or side by side) on one PostgreSQL progress store: an answer
// given on the first shows on the second.
func TestProgressOnPostgresSurvivesARestart(t *testing.T) {
	pg := servers.Postgres(t)
	bank := webtest.MustBank(t)
	open := func() http.Handler {
		store, err := practice.OpenPostgres(context.Background(), pg, "restart_test", bank)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		h, err := web.NewServer(web.Config{Practice: store, Bank: bank, Now: webtest.NewClock().Now})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	first := webtest.NewVisitor(t, open())
	q := webtest.FindQuestion(t, practice.KindChoice, nil)
	first.Answer(q.ID, url.Values(webtest.AnswerFor(t, q, true)))
	second := webtest.NewVisitor(t, open())
	second.Cookies = first.Cookies
	if r := second.Get("/practice"); !strings.Contains(r.Body, `id="overall" data-answered="`) || strings.Contains(r.Body, `id="overall" data-answered="0"`) {
		t.Errorf("the second server does not show the answer\n%s", webtest.Excerpt(r.Body))
	}
}
