package sim_test

// The API side's conformance matrix: every API preset (presets/api) ×
// every API handler, with the verdict, the amount charged after
// settlement (the client retrying, with backoff, every request it got no
// final answer to), and the statuses the server answered, in order.
// Amounts are minor units; the balance of an API world is what the
// payment provider charged. Every cell that is not the obvious outcome
// says why.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

type apiCell struct {
	handler  string
	verdict  sim.Verdict
	charged  int64
	statuses string // the server's answers, settlement included, in order; "x" for a server that died
}

type apiRow struct {
	preset   string
	expected int64
	cells    []apiCell
}

func apiMatrix() []apiRow {
	const (
		ok       = sim.OK
		dup      = sim.Duplicate
		conflict = sim.SilentConflict
		lost     = sim.Lost
		// Every answer of the retry presets, in order: the eight first
		// requests, then the retries. In lockstep each round is one 201
		// and the rest 503 again (33 answers, 6 payments); with full
		// jitter fewer requests (31) bring all 8 payments.
		storm  = "201 503 503 503 503 503 503 503 201 503 503 503 503 503 503 201 503 503 503 503 503 201 503 503 503 503 201 503 503 503 201 503 503"
		jitter = "201 503 503 503 503 503 503 503 503 503 503 503 503 503 503 503 503 201 503 503 201 503 503 201 503 201 503 201 201 503 201"
	)
	type cell = apiCell
	return []apiRow{
		// The answer is lost; the retry must get the saved 201 back.
		{"api-lost-response", 10000, []cell{
			{"api-idempotency-key", ok, 10000, "201 201"},
			{"api-naive", dup, 20000, "201 201"},
			{"api-key-no-fingerprint", ok, 10000, "201 201"},
			{"api-key-no-lock", ok, 10000, "201 201"},
			{"api-key-short-ttl", ok, 10000, "201 201"}, // the retry comes at once, well inside its minute
		}},
		// The copy arrives in the first request's race window, before
		// anything is saved.
		{"api-client-timeout", 10000, []cell{
			// 409 to the copy, then server-1's own 201: the client has
			// its answer, and nothing is left to retry.
			{"api-idempotency-key", ok, 10000, "409 201"},
			{"api-naive", dup, 20000, "201 201"},
			// The fingerprint does not help: there is nothing saved to
			// compare with yet. Both copies charge; the second save
			// finds the first one's row and answers its own 201.
			{"api-key-no-fingerprint", dup, 20000, "201 201"},
			{"api-key-no-lock", dup, 20000, "201 201"},
			{"api-key-short-ttl", ok, 10000, "409 201"},
		}},
		// The first request dies before the charge; two copies race.
		{"api-concurrent-retries", 10000, []cell{
			// The dead server's lock answers 409 to both copies and to the
			// immediate retry; a minute later the retry takes it over.
			{"api-idempotency-key", ok, 10000, "x 409 409 409 201"},
			{"api-naive", dup, 20000, "x 201 201"},
			{"api-key-no-fingerprint", dup, 20000, "x 201 201"},
			{"api-key-no-lock", dup, 20000, "x 201 201"},
			{"api-key-short-ttl", ok, 10000, "x 409 409 409 201"},
		}},
		{"api-reused-key", 10000, []cell{
			{"api-idempotency-key", ok, 10000, "201 422"},
			// Both payloads charged: 100.00 + 120.00.
			{"api-naive", dup, 22000, "201 201"},
			// The 120.00 request is told it succeeded with the 100.00
			// payment's answer: the money is right, the answer a lie.
			{"api-key-no-fingerprint", conflict, 10000, "201 201"},
			{"api-key-no-lock", ok, 10000, "201 422"},
			{"api-key-short-ttl", ok, 10000, "201 422"},
		}},
		{"api-key-expired", 10000, []cell{
			{"api-idempotency-key", ok, 10000, "201 201"},
			{"api-naive", dup, 20000, "201 201"},
			{"api-key-no-fingerprint", ok, 10000, "201 201"},
			{"api-key-no-lock", ok, 10000, "201 201"},
			// Two minutes later its one-minute key is gone: a new
			// payment, answered 201 as if it were the first.
			{"api-key-short-ttl", dup, 20000, "201 201"},
		}},
		// With the provider deduplicating by reference.
		{"api-crash-after-charge", 10000, []cell{
			// 409 while the dead server's lock is fresh, then the
			// settlement's retry a minute later resumes and the provider
			// answers the repeated reference without charging.
			{"api-idempotency-key", ok, 10000, "x 409 409 201"},
			{"api-naive", dup, 20000, "x 201"},
			// Nothing was saved, so these charge again, with the same
			// reference: the provider's dedup alone saves them.
			{"api-key-no-fingerprint", ok, 10000, "x 201"},
			{"api-key-no-lock", ok, 10000, "x 201"},
			{"api-key-short-ttl", ok, 10000, "x 409 409 201"},
		}},
		// Without a key the right answer is 400 and no charge (expected 0).
		{"api-missing-key", 0, []cell{
			{"api-idempotency-key", ok, 0, "400 400"},
			{"api-naive", dup, 20000, "201 201"},
			{"api-key-no-fingerprint", ok, 0, "400 400"},
			{"api-key-no-lock", ok, 0, "400 400"},
			{"api-key-short-ttl", ok, 0, "400 400"},
		}},
		// server-capacity: 1 and eight requests at once; the client's
		// schedule decides, not the handler, so every row is the same.
		// Without jitter the rounds of retries come at 1, 3, 7, 15 and
		// 23 minutes, each admits one, and two clients give up.
		{"api-retry-storm", 8000, []cell{
			{"api-idempotency-key", lost, 6000, storm},
			{"api-naive", lost, 6000, storm},
			{"api-key-no-fingerprint", lost, 6000, storm},
			{"api-key-no-lock", lost, 6000, storm},
			{"api-key-short-ttl", lost, 6000, storm},
		}},
		// The same with full jitter: the retries spread over the minutes.
		{"api-retry-jitter", 8000, []cell{
			{"api-idempotency-key", ok, 8000, jitter},
			{"api-naive", ok, 8000, jitter},
			{"api-key-no-fingerprint", ok, 8000, jitter},
			{"api-key-no-lock", ok, 8000, jitter},
			{"api-key-short-ttl", ok, 8000, jitter},
		}},
		// The server dies before the charge and the client never retries
		// (client-retry: none): only a completer finishes the payment.
		{"api-abandoned-key", 10000, []cell{
			{"api-idempotency-key", ok, 10000, "x"},
			{"api-naive", lost, 0, "x"},
			{"api-key-no-fingerprint", lost, 0, "x"},
			{"api-key-no-lock", lost, 0, "x"},
			// Its key would be gone by now anyway, and it has no completer.
			{"api-key-short-ttl", lost, 0, "x"},
		}},
	}
}

