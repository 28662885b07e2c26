package sim

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
)

// epoch is where every run's simulated clock starts.
func epoch() time.Time { return time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC) }

// seed makes the producer's random keys the same in every run.
const seed = 20260101

// world is everything one handler runs against in one run: a fresh
// in-memory SQLite database, a fresh Redis (miniredis, reached by go-redis
// over an in-memory pipe), a payment gateway, a broker, a producer and a clock.
type world struct {
	script  *script.Script
	handler handlers.Info
	t       *tracer
	db      *sql.DB
	conn    *recConnector // db's one connection
	// A world on a real Engine: its schema, dropped on close; its Redis
	// database (slot), given back on close; real: Redis is a server.
	dropSchema func()
	release    func()
	// pg makes connections to the world's schema: the lab's own (conn)
	// and each worker's (workers, see block.go); admin is the engine's.
	pg      driver.Connector
	admin   *sql.DB
	workers map[string]*workerConn
	slot    int
	real    bool
	mr      *miniredis.Miniredis
	rdb     *redis.Client
	gateway *gateway
	broker  *Broker
	now     time.Time
	rng     *rand.Rand
	src     *rand.PCG       // rng's source, whose state a state key holds
	tables  map[string]bool // shared with the schema's template: read only

	// ctx is the run's context: a world checks it before every delivery.
	ctx context.Context
	// share is how many deliveries this world may make (its part of the
	// run's budget); a negative share is no limit.
	share int
	// onDeliver, when set, is called at the start of every delivery
	// (tests count deliveries with it).
	onDeliver func()
	// sum is SUM(balance) over the accounts as read when the tracer had
	// counted sumWrites statements that may write; balance reads it again
	// only after another such statement.
	sum       int64
	sumWrites int
	sumRead   bool

	// active is the worker running now, nil between deliveries; turnStart
	// is the durable balance when its turn began (see turnEnd).
	active    *worker
	turnStart int64

	ledger          // the oracle's book
	quarantines int // calls of Deps.Quarantine
	crashes     int // workers that died
	timeouts    int // redeliveries after a crash or a timeout (Result.Timeouts)
	deliveries  int
	scripts     int // Lua scripts the handler ran in Redis: each costs luaCost of the budget
	// quarantineCount says whether the handler's quarantine table has a
	// count column; nil until looked at.
	quarantineCount *bool
	// engineErr is an error of the engine's own (the reaper, run when a
	// stalled gateway call moves the clock) met inside a delivery, where
	// it cannot be returned: the step returns it.
	engineErr error

	// queue is the broker the steps act on: the model, broker itself,
	// or a real broker's Transport that keeps broker as its book.
	queue Transport

	// api is the API side's state (api.go); nil on the broker side.
	api *apiState
	// dedupSeen is when the broker took each key, for its dedup window.
	dedupSeen map[string]time.Time
	// versions and totals count, per account, the operations born so
	// far and what they add up to (see version).
	versions, totals map[string]int64

	// pool is what a world made for Worlds keeps for its next run
	// (worlds.go); nil for a world of one run.
	pool *reusable
}

