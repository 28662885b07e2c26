package sim_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// fuzzSeeds are scripts for both fuzz targets, besides the committed corpus
// in testdata/fuzz and the presets.
var fuzzSeeds = []string{
	"",
	"publish pay-1 amount=100\ndeliver\n",
	"publish pay-1 amount=100\ndeliver crash=before-ack\nredeliver\ndeliver\n",
	"publish pay-1 amount=100\ndeliver crash=after-effect\nredeliver\ndeliver\n",
	"publish pay-1 amount=100\ndeliver crash=before-effect\nredeliver\ndeliver\n",
	"publish pay-1 amount=100 key=fresh\nretry pay-1\ndeliver-concurrent\n",
	"publish pay-1 amount=100 key=v7\nretry pay-1\nadvance 25h\ndrain\n",
	"max-deliveries: 1\npublish pay-1 amount=100\ngateway down\ndeliver\ngateway up\ndlq-replay\ndrain\n",
	"publish pay-1 amount=100\ndeliver\nchange-payload pay-1 amount=150\ndeliver\n",
	"inbox-retention: 1h\npublish pay-1 amount=5\ndeliver\nadvance 2h\nretry pay-1\ndeliver\n",
	"publish pay-1 amount=5 tenant=a\npublish pay-1 amount=7 tenant=b\ndeliver-concurrent\nship pay-1 tenant=a\n",
	"processing-ttl: 1s\ndone-ttl: 2s\npublish p amount=1\ndeliver crash=after-effect\nadvance 3s\nredeliver\ndrain\n",
	allVerbsScript,
	"#en: dangling narration",
	"advance 281474976710657d",
	"title:\tx\npublish\tp amount=1",
	"publish p amount=+1\nchange-payload p amount=007",
	"publish pay-1 amount=100\ngateway timeout\ndeliver\ngateway up\ndeliver\n",
	"publish pay-1 amount=100\ngateway dedup on\ngateway timeout\ndeliver\ngateway dedup off\ndrain\n",
	"publish pay-1 amount=100\ngateway stall 2h\ndeliver-concurrent same\nretry pay-1\ndeliver\n",
	"max-deliveries: 1\npublish pay-1 amount=100\ndeliver-concurrent same\n",
	"publish pay-1 amount=100\ndeliver\nchange-payload pay-1 amount=7\ndeliver-concurrent same\nadvance 99999999h\n",
	// Crash anywhere and switch points: every call boundary of every handler.
	"publish a amount=100\ndeliver crash=call:1\ndeliver crash=after-call:2\nredeliver\ndeliver crash=call:100\n",
	"publish a amount=100\nretry a\ndeliver-concurrent switch=2,1\n",
	"publish a amount=100\nretry a\ndeliver-concurrent same switch=3\ndeliver-concurrent switch=1,1\n",
	"publish a amount=100\ndeliver-concurrent switch=0,2,3\ndeliver crash=call:07\n",
}

// FuzzParse checks that Parse never panics, that every error is a
// *script.Error, and that the canonical form of a valid script parses to the
// same canonical form again.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	presets, err := sim.Presets()
	if err != nil {
		f.Fatalf("Presets: %v", err)
	}
	api, err := sim.APIPresets()
	if err != nil {
		f.Fatalf("APIPresets: %v", err)
	}
	for _, p := range append(presets, api...) {
		f.Add(p.Source)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := script.Parse(src)
		if err != nil {
			var se *script.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v is a %T, not *script.Error", err, err)
			}
			if se.Line < 0 || se.Line > len(src)+1 {
				t.Fatalf("error line %d outside the script: %v", se.Line, err)
			}
			if s != nil {
				t.Fatal("Parse returned a script and an error")
			}
			return
		}
		if len(s.Steps) > script.MaxSteps {
			t.Fatalf("%d steps accepted, the limit is %d", len(s.Steps), script.MaxSteps)
		}
		canon := s.String()
		s2, err := script.Parse(canon)
		if err != nil {
			t.Fatalf("String() of a valid script does not parse: %v\ninput:\n%q\ncanonical:\n%q", err, src, canon)
		}
		if again := s2.String(); again != canon {
			t.Fatalf("String() changes on re-parse:\ninput: %q\nfirst:  %q\nsecond: %q", src, canon, again)
		}
		checkRoundTrip(t, s)
	})
}