// answers lists the server's statuses in a result, in order, with x for
// a server that died.
func answers(r sim.Result) string {
	var out []string
	for _, tr := range append(r.Trace, r.Settlement) {
		for _, e := range tr.Events {
			switch {
			case e.Kind == sim.KindResponse:
				out = append(out, strings.Fields(e.Text)[0])
			case e.Kind == sim.KindCrash:
				out = append(out, "x")
			}
		}
	}
	return strings.Join(out, " ")
}

func TestAPIConformance(t *testing.T) {
	presets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]apiRow{}
	for _, r := range apiMatrix() {
		rows[r.preset] = r
	}
	for _, p := range presets {
		row, ok := rows[p.Name]
		if !ok {
			t.Errorf("API preset %s has no row", p.Name)
			continue
		}
		if len(row.cells) != len(handlers.APIList()) {
			t.Errorf("%s: %d cells for %d API handlers", p.Name, len(row.cells), len(handlers.APIList()))
		}
		run, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"all"}})
		if err != nil {
			t.Fatal(p.Name, err)
		}
		for _, c := range row.cells {
			t.Run(p.Name+"/"+c.handler, func(t *testing.T) {
				var r *sim.Result
				for i := range run.Results {
					if run.Results[i].Handler == c.handler {
						r = &run.Results[i]
					}
				}
				if r == nil {
					t.Fatalf("no result for %s", c.handler)
				}
				if r.Verdict != c.verdict || r.Settled != c.charged || r.Expected != row.expected || answers(*r) != c.statuses {
					t.Errorf("got %s, charged %d of %d, answers %q; want %s, %d of %d, %q (%s)",
						r.Verdict, r.Settled, r.Expected, answers(*r), c.verdict, c.charged, row.expected, c.statuses, r.Reason)
				}
			})
		}
	}
	if len(rows) != len(presets) {
		t.Errorf("%d rows for %d API presets", len(rows), len(presets))
	}
}

// TestAPIWrongStatus: answers that are not due are a verdict of their
// own when the money is right, naming the request and the status due.
func TestAPIWrongStatus(t *testing.T) {
	run, err := sim.Execute(context.Background(), script.MustParse("request pay-1 amount=100 key=none\n"),
		sim.Options{Handlers: []string{"api-naive", "api-idempotency-key"}})
	if err != nil {
		t.Fatal(err)
	}
	naive, right := run.Results[0], run.Results[1]
	// One charge of a keyless request is tolerated by the money (the
	// client asked for it), not by the answer.
	if naive.Verdict != sim.WrongStatus || !strings.Contains(naive.Reason, "req-1: answered 201 without an Idempotency-Key, where 400 was due") {
		t.Errorf("api-naive: %s %q", naive.Verdict, naive.Reason)
	}
	if right.Verdict != sim.OK || right.Settled != 0 {
		t.Errorf("api-idempotency-key: %s %d", right.Verdict, right.Settled)
	}
}

// TestAPISides: a script of requests runs the API handlers and refuses
// message handlers, and the other way round, naming the valid ones.
func TestAPISides(t *testing.T) {
	api := script.MustParse("request pay-1 amount=100\n")
	if _, err := sim.Execute(context.Background(), api, sim.Options{Handlers: []string{"naive"}}); err == nil ||
		!strings.Contains(err.Error(), "naive handles messages, and this script sends API requests: choose among the API handlers (api-idempotency-key") {
		t.Errorf("message handler on an API script: %v", err)
	}
	broker := script.MustParse("publish pay-1 amount=100\n")
	if _, err := sim.Execute(context.Background(), broker, sim.Options{Handlers: []string{"api-naive"}}); err == nil ||
		!strings.Contains(err.Error(), "unknown handler \"api-naive\"") {
		t.Errorf("API handler on a broker script: %v", err)
	}
	run, err := sim.Execute(context.Background(), api, sim.Options{})
	if err != nil || len(run.Results) != len(handlers.APIList()) {
		t.Errorf("the default handlers of an API script: %v %d", err, len(run.Results))
	}
}

// TestAPIDeterministic: an API preset's run is the same, byte for byte,
// every time.
func TestAPIDeterministic(t *testing.T) {
	presets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range presets {
		var first []byte
		for i := range 2 {
			run, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"all"}, Snapshots: true})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(run)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = b
			} else if string(b) != string(first) {
				t.Errorf("%s: two runs differ", p.Name)
			}
		}
	}
}