func newWorld(s *script.Script, h handlers.Info, eng *Engine) (w *world, err error) {
	t := &tracer{}
	w = &world{}
	w.init(s, h, t)
	// The world made so far is closed on an error: every error return
	// sets w to nil, so the deferred call keeps its own copy.
	defer func(made *world) {
		if err != nil {
			made.close()
		}
	}(w)
	if eng != nil {
		if err := w.openReal(eng, handlers.BaseSchema+h.Schema); err != nil {
			return nil, err
		}
		return w, w.addOutbox()
	}
	tmpl, err := templateFor(handlers.BaseSchema + h.Schema)
	if err != nil {
		return nil, fmt.Errorf("schema for %s: %w", h.Name, err)
	}
	w.tables = tmpl.tables
	// One connection holds the in-memory database: a second pooled
	// connection would open a second, empty database.
	conn, err := newRecConnector(":memory:?_txlock=immediate", t)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	w.conn, t.io = conn, w
	w.db = sql.OpenDB(conn)
	// Every connection database/sql opens wraps the one SQLite connection
	// (sharedConn): a second one is needed only while a worker is paused
	// inside a call, a third for the lab's reads meanwhile.
	w.db.SetMaxIdleConns(4)
	w.db.SetConnMaxLifetime(0)
	w.db.SetConnMaxIdleTime(0)
	// The database starts as a copy of the schema's template, which is
	// what running the schema would leave, byte for byte.
	dc, err := w.db.Conn(context.Background())
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	err = dc.Raw(func(c any) error { return c.(*recConn).restore(tmpl.image) })
	dc.Close()
	if err != nil {
		return nil, fmt.Errorf("database for %s: %w", h.Name, err)
	}
	if err := w.addOutbox(); err != nil {
		return nil, err
	}

	if h.Redis {
		// go-redis speaks real RESP to miniredis over an in-memory pipe
		// (miniredis.Dial): the same bytes as over TCP, without a port or a
		// system call per command, which made Redis handlers ten times
		// slower than the others.
		if w.mr, err = newRedis(); err != nil {
			return nil, fmt.Errorf("redis: %w", err)
		}
		if err := w.dialRedis(nil); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// dialRedis makes the world's go-redis client of its miniredis and
// connects it. first, when set, runs on the new connection before the
// recorder is on it, so the trace never shows it (a reused world flushes
// the scripts a run before loaded).
func (w *world) dialRedis(first func(context.Context, *redis.Client) error) error {
	ctx := context.Background()
	w.rdb = redis.NewClient(&redis.Options{
		// Only a name: the dialer below connects. An IP literal, as a
		// host name would make go-redis look it up in DNS.
		Addr:            "127.0.0.1:6379",
		Dialer:          func(context.Context, string, string) (net.Conn, error) { return w.mr.Dial() },
		Protocol:        2,
		DisableIdentity: true,
		PoolSize:        1,
	})
	if first != nil {
		if err := first(ctx, w.rdb); err != nil {
			return fmt.Errorf("redis: %w", err)
		}
	}
	w.rdb.AddHook(redisRecorder{t: w.t, scripts: &w.scripts})
	// Connect now, so the trace shows only the handler's commands.
	if err := w.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	return nil
}

// init sets everything of the world a run changes as a new world has it,
// and keeps none of what it held: a reused world (worlds.go) starts its
// run from here too, with its connections carried over. t is the world's
// tracer, emptied: its connections record into it.
func (w *world) init(s *script.Script, h handlers.Info, t *tracer) {
	*t = tracer{}
	*w = world{
		script: s, handler: h, t: t,
		gateway: &gateway{t: t, mode: script.GatewayUp, refs: map[string]bool{}},
		broker:  &Broker{MaxDeliveries: s.MaxDeliveries, RequeueAt: s.Profile().Requeue, PastLimit: s.PastLimitRule(), Unflagged: s.Profile().Redelivery == ""},
		now:     epoch(),
		src:     rand.NewPCG(seed, seed),
		ledger:  newLedger(),
		ctx:     context.Background(),
		share:   -1,
	}
	w.rng = rand.New(w.src)
	w.broker.now = func() time.Time { return w.now }
	w.queue = w.broker
}

func (w *world) close() {
	if w.rdb != nil {
		w.rdb.Close()
	}
	if w.mr != nil {
		w.mr.Close()
	}
	w.closeWorkers()
	if w.db != nil {
		w.db.Close()
	}
	w.closeClear()
	if w.conn != nil {
		w.conn.close()
	}
	w.closeReal()
}

// template is a handler's database as its schema leaves it, serialized
// once: a world starts from a copy of it instead of running the schema,
// which took a quarter of a short run.
type template struct {
	image  []byte          // the main database, as sqlite3_serialize writes it
	tables map[string]bool // its tables; read only, shared by every world
}

// templates maps each handler schema to a function that builds its
// template on the first call and returns the same one after. The map is
// made once and never changes, and each function is a sync.OnceValues, so
// the worlds of parallel runs share them safely.
var templates = sync.OnceValue(func() map[string]func() (*template, error) {
	m := map[string]func() (*template, error){}
	for _, h := range handlers.List() {
		schema := handlers.BaseSchema + h.Schema
		if m[schema] == nil {
			m[schema] = sync.OnceValues(func() (*template, error) { return newTemplate(schema) })
		}
	}
	return m
})

// templateFor returns the template of a schema, building it on first use.
func templateFor(schema string) (*template, error) {
	if f := templates()[schema]; f != nil {
		return f()
	}
	return newTemplate(schema) // no handler has this schema: nothing to share
}

// newTemplate runs a schema on a fresh in-memory database and serializes it.
// The schema may be a stranger's: its connection is guarded as a world's.
func newTemplate(schema string) (*template, error) {
	ctx := context.Background()
	c, err := newGuardedConnector(":memory:")
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, schema); err != nil {
		return nil, err
	}
	tm := &template{tables: map[string]bool{}}
	rows, err := conn.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		tm.tables[name] = true
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	err = conn.Raw(func(dc any) error {
		d, ok := dc.(dbImage)
		if !ok {
			return errors.New("sqlite connection cannot serialize")
		}
		tm.image, err = d.Serialize()
		return err
	})
	return tm, err
}

// deps is what the worker process hands the handler.
func (w *world) deps(wk *worker, point func(string)) handlers.Deps {
	return handlers.Deps{
		DB:            w.dbFor(wk),
		Redis:         w.rdb,
		Gateway:       callerGateway{w: w, wk: wk},
		Now:           func() time.Time { return w.now },
		ProcessingTTL: w.script.ProcessingTTL,
		DoneTTL:       w.script.DoneTTL,
		KeyTTL:        w.script.KeyTTL,
		Point:         point,
		Log: func(format string, args ...any) {
			w.t.emit(KindLog, fmt.Sprintf(format, args...), "")
		},
		Quarantine: func(reason string) {
			w.quarantines++
			w.setAside[wk.msg] = true
			w.t.add(Event{Actor: wk.name, Kind: KindQuarantine, Msg: wk.msg.TransportID,
				Note: narration.T("event.worker.quarantine", wk.msg.TransportID, reason)})
		},
	}
}

// newKey makes a UUID from the run's seeded source: v4 for fresh keys, v7
// (the clock's milliseconds in the top 48 bits) for keys made at intent time.
func (w *world) newKey(v7 bool) string {
	var u uuid.UUID
	for i := range u {
		u[i] = byte(w.rng.Uint32())
	}
	u[6] = u[6]&0x0f | 0x40
	if v7 {
		ms := uint64(w.now.UnixMilli())
		for i := 0; i < 6; i++ {
			u[i] = byte(ms >> (40 - 8*i))
		}
		u[6] = u[6]&0x0f | 0x70
	}
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}

// balance is what the handler's effects credited: the accounts table plus
// what the gateway charged. Most steps write nothing (a crash before the
// effect, a redeliver, a clock advance), so the sum is read again only
// after a statement that may have changed a row.
func (w *world) balance() (int64, error) {
	if !w.sumRead || w.sumWrites != w.t.writes {
		if err := w.db.QueryRow(`SELECT COALESCE(SUM(balance), 0) FROM accounts`).Scan(&w.sum); err != nil {
			return 0, err
		}
		w.sumWrites, w.sumRead = w.t.writes, true
	}
	if w.handler.API != nil {
		// An API handler's effect is the charge: its ledger only records
		// it (counting both would count each payment twice).
		return w.gateway.charged, nil
	}
	return w.sum + w.gateway.charged, nil
}

// quarantined counts the conflicts waiting for a person: the rows of the
// handler's quarantine table, and the messages it quarantined with
// Deps.Quarantine.
func (w *world) quarantined() (int, error) {
	if !w.tables["quarantine"] {
		return w.quarantines, nil
	}
	var n int
	if err := w.db.QueryRow(`SELECT COUNT(*) FROM quarantine`).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting the quarantine's rows: %w", err)
	}
	return n + w.quarantines, nil
}

