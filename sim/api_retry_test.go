package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// TestParseClientRetry: the client-retry: and server-capacity: headers and
// the complete step, read and written back in canonical form.
func TestParseClientRetry(t *testing.T) {
	tests := []struct {
		name, src string
		want      script.ClientRetry
		capacity  int
		canonical string // the headers as Script.String writes them
	}{
		{"no header: the lab's first schedule", "request pay-1 amount=1", script.ClientRetry{}, 0, ""},
		{"exponential with the defaults", "client-retry: exponential\nrequest pay-1 amount=1",
			script.ClientRetry{Policy: "exponential", Base: time.Minute, Cap: 8 * time.Minute, Attempts: 5}, 0, "client-retry: exponential\n"},
		{"every option", "client-retry: exponential-jitter base=30s cap=1h attempts=10 retry-after\nrequest pay-1 amount=1",
			script.ClientRetry{Policy: "exponential-jitter", Base: 30 * time.Second, Cap: time.Hour, Attempts: 10, RetryAfter: true}, 0,
			"client-retry: exponential-jitter base=30s cap=1h attempts=10 retry-after\n"},
		// retry-after is a flag, and may come anywhere among the options.
		{"retry-after first", "client-retry: fixed retry-after base=2m\nrequest pay-1 amount=1",
			script.ClientRetry{Policy: "fixed", Base: 2 * time.Minute, Cap: 8 * time.Minute, Attempts: 5, RetryAfter: true}, 0,
			"client-retry: fixed base=2m retry-after\n"},
		// Options equal to the defaults are not written back.
		{"default options are dropped", "client-retry: exponential base=1m cap=8m attempts=5\nrequest pay-1 amount=1",
			script.ClientRetry{Policy: "exponential", Base: time.Minute, Cap: 8 * time.Minute, Attempts: 5}, 0, "client-retry: exponential\n"},
		{"none", "client-retry: none\nrequest pay-1 amount=1", script.ClientRetry{Policy: "none"}, 0, "client-retry: none\n"},
		{"capacity", "server-capacity: 3\nrequest pay-1 amount=1", script.ClientRetry{}, 3, "server-capacity: 3\n"},
		// 0 is the default: no limit, and nothing to write.
		{"capacity 0", "server-capacity: 0\nrequest pay-1 amount=1", script.ClientRetry{}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := script.Parse(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if s.ClientRetry != tc.want || s.ServerCapacity != tc.capacity {
				t.Errorf("got %+v, capacity %d; want %+v, %d", s.ClientRetry, s.ServerCapacity, tc.want, tc.capacity)
			}
			if got := s.String(); got != tc.canonical+"request pay-1 amount=1\n" {
				t.Errorf("String() = %q", got)
			}
			again, err := script.Parse(s.String())
			if err != nil || again.ClientRetry != s.ClientRetry || again.ServerCapacity != s.ServerCapacity {
				t.Errorf("round trip: %+v %v", again, err)
			}
		})
	}
}

// TestParseClientRetryErrors: every way the new header, the capacity and
// the complete step can be wrong, each named with the valid choices.
func TestParseClientRetryErrors(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		want      []string
	}{
		{"unknown policy", "client-retry: jitter", 1,
			[]string{`client-retry: unknown policy "jitter"`, "valid policies: none, fixed, exponential, exponential-jitter"}},
		{"empty policy", "client-retry:", 1, []string{`client-retry: unknown policy ""`, "valid policies"}},
		{"none with options", "client-retry: none attempts=3", 1, []string{`client-retry: none takes no options, found "attempts=3"`}},
		{"unknown option", "client-retry: exponential max=3", 1,
			[]string{`client-retry: exponential: unknown option "max"`, "valid options: base, cap, attempts, retry-after (no value)"}},
		// A fixed wait has no cap to set.
		{"cap with fixed", "client-retry: fixed cap=5m", 1,
			[]string{`client-retry: fixed: unknown option "cap"`, "valid options: base, attempts, retry-after (no value)"}},
		{"retry-after with a value", "client-retry: exponential retry-after=30", 1, []string{`unknown option "retry-after"`, "retry-after (no value)"}},
		{"retry-after twice", "client-retry: exponential retry-after retry-after", 1, []string{"client-retry: retry-after given twice"}},
		{"option twice", "client-retry: exponential base=1m base=2m", 1, []string{"option base given twice"}},
		{"word without a value", "client-retry: exponential fast", 1, []string{`unexpected "fast"`, "options are name=value"}},
		{"bad base", "client-retry: exponential base=soon", 1, []string{"client-retry: base=soon", `"soon" is not a duration`}},
		{"base out of range", "client-retry: fixed base=0s", 1, []string{"client-retry: base=0s", "out of range"}},
		{"bad cap", "client-retry: exponential cap=1y", 1, []string{"client-retry: cap=1y", "is not a duration"}},
		{"cap under base", "client-retry: exponential base=5m cap=1m", 1, []string{"cap=1m is shorter than base=5m"}},
		{"attempts zero", "client-retry: exponential attempts=0", 1, []string{"attempts=0 is not a whole number from 1 to 20"}},
		{"attempts too many", "client-retry: exponential attempts=21", 1, []string{"attempts=21 is not a whole number from 1 to 20"}},
		// Only the canonical spelling of a number: 05 would not round-trip.
		{"attempts with a leading zero", "client-retry: exponential attempts=05", 1, []string{"attempts=05 is not a whole number"}},
		{"header after a step", "request pay-1 amount=1\nclient-retry: none", 2, []string{`header "client-retry:" must come before the first step`}},
		{"capacity not a number", "server-capacity: many", 1,
			[]string{`server-capacity: "many" is not a whole number of requests per minute from 1 to 1000 (0: no limit)`}},
		{"capacity negative", "server-capacity: -1", 1, []string{`server-capacity: "-1" is not a whole number`}},
		{"capacity too large", "server-capacity: 1001", 1, []string{`server-capacity: "1001" is not a whole number`}},
		{"unknown header lists the new ones", "client-retries: none", 1, []string{"valid headers:", "client-retry, server-capacity"}},
		{"complete with arguments", "complete pay-1", 1, []string{`complete takes no arguments, found "pay-1"`}},
		{"complete in a broker script", "publish pay-1 amount=1\ncomplete", 2,
			[]string{"complete is the API side, and this script tells the broker side (line 1)"}},
		{"a broker step after complete", "complete\ndeliver", 2,
			[]string{"deliver is the broker side, and this script tells the API side (line 1)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := script.Parse(tc.src)
			var se *script.Error
			if err == nil || !errorsAs(err, &se) {
				t.Fatalf("got %v, want a *script.Error", err)
			}
			if se.Line != tc.line {
				t.Errorf("line %d, want %d: %v", se.Line, tc.line, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(se.Message("en"), w) {
					t.Errorf("%q lacks %q", se.Message("en"), w)
				}
			}
			if se.Message("ru") == "" {
				t.Errorf("no Russian message for %q", se.Message("en"))
			}
		})
	}
}

