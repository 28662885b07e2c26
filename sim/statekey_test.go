package sim

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/idempotency-lab/lab/script"
)

// TestStateKeyCoversTheWorld: every field of what a world holds is either
// in its state key or left out on purpose (stateKey's comment says why). A
// field added to the world, a message, the broker, the gateway or an
// intent fails here until it is put in one list or the other: a field the
// oracle or a later step reads and the key leaves out would merge states
// that go on differently, and --dedup-states would miss a failure.
func TestStateKeyCoversTheWorld(t *testing.T) {
	for _, c := range []struct {
		v           any
		keyed, left []string
	}{
		{world{},
			[]string{"broker", "now", "src", "tables", "gateway", "ledger", "quarantines", "dedupSeen", "versions", "totals", "mr",
				// the queue: a world on any but the model has no key
				"queue",
				// a world of these has no key
				"api", "real", "active", "workers"},
			[]string{"script", "handler", "t", "db", "conn", "dropSchema", "release", "pg", "admin", "slot", "rdb", "rng",
				"ctx", "share", "onDeliver", "sum", "sumWrites", "sumRead", "turnStart", "crashes", "timeouts",
				"deliveries", "scripts", // StateSpent
				"quarantineCount", "engineErr", "pool"}},
		{ledger{}, []string{"intents", "applied", "applications", "failedAfterApplied", "conflicts", "setAside"}, nil},
		{Message{},
			[]string{"TransportID", "Key", "Tenant", "Op", "Account", "Amount", "Changed", "Kind", "Order", "Version",
				"Balance", "Deliveries", "Redelivered"}, nil},
		{Broker{}, []string{"MaxDeliveries", "RequeueAt", "PastLimit", "Unflagged", "Ready", "InFlight", "Acked", "DLQ", "Dropped", "offset", "leased"}, []string{"now"}},
		{gateway{}, []string{"mode", "dedup", "stall", "refs", "calls", "charged"}, []string{"t"}},
		{intent{}, []string{"tenant", "op", "account", "amount", "keyMode", "key", "variants", "kind", "order", "version",
			"balance", "optional"}, nil},
	} {
		typ := reflect.TypeOf(c.v)
		for i := range typ.NumField() {
			name := typ.Field(i).Name
			if !slices.Contains(c.keyed, name) && !slices.Contains(c.left, name) {
				t.Errorf("%s.%s: neither in the state key nor left out of it on purpose (statekey.go)", typ.Name(), name)
			}
		}
	}
}

// keyAfter runs a script's steps on a fresh world of the handler and
// returns the world, its state and its key, before settlement.
func keyAfter(t *testing.T, handler, src string) (*world, *State, string) {
	t.Helper()
	s, err := script.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := HandlersFor(s, []string{handler})
	if err != nil {
		t.Fatal(err)
	}
	w, err := newWorld(s, hs[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.close)
	w.ctx = context.Background()
	for _, st := range s.Steps {
		if err := w.step(st); err != nil {
			t.Fatal(err)
		}
	}
	final, err := w.state()
	if err != nil {
		t.Fatal(err)
	}
	return w, final, w.stateKey(final)
}

// TestStateKeySameWorld: two scripts that leave the same world (a crash
// before the effect, then the redelivery, as a plain delivery leaves it)
// have one key; worlds that differ in their rows, Redis, queues or clock
// have different keys.
func TestStateKeySameWorld(t *testing.T) {
	_, _, plain := keyAfter(t, "inbox", "publish a amount=10000\ndeliver\n")
	_, _, crashed := keyAfter(t, "inbox", "publish a amount=10000\ndeliver crash=before-effect\nredeliver\ndeliver\n")
	if plain == "" || plain != crashed {
		t.Errorf("a plain delivery and a crash before the effect then a redelivery: keys %q and %q, want one", plain, crashed)
	}
	others := map[string]string{
		"published":        "publish a amount=10000\n",
		"in flight":        "publish a amount=10000\ndeliver crash=before-effect\n",
		"applied, unacked": "publish a amount=10000\ndeliver crash=before-ack\n",
		"a minute later":   "publish a amount=10000\ndeliver\nadvance 1m\n",
		"redis":            "publish a amount=10000\ndeliver\n",
	}
	keys := map[string]string{plain: "delivered"}
	for name, script := range others {
		handler := "inbox"
		if name == "redis" {
			handler = "setnx"
		}
		_, _, k := keyAfter(t, handler, script)
		if k == "" {
			t.Errorf("%s: no key", name)
		}
		if prev, ok := keys[k]; ok {
			t.Errorf("%s and %s: one key", name, prev)
		}
		keys[k] = name
	}
}

// TestStateKeyHoldsTheOraclesBook: two worlds with the same durable state
// but another bookkeeping of the oracle's are not the same state: each
// part of the book the verdict reads changes the key.
func TestStateKeyHoldsTheOraclesBook(t *testing.T) {
	const script = "publish a amount=10000\ndeliver\n"
	w, final, base := keyAfter(t, "inbox", script)
	ik := intentKey{w.intentList()[0].tenant, w.intentList()[0].op}
	m := w.broker.Acked[0]
	for name, change := range map[string]func(){
		"applied again":        func() { w.applied[ik] += 10000 },
		"another application":  func() { w.applications[ik][10000]++ },
		"failed after applied": func() { w.failedAfterApplied[m] = true },
		"set aside":            func() { w.setAside[m] = true },
		"a conflict":           func() { w.conflicts++ },
		"a quarantine":         func() { w.quarantines++ },
		"a key drawn":          func() { w.newKey(false) },
		"the intent's amount":  func() { w.intents[ik].amount++ },
	} {
		t.Run(name, func(t *testing.T) {
			// Each change on a world of its own.
			w2, final2, _ := keyAfter(t, "inbox", script)
			w, final = w2, final2
			ik = intentKey{w.intentList()[0].tenant, w.intentList()[0].op}
			m = w.broker.Acked[0]
			change()
			if k := w.stateKey(final); k == base {
				t.Errorf("the key did not change")
			}
		})
	}
	// What the key leaves out does not change it.
	w, final, _ = keyAfter(t, "inbox", script)
	w.crashes++
	w.timeouts++
	w.deliveries++
	w.broker.Acked[0].Deliveries++
	if k := w.stateKey(final); k != base {
		t.Errorf("the trace's counters and an acked message's delivery count changed the key")
	}
	// A world on the API side has no key.
	if _, _, k := keyAfter(t, "api-idempotency-key", "request a amount=10000\n"); k != "" {
		t.Errorf("an API world: key %q, want none", k)
	}
}
