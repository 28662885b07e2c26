package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// TestAPITraceSpeaksOfServers: on the API side the process that dies is
// a server, and the trace names it (server-1 dies), whatever the crash
// point; nothing in an API trace speaks of a worker, nor a reason of a
// published message.
func TestAPITraceSpeaksOfServers(t *testing.T) {
	for _, crash := range []string{"before-effect", "after-effect", "call:2", "after-call:1"} {
		src := "request a amount=10000 crash=" + crash + "\n"
		run, err := sim.Execute(context.Background(), script.MustParse(src), sim.Options{Handlers: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range run.Results {
			died := false
			for _, st := range append(r.Trace, r.Settlement) {
				for _, e := range st.Events {
					died = died || (e.Kind == sim.KindCrash && strings.HasPrefix(e.Text, "server-1 dies ") && strings.HasPrefix(e.In("ru"), "server-1 падает"))
					if strings.Contains(e.Text, "worker") || strings.Contains(e.In("ru"), "воркер") {
						t.Errorf("%s, %s: %s %s: %q", r.Handler, crash, e.Actor, e.Kind, e.Text)
					}
				}
			}
			if !died && !strings.HasPrefix(crash, "call") { // a handler may make fewer calls than the point names
				t.Errorf("%s, %s: no crash told as server-1's", r.Handler, crash)
			}
			if strings.Contains(r.Reason, "publish") || strings.Contains(r.Reason, "message") {
				t.Errorf("%s, %s: reason %q", r.Handler, crash, r.Reason)
			}
		}
	}
}

// TestQuotedKeySteps: key=quoted spells a send's key as an RFC 8941
// string: on a first request and on a retry, written back as read; a
// retry may not change its key otherwise. The handler gets the key
// parsed, so the lab's handlers take both spellings for one key.
func TestQuotedKeySteps(t *testing.T) {
	for _, src := range []string{"request a amount=100 key=quoted\nretry a\n", "request a amount=100\nretry a tenant=acme key=quoted\n"} {
		sc, err := script.Parse(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		again, err := script.Parse(sc.String())
		if err != nil || again.String() != sc.String() {
			t.Errorf("%q: written back as %q (%v)", src, sc.String(), err)
		}
		run, err := sim.Execute(context.Background(), sc, sim.Options{Handlers: []string{"api-idempotency-key"}})
		if err != nil || run.Results[0].Verdict != sim.OK {
			t.Errorf("%q on api-idempotency-key: %v", src, err)
		}
		var headers []string
		for _, st := range run.Results[0].Trace {
			for _, e := range st.Events {
				if e.Kind == sim.KindRequest {
					headers = append(headers, strings.Split(e.Text, ", ")[1])
				}
			}
		}
		if len(headers) != 2 || (headers[0] == headers[1]) || !strings.Contains(strings.Join(headers, " "), `Idempotency-Key: "a"`) {
			t.Errorf("%q: headers %q, want one bare and one quoted", src, headers)
		}
	}
	for src, want := range map[string]string{
		"request a amount=100\nretry a key=v7\n":                   "key=quoted only spells it",
		"request a amount=100\nrequest-concurrent a account=bob\n": "account= belongs to the first request",
		"request a amount=100 key=spelled\n":                       "valid modes: op, v7, fresh, none, quoted",
	} {
		if _, err := script.Parse(src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error with %q", src, err, want)
		}
	}
}
