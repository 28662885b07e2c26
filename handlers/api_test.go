package handlers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// testGateway is the payment provider: it counts the charges that moved
// money, can fail the next calls, and deduplicates by reference when asked
// (as Stripe-like providers do with their own idempotency keys).
type testGateway struct {
	dedup   bool
	fail    int // the next fail calls fail, charging nothing
	refs    map[string]bool
	charged int // charges that moved money
}

func (g *testGateway) Charge(ctx context.Context, account string, amount int64, reference string) error {
	if g.fail > 0 {
		g.fail--
		return errors.New("payment provider unavailable (503)")
	}
	if g.dedup && reference != "" && g.refs[reference] {
		return nil // already charged: the provider answers success, charges nothing
	}
	if reference != "" {
		g.refs[reference] = true
	}
	g.charged++
	return nil
}

// crash is what a test's Point func panics with to stop a request where a
// crashing server would stop.
type crash struct{}

// apiWorld is one server with its database, gateway and clock, and the
// log of the answers its requests got, as tokens: "201", "201r" for a
// replay, "crash" for a request that died.
type apiWorld struct {
	t      *testing.T
	h      APIInfo
	db     *sql.DB
	gw     *testGateway
	now    time.Time
	points map[string]func() // run once, the first time the point is reached
	log    []string
	resps  []APIResponse
}

func newAPIWorld(t *testing.T, h APIInfo) *apiWorld {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	// One connection: SQLite has one writer, and a request run from inside
	// another's Yield uses the same connection (Yield is outside any
	// transaction, so it is free).
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(BaseSchema + h.Schema + `INSERT INTO accounts (id, balance) VALUES ('alice', 0);`); err != nil {
		t.Fatal(err)
	}
	return &apiWorld{t: t, h: h, db: db, gw: &testGateway{refs: map[string]bool{}},
		now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC), points: map[string]func(){}}
}

func (w *apiWorld) deps() Deps {
	return Deps{DB: w.db, Gateway: w.gw, KeyTTL: 24 * time.Hour,
		Now: func() time.Time { return w.now },
		Point: func(name string) {
			if f := w.points[name]; f != nil {
				delete(w.points, name)
				f()
			}
		},
		Log: w.t.Logf}
}

// send serves one request and logs its answer.
func (w *apiWorld) send(r APIRequest) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(crash); !ok {
				panic(v)
			}
			w.log = append(w.log, "crash")
		}
	}()
	resp := w.h.Handle(context.Background(), w.deps(), r)
	tok := fmt.Sprint(resp.Status)
	if resp.Replayed {
		tok += "r"
		// A replay is an earlier answer, byte for byte.
		found := false
		for _, prev := range w.resps {
			found = found || (!prev.Replayed && prev.Status == resp.Status && prev.Body == resp.Body)
		}
		if !found {
			w.t.Errorf("replayed %d %s is no earlier answer", resp.Status, resp.Body)
		}
	}
	w.log = append(w.log, tok)
	w.resps = append(w.resps, resp)
}

func (w *apiWorld) count(query string) int64 {
	var n int64
	if err := w.db.QueryRow(query).Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
}

func (w *apiWorld) exec(query string) {
	if _, err := w.db.Exec(query); err != nil {
		w.t.Fatal(err)
	}
}

// pay is POST /payments from tenant acme for alice.
func pay(key string, amount int64) APIRequest {
	return payFrom("acme", key, "alice", amount)
}

func payFrom(tenant, key, account string, amount int64) APIRequest {
	return APIRequest{Tenant: tenant, Key: key, Method: "POST", Path: "/payments",
		Body:    []byte(fmt.Sprintf(`{"account":%q,"amount":%d}`, account, amount)),
		Account: account, Amount: amount}
}

// outcome is what a scenario leaves: the answers in the order they were
// completed, the charges that moved money at the provider, the payments
// recorded and alice's balance.
type outcome struct {
	answers  string
	charges  int
	payments int64
	balance  int64
}

// The handlers' names, short.
const (
	right  = "api-idempotency-key"
	naive  = "api-naive"
	noFP   = "api-key-no-fingerprint"
	noLock = "api-key-no-lock"
	short  = "api-key-short-ttl"
)

