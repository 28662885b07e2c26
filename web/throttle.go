package web

// Throttles per client address for the few requests a script could repeat
// to hurt everyone else: opening rooms, importing progress, joining a
// room, voting. Each
// is a token bucket (golang.org/x/time/rate) per address, refilled at a
// steady rate; past it the answer is 429 with Retry-After and a page that
// says how long to wait.

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/tryapi"
)

// The limits. Each is far above what a classroom does and far below what
// a loop does.
const (
	// Rooms: an instructor opens a room or two per lesson. Ten at once and
	// one every six seconds after that also serve a workshop where several
	// presenters share one address; a script cannot take the server's
	// rooms (--max-rooms, 50) in one go.
	roomsPerMinute = 10
	roomsBurst     = 10

	// Imports: a student imports a progress file when moving to another
	// browser, once. Twenty at once and thirty a minute let a class behind
	// one address import together within a minute or so; a script gets no
	// more than one file (a parse and a database write) every two seconds.
	importsPerMinute = 30
	importsBurst     = 20

	// Votes: a whole classroom often shares one address (the school's NAT
	// or the lab's own Wi-Fi), and a room holds up to 300 students by
	// default (--max-students). So the burst is a full room answering at
	// once, and the bucket refills at 300 a minute, so the same room can
	// answer the next question (or change its mind) a minute later. A vote
	// costs a map write and one event to the instructor's page, so this
	// bounds load, not fairness: each student counts once per poll anyway,
	// because the server issues and signs their identity (classroom/rooms.go).
	votesPerMinute = 300
	votesBurst     = 300

	// Joins: joining a room issues a student's identity in it, the name
	// its polls count votes by (one per identity). A script that drops
	// its cookies and joins again would vote again, so joins are counted
	// per address and per room: forty at once, then twenty a minute (one
	// every three seconds). A class of forty behind one address (a
	// school's NAT, the lab's own Wi-Fi) gets in at once, a hall of a
	// hundred within three minutes; a script gets forty names in a room,
	// then twenty a minute, however many cookies it drops, and the poll
	// says how many voted of how many joined, so the instructor sees it.
	// The bucket is the room's: joining another room takes nothing from
	// it, and an identity counts in its own room only (classroom/rooms.go signs the
	// room with it).
	joinsPerMinute = 20
	joinsBurst     = 40

	// Payments to the live API endpoint (/api/v1): people curl it by hand,
	// a class behind one address together, and a retry loop may repeat a
	// request a few times a second. Each costs a few statements on an
	// in-memory database; the burst lets a class of 30 send four each at
	// once, the rate a couple a second each minute after.
	paymentsPerMinute = 120
	paymentsBurst     = 120

	// maxClients bounds how many addresses one throttle remembers (about
	// 200 bytes each). Past it, new addresses share one bucket until idle
	// ones are forgotten, so a flood of addresses cannot grow the map.
	maxClients = 10_000
)

// limits are the server's throttles, made once in routes on the server's
// clock (Config.Now: time.Now, or a test's fake clock).
type limits struct {
	rooms, imports, joins, votes, payments *throttle
}

func newLimits(now func() time.Time) limits {
	return limits{
		rooms:    newThrottle("rooms", roomsPerMinute, roomsBurst, maxClients, now),
		imports:  newThrottle("imports", importsPerMinute, importsBurst, maxClients, now),
		joins:    newThrottle("joins", joinsPerMinute, joinsBurst, maxClients, now),
		votes:    newThrottle("votes", votesPerMinute, votesBurst, maxClients, now),
		payments: newThrottle("payments", paymentsPerMinute, paymentsBurst, maxClients, now),
	}
}

// throttle is a token bucket per client address. It takes its clock as a
// parameter, so tests move time instead of sleeping.
type throttle struct {
	name  string
	every rate.Limit // tokens per second
	burst int
	max   int // most addresses remembered
	now   func() time.Time
	idle  time.Duration // after this long unseen, an address's bucket is full again

	mu        sync.Mutex
	clients   map[string]*client
	overflow  *rate.Limiter // shared by new addresses while the map is full
	lastSweep time.Time
}

type client struct {
	lim  *rate.Limiter
	seen time.Time
}

func newThrottle(name string, perMinute float64, burst, capacity int, now func() time.Time) *throttle {
	every := rate.Limit(perMinute / 60)
	return &throttle{
		name: name, every: every, burst: burst, max: capacity, now: now,
		// A bucket refills completely in burst/rate: from then on it is
		// the same as a new one, so forgetting it changes nothing.
		idle:     time.Duration(float64(burst) / float64(every) * float64(time.Second)),
		clients:  map[string]*client{},
		overflow: rate.NewLimiter(every, burst),
	}
}