// quarantinedDeliveries counts the deliveries the handler quarantined:
// each Deps.Quarantine, and what its quarantine table records, a row's
// repeats included when the table has a count column (one row per key,
// counting its conflicting deliveries), one per row when it has none (one
// row per message). The oracle compares it before and after a delivery
// of a changed payload.
func (w *world) quarantinedDeliveries() (int, error) {
	if !w.tables["quarantine"] {
		return w.quarantines, nil
	}
	if w.quarantineCount == nil {
		rows, err := w.db.Query(`SELECT * FROM quarantine LIMIT 0`)
		if err != nil {
			return 0, fmt.Errorf("reading the quarantine table's columns: %w", err)
		}
		cols, err := rows.Columns()
		rows.Close()
		if err != nil {
			return 0, fmt.Errorf("reading the quarantine table's columns: %w", err)
		}
		has := slices.ContainsFunc(cols, func(c string) bool { return strings.EqualFold(c, "count") })
		w.quarantineCount = &has
	}
	q := `SELECT COUNT(*) FROM quarantine`
	if *w.quarantineCount {
		q = `SELECT COALESCE(SUM(count), 0) FROM quarantine`
	}
	var n int
	if err := w.db.QueryRow(q).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting the quarantined deliveries: %w", err)
	}
	return n + w.quarantines, nil
}