func TestAPIHandlers(t *testing.T) {
	tests := []struct {
		name string
		run  func(w *apiWorld)
		want map[string]outcome
	}{
		{
			name: "first request",
			run:  func(w *apiWorld) { w.send(pay("k1", 100)) },
			want: map[string]outcome{
				right: {"201", 1, 1, 100}, naive: {"201", 1, 1, 100}, noFP: {"201", 1, 1, 100},
				noLock: {"201", 1, 1, 100}, short: {"201", 1, 1, 100},
			},
		},
		{
			name: "the same request repeated",
			run:  func(w *apiWorld) { w.send(pay("k1", 100)); w.now = w.now.Add(5 * time.Second); w.send(pay("k1", 100)) },
			want: map[string]outcome{
				right: {"201 201r", 1, 1, 100}, naive: {"201 201", 2, 2, 200}, noFP: {"201 201r", 1, 1, 100},
				noLock: {"201 201r", 1, 1, 100}, short: {"201 201r", 1, 1, 100},
			},
		},
		{
			name: "the same key with another amount",
			run:  func(w *apiWorld) { w.send(pay("k1", 100)); w.send(pay("k1", 250)) },
			want: map[string]outcome{
				right: {"201 422", 1, 1, 100}, naive: {"201 201", 2, 2, 350},
				// The silent conflict: the client asked for 250 and is told
				// 201 with the first payment's body; its 250 never happens.
				noFP:   {"201 201r", 1, 1, 100},
				noLock: {"201 422", 1, 1, 100}, short: {"201 422", 1, 1, 100},
			},
		},
		{
			name: "the same key from two tenants: two payments",
			run: func(w *apiWorld) {
				w.send(payFrom("acme", "k1", "alice", 100))
				w.send(payFrom("globex", "k1", "alice", 100))
			},
			want: map[string]outcome{
				right: {"201 201", 2, 2, 200}, naive: {"201 201", 2, 2, 200}, noFP: {"201 201", 2, 2, 200},
				noLock: {"201 201", 2, 2, 200}, short: {"201 201", 2, 2, 200},
			},
		},
		{
			name: "no Idempotency-Key",
			run:  func(w *apiWorld) { w.send(pay("", 100)); w.send(pay("", 100)) },
			want: map[string]outcome{
				right: {"400 400", 0, 0, 0}, naive: {"201 201", 2, 2, 200}, noFP: {"400 400", 0, 0, 0},
				noLock: {"400 400", 0, 0, 0}, short: {"400 400", 0, 0, 0},
			},
		},
		{
			// The second request runs at the first one's Yield: its answer
			// comes first. api-naive has no Yield (it looks nothing up), so
			// its two requests run one after the other: the same result.
			name: "a concurrent second request",
			run:  func(w *apiWorld) { concurrently(w, nil) },
			want: map[string]outcome{
				right: {"409 201", 1, 1, 100}, naive: {"201 201", 2, 2, 200},
				// Both missed the key and both charged; both clients get a
				// 201, with different payment ids.
				noFP: {"201 201", 2, 2, 200}, noLock: {"201 201", 2, 2, 200},
				short: {"409 201", 1, 1, 100},
			},
		},
		{
			// The same race with a provider that deduplicates by reference:
			// it charges once, but the keyed handlers without a lock still
			// record two payments and credit twice. The provider's
			// idempotency protects the card, not our ledger.
			name: "a concurrent second request, the provider deduplicates",
			run:  func(w *apiWorld) { w.gw.dedup = true; concurrently(w, nil) },
			want: map[string]outcome{
				right: {"409 201", 1, 1, 100}, naive: {"201 201", 2, 2, 200},
				noFP: {"201 201", 1, 2, 200}, noLock: {"201 201", 1, 2, 200},
				short: {"409 201", 1, 1, 100},
			},
		},
		{
			// Two minutes: past api-key-short-ttl's lifetime, well within
			// d.KeyTTL.
			name: "a retry two minutes later",
			run:  func(w *apiWorld) { w.send(pay("k1", 100)); w.now = w.now.Add(2 * time.Minute); w.send(pay("k1", 100)) },
			want: map[string]outcome{
				right: {"201 201r", 1, 1, 100}, naive: {"201 201", 2, 2, 200}, noFP: {"201 201r", 1, 1, 100},
				noLock: {"201 201r", 1, 1, 100},
				// The bug: the key is gone, the retry is a new payment.
				short: {"201 201", 2, 2, 200},
			},
		},
		{
			// Past d.KeyTTL every keyed handler forgets the key, by design:
			// a retry this late is a new request. The lifetime must outlast
			// the client's retry horizon, and be published.
			name: "a retry after the key's lifetime",
			run:  func(w *apiWorld) { w.send(pay("k1", 100)); w.now = w.now.Add(25 * time.Hour); w.send(pay("k1", 100)) },
			want: map[string]outcome{
				right: {"201 201", 2, 2, 200}, naive: {"201 201", 2, 2, 200}, noFP: {"201 201", 2, 2, 200},
				noLock: {"201 201", 2, 2, 200}, short: {"201 201", 2, 2, 200},
			},
		},
		{
			// The key is reusable after it expired: a new amount is a new
			// payment, not a 422 against the forgotten one.
			name: "another amount under an expired key",
			run:  func(w *apiWorld) { w.send(pay("k1", 100)); w.now = w.now.Add(25 * time.Hour); w.send(pay("k1", 250)) },
			want: map[string]outcome{
				right: {"201 201", 2, 2, 350}, naive: {"201 201", 2, 2, 350}, noFP: {"201 201", 2, 2, 350},
				noLock: {"201 201", 2, 2, 350}, short: {"201 201", 2, 2, 350},
			},
		},
		{
			// The first request stalls at its Yield past the lock timeout
			// (a long GC pause, a slow network); a retry takes the key over
			// and finishes. The provider deduplicates. When the first one
			// goes on, its charge is deduplicated and the lock, now
			// another's, fences its writes out: a 409, though its payment
			// exists (its client's next retry gets the replay).
			name: "a stalled request taken over after the lock timeout",
			run: func(w *apiWorld) {
				w.gw.dedup = true
				concurrently(w, func() { w.now = w.now.Add(lockTimeout + time.Second) })
			},
			want: map[string]outcome{
				right: {"201 409", 1, 1, 100},
				// No Yield: one request after the other.
				naive: {"201 201", 2, 2, 200},
				// No lock to take over: a plain race, as above.
				noFP: {"201 201", 1, 2, 200}, noLock: {"201 201", 1, 2, 200},
				short: {"201 409", 1, 1, 100},
			},
		},
		{
			// The server dies right after the charge; the client retries at
			// once, then again after the lock timeout. The provider
			// deduplicates by reference.
			name: "a crash after the charge, the provider deduplicates",
			run: func(w *apiWorld) {
				w.gw.dedup = true
				crashAfterCharge(w)
			},
			want: map[string]outcome{
				// 409 while the dead request's lock is fresh; then the retry
				// takes it over at "started", charges again with the same
				// reference (deduplicated) and finishes.
				right: {"crash 409 201", 1, 1, 100},
				// No reference: charged twice, and the first retry already
				// records a payment, the second one another.
				naive: {"crash 201 201", 3, 2, 200},
				// Nothing was saved: the first retry charges again (deduplicated)
				// and records the payment; the second is a replay.
				noFP: {"crash 201 201r", 1, 1, 100}, noLock: {"crash 201 201r", 1, 1, 100},
				// As api-idempotency-key: at the second retry the key has
				// also expired (lock timeout and lifetime are both a minute),
				// so the claim starts afresh, with the same outcome.
				short: {"crash 409 201", 1, 1, 100},
			},
		},
		{
			// The same crash with a provider that does not deduplicate: the
			// limit of every design here. Nothing recorded the charge
			// before the crash, so the retry must call the provider again.
			name: "a crash after the charge, the provider does not deduplicate",
			run:  crashAfterCharge,
			want: map[string]outcome{
				right: {"crash 409 201", 2, 1, 100}, naive: {"crash 201 201", 3, 2, 200},
				noFP: {"crash 201 201r", 2, 1, 100}, noLock: {"crash 201 201r", 2, 1, 100},
				short: {"crash 409 201", 2, 1, 100},
			},
		},
		{
			// The database fails after the charge, at the payment (the
			// account vanishes for a moment): a 500. For api-idempotency-key
			// the recovery point "charged" is already written, so the
			// retry after the lock timeout skips the charge, even with a
			// provider that does not deduplicate.
			name: "the database fails after the charge",
			run: func(w *apiWorld) {
				w.points[AfterEffect] = func() { w.exec(`DELETE FROM accounts`) }
				w.send(pay("k1", 100))
				w.exec(`INSERT INTO accounts (id, balance) VALUES ('alice', 0)`)
				w.send(pay("k1", 100))
				w.now = w.now.Add(lockTimeout + time.Second)
				w.send(pay("k1", 100))
			},
			want: map[string]outcome{
				right: {"500 409 201", 1, 1, 100}, naive: {"500 201 201", 3, 2, 200},
				noFP: {"500 201 201r", 2, 1, 100}, noLock: {"500 201 201r", 2, 1, 100},
				// Its key expires with the lock: the retry starts afresh at
				// "started" and charges again.
				short: {"500 409 201", 2, 1, 100},
			},
		},
		{
			// The provider is down: a 502 that is not saved, and the key is
			// released, so the retry charges.
			name: "the gateway fails, then the retry",
			run: func(w *apiWorld) {
				w.gw.fail = 1
				w.send(pay("k1", 100))
				w.send(pay("k1", 100))
			},
			want: map[string]outcome{
				right: {"502 201", 1, 1, 100}, naive: {"502 201", 1, 1, 100}, noFP: {"502 201", 1, 1, 100},
				noLock: {"502 201", 1, 1, 100}, short: {"502 201", 1, 1, 100},
			},
		},
		{
			// An unknown account is a final answer where responses are
			// saved with the key: the retry gets the 404 again even though
			// bob exists by then (a new attempt takes a new key). The
			// handlers that save only successes serve the retry.
			name: "an unknown account, then the account appears",
			run: func(w *apiWorld) {
				w.send(payFrom("acme", "k1", "bob", 100))
				w.exec(`INSERT INTO accounts (id, balance) VALUES ('bob', 0)`)
				w.send(payFrom("acme", "k1", "bob", 100))
			},
			want: map[string]outcome{
				right: {"404 404r", 0, 0, 0}, naive: {"404 201", 1, 1, 0}, noFP: {"404 201", 1, 1, 0},
				noLock: {"404 201", 1, 1, 0}, short: {"404 404r", 0, 0, 0},
			},
		},
	}
	for _, h := range APIList() {
		for _, tc := range tests {
			t.Run(h.Name+"/"+tc.name, func(t *testing.T) {
				want, ok := tc.want[h.Name]
				if !ok {
					t.Fatalf("no expectation for %s", h.Name)
				}
				w := newAPIWorld(t, h)
				tc.run(w)
				got := outcome{
					answers:  strings.Join(w.log, " "),
					charges:  w.gw.charged,
					payments: w.count(`SELECT COUNT(*) FROM payments`),
					balance:  w.count(`SELECT COALESCE(SUM(balance), 0) FROM accounts WHERE id = 'alice'`),
				}
				if got != want {
					t.Errorf("got  answers %q, %d charges, %d payments, balance %d\nwant answers %q, %d charges, %d payments, balance %d",
						got.answers, got.charges, got.payments, got.balance,
						want.answers, want.charges, want.payments, want.balance)
				}
			})
		}
	}
}

