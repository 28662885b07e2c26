// Package handlers holds the code the lab teaches: message handlers that
// credit a top-up to an account, each defending against duplicates in its
// own way (or failing to).
//
// Every handler is one function in a file of its own, short enough to read
// as lecture material. A handler sees a Message and the Deps of the worker
// process that runs it: a *sql.DB, a *redis.Client, the payment Gateway and
// a simulated clock. It returns nil to ack the message and an error to nack
// it (the broker then redelivers it).
//
// The calls to Deps.Point name places in the story: BeforeEffect and
// AfterEffect are crash points, Yield is where a second worker may run in
// between when two deliveries race. Besides them the lab can stop a worker
// at any of its I/O calls (a statement, a Redis command, a gateway call),
// and it counts effects from the data, not from the marks. Handlers defer nothing
// but tx.Rollback, which is what the database does anyway when a dead
// worker's connection drops, so a crash runs no cleanup that a real one
// would not.
package handlers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
	"modernc.org/sqlite"
)

// Message is what a worker receives from the broker.
type Message struct {
	Key         string            // idempotency key chosen by the producer
	Tenant      string            // the tenant the operation belongs to
	Account     string            // the account to credit
	OrderID     string            // the order being paid
	Amount      int64             // minor units (cents), never a float
	Headers     map[string]string // transport headers
	TransportID string            // the broker's own id (topic/partition/offset)
	// Partition and Offset are the record's place in the broker's log
	// (Kafka's topic-partition and offset): TransportID in two parts.
	Partition string
	Offset    int64
	// Delivery counts the times the broker has handed this message out,
	// this one included (RabbitMQ's x-delivery-count, SQS's
	// ApproximateReceiveCount): 1 on the first delivery. Kafka counts
	// nothing: there it is the consumer's own count, as a consumer may
	// keep one.
	Delivery int
	// Kind is "payment" or "refund" (then Amount is negative: the money
	// goes back, and OrderID is the order refunded).
	Kind string
	// Version is this operation's place among its account's operations
	// (1, 2, …), and Balance the account's balance after it, as the
	// producer sees them: for handlers that write absolute state.
	Version int64
	Balance int64
	// Redelivered is the broker's flag (RabbitMQ's redelivered): the
	// broker may have handed this message out before. False does not mean
	// first: a producer's retry is a new message, with the flag false, and
	// Kafka sets no flag at all (script.BrokerProfile.Redelivery).
	Redelivered bool
}

// Message kinds (Message.Kind).
const (
	KindPayment = "payment"
	KindRefund  = "refund" // Amount is negative: the money goes back
)

// Gateway is an external payment provider: a side effect the handler cannot
// wrap in its own database transaction.
type Gateway interface {
	Charge(ctx context.Context, account string, amount int64, reference string) error
}

// Deps is what the worker process gives a handler.
type Deps struct {
	DB      *sql.DB
	Redis   *redis.Client
	Gateway Gateway
	Now     func() time.Time // the lab's simulated clock

	// ProcessingTTL and DoneTTL are the lifetimes of the Redis idempotency
	// key while a message is being processed and after it succeeded.
	ProcessingTTL time.Duration
	DoneTTL       time.Duration
	// KeyTTL, for an API handler, is how long the server keeps an
	// Idempotency-Key and its saved response.
	KeyTTL time.Duration

	// Point marks a named place in the handler: a crash point or a yield.
	// The lab may stop the worker there, as a crashing process would stop.
	Point func(name string)
	// Log records what the handler decided, as a logger would.
	Log func(format string, args ...any)
	// Quarantine says that the handler set this message aside for a
	// person to look at, with the reason (a changed payload under a key
	// it has applied, say), instead of applying it: the lab records it in
	// the trace and the oracle counts it, so a conflict acked this way is
	// not silent. It records at once, as a log line does, inside a
	// transaction or not. A table named quarantine counts too (see the
	// README), for a handler that keeps its own.
	Quarantine func(reason string)
}