func errorsAs(err error, se **script.Error) bool {
	return errors.As(err, se)
}

// requestTimes is the clock time of each request the client sent, in
// order, settlement included.
func requestTimes(r sim.Result) []string {
	var out []string
	now := "09:00:00"
	for _, tr := range append(r.Trace, r.Settlement) {
		for _, e := range tr.Events {
			switch {
			case e.Actor == "clock":
				if i := strings.Index(e.Text, "T"); i >= 0 {
					now = e.Text[i+1 : i+9]
				}
			case e.Kind == sim.KindRequest:
				out = append(out, now)
			}
		}
	}
	return out
}

// TestClientRetrySchedules: each policy's retries go when it says, and
// the client gives up after its attempts. The request dies before the
// charge, so its retries meet the dead server's lock (409) until the lock
// is a minute old, and then succeed.
func TestClientRetrySchedules(t *testing.T) {
	tests := []struct {
		name, header string
		want         string // the clock time of each request
		verdict      sim.Verdict
	}{
		// The lab's first schedule: at once, then after 1 minute.
		{"default", "", "09:00:00 09:00:00 09:01:00", sim.OK},
		// The first retry waits base too: the lock is a minute old by then.
		{"fixed", "client-retry: fixed\n", "09:00:00 09:01:00", sim.OK},
		{"fixed 20s", "client-retry: fixed base=20s\n", "09:00:00 09:00:20 09:00:40 09:01:00", sim.OK},
		{"exponential 10s", "client-retry: exponential base=10s\n", "09:00:00 09:00:10 09:00:30 09:01:10", sim.OK},
		// Two retries of 10s: the lock is still fresh at both, and the
		// client gives up. Nobody finishes the payment.
		{"gives up", "client-retry: fixed base=10s attempts=2\n", "09:00:00 09:00:10 09:00:20", sim.Lost},
		{"none", "client-retry: none\n", "09:00:00", sim.Lost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := script.MustParse(tc.header + "request pay-1 amount=100 crash=before-effect\n")
			run, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"api-idempotency-key"}})
			if err != nil {
				t.Fatal(err)
			}
			r := run.Results[0]
			if got := strings.Join(requestTimes(r), " "); got != tc.want || r.Verdict != tc.verdict {
				t.Errorf("requests at %s, %s; want %s, %s (%s)", got, r.Verdict, tc.want, tc.verdict, r.Reason)
			}
		})
	}
}

// TestServerCapacityRetryAfter: a shed request's 503 says how long to the
// next minute, and a client that honours Retry-After waits for it even
// when its own schedule says sooner; one that does not comes back too
// early and is shed again.
func TestServerCapacityRetryAfter(t *testing.T) {
	tests := []struct {
		name, header string
		want         string
	}{
		{"ignores Retry-After", "client-retry: fixed base=20s attempts=5\n", "09:00:00 09:00:00 09:00:20 09:00:40 09:01:00"},
		{"honours Retry-After", "client-retry: fixed base=20s attempts=5 retry-after\n", "09:00:00 09:00:00 09:01:00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := script.MustParse(tc.header + "server-capacity: 1\nrequest pay-1 amount=100\nrequest pay-2 amount=100\n")
			run, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"api-idempotency-key"}})
			if err != nil {
				t.Fatal(err)
			}
			r := run.Results[0]
			if got := strings.Join(requestTimes(r), " "); got != tc.want || r.Verdict != sim.OK {
				t.Errorf("requests at %s, %s; want %s, ok (%s)", got, r.Verdict, tc.want, r.Reason)
			}
			var shed string
			for _, e := range r.Trace[1].Events {
				if e.Kind == sim.KindResponse {
					shed = e.Text
				}
			}
			if !strings.HasPrefix(shed, "503 Service Unavailable (Retry-After: 60)") {
				t.Errorf("the second request's answer: %q", shed)
			}
		})
	}
}