// FuzzRun executes small valid scripts on every handler and checks the
// invariants of a run.
func FuzzRun(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	presets, err := sim.Presets()
	if err != nil {
		f.Fatalf("Presets: %v", err)
	}
	api, err := sim.APIPresets()
	if err != nil {
		f.Fatalf("APIPresets: %v", err)
	}
	for _, p := range append(presets, api...) {
		f.Add(p.Source)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := script.Parse(src)
		if err != nil || len(s.Steps) > 30 {
			return
		}
		run, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{"all"}})
		var be *sim.BudgetError
		if errors.As(err, &be) {
			// A script may ask for more deliveries than a run may make
			// (max-deliveries: 100 and a loop of DLQ replays): refusing it
			// is the right outcome, as long as the line is in the script.
			if be.Line < 0 || be.Line > strings.Count(src, "\n")+1 || be.Budget != sim.DefaultBudget {
				t.Fatalf("BudgetError %+v outside the script", *be)
			}
			return
		}
		if err != nil {
			t.Fatalf("Execute: %v\nscript:\n%s", err, s)
		}
		checkRunInvariants(t, s, run)
	})
}

// checkRunInvariants checks what must hold for any run of s on every handler.
func checkRunInvariants(t *testing.T, s *script.Script, run *sim.Run) {
	t.Helper()
	valid := map[sim.Verdict]bool{sim.Duplicate: true, sim.Lost: true, sim.Poison: true, sim.SilentConflict: true, sim.OK: true}
	all := handlers.List()
	if s.API {
		// The API side: its handlers, and the wrong-status verdict; a
		// request without a key asks for nothing (the right answer is 400).
		all, valid[sim.WrongStatus], valid[sim.Poison] = sim.APIHandlers(), true, false
	}
	var expected int64
	first := map[[2]string]int64{}
	twoPayloads := false // a key reused with another amount: the totals do not decide
	optional := false    // a request without a key: one charge is tolerated
	refunds := false     // a refund never applied leaves more than expected: judged per operation
	for _, st := range s.Steps {
		k := [2]string{st.Tenant, st.Op}
		switch {
		case st.Verb == script.VerbPublish && st.Kind == script.KindRefund:
			expected -= st.Amount
			first[k] = -st.Amount
			refunds = true
		case st.Verb == script.VerbProduce && st.Mode == script.ModePublishFirst && st.Crash == script.CrashAfterPublish:
			// Never committed: nothing is owed. Its message may still be
			// credited (a duplicate), so the totals decide.
		case st.Verb == script.VerbPublish, st.Verb == script.VerbProduce: // one intent each
			expected += st.Amount
			first[k] = st.Amount
		case st.Verb == script.VerbChangePayload:
			twoPayloads = twoPayloads || st.Amount != first[k]
		case (st.Verb == script.VerbRequest || st.Verb == script.VerbRequestConcurrent) && st.Amount > 0:
			if st.KeyMode == script.KeyNone {
				optional = true
			} else {
				expected += st.Amount
			}
			first[k] = st.Amount
		case st.Verb == script.VerbRetry && st.API && st.Amount > 0:
			twoPayloads = twoPayloads || st.Amount != first[k]
		}
	}
	twoPayloads = twoPayloads || optional || refunds // the totals do not decide either
	if run.Steps != len(s.Steps) {
		t.Errorf("run.Steps = %d, want %d", run.Steps, len(s.Steps))
	}
	if len(run.Results) != len(all) {
		t.Fatalf("%d results, want one per handler (%d)", len(run.Results), len(all))
	}
	for i, r := range run.Results {
		if r.Handler != all[i].Name {
			t.Errorf("result %d is %s, want %s", i, r.Handler, all[i].Name)
		}
		if r.Expected != expected {
			t.Errorf("%s: Expected = %d, want %d (sum of first publishes)", r.Handler, r.Expected, expected)
		}
		if !valid[r.Verdict] {
			t.Errorf("%s: verdict %q is not one of its side's", r.Handler, r.Verdict)
		}
		if r.Reason == "" {
			t.Errorf("%s: verdict %s without a reason", r.Handler, r.Verdict)
		}
		if !refunds && (r.Balance < 0 || r.Settled < 0) {
			t.Errorf("%s: Balance %d, Settled %d: negative", r.Handler, r.Balance, r.Settled)
		}
		// A wrong total decides the verdict. A right total may still hide an
		// operation credited twice and another never: then the verdict is
		// duplicate or lost and the reason says the errors cancel out. With
		// a key that carries two payloads the expected total is one of
		// several, and each key is judged on its own (sim's verdict).
		// A handler writing absolute state is judged account by account:
		// two accounts may be wrong in ways that add up to the total.
		cancelled := r.Settled == r.Expected && (strings.Contains(r.Reason, "cancel out") ||
			all[i].Absolute && strings.Contains(r.Reason, "holds"))
		if !twoPayloads && (r.Settled > r.Expected && r.Verdict != sim.Duplicate || r.Settled < r.Expected && r.Verdict != sim.Lost ||
			r.Settled == r.Expected && (r.Verdict == sim.Duplicate || r.Verdict == sim.Lost) && !cancelled) {
			t.Errorf("%s: verdict %s with Settled %d and Expected %d", r.Handler, r.Verdict, r.Settled, r.Expected)
		}
		if len(r.Trace) != len(s.Steps) {
			t.Errorf("%s: %d trace steps, want %d", r.Handler, len(r.Trace), len(s.Steps))
		}
		if r.DeadLettered < 0 || r.Quarantined < 0 || r.Deliveries < 0 || r.GatewayCalls < 0 {
			t.Errorf("%s: negative counter in %+v", r.Handler, r)
		}
		if n := sim.OpenAfterSettlement(r); n != 0 {
			t.Errorf("%s: %d messages still ready or in flight after settlement", r.Handler, n)
		}
	}
	if t.Failed() {
		t.Logf("script:\n%s", s)
	}
}