// concurrently sends a request and, at its Yield, runs meanwhile (if any)
// and the same request again, to completion, before the first goes on.
func concurrently(w *apiWorld, meanwhile func()) {
	second := false
	w.points[Yield] = func() {
		second = true
		if meanwhile != nil {
			meanwhile()
		}
		w.send(pay("k1", 100))
	}
	w.send(pay("k1", 100))
	if !second {
		w.send(pay("k1", 100))
	}
}

// crashAfterCharge: the first request dies right after the charge; the
// client retries at once, and again after the lock timeout.
func crashAfterCharge(w *apiWorld) {
	w.points[AfterEffect] = func() { panic(crash{}) }
	w.send(pay("k1", 100))
	w.send(pay("k1", 100))
	w.now = w.now.Add(lockTimeout + time.Second)
	w.send(pay("k1", 100))
}

// TestEveryAPIHandlerIsReadable: as TestEveryHandlerIsReadable, for the
// API handlers.
func TestEveryAPIHandlerIsReadable(t *testing.T) {
	seen := map[string]bool{}
	for _, h := range APIList() {
		t.Run(h.Name, func(t *testing.T) {
			if seen[h.Name] {
				t.Fatalf("handler name %q appears twice", h.Name)
			}
			seen[h.Name] = true
			src, err := Source(h.File)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(src, "func "+h.Func+"(") {
				t.Errorf("%s does not define func %s", h.File, h.Func)
			}
			marks := Marks(src)
			// The right handler with one setting changed has its marks
			// there, not in its own file.
			delegates := strings.Contains(src, "return APIIdempotencyKey(ctx, d, r)")
			for _, p := range []string{BeforeEffect, AfterEffect} {
				if len(marks[p]) != 1 && !delegates {
					t.Errorf("%s marks %s on %d lines, want exactly 1", h.File, p, len(marks[p]))
				}
			}
			if h.Summary == "" || h.Handle == nil {
				t.Errorf("handler %s lacks a summary or a function", h.Name)
			}
		})
	}
}