// allow takes a token for key. When there is none it reports how long
// until there is one.
func (t *throttle) allow(key string) (ok bool, wait time.Duration) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if now.Sub(t.lastSweep) >= t.idle {
		t.sweep(now)
	}
	c := t.clients[key]
	if c == nil && len(t.clients) >= t.max && now.Sub(t.lastSweep) >= time.Second {
		t.sweep(now) // at most once a second, so a full map costs little
	}
	lim := t.overflow
	switch {
	case c != nil:
		c.seen, lim = now, c.lim
	case len(t.clients) < t.max:
		c = &client{lim: rate.NewLimiter(t.every, t.burst), seen: now}
		t.clients[key], lim = c, c.lim
	}
	if lim.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - lim.TokensAt(now) // how much of a token is missing
	return false, time.Duration(missing / float64(t.every) * float64(time.Second))
}

// sweep forgets the addresses whose buckets are full again.
func (t *throttle) sweep(now time.Time) {
	for k, c := range t.clients {
		if now.Sub(c.seen) >= t.idle {
			delete(t.clients, k)
		}
	}
	t.lastSweep = now
}

// size is how many addresses the throttle remembers.
func (t *throttle) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.clients)
}

// clientKey is the address a request is counted against: the host of
// r.RemoteAddr, the peer that opened the connection. X-Forwarded-For and
// similar headers are NOT trusted: any client can write them, so honouring
// them would let a script pick a new address for every request. Behind a
// reverse proxy every client therefore shares the proxy's address; trusting
// the proxy's header would need an explicit option naming the proxy, which
// the lab does not have. An IPv6 address counts by its /64, the block one
// host usually has to itself, so that a host cannot step through its
// 2^64 addresses to escape the limit.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	addr = addr.Unmap()
	if addr.Is6() {
		p, _ := addr.Prefix(64) // a valid IPv6 address always has a /64
		return p.String()
	}
	return addr.String()
}

// throttled answers 429 to a client past t's limit, with Retry-After in
// whole seconds and a page in the reader's language that says how long to
// wait; other requests go on to next.
func (s *server) throttled(t *throttle) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := clientKey(r)
			ok, wait := t.allow(key)
			if ok {
				next.ServeHTTP(w, r)
				return
			}
			secs := max(1, int(math.Ceil(wait.Seconds())))
			s.shell.Log.Warn("throttled", "limit", t.name, "client", key, "method", r.Method, "path", page.InputExcerpt(r.URL.Path), "retry_after", secs)
			s.shell.RenderError(w, r, &page.Error{Status: http.StatusTooManyRequests, Key: "err.throttle", Args: []any{secs}, RetryAfter: secs})
		})
	}
}

// admitJoin takes a token of t for a join of room code from the request's
// address (the key is the address and the room), for Classroom.Admit:
// past the limit, the same 429 page with Retry-After as throttled's. The
// room is known to be open before a token is taken, so made-up codes
// cannot fill the throttle's map.
func (s *server) admitJoin(t *throttle) func(r *http.Request, code string) error {
	return func(r *http.Request, code string) error {
		key := clientKey(r)
		ok, wait := t.allow(key + " " + code)
		if ok {
			return nil
		}
		secs := max(1, int(math.Ceil(wait.Seconds())))
		s.shell.Log.Warn("throttled", "limit", t.name, "client", key, "room", code, "method", r.Method, "path", page.InputExcerpt(r.URL.Path), "retry_after", secs)
		return &page.Error{Status: http.StatusTooManyRequests, Key: "err.throttle", Args: []any{secs}, RetryAfter: secs}
	}
}

// throttledAPI is throttled for the API endpoint: past the limit, a 429
// problem+json with Retry-After instead of a page.
func (s *server) throttledAPI(t *throttle) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := clientKey(r)
			ok, wait := t.allow(key)
			if ok {
				next.ServeHTTP(w, r)
				return
			}
			secs := max(1, int(math.Ceil(wait.Seconds())))
			s.shell.Log.Warn("throttled", "limit", t.name, "client", key, "method", r.Method, "path", page.InputExcerpt(r.URL.Path), "retry_after", secs)
			s.tryAPI.Record(r, http.StatusTooManyRequests) // in the sandbox's request log, as every answer is
			tryapi.Throttled(w, secs)
		})
	}
}