// TestCompleteWithoutCompleter: a handler without a completer is told so,
// and the step changes nothing; a script of complete alone runs.
func TestCompleteWithoutCompleter(t *testing.T) {
	run, err := sim.Execute(context.Background(), script.MustParse("complete\n"), sim.Options{Handlers: []string{"api-naive", "api-idempotency-key"}})
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, r := range run.Results {
		for _, e := range r.Trace[0].Events {
			notes = append(notes, e.Text)
		}
		if r.Verdict != sim.OK {
			t.Errorf("%s: %s %s", r.Handler, r.Verdict, r.Reason)
		}
	}
	if !strings.Contains(strings.Join(notes, "\n"), "api-naive has no completer: abandoned keys stay as they are") {
		t.Errorf("notes: %q", notes)
	}
}

// TestCompleter: the complete step runs api-idempotency-key's completer
// over keys whose clients gave up (client-retry: none): it finishes a key
// from its recovery point, leaves alone a key a live request may still
// hold, leaves a key whose charge the provider refuses for its next run,
// and reaps keys past their lifetime.
func TestCompleter(t *testing.T) {
	tests := []struct {
		name, script string
		verdict      sim.Verdict
		charges      int    // the completer's calls to the gateway
		want         string // in the completer's events
	}{
		{"started, stale lock: charged and finished", "request pay-1 amount=100 crash=before-effect\nadvance 2m\ncomplete\n",
			sim.OK, 1, "completer takes acme/pay-1 over at recovery point started"},
		// The charge happened before the crash: the completer only
		// records it, and calls the provider not at all.
		{"charged: recorded without a charge", "request pay-1 amount=100 crash=after-call:7\nadvance 2m\ncomplete\n",
			sim.OK, 0, "completer takes acme/pay-1 over at recovery point charged"},
		// A lock younger than the lock timeout may belong to a live
		// request: not abandoned yet.
		{"fresh lock: left alone", "request pay-1 amount=100 crash=before-effect\ncomplete\n",
			sim.Lost, 0, "the completer runs"},
		{"provider down: left for the next run", "request pay-1 amount=100 crash=before-effect\nadvance 2m\ngateway down\ncomplete\n",
			sim.Lost, 1, "left for the next run"},
		{"provider back: the next run finishes", "request pay-1 amount=100 crash=before-effect\nadvance 2m\ngateway down\ncomplete\ngateway up\ncomplete\n",
			sim.OK, 2, "recovery point started"},
		// A finished key a day old is deleted by the reaper.
		{"reaper", "request pay-1 amount=100\nadvance 25h\ncomplete\n", sim.OK, 0, "1 row affected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := script.MustParse("client-retry: none\n" + tc.script)
			run, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"api-idempotency-key"}})
			if err != nil {
				t.Fatal(err)
			}
			r := run.Results[0]
			var texts []string
			charges := 0
			for _, tr := range r.Trace {
				for _, e := range tr.Events {
					if e.Actor != "server-completer" {
						continue
					}
					texts = append(texts, e.Text+" "+e.Result)
					if e.Kind == sim.KindGateway {
						charges++
					}
				}
			}
			all := strings.Join(texts, "\n")
			if r.Verdict != tc.verdict || charges != tc.charges || !strings.Contains(all, tc.want) {
				t.Errorf("%s, %d charges by the completer; want %s, %d, and %q in:\n%s", r.Verdict, charges, tc.verdict, tc.charges, tc.want, all)
			}
		})
	}
}

// TestShedRequestWithoutKey: a request the server sheds is shown as sent,
// without a key when it has none, and its 503 is not the handler's.
func TestShedRequestWithoutKey(t *testing.T) {
	s := script.MustParse("client-retry: none\nserver-capacity: 1\nrequest pay-1 amount=100\nrequest pay-2 amount=100 key=none\n")
	run, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"api-idempotency-key"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range run.Results[0].Trace[1].Events {
		got = append(got, e.Text)
	}
	want := []string{`req-2 to server-1: POST /payments, no Idempotency-Key, {"account":"alice","amount":100}`,
		`503 Service Unavailable (Retry-After: 60) {"type":"about:blank","title":"Service Unavailable","status":503,"detail":"at capacity: 1 request a minute"}: the server is at capacity and sheds the request before the handler runs`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The keyless request was never charged, which is what it was due:
	// the money is right.
	if r := run.Results[0]; r.Verdict != sim.OK {
		t.Errorf("%s %s", r.Verdict, r.Reason)
	}
}