// gateway is the external payment provider. It keeps every call. By
// default it does not deduplicate: a second charge with the same reference
// charges again.
type gateway struct {
	t       *tracer
	mode    string        // GatewayUp, GatewayDown or GatewayTimeout
	dedup   bool          // charge each reference once; answer repeats with success
	stall   time.Duration // the next charge hangs this long and never arrives; 0: none
	refs    map[string]bool
	calls   []GatewayCall
	charged int64 // the amounts the provider actually charged
}

// GatewayCall is one charge the gateway was asked for.
type GatewayCall struct {
	Account   string `json:"account"`
	Amount    int64  `json:"amount"`
	Reference string `json:"reference"`
	OK        bool   `json:"ok"`      // money moved: the provider charged this call
	Outcome   string `json:"outcome"` // what the provider did: one of the Outcome constants
	Answer    string `json:"answer"`  // what the caller heard: AnswerOK, Answer503 or AnswerTimeout
}

// What the provider did with a charge. Only OutcomeCharged moves money.
const (
	OutcomeCharged      = "charged"
	OutcomeDeduplicated = "deduplicated" // a reference it had charged: nothing charged again
	OutcomeRefused      = "refused"      // down: nothing charged
	OutcomeNotReceived  = "not received" // the request stalled and never arrived: nothing charged
)

// What the caller heard.
const (
	AnswerOK      = "ok"
	Answer503     = "503"
	AnswerTimeout = "timeout" // no answer: the caller cannot tell whether it charged
)

var (
	errGatewayDown    = errors.New("payment gateway unavailable (503)")
	errGatewayTimeout = errors.New("payment gateway timed out: no answer")
)

// callerGateway is the gateway as one worker reaches it: the world learns
// which delivery each charge belongs to, and a stalled call can let a
// racing worker run while this one waits.
type callerGateway struct {
	w  *world
	wk *worker
}

func (c callerGateway) Charge(ctx context.Context, account string, amount int64, reference string) error {
	g, w, wk := c.w.gateway, c.w, c.wk
	i, err := g.t.startCall(KindGateway, fmt.Sprintf("charge %d to %s, reference %s", amount, account, reference), "")
	if err != nil {
		return err // a dead worker's request never leaves
	}
	if i >= 0 {
		g.t.events[i].Note = narration.T("event.gateway.charge", num(amount), account, reference)
	}
	call := GatewayCall{Account: account, Amount: amount, Reference: reference, Answer: AnswerOK}
	var res string // the event's result: what really happened
	switch {
	case g.stall > 0:
		d := g.stall
		g.stall = 0
		// The worker waits for an answer that never comes: the clock and
		// Redis move on, and a racing worker runs meanwhile.
		w.wait(wk, d)
		wk.yield(narration.T("event.worker.gateway-wait", wk.name))
		call.Outcome, call.Answer = OutcomeNotReceived, AnswerTimeout
		res = fmt.Sprintf("no answer after %s: the request never reached the provider, nothing charged", formatDuration(d))
	case g.mode == script.GatewayDown:
		call.Outcome, call.Answer = OutcomeRefused, Answer503
		res = "error: " + errGatewayDown.Error()
	case g.dedup && reference != "" && g.refs[reference]:
		call.Outcome = OutcomeDeduplicated
		res = "reference " + reference + " already charged: nothing charged again"
	default:
		call.OK, call.Outcome = true, OutcomeCharged
		g.charged += amount // counted to the worker when its turn ends (world.turnEnd)
		if reference != "" {
			g.refs[reference] = true
		}
		res = "charged"
	}
	if g.mode == script.GatewayTimeout && call.Answer == AnswerOK {
		call.Answer = AnswerTimeout
		res += ", but the answer is lost"
	}
	switch call.Answer {
	case AnswerOK:
		if call.Outcome == OutcomeDeduplicated {
			res += "; the caller hears success"
		}
	case Answer503:
		err = errGatewayDown
	case AnswerTimeout:
		err = errGatewayTimeout
		res += "; the caller sees a timeout"
	}
	g.calls = append(g.calls, call)
	g.t.endCall(i, res)
	return err
}