// The places a handler marks with Deps.Point.
const (
	// BeforeEffect is just before the business effect runs (inside the
	// transaction, if the effect has one).
	BeforeEffect = "before-effect"
	// AfterEffect is right after the effect became durable (after the
	// commit) and before anything else the handler does.
	AfterEffect = "after-effect"
	// Yield is where another worker handling a duplicate may run in between:
	// the window between a check and the write it guards.
	Yield = "yield"
)

// Func is the signature every handler has.
type Func func(ctx context.Context, d Deps, m Message) error

// Info describes a handler for the lab.
type Info struct {
	Name    string // as used in scripts, URLs and the CLI
	Summary string // one line: what it guarantees or how it fails
	Core    bool   // one of the five patterns the lectures teach
	Family  Family // how it tells a repeat from a new message
	Variant bool   // a corrected form of a core pattern: neither core nor an anti-pattern
	Redis   bool   // needs Redis
	Schema  string // the tables the handler needs, besides accounts and orders
	File    string // the source file, for the lab to show
	Func    string // the function's name in that file
	Handle  Func
	// Absolute: the handler writes the account's balance as the message
	// states it, instead of adding the amount; the lab judges it by each
	// account's final balance, not operation by operation.
	Absolute bool
	// API, for an API handler (api.go), serves a client's requests
	// instead of a broker's messages; Handle is then nil.
	API APIFunc
	// Complete, for an API handler with a completer, finishes the
	// requests their clients abandoned (APIInfo.Complete).
	Complete APICompleteFunc
	// Fresh, when set, makes the handler's code anew: it returns a Handle
	// (or, for an API handler, an API) whose state is its own, shared
	// with no earlier call of Fresh. The engine calls it for every
	// delivery (and every request), as each is a worker process of its
	// own that may die, so nothing a handler keeps outside the database
	// and Redis (a package-level variable of a person's file, which the
	// sandbox interprets) outlives the worker or reaches another run.
	// Handle and API stay set all the same: they say which side the
	// handler serves. Nil for a handler that keeps no state of its own,
	// which the engine then calls as it is.
	Fresh func() (Func, APIFunc, error)
}

// Family is how a handler tells a repeat from a new message, if it does:
// the cost page groups its figures by it. A person's own handler has
// none ("").
type Family string

// The families, as Families lists them.
const (
	FamilyNone  Family = "none"  // no defence: every delivery is credited
	FamilyDedup Family = "dedup" // a record in the database of what was done: a unique key, an inbox row, a marker, an offset
	FamilyLock  Family = "lock"  // a claim in Redis taken before the effect
	FamilyState Family = "state" // the data's own state decides: an order's status, a version, a balance written as stated
)

// Families lists every family, in the order the lab shows them.
func Families() []Family { return []Family{FamilyNone, FamilyDedup, FamilyLock, FamilyState} }