// randomScript writes a valid script from the grammar, so the run
// invariants are checked on many more runs than mutation finds.
func randomScript(rng *rand.Rand, maxSteps int) string {
	var b strings.Builder
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	if rng.IntN(2) == 0 {
		fmt.Fprintf(&b, "max-deliveries: %d\n", 1+rng.IntN(5))
	}
	if rng.IntN(3) == 0 {
		fmt.Fprintf(&b, "processing-ttl: %s\n", pick("1s", "10m", "1h", "2d"))
	}
	if rng.IntN(3) == 0 {
		fmt.Fprintf(&b, "done-ttl: %s\n", pick("30s", "1h", "1d", "7d"))
	}
	if rng.IntN(3) == 0 {
		fmt.Fprintf(&b, "inbox-retention: %s\n", pick("off", "1h", "1d"))
	}
	type intent struct{ op, tenant string }
	var published, payments []intent
	used := map[intent]bool{}
	fresh := func() (intent, bool) {
		in := intent{fmt.Sprintf("pay-%d", rng.IntN(1000)), pick("acme", "globex")}
		if used[in] {
			return in, false
		}
		used[in] = true
		return in, true
	}
	n := 1 + rng.IntN(maxSteps)
	for range n {
		switch r := rng.IntN(26); {
		case r < 4 || len(published) == 0:
			in, ok := fresh()
			if !ok {
				b.WriteString("drain\n")
				continue
			}
			published = append(published, in)
			payments = append(payments, in)
			fmt.Fprintf(&b, "publish %s amount=%s tenant=%s account=%s key=%s\n", in.op,
				pick("1", "100", "250", "1000000000000"), in.tenant, pick("alice", "bob"), pick("op", "v7", "fresh"))
		case r == 20:
			in, ok := fresh()
			if !ok {
				b.WriteString("relay\n")
				continue
			}
			mode := pick("dual-write", "publish-first", "outbox")
			crash := pick("", "", " crash=after-commit", " crash=after-publish")
			if mode == "outbox" && crash == " crash=after-publish" {
				crash = ""
			}
			if mode != "publish-first" || crash != " crash=after-publish" {
				published = append(published, in)
				payments = append(payments, in)
			} else {
				delete(used, in) // it may be produced again
			}
			fmt.Fprintf(&b, "produce %s amount=%s tenant=%s account=%s mode=%s%s\n", in.op,
				pick("1", "100", "250"), in.tenant, pick("alice", "bob"), mode, crash)
		case r == 21:
			fmt.Fprintf(&b, "relay%s\n", pick("", " crash=after-publish"))
		case r == 22:
			fmt.Fprintf(&b, "deliver-batch %s%s%s\n", pick("1", "2", "3"), pick("", " commit=before"), pick("", " crash=after-message:1"))
		case r == 23:
			fmt.Fprintf(&b, "deliver %s%s\n", published[rng.IntN(len(published))].op, pick("", " crash=before-ack"))
		case r == 24:
			in, ok := fresh()
			if !ok {
				b.WriteString("drain\n")
				continue
			}
			paid := payments[rng.IntN(len(payments))]
			in.tenant = paid.tenant
			used[in] = true
			published = append(published, in)
			fmt.Fprintf(&b, "publish %s amount=%s tenant=%s kind=refund order=%s\n", in.op, pick("1", "100"), in.tenant, paid.op)
		case r < 7:
			in := published[rng.IntN(len(published))]
			fmt.Fprintf(&b, "retry %s tenant=%s\n", in.op, in.tenant)
		case r < 8:
			in := published[rng.IntN(len(published))]
			fmt.Fprintf(&b, "change-payload %s amount=%s tenant=%s\n", in.op, pick("100", "150", "7"), in.tenant)
		case r < 12:
			fmt.Fprintf(&b, "deliver%s\n", pick("", "", " crash=before-effect", " crash=after-effect", " crash=before-ack"))
		case r < 14:
			b.WriteString("redeliver\n")
		case r < 15:
			fmt.Fprintf(&b, "deliver-concurrent%s\n", pick("", " same"))
		case r < 16:
			fmt.Fprintf(&b, "advance %s\n", pick("1s", "90s", "30m", "1h30m", "25h", "3d"))
		case r < 17:
			fmt.Fprintf(&b, "gateway %s\n", pick("up", "down", "up", "down", "timeout", "dedup on", "dedup off", "stall 30m", "stall 2h"))
		case r < 18:
			in := payments[rng.IntN(len(payments))]
			fmt.Fprintf(&b, "ship %s tenant=%s\n", in.op, in.tenant)
		case r < 19:
			b.WriteString("dlq-replay\n")
		default:
			b.WriteString("drain\n")
		}
	}
	return b.String()
}