// State is what a handler's world holds at one moment: its tables, its
// Redis keys and the gateway's calls.
type State struct {
	Now       string        `json:"now"`
	Tables    []Table       `json:"tables"`
	Redis     []RedisKey    `json:"redis,omitempty"`
	Gateway   []GatewayCall `json:"gateway,omitempty"`
	GatewayUp bool          `json:"gateway_up"` // the mode is GatewayUp
	// GatewayMode is GatewayUp, GatewayDown or GatewayTimeout; GatewayDedup
	// says whether the provider deduplicates on the reference.
	GatewayMode  string `json:"gateway_mode"`
	GatewayDedup bool   `json:"gateway_dedup"`
}

// Table is a copy of one SQLite table.
type Table struct {
	Name    string     `json:"name"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// RedisKey is one key with its value and remaining time to live.
type RedisKey struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	TTL   string `json:"ttl,omitempty"` // "" when the key does not expire
}

func (w *world) state() (*State, error) {
	st := &State{Now: w.now.Format(time.RFC3339), GatewayUp: w.gateway.mode == script.GatewayUp,
		GatewayMode: w.gateway.mode, GatewayDedup: w.gateway.dedup,
		Gateway: append([]GatewayCall(nil), w.gateway.calls...)}
	names := make([]string, 0, len(w.tables))
	for name := range w.tables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		tb, err := w.table(name)
		if err != nil {
			return nil, err
		}
		st.Tables = append(st.Tables, tb)
	}
	switch {
	case w.mr != nil:
		for _, k := range w.mr.Keys() {
			v, _ := w.mr.Get(k)
			rk := RedisKey{Key: k, Value: v}
			if ttl := w.mr.TTL(k); ttl > 0 {
				rk.TTL = formatDuration(ttl)
			}
			st.Redis = append(st.Redis, rk)
		}
	case w.real:
		ctx := context.Background()
		for _, k := range w.realRedisKeys() {
			v, _ := w.rdb.Get(ctx, k).Result()
			rk := RedisKey{Key: k, Value: v}
			if ttl, err := w.rdb.PTTL(ctx, k).Result(); err == nil && ttl > 0 {
				rk.TTL = formatDuration(ttl.Round(time.Second))
			}
			st.Redis = append(st.Redis, rk)
		}
	}
	return st, nil
}

func (w *world) table(name string) (Table, error) {
	tb := Table{Name: name}
	order := ` ORDER BY rowid` // in the order rows were written
	if w.conn.postgres {
		order = "" // no rowid: sorted below
	}
	rows, err := w.db.Query(`SELECT * FROM "` + name + `"` + order)
	if err != nil {
		return tb, err
	}
	defer rows.Close()
	if tb.Columns, err = rows.Columns(); err != nil {
		return tb, err
	}
	for rows.Next() {
		vals := make([]any, len(tb.Columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return tb, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				row[i] = "NULL"
			case []byte:
				row[i] = string(x)
			default:
				row[i] = fmt.Sprint(x)
			}
		}
		tb.Rows = append(tb.Rows, row)
	}
	if w.conn.postgres {
		slices.SortFunc(tb.Rows, func(a, b []string) int { return slices.Compare(a, b) })
	}
	return tb, rows.Err()
}

// expiredKeys lists the Redis keys that exist in before but not now.
func (w *world) redisKeys() []string {
	if w.real {
		return w.realRedisKeys()
	}
	if w.mr == nil {
		return nil
	}
	return w.mr.Keys()
}

func missing(before, after []string) []string {
	have := map[string]bool{}
	for _, k := range after {
		have[k] = true
	}
	var gone []string
	for _, k := range before {
		if !have[k] {
			gone = append(gone, k)
		}
	}
	return gone
}