// List returns every handler: the five core patterns first, then the
// variants (setnx-token, setnx-fence, unique-on-conflict and version-guard:
// corrected forms, not among the lectures' five), then the anti-patterns.
func List() []Info {
	return []Info{
		{Name: "naive", Family: FamilyNone, Summary: "credits every delivery: no protection at all", Core: true,
			File: "naive.go", Func: "Naive", Handle: Naive},
		{Name: "unique", Family: FamilyDedup, Summary: "UNIQUE(idempotency_key) in the same transaction as the credit", Core: true,
			Schema: uniqueSchema, File: "unique.go", Func: "Unique", Handle: Unique},
		{Name: "setnx", Family: FamilyLock, Summary: "Redis SET NX EX guards an external gateway call", Core: true, Redis: true,
			File: "setnx.go", Func: "SetNX", Handle: SetNX},
		{Name: "statemachine", Family: FamilyState, Summary: "UPDATE orders ... WHERE status='CREATED' decides who pays (by order id only, not tenant)", Core: true,
			File: "statemachine.go", Func: "StateMachine", Handle: StateMachine},
		{Name: "inbox", Family: FamilyDedup, Summary: "(tenant, operation) inbox with payload hash and saved response, one transaction", Core: true,
			Schema: inboxSchema, File: "inbox.go", Func: "Inbox", Handle: Inbox},

		{Name: "setnx-token", Family: FamilyLock, Summary: "setnx corrected (not an anti-pattern): a token per attempt, compare-and-delete in Lua, the key as the gateway's reference", Variant: true, Redis: true,
			File: "setnx_token.go", Func: "SetNXToken", Handle: SetNXToken},
		{Name: "setnx-fence", Family: FamilyLock, Summary: "setnx-token with a fencing token: a Redis counter numbers each claim, and the ledger's transaction refuses a credit whose number is older than one it accepted", Variant: true, Redis: true,
			Schema: fenceSchema, File: "setnx_fence.go", Func: "SetNXFence", Handle: SetNXFence},
		{Name: "unique-on-conflict", Family: FamilyDedup, Summary: "unique-same-tx corrected (not an anti-pattern): INSERT ... ON CONFLICT DO NOTHING, and RowsAffected tells a repeat",
			Variant: true, Schema: uniqueSchema, File: "unique_on_conflict.go", Func: "UniqueOnConflict", Handle: UniqueOnConflict},
		{Name: "version-guard", Family: FamilyState, Summary: "writes the balance the message states, only if its version is newer: stale and repeated messages change nothing", Variant: true, Absolute: true,
			Schema: versionSchema, File: "version_guard.go", Func: "VersionGuard", Handle: VersionGuard},

		{Name: "check-then-insert", Family: FamilyDedup, Summary: "SELECT the key, then INSERT: two racing workers both pass",
			Schema: checkThenInsertSchema, File: "check_then_insert.go", Func: "CheckThenInsert", Handle: CheckThenInsert},
		{Name: "unique-error", Family: FamilyDedup, Summary: "UNIQUE, but a duplicate is returned as an error: a redelivery loop",
			Schema: uniqueSchema, File: "unique_error.go", Func: "UniqueError", Handle: UniqueError},
		{Name: "unique-same-tx", Family: FamilyDedup, Summary: "UNIQUE, but the repeat is counted in the failed transaction: fine on SQLite, a redelivery loop on PostgreSQL",
			Schema: uniqueSameTxSchema, File: "unique_same_tx.go", Func: "UniqueSameTx", Handle: UniqueSameTx},
		{Name: "marker-first", Family: FamilyDedup, Summary: "commits the marker, then the credit: a crash in between loses it",
			Schema: markerSchema, File: "marker_first.go", Func: "MarkerFirst", Handle: MarkerFirst},
		{Name: "effect-first", Family: FamilyDedup, Summary: "commits the credit, then the marker: a crash in between doubles it",
			Schema: markerSchema, File: "effect_first.go", Func: "EffectFirst", Handle: EffectFirst},
		{Name: "broker-key", Family: FamilyDedup, Summary: "deduplicates on the broker's transport id, not the producer's key",
			Schema: brokerKeySchema, File: "broker_key.go", Func: "BrokerKey", Handle: BrokerKey},
		{Name: "setnx-no-release", Family: FamilyLock, Summary: "SET NX without DEL when the gateway fails: the retry is skipped", Redis: true,
			File: "setnx_no_release.go", Func: "SetNXNoRelease", Handle: SetNXNoRelease},
		{Name: "inbox-no-hash", Family: FamilyDedup, Summary: "inbox without a payload hash: a changed amount passes as a repeat",
			Schema: inboxNoHashSchema, File: "inbox_no_hash.go", Func: "InboxNoHash", Handle: InboxNoHash},
		{Name: "absolute-update", Family: FamilyState, Summary: "writes the balance the message states: a repeat is harmless, a stale message overwrites a newer one", Absolute: true,
			File: "absolute_update.go", Func: "AbsoluteUpdate", Handle: AbsoluteUpdate},
		{Name: "redelivered-flag", Family: FamilyDedup, Summary: "checks for a repeat only when the broker's redelivered flag is set: a producer's retry arrives with it false",
			Schema: redeliveredFlagSchema, File: "redelivered_flag.go", Func: "RedeliveredFlag", Handle: RedeliveredFlag},
		{Name: "offset-in-db", Family: FamilyDedup, Summary: "stores the consumer's offset in the credit's transaction: survives a replayed batch, not a producer's retry or an out-of-order requeue",
			Schema: offsetInDBSchema, File: "offset_in_db.go", Func: "OffsetInDB", Handle: OffsetInDB},
	}
}

