package timeline

import (
	"slices"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sim"
)

// lifelines are a diagram's lifelines, by label.
func lifelines(d Diagram) []string {
	var out []string
	for _, l := range d.Lifelines {
		out = append(out, l.Label)
	}
	return out
}

// TestAPILifelines: an API run is drawn with the client and the server
// processes, not a producer, a broker and workers; a request is an arrow
// from the client to its server, the answer one back with its status,
// and a wrong answer is the oracle's finding across the diagram.
func TestAPILifelines(t *testing.T) {
	res := runScript(t, "request pay-1 amount=100 lose-response\nretry pay-1\n", "api-idempotency-key")
	d := Build(res.Trace, 2, EnglishLabels())
	if got := lifelines(d); !slices.Equal(got, []string{"Client", "Server", "SQLite", "Gateway"}) {
		t.Errorf("lifelines %v, want the client, one server, SQLite and the gateway", got)
	}
	var req, resp int
	for _, r := range d.Rows {
		switch r.Kind {
		case sim.KindRequest:
			req++
			if !strings.Contains(r.Class, "tl-k-request") || len(r.Lines) == 0 {
				t.Errorf("a request is not drawn as an arrow: %+v", r)
			}
		case sim.KindResponse:
			resp++
			if !strings.Contains(r.Class, "tl-status-2xx") {
				t.Errorf("a 201 is not marked 2xx: %q", r.Class)
			}
		}
	}
	if req != 2 || resp != 2 {
		t.Errorf("%d requests and %d answers drawn, want 2 and 2", req, resp)
	}
	ru := Build(res.Trace, 2, RussianLabels())
	if got := lifelines(ru); got[0] != "Клиент" || got[1] != "Сервер" {
		t.Errorf("Russian lifelines %v", got)
	}

	two := runScript(t, "request-concurrent pay-1 amount=100\n", "api-key-no-lock")
	if got := lifelines(Build(two.Trace, 1, EnglishLabels())); !slices.Equal(got[:3], []string{"Client", "Server 1", "Server 2"}) {
		t.Errorf("two at once: lifelines %v, want the client and two servers", got)
	}

	wrong := runScript(t, "request pay-1 amount=100 key=none\n", "api-naive")
	found := false
	for _, r := range Build(wrong.Trace, 1, EnglishLabels()).Rows {
		found = found || r.Kind == sim.KindWrongStatus
	}
	for _, r := range Build(append(wrong.Trace, wrong.Settlement), 1, EnglishLabels()).Rows {
		found = found || r.Kind == sim.KindWrongStatus
	}
	if !found {
		t.Error("a wrong answer (a success without a key) is not on the diagram")
	}
}
