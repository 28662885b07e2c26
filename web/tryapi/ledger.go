package tryapi

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver

	"github.com/idempotency-lab/lab/handlers"
)

// Defaults for Config.
const (
	DefaultMaxLedgers = 200
	DefaultIdle       = time.Hour
)

// Limits of one ledger: each payment request adds at most one key, one
// payment and one account, so these bound its memory (a few hundred
// bytes a row) whatever a script posts. Past them the answer is 507.
const (
	maxKeys     = 1000
	maxAccounts = 100
)

// errFull is the hub's answer when every ledger is taken and none has
// been idle long enough to go.
type errFull struct{ retryAfter int } // seconds

func (e *errFull) Error() string {
	return fmt.Sprintf("every ledger is in use; retry in %d s", e.retryAfter)
}

// hub keeps the live ledgers by name: created by the first payment to a
// name, dropped when idle, at most max at once.
type hub struct {
	max  int
	idle time.Duration
	now  func() time.Time
	// wait is the gateway's slow call (Lab-Gateway-Delay): sleepCtx, or
	// a test's stand-in that says when a request is inside it.
	wait func(ctx context.Context, d time.Duration) error

	mu      sync.Mutex
	ledgers map[string]*ledger
}

func newHub(max int, idle time.Duration, now func() time.Time) *hub {
	return &hub{max: max, idle: idle, now: now, wait: sleepCtx, ledgers: map[string]*ledger{}}
}

// ledger is one person's payments API: its own in-memory database and
// payment provider. The tenant of its requests is its name.
type ledger struct {
	name    string
	db      *sql.DB
	gateway *gateway

	// guarded by hub.mu
	used time.Time // the last payment request's end (or start, while busy)
	busy int       // requests using db now: a busy ledger is never dropped
}

// acquire returns the ledger called name and a function to call when the
// request is done with it. With create, a missing ledger is made (if
// there is room: *errFull otherwise) and the request counts as use, which
// keeps the ledger alive for another idle period; without, a missing one
// is nil, and reading does not count as use, so that a page left open
// does not keep a ledger forever.
func (h *hub) acquire(name string, create bool) (*ledger, func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	h.sweep(now)
	sb := h.ledgers[name]
	if sb == nil {
		if !create {
			return nil, func() {}, nil
		}
		if len(h.ledgers) >= h.max {
			return nil, nil, &errFull{retryAfter: h.retryAfter(now)}
		}
		var err error
		if sb, err = openLedger(name, h.wait); err != nil {
			return nil, nil, err
		}
		h.ledgers[name] = sb
	}
	if create {
		sb.used = now
	}
	sb.busy++
	var once sync.Once
	return sb, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			sb.busy--
			if create {
				sb.used = h.now()
			}
		})
	}, nil
}

// sweep drops the ledgers idle for h.idle or longer. It runs on every
// acquire, so the count stays bounded without a background goroutine.
func (h *hub) sweep(now time.Time) {
	for name, sb := range h.ledgers {
		if sb.busy == 0 && now.Sub(sb.used) >= h.idle {
			sb.db.Close()
			delete(h.ledgers, name)
		}
	}
}

// retryAfter is how long until the first ledger may go, in whole
// seconds, at least 1.
func (h *hub) retryAfter(now time.Time) int {
	soonest := h.idle
	for _, sb := range h.ledgers {
		soonest = min(soonest, sb.used.Add(h.idle).Sub(now))
	}
	return max(1, int(math.Ceil(soonest.Seconds())))
}

// names lists the live ledgers, for tests.
func (h *hub) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var n []string
	for name := range h.ledgers {
		n = append(n, name)
	}
	slices.Sort(n)
	return n
}

// close drops every ledger.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for name, sb := range h.ledgers {
		sb.db.Close()
		delete(h.ledgers, name)
	}
}

// openLedger makes a ledger's database: ":memory:" behind a pool of one
// connection that is never closed. An in-memory database lives as long as
// its connection, and each connection to ":memory:" is a database of its
// own, so the pool must keep exactly one. The API handler holds it only
// for a statement or a transaction, never across the gateway call, so a
// second request with the same key runs while the first waits there and
// meets the key's lock: 409. (A shared cache, "file:NAME?mode=memory&
// cache=shared", would give each connection a view of one database, but
// with table locks that make a reader wait forever for a writer's open
// transaction; see the stack notes.) modernc keeps an in-memory
// connection that a cancelled query interrupted, so even a statement cut
// by a cancelled context would not lose the database (and the handler's
// statements are not cut: see withCall).
func openLedger(name string, wait func(context.Context, time.Duration) error) (*ledger, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	schema := handlers.BaseSchema + apiHandler().Schema
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("ledger %s: schema: %w", name, err)
	}
	return &ledger{name: name, db: db, gateway: &gateway{wait: wait, refs: map[string]int{}}}, nil
}

// apiHandler is the handler the live endpoint serves: the right one.
func apiHandler() handlers.APIInfo {
	for _, a := range handlers.APIList() {
		if a.Name == "api-idempotency-key" {
			return a
		}
	}
	panic("tryapi: handlers.APIList has no api-idempotency-key")
}

// sleepCtx waits d, or less if ctx ends first: a client that hangs up
// stops the wait.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// callKey carries a request's Lab-Gateway-Delay, and the request's own
// context, to the gateway.
type callKey struct{}

type call struct {
	delay  time.Duration
	client context.Context // ends when the client hangs up
}

// withCall returns the context the handler runs in: client's values, but
// not its end, so that the handler's own bookkeeping (releasing the key's
// lock after a failed charge, saving the answer) is never cut half-way by
// a client that hangs up; only the gateway's wait, the one slow step,
// stops then.
func withCall(client context.Context, delay time.Duration) context.Context {
	return context.WithValue(context.WithoutCancel(client), callKey{}, call{delay: delay, client: client})
}

// charge is one charge the provider accepted.
type charge struct {
	Reference string `json:"reference"`
	Account   string `json:"account"`
	Amount    int64  `json:"amount"`
	// Calls counts the Charge calls with this reference; past the first,
	// the provider answered "done" and charged nothing (deduplicated).
	Calls int `json:"calls"`
}

// gateway is the ledger's payment provider, kept in memory. Like
// Stripe's, it deduplicates by reference: a second charge with a
// reference it has seen succeeds without charging again, so the
// handler's retry after a crash between the charge and its record is
// safe. A reference seen with another account or amount is refused, as
// a provider refuses an idempotency key reused with other parameters.
type gateway struct {
	wait func(ctx context.Context, d time.Duration) error

	mu      sync.Mutex
	charges []charge
	refs    map[string]int // reference → index in charges
}

func (g *gateway) Charge(ctx context.Context, account string, amount int64, reference string) error {
	if c, ok := ctx.Value(callKey{}).(call); ok && c.delay > 0 {
		if err := g.wait(c.client, c.delay); err != nil {
			return fmt.Errorf("gateway call abandoned: %w", err)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if i, ok := g.refs[reference]; ok {
		c := &g.charges[i]
		if c.Account != account || c.Amount != amount {
			return errors.New("reference reused with another account or amount")
		}
		c.Calls++
		return nil
	}
	g.refs[reference] = len(g.charges)
	g.charges = append(g.charges, charge{Reference: reference, Account: account, Amount: amount, Calls: 1})
	return nil
}

// list is a copy of the charges, in the order they were made.
func (g *gateway) list() []charge {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.charges)
}