// TestRandomScriptsInvariants runs seeded random valid scripts on every
// handler: no run fails, the invariants hold, the canonical form round-trips
// and a second run gives the same results.
func TestRandomScriptsInvariants(t *testing.T) {
	count := 150
	if testing.Short() {
		count = 20
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range count {
		src := randomScript(rng, 30)
		s, err := script.Parse(src)
		if err != nil {
			t.Fatalf("script %d does not parse: %v\n%s", i, err, src)
		}
		checkRoundTrip(t, s)
		opt := sim.Options{Handlers: []string{"all"}}
		run, err := sim.Execute(context.Background(), s, opt)
		if err != nil {
			t.Fatalf("script %d: Execute: %v\n%s", i, err, src)
		}
		checkRunInvariants(t, s, run)
		if i%10 == 0 {
			again, err := sim.Execute(context.Background(), s, opt)
			if err != nil {
				t.Fatalf("script %d: second Execute: %v", i, err)
			}
			if a, b := dumpRun(t, run), dumpRun(t, again); !bytes.Equal(a, b) {
				t.Errorf("script %d: two runs differ:\n%s\n%s", i, firstDifference(a, b), src)
			}
		}
		if t.Failed() {
			t.Fatalf("script %d failed:\n%s", i, src)
		}
	}
}