// BaseSchema is what every world has: the accounts handlers credit and the
// orders the order service creates.
const BaseSchema = `
CREATE TABLE accounts (
    id      TEXT PRIMARY KEY,
    balance INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE orders (
    tenant  TEXT NOT NULL,
    id      TEXT NOT NULL,
    status  TEXT NOT NULL,
    paid_at TEXT,
    PRIMARY KEY (tenant, id)
);
`

// IsUniqueViolation reports whether err is the database's answer to a
// duplicate in the constraint the handler means. Each engine names that
// constraint its own way, so the handler gives both names: the one
// PostgreSQL reports (the schema's CONSTRAINT clause, or PostgreSQL's
// default such as "inbox_pkey" for a primary key) and the columns SQLite
// reports ("transactions.idempotency_key", or "inbox.tenant,
// inbox.operation_id" for a composite key), as in
//
//	handlers.IsUniqueViolation(err, "uq_transactions_key", "transactions.idempotency_key")
//
// Which one matters: a table may have more than one unique index, and a
// violation of another one is a bug in the data, not a repeat of this
// message. One small function per engine: SQLite's and PostgreSQL's. (A
// file written for the older form, the columns alone, still compiles and
// still works on SQLite.) Without names it reports a violation of any
// unique index or primary key: shorter, and wrong as soon as the table has
// a second one (a call that silently said false would be worse: every
// duplicate would become an error and its message would loop).
func IsUniqueViolation(err error, names ...string) bool {
	if len(names) == 0 {
		return sqliteUnique(err, "") || postgresUnique(err, "")
	}
	for _, name := range names {
		if name == "" { // a name left empty matches nothing, not everything
			continue
		}
		if sqliteUnique(err, name) || postgresUnique(err, name) {
			return true
		}
	}
	return false
}

// sqliteUnique: the code must be the extended 2067 (UNIQUE) or 1555
// (PRIMARY KEY); the plain code 19 (any constraint) would also match NOT
// NULL and CHECK failures. Columns "" matches any.
func sqliteUnique(err error, columns string) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) || (e.Code() != 2067 && e.Code() != 1555) {
		return false
	}
	// modernc's text: "... UNIQUE constraint failed: t.a, t.b (2067)".
	_, failed, _ := strings.Cut(e.Error(), "UNIQUE constraint failed: ")
	named, _, _ := strings.Cut(failed, " (")
	return columns == "" || named == columns
}

// postgresUnique: SQLSTATE 23505 (unique_violation, pgerrcode.UniqueViolation)
// on the constraint meant, by the name PostgreSQL reports in its own field.
// Not the DETAIL ("Key (idempotency_key)=(pay-1) already exists."): it is
// text, translated per lc_messages, and left out when the role may not read
// the row (no SELECT right, or row-level security); a duplicate read from
// it would become an error, and the message would loop. Constraint ""
// matches any.
func postgresUnique(err error, constraint string) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == "23505" && (constraint == "" || e.ConstraintName == constraint)
}

// execer is what *sql.DB and *sql.Tx have in common.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// credit adds amount to the account: the business effect of every handler
// that keeps money in the database. An UPDATE that matches no row is not an
// error to SQL, so without the RowsAffected check a top-up for an account
// that does not exist would be "done" (its key recorded, the message acked)
// while nothing was credited. Failing instead rolls the transaction back
// and nacks the message: it stays visible, and ends in the dead-letter
// queue if the account never appears.
func credit(ctx context.Context, db execer, account string, amount int64) error {
	res, err := db.ExecContext(ctx,
		`UPDATE accounts SET balance = balance + ? WHERE id = ?`, amount, account)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("account %s: %d rows updated, want 1: nothing credited", account, n)
	}
	return nil
}
