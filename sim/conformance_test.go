package sim_test

// The conformance matrix: every preset × every handler, with the verdict the
// oracle must reach and the balance the run must settle at.
//
// Each row below is one preset, listing every handler in handlers.List()
// order, so a scenario reads as a whole. Amounts are minor units. "settled"
// is the balance after settlement (gateway up, in-flight messages
// redelivered, queue drained; the clock does NOT advance and the DLQ is not
// replayed). For the setnx handlers the balance is what the payment gateway
// charged; for all others it is the accounts table. The engine is the
// embedded one (SQLite): unique-same-tx's cells would differ on PostgreSQL,
// where a statement error aborts the transaction, and their comments say how.
//
// Every cell that is not the obvious outcome carries a comment saying why.
// A cell whose expectation differs from what the engine does because the
// engine or a handler is believed wrong keeps the expectation and sets bug,
// which skips the subtest with "BUG: ...".

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
)

// conformanceCell is one handler's expected outcome in one preset.
type conformanceCell struct {
	handler string
	verdict sim.Verdict
	settled int64
	quar    int    // quarantined messages (only inbox has a quarantine table)
	dl      int    // dead-lettered messages left in the DLQ after settlement
	bug     string // non-empty: the engine disagrees and is believed wrong; skip with this
}

// conformanceRow is one preset: what its intents ask for, and every handler's cell.
type conformanceRow struct {
	preset   string
	expected int64 // the sum of the intents' first-published amounts
	cells    []conformanceCell
}

// conformanceMatrix returns the matrix, one row per preset. The short
// verdict names are local so they cannot clash with other test files.
func conformanceMatrix() []conformanceRow {
	const (
		ok       = sim.OK
		dup      = sim.Duplicate
		lost     = sim.Lost
		poison   = sim.Poison
		conflict = sim.SilentConflict
	)
	type cell = conformanceCell
	return []conformanceRow{
		// No crash, retry or race: every message is delivered exactly once, so
		// even naive is ok. A green happy path proves nothing.
		{"happy-path", 15000, []cell{
			{handler: "naive", verdict: ok, settled: 15000},
			{handler: "unique", verdict: ok, settled: 15000},
			{handler: "setnx", verdict: ok, settled: 15000},
			{handler: "statemachine", verdict: ok, settled: 15000},
			{handler: "inbox", verdict: ok, settled: 15000},
			{handler: "setnx-token", verdict: ok, settled: 15000},
			{handler: "setnx-fence", verdict: ok, settled: 15000},
			{handler: "unique-on-conflict", verdict: ok, settled: 15000},
			{handler: "version-guard", verdict: ok, settled: 15000},
			{handler: "check-then-insert", verdict: ok, settled: 15000},
			{handler: "unique-error", verdict: ok, settled: 15000},
			{handler: "unique-same-tx", verdict: ok, settled: 15000},
			{handler: "marker-first", verdict: ok, settled: 15000},
			{handler: "effect-first", verdict: ok, settled: 15000},
			{handler: "broker-key", verdict: ok, settled: 15000},
			{handler: "setnx-no-release", verdict: ok, settled: 15000},
			{handler: "inbox-no-hash", verdict: ok, settled: 15000},
			{handler: "absolute-update", verdict: ok, settled: 15000},
			{handler: "redelivered-flag", verdict: ok, settled: 15000},
			{handler: "offset-in-db", verdict: ok, settled: 15000},
		}},

		{"crash-before-ack", 10000, []cell{
			// The handler finished; the redelivery credits a second time.
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			// The charge and the "done" key were both written before the worker died.
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			// The redelivery's INSERT ... ON CONFLICT DO NOTHING inserts no row:
			// RowsAffected is 0, nothing else is written, ack. The same on PostgreSQL.
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			// A sequential repeat: the row committed with the credit, the SELECT finds it.
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// The redelivery hits UNIQUE and is nacked; settlement's drain runs it
			// up to max-deliveries (5) into the DLQ. The credit was applied once,
			// so the balance is right, but an applied message sits in the DLQ.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// ok, as unique, on the embedded engine (SQLite): the redelivery hits UNIQUE,
			// SQLite fails only that statement, so the UPDATE counts the repeat, the
			// commit succeeds and it is acked. On PostgreSQL the UPDATE fails with 25P02
			// (transaction aborted) and the repeat loops into the DLQ: poison, as unique-error.
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			// The crash comes after both of its commits.
			{handler: "effect-first", verdict: ok, settled: 10000},
			// A plain redelivery keeps its transport id (topups/0/1).
			{handler: "broker-key", verdict: ok, settled: 10000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		{"crash-after-effect", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			// setnx is ok: the worker dies after the charge, before SET "done", so
			// the key stays "processing" (1h) and blocks the redelivery. The
			// charge did happen, so skipping the redelivery loses nothing.
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			// Like setnx: its token still holds the key and blocks the redelivery of a completed charge.
			{handler: "setnx-token", verdict: ok, settled: 10000},
			// Its numbered claim still holds the key and blocks the redelivery of a committed credit, as setnx-token's.
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			// The transaction row committed together with the credit.
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// The redelivery fails on UNIQUE until the DLQ; the credit was applied once.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// SQLite counts the repeat and acks (PostgreSQL: poison, as unique-error).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			// Both its commits (marker, then credit) are done by after-effect.
			{handler: "marker-first", verdict: ok, settled: 10000},
			// The credit committed, the marker was never written: the redelivery
			// finds no marker and credits again.
			{handler: "effect-first", verdict: dup, settled: 20000},
			{handler: "broker-key", verdict: ok, settled: 10000},
			// Same as setnx: "processing" blocks the redelivery of a completed charge.
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		{"crash-before-effect", 10000, []cell{
			// naive is ok: the crash comes before its only credit, so the
			// redelivery credits exactly once. naive only fails when an effect repeats.
			{handler: "naive", verdict: ok, settled: 10000},
			// The open transaction rolls back; the redelivery starts from scratch.
			{handler: "unique", verdict: ok, settled: 10000},
			// setnx is lost after crash-before-effect: the key stays "processing"
			// (1h TTL), the redelivery is acked without charging, and settlement
			// does not advance the clock, so the key never expires in this run.
			{handler: "setnx", verdict: lost, settled: 0},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			// Lost like setnx: a token names the claim's owner, but a dead owner's claim still
			// blocks every copy until ProcessingTTL. The grey zone is not what the token fixes.
			{handler: "setnx-token", verdict: lost, settled: 0},
			// Lost like setnx-token: the dead worker's numbered claim blocks every copy until ProcessingTTL.
			// A fence orders the claim's holders; it does not free a claim whose holder died.
			{handler: "setnx-fence", verdict: lost, settled: 0},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// unique-error is ok, not poison: its first transaction rolled back,
			// so only the redelivery reaches the INSERT and nothing repeats it
			// afterwards. Its bug needs a duplicate of an applied message.
			{handler: "unique-error", verdict: ok, settled: 10000},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			// The marker committed in its own statement before the crash: every
			// redelivery is acked as a duplicate and the credit never happens.
			{handler: "marker-first", verdict: lost, settled: 0},
			// It died before both the credit and the marker: the redelivery finds
			// no marker and credits once.
			{handler: "effect-first", verdict: ok, settled: 10000},
			// Its deliveries row rolled back with the transaction.
			{handler: "broker-key", verdict: ok, settled: 10000},
			// Same grey zone as setnx; the missing DEL only matters on a gateway error.
			{handler: "setnx-no-release", verdict: lost, settled: 0},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		{"producer-retry", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			// The "done" key lives 24h; the retry comes at once.
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			// Same (tenant, key), same payload hash: the saved response is replayed.
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// The retry fails on UNIQUE until the DLQ; the first copy was applied.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// The retry hits UNIQUE; SQLite counts it and acks (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			// The retry is a new broker message with a new transport id (topups/0/2).
			{handler: "broker-key", verdict: dup, settled: 20000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// producer-retry with the broker's dedup window (2m): the retry
		// comes at once, the broker drops it, and no consumer ever sees
		// it. Every cell is ok, naive and broker-key included, which fail
		// producer-retry: the broker did their work.
		{"dedup-window-retry", 10000, []cell{
			{handler: "naive", verdict: ok, settled: 10000},
			{handler: "unique", verdict: ok, settled: 10000},
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// No retry reaches it, so nothing hits UNIQUE: no poison here.
			{handler: "unique-error", verdict: ok, settled: 10000},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			{handler: "broker-key", verdict: ok, settled: 10000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// The same retry three minutes later, past the 2m window: the
		// broker takes it as a new message, and the row is producer-retry's.
		{"dedup-window-late-retry", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			// The "done" key lives 24h: three minutes are nothing to it.
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// The late retry fails on UNIQUE until the DLQ.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			// A new broker message with a new transport id.
			{handler: "broker-key", verdict: dup, settled: 20000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// crash-before-ack under a 2m dedup window: the redelivery is the
		// broker's own, not a publish, so the window drops nothing and the
		// row is crash-before-ack's.
		{"dedup-window-redelivery", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			{handler: "broker-key", verdict: ok, settled: 10000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// dual-write, crash after the commit: the order is committed and the
		// message never published. The intent counts from the commit, so every
		// handler is lost: no consumer defence can credit what never arrives.
		{"dual-write-lost", 10000, []cell{
			{handler: "naive", verdict: lost, settled: 0},
			{handler: "unique", verdict: lost, settled: 0},
			{handler: "setnx", verdict: lost, settled: 0},
			{handler: "statemachine", verdict: lost, settled: 0},
			{handler: "inbox", verdict: lost, settled: 0},
			{handler: "setnx-token", verdict: lost, settled: 0},
			// No consumer defence can credit a message that was never published.
			{handler: "setnx-fence", verdict: lost, settled: 0},
			{handler: "unique-on-conflict", verdict: lost, settled: 0},
			{handler: "version-guard", verdict: lost, settled: 0},
			{handler: "check-then-insert", verdict: lost, settled: 0},
			{handler: "unique-error", verdict: lost, settled: 0},
			{handler: "unique-same-tx", verdict: lost, settled: 0},
			{handler: "marker-first", verdict: lost, settled: 0},
			{handler: "effect-first", verdict: lost, settled: 0},
			{handler: "broker-key", verdict: lost, settled: 0},
			{handler: "setnx-no-release", verdict: lost, settled: 0},
			{handler: "inbox-no-hash", verdict: lost, settled: 0},
			{handler: "absolute-update", verdict: lost, settled: 0},
			{handler: "redelivered-flag", verdict: lost, settled: 0},
			{handler: "offset-in-db", verdict: lost, settled: 0},
		}},

		// publish-first, crash after the publish: the order is rolled back and
		// the message is out. No intent was born (expected 0), so every handler
		// that credits it is a duplicate.
		{"publish-first-phantom", 0, []cell{
			{handler: "naive", verdict: dup, settled: 10000},
			{handler: "unique", verdict: dup, settled: 10000},
			{handler: "setnx", verdict: dup, settled: 10000},
			// No order pay-1 was ever committed, so no CREATED row to pay: the phantom changes nothing.
			{handler: "statemachine", verdict: ok, settled: 0},
			{handler: "inbox", verdict: dup, settled: 10000},
			{handler: "setnx-token", verdict: dup, settled: 10000},
			// Like every consumer: the phantom message is a new operation to it.
			{handler: "setnx-fence", verdict: dup, settled: 10000},
			{handler: "unique-on-conflict", verdict: dup, settled: 10000},
			{handler: "version-guard", verdict: dup, settled: 10000},
			{handler: "check-then-insert", verdict: dup, settled: 10000},
			{handler: "unique-error", verdict: dup, settled: 10000},
			{handler: "unique-same-tx", verdict: dup, settled: 10000},
			{handler: "marker-first", verdict: dup, settled: 10000},
			{handler: "effect-first", verdict: dup, settled: 10000},
			{handler: "broker-key", verdict: dup, settled: 10000},
			{handler: "setnx-no-release", verdict: dup, settled: 10000},
			{handler: "inbox-no-hash", verdict: dup, settled: 10000},
			{handler: "absolute-update", verdict: dup, settled: 10000},
			{handler: "redelivered-flag", verdict: dup, settled: 10000},
			{handler: "offset-in-db", verdict: dup, settled: 10000},
		}},

		// The outbox row commits with the order; the relay publishes it: nothing
		// is lost where dual-write lost the message.
		{"outbox-crash-after-commit", 10000, []cell{
			{handler: "naive", verdict: ok, settled: 10000},
			{handler: "unique", verdict: ok, settled: 10000},
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: ok, settled: 10000},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			{handler: "broker-key", verdict: ok, settled: 10000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// The relay dies between its publish and its UPDATE: the next relay
		// publishes the row again, a new message under the same key.
		{"outbox-relay-crash", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// The relay's second publish hits UNIQUE and is nacked until the DLQ.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			// The second publish is a new message with a new transport id.
			{handler: "broker-key", verdict: dup, settled: 20000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// The second publish is a new message: redelivered=false.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// The second publish is a new record at a new offset.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// crash-before-ack, then a producer retry: the redelivery carries
		// redelivered=true, the retry redelivered=false.
		{"redelivered-flag-false", 10000, []cell{
			// Credits the first delivery, the redelivery and the retry.
			{handler: "naive", verdict: dup, settled: 30000},
			{handler: "unique", verdict: ok, settled: 10000},
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// Both repeats (the redelivery and the retry) hit UNIQUE and are nacked until the DLQ.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 2},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			// The redelivery keeps its transport id and is caught; the retry has a new one.
			{handler: "broker-key", verdict: dup, settled: 20000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// The redelivery (redelivered=true) is caught; the retry (redelivered=false) is credited again.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// The redelivery keeps its offset and is skipped; the retry is a new record at a new offset.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// deliver-batch 3, crash after message 2, commit=after: the whole
		// uncommitted range is replayed, the two finished messages included.
		{"batch-crash-replay", 600, []cell{
			// pay-1 and pay-2 were credited before the crash and again in the replayed batch.
			{handler: "naive", verdict: dup, settled: 900},
			{handler: "unique", verdict: ok, settled: 600},
			{handler: "setnx", verdict: ok, settled: 600},
			{handler: "statemachine", verdict: ok, settled: 600},
			{handler: "inbox", verdict: ok, settled: 600},
			{handler: "setnx-token", verdict: ok, settled: 600},
			{handler: "setnx-fence", verdict: ok, settled: 600},
			{handler: "unique-on-conflict", verdict: ok, settled: 600},
			{handler: "version-guard", verdict: ok, settled: 600},
			{handler: "check-then-insert", verdict: ok, settled: 600},
			// The replayed pay-1 and pay-2 hit UNIQUE and loop to the DLQ; pay-3 is credited once.
			{handler: "unique-error", verdict: poison, settled: 600, dl: 2},
			{handler: "unique-same-tx", verdict: ok, settled: 600},
			{handler: "marker-first", verdict: ok, settled: 600},
			{handler: "effect-first", verdict: ok, settled: 600},
			// The replayed range keeps its transport ids, so broker-key is right here.
			{handler: "broker-key", verdict: ok, settled: 600},
			{handler: "setnx-no-release", verdict: ok, settled: 600},
			{handler: "inbox-no-hash", verdict: ok, settled: 600},
			{handler: "absolute-update", verdict: ok, settled: 600},
			// The replayed messages carry redelivered=true, so it looks, and finds them.
			{handler: "redelivered-flag", verdict: ok, settled: 600},
			// The stored offset (3) skips pay-1 and pay-2 in the replay.
			{handler: "offset-in-db", verdict: ok, settled: 600},
		}},

		// commit=before: the offset is committed before the work; a crash after
		// message 1 loses pay-2 and pay-3 for every handler (settled 100 of 600).
		{"batch-commit-before", 600, []cell{
			{handler: "naive", verdict: lost, settled: 100},
			{handler: "unique", verdict: lost, settled: 100},
			{handler: "setnx", verdict: lost, settled: 100},
			{handler: "statemachine", verdict: lost, settled: 100},
			{handler: "inbox", verdict: lost, settled: 100},
			{handler: "setnx-token", verdict: lost, settled: 100},
			// As setnx-token: the offset committed before the batch, so the messages after the crash never come back.
			{handler: "setnx-fence", verdict: lost, settled: 100},
			{handler: "unique-on-conflict", verdict: lost, settled: 100},
			{handler: "version-guard", verdict: lost, settled: 100},
			{handler: "check-then-insert", verdict: lost, settled: 100},
			{handler: "unique-error", verdict: lost, settled: 100},
			{handler: "unique-same-tx", verdict: lost, settled: 100},
			{handler: "marker-first", verdict: lost, settled: 100},
			{handler: "effect-first", verdict: lost, settled: 100},
			{handler: "broker-key", verdict: lost, settled: 100},
			{handler: "setnx-no-release", verdict: lost, settled: 100},
			{handler: "inbox-no-hash", verdict: lost, settled: 100},
			{handler: "absolute-update", verdict: lost, settled: 100},
			{handler: "redelivered-flag", verdict: lost, settled: 100},
			{handler: "offset-in-db", verdict: lost, settled: 100},
		}},

		// pay-2 is handled while pay-1 is out with a worker that dies (another
		// consumer takes pay-2; SQS would hand it out during pay-1's visibility
		// timeout, RabbitMQ requeues pay-1 to its old place, but too late):
		// consumed out of order.
		{"offset-out-of-order", 300, []cell{
			{handler: "naive", verdict: ok, settled: 300},
			{handler: "unique", verdict: ok, settled: 300},
			{handler: "setnx", verdict: ok, settled: 300},
			{handler: "statemachine", verdict: ok, settled: 300},
			{handler: "inbox", verdict: ok, settled: 300},
			{handler: "setnx-token", verdict: ok, settled: 300},
			{handler: "setnx-fence", verdict: ok, settled: 300},
			{handler: "unique-on-conflict", verdict: ok, settled: 300},
			// pay-1 (version 1) is older than pay-2 (version 2): skipped, and its amount is already in pay-2's balance.
			{handler: "version-guard", verdict: ok, settled: 300},
			{handler: "check-then-insert", verdict: ok, settled: 300},
			{handler: "unique-error", verdict: ok, settled: 300},
			{handler: "unique-same-tx", verdict: ok, settled: 300},
			{handler: "marker-first", verdict: ok, settled: 300},
			{handler: "effect-first", verdict: ok, settled: 300},
			{handler: "broker-key", verdict: ok, settled: 300},
			{handler: "setnx-no-release", verdict: ok, settled: 300},
			{handler: "inbox-no-hash", verdict: ok, settled: 300},
			// pay-1, arriving last, writes its balance (1.00) over pay-2's (3.00).
			{handler: "absolute-update", verdict: lost, settled: 100},
			{handler: "redelivered-flag", verdict: ok, settled: 300},
			// pay-2 stored offset 3; the requeued pay-1 at offset 1 is skipped though never applied.
			{handler: "offset-in-db", verdict: lost, settled: 200},
		}},

		// The refund ref-1 (-100.00) is delivered before its payment pay-1.
		// Expected 0: paid, then refunded.
		{"refund-before-payment", 0, []cell{
			// Additive updates commute: -100.00 then +100.00 is 0 in either order.
			{handler: "naive", verdict: ok, settled: 0},
			{handler: "unique", verdict: ok, settled: 0},
			{handler: "setnx", verdict: ok, settled: 0},
			// The refund finds the order CREATED, not PAID, and is acked without refunding.
			{handler: "statemachine", verdict: lost, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 0},
			{handler: "setnx-token", verdict: ok, settled: 0},
			{handler: "setnx-fence", verdict: ok, settled: 0},
			{handler: "unique-on-conflict", verdict: ok, settled: 0},
			// The refund (version 2, balance 0) is newer: the late payment (version 1) is skipped.
			{handler: "version-guard", verdict: ok, settled: 0},
			{handler: "check-then-insert", verdict: ok, settled: 0},
			{handler: "unique-error", verdict: ok, settled: 0},
			{handler: "unique-same-tx", verdict: ok, settled: 0},
			{handler: "marker-first", verdict: ok, settled: 0},
			{handler: "effect-first", verdict: ok, settled: 0},
			{handler: "broker-key", verdict: ok, settled: 0},
			{handler: "setnx-no-release", verdict: ok, settled: 0},
			{handler: "inbox-no-hash", verdict: ok, settled: 0},
			// The late payment writes 100.00 over the refund's 0.
			{handler: "absolute-update", verdict: dup, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 0},
			// The refund stored offset 3; the payment at offset 1 is skipped: the account ends at -100.00.
			{handler: "offset-in-db", verdict: lost, settled: -10000},
		}},

		// pay-2 (version 2, balance 150.00) is delivered before pay-1 (version 1,
		// balance 100.00).
		{"stale-update", 15000, []cell{
			{handler: "naive", verdict: ok, settled: 15000},
			{handler: "unique", verdict: ok, settled: 15000},
			{handler: "setnx", verdict: ok, settled: 15000},
			{handler: "statemachine", verdict: ok, settled: 15000},
			{handler: "inbox", verdict: ok, settled: 15000},
			{handler: "setnx-token", verdict: ok, settled: 15000},
			{handler: "setnx-fence", verdict: ok, settled: 15000},
			{handler: "unique-on-conflict", verdict: ok, settled: 15000},
			// pay-1 (version 1) is older than the stored version 2: skipped.
			{handler: "version-guard", verdict: ok, settled: 15000},
			{handler: "check-then-insert", verdict: ok, settled: 15000},
			{handler: "unique-error", verdict: ok, settled: 15000},
			{handler: "unique-same-tx", verdict: ok, settled: 15000},
			{handler: "marker-first", verdict: ok, settled: 15000},
			{handler: "effect-first", verdict: ok, settled: 15000},
			{handler: "broker-key", verdict: ok, settled: 15000},
			{handler: "setnx-no-release", verdict: ok, settled: 15000},
			{handler: "inbox-no-hash", verdict: ok, settled: 15000},
			// pay-1, delivered last, writes 100.00 over 150.00.
			{handler: "absolute-update", verdict: lost, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 15000},
			// pay-2 stored offset 3; pay-1 at offset 1 is skipped though never applied.
			{handler: "offset-in-db", verdict: lost, settled: 5000},
		}},

		// pay-1 and pay-2 in order, then a retry of pay-1 (version 1).
		{"old-version-duplicate", 15000, []cell{
			{handler: "naive", verdict: dup, settled: 25000},
			{handler: "unique", verdict: ok, settled: 15000},
			{handler: "setnx", verdict: ok, settled: 15000},
			{handler: "statemachine", verdict: ok, settled: 15000},
			{handler: "inbox", verdict: ok, settled: 15000},
			{handler: "setnx-token", verdict: ok, settled: 15000},
			{handler: "setnx-fence", verdict: ok, settled: 15000},
			{handler: "unique-on-conflict", verdict: ok, settled: 15000},
			// Version 1 is not newer than the stored 2: skipped.
			{handler: "version-guard", verdict: ok, settled: 15000},
			{handler: "check-then-insert", verdict: ok, settled: 15000},
			// The retry hits UNIQUE and is nacked until the DLQ.
			{handler: "unique-error", verdict: poison, settled: 15000, dl: 1},
			{handler: "unique-same-tx", verdict: ok, settled: 15000},
			{handler: "marker-first", verdict: ok, settled: 15000},
			{handler: "effect-first", verdict: ok, settled: 15000},
			// The retry is a new message with a new transport id.
			{handler: "broker-key", verdict: dup, settled: 25000},
			{handler: "setnx-no-release", verdict: ok, settled: 15000},
			{handler: "inbox-no-hash", verdict: ok, settled: 15000},
			// The repeat of pay-1 writes 100.00 over 150.00: harmless right away, harmful after a newer message.
			{handler: "absolute-update", verdict: lost, settled: 10000},
			// The retry is a new message: redelivered=false.
			{handler: "redelivered-flag", verdict: dup, settled: 25000},
			// The retry is a new record at a new offset.
			{handler: "offset-in-db", verdict: dup, settled: 25000},
		}},

		// key=fresh: every send carries a new random key, so every key-based
		// defence sees the retry as a new operation.
		{"fresh-key-retry", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: dup, settled: 20000},
			// A new Redis key idem:<new uuid>: SET NX succeeds and charges again.
			{handler: "setnx", verdict: dup, settled: 20000},
			// statemachine is ok under fresh keys: it deduplicates on the order
			// id, which the producer cannot randomise.
			{handler: "statemachine", verdict: ok, settled: 10000},
			// Even inbox: a new key is a new (tenant, operation); the payload hash
			// is only compared once a row is found under the same key.
			{handler: "inbox", verdict: dup, settled: 20000},
			// A new key is a new claim: no token can tell.
			{handler: "setnx-token", verdict: dup, settled: 20000},
			// A new key is a new claim and a new fence row: the fence knows operations by their key only.
			{handler: "setnx-fence", verdict: dup, settled: 20000},
			// A new key: the INSERT affects 1 row and the retry credits again.
			{handler: "unique-on-conflict", verdict: dup, settled: 20000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: dup, settled: 20000},
			// duplicate, not poison: the new key inserts cleanly, so there is no
			// UNIQUE error to loop on; it simply credits twice.
			{handler: "unique-error", verdict: dup, settled: 20000},
			// A new key inserts cleanly: no error, no repeat, a second credit.
			{handler: "unique-same-tx", verdict: dup, settled: 20000},
			{handler: "marker-first", verdict: dup, settled: 20000},
			{handler: "effect-first", verdict: dup, settled: 20000},
			{handler: "broker-key", verdict: dup, settled: 20000},
			{handler: "setnx-no-release", verdict: dup, settled: 20000},
			{handler: "inbox-no-hash", verdict: dup, settled: 20000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// The UUIDv7 key is made once with the intent and reused by the retry:
		// this is producer-retry with a UUID for a key, and reads the same.
		{"v7-key-retry", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// The retry is counted as a repeat and acked (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			// The transport id names the delivery, not the key: the retry is new to it.
			{handler: "broker-key", verdict: dup, settled: 20000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// The oracle expects the first publish's amount (10000). Every handler
		// that acks the changed 15000 without quarantining it is silent-conflict.
		{"change-payload", 10000, []cell{
			// Credits the changed 15000 on top of the original 10000.
			{handler: "naive", verdict: dup, settled: 25000},
			// UNIQUE says "seen": acked as a repeat, the changed amount is never looked at.
			{handler: "unique", verdict: conflict, settled: 10000},
			// The "done" key says "seen": acked without charging or comparing.
			{handler: "setnx", verdict: conflict, settled: 10000},
			// The order is PAID: 0 rows updated, acked; the amount is never compared.
			{handler: "statemachine", verdict: conflict, settled: 10000},
			// The payload hash differs: one quarantine row, then ack. Acked but
			// quarantined, so it is not a silent conflict.
			{handler: "inbox", verdict: ok, settled: 10000, quar: 1},
			// "done" says seen, as for setnx: the amount is never compared.
			{handler: "setnx-token", verdict: conflict, settled: 10000},
			// "done" says seen, as for setnx-token; the fence compares claims, never amounts.
			{handler: "setnx-fence", verdict: conflict, settled: 10000},
			// 0 rows inserted reads as a repeat; the amount is never compared, as in unique.
			{handler: "unique-on-conflict", verdict: conflict, settled: 10000},
			// The changed payload carries version 1 again: not newer, so it is acked without being applied or quarantined.
			{handler: "version-guard", verdict: conflict, settled: 10000},
			{handler: "check-then-insert", verdict: conflict, settled: 10000},
			// unique-error is poison, not silent-conflict: the changed message is
			// nacked on UNIQUE until the DLQ, so it is never acked (a conflict is
			// only counted on ack), and the oracle checks poison first anyway.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// The changed copy hits UNIQUE, is counted as a repeat and acked, the amount
			// never compared: silent-conflict, as unique (PostgreSQL: poison, as unique-error).
			{handler: "unique-same-tx", verdict: conflict, settled: 10000},
			// The marker exists: acked as a duplicate.
			{handler: "marker-first", verdict: conflict, settled: 10000},
			// The marker exists: acked as a duplicate.
			{handler: "effect-first", verdict: conflict, settled: 10000},
			// The changed message has a new transport id: credited, 10000 + 15000.
			{handler: "broker-key", verdict: dup, settled: 25000},
			{handler: "setnx-no-release", verdict: conflict, settled: 10000},
			// The saved response is replayed whatever the amount: exactly the bug
			// inbox's payload hash exists to catch.
			{handler: "inbox-no-hash", verdict: conflict, settled: 10000},
			// The second payload overwrites the first: the account holds one payload's state, which is right for a key with two.
			{handler: "absolute-update", verdict: ok, settled: 15000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 25000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 25000},
		}},

		// One message, two workers: worker 1 is slow, its visibility timeout
		// runs out and the broker hands the same message (topups/0/1, delivery
		// 2) to worker 2 while worker 1 is still in its race window (naive,
		// which has none, just before its ack). Inside a transaction no handler
		// yields, so SQLite serialises the two transactions. Worker 1 acks
		// first; worker 2's ack or nack then finds the message settled and
		// changes nothing, so no redelivery follows either way.
		{"concurrent-duplicates", 10000, []cell{
			// Both workers credit.
			{handler: "naive", verdict: dup, settled: 20000},
			// Both pass the Yield before their transactions; the second INSERT hits UNIQUE and acks.
			{handler: "unique", verdict: ok, settled: 10000},
			// SET NX is atomic: the second worker loses the claim.
			{handler: "setnx", verdict: ok, settled: 10000},
			// The second UPDATE finds the order PAID.
			{handler: "statemachine", verdict: ok, settled: 10000},
			// Both SELECTs find nothing; the second INSERT fails on the primary
			// key and nacks, too late to matter: the first ack settled the message.
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			// The transactions run one after the other: the loser's INSERT finds the
			// winner's row and inserts nothing, 0 rows affected, ack.
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			// Both SELECTs run before the Yield, both see nothing, both insert and credit.
			{handler: "check-then-insert", verdict: dup, settled: 20000},
			// ok, not poison: the loser's UNIQUE error is nacked after the
			// winner's ack settled the message, so there is nothing to redeliver
			// and no loop. Its bug needs a duplicate that arrives afterwards.
			{handler: "unique-error", verdict: ok, settled: 10000},
			// The loser's INSERT hits UNIQUE; it counts the repeat and acks, after the
			// winner's ack settled the message. (On PostgreSQL its nack comes too late to matter: ok too.)
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			// The marker INSERT comes after the Yield and its primary key is atomic.
			{handler: "marker-first", verdict: ok, settled: 10000},
			// Both pass the marker check before the Yield and both credit; the
			// primary key only notices at the marker, after the money moved.
			{handler: "effect-first", verdict: dup, settled: 20000},
			// ok: a redelivery keeps its transport id, so the second INSERT
			// into deliveries hits UNIQUE. (A producer retry would not.)
			{handler: "broker-key", verdict: ok, settled: 10000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// max-deliveries: 3.
		{"poison-loop", 10000, []cell{
			// The drain gives it the redelivery, which credits again.
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// Deliveries 2 and 3 fail on UNIQUE; the third dead-letters it.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// The redelivery is counted and acked at once: no loop on SQLite (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			// A redelivery keeps its transport id.
			{handler: "broker-key", verdict: ok, settled: 10000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// Only the setnx handlers call the gateway. The database handlers credit
		// on the first delivery; the second deliver finds nothing ready.
		{"gateway-failure", 10000, []cell{
			{handler: "naive", verdict: ok, settled: 10000},
			{handler: "unique", verdict: ok, settled: 10000},
			// The failed charge DELs the claim and nacks; after "gateway up" the
			// redelivery claims again and charges once (the failed call counts for nothing).
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			// Its compare-and-delete releases its own claim, as setnx's DEL does.
			{handler: "setnx-token", verdict: ok, settled: 10000},
			// ok without trying: it credits its own database and never calls the gateway.
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: ok, settled: 10000},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			{handler: "broker-key", verdict: ok, settled: 10000},
			// Lost although nothing crashed: the failed charge leaves "processing"
			// behind, the redelivery is acked without charging, and the clock
			// never reaches the 1h processing TTL.
			{handler: "setnx-no-release", verdict: lost, settled: 0},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// crash=before-effect, redeliver, deliver, +30m, retry, deliver; processing-ttl: 1h.
		{"stuck-processing", 10000, []cell{
			// The crash came before the credit; the redelivery and the retry each credit.
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			// "processing" lives 1h: the redelivery (+0) and the retry (+30m) are
			// both skipped, and settlement does not advance the clock.
			{handler: "setnx", verdict: lost, settled: 0},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			// The same grey zone as setnx: the dead worker's token blocks for the 1h TTL.
			{handler: "setnx-token", verdict: lost, settled: 0},
			// The same grey zone as setnx-token: the dead worker's claim blocks for the 1h TTL.
			{handler: "setnx-fence", verdict: lost, settled: 0},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// The redelivery applies it (the first transaction rolled back); the
			// retry fails on UNIQUE and is drained into the DLQ.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// The retry is counted as a repeat and acked (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			// The marker committed before the crash; redelivery and retry are both acked unpaid.
			{handler: "marker-first", verdict: lost, settled: 0},
			// It died before both the credit and the marker: the redelivery
			// credits and writes the marker, the retry finds it.
			{handler: "effect-first", verdict: ok, settled: 10000},
			// The redelivery (topups/0/1, rolled back before) credits; the retry
			// (topups/0/2) is new to it and credits again.
			{handler: "broker-key", verdict: dup, settled: 20000},
			{handler: "setnx-no-release", verdict: lost, settled: 0},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// processing-ttl: 10m; the clock moves 15m before the redelivery.
		{"stuck-processing-expires", 10000, []cell{
			// The crash was before the credit; the single redelivery credits once.
			{handler: "naive", verdict: ok, settled: 10000},
			{handler: "unique", verdict: ok, settled: 10000},
			// The stuck key expired after 10m: SET NX succeeds again and charges once.
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// Only one INSERT ever commits and nothing repeats it: no UNIQUE error.
			{handler: "unique-error", verdict: ok, settled: 10000},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			// Its marker is a database row with no TTL: still lost after 15m.
			{handler: "marker-first", verdict: lost, settled: 0},
			{handler: "effect-first", verdict: ok, settled: 10000},
			{handler: "broker-key", verdict: ok, settled: 10000},
			// Same as setnx: the stuck key expired; the missing DEL plays no part.
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// The worker dies right after the effect; the redelivery comes after
		// the one-hour processing TTL.
		{"charged-not-marked", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			// setnx's second grey zone: the charge happened, "done" was never
			// written, the "processing" key expired, and SET NX let the late
			// redelivery charge again.
			{handler: "setnx", verdict: dup, settled: 20000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			// The token does not close the grey zone: the claim expired, the late
			// redelivery claims anew and charges again (this gateway does not deduplicate).
			{handler: "setnx-token", verdict: dup, settled: 20000},
			// duplicate, as setnx-token: the credit committed with token 1, the claim expired, and the
			// redelivery claims with token 2, newer, so the fence lets it credit again. A fence orders the
			// holders of a claim; it does not recognise a repeat of the operation (the operation's key in
			// the ledger does: unique, inbox).
			{handler: "setnx-fence", verdict: dup, settled: 20000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// The late redelivery is counted and acked (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			// Its marker commits before the credit, so the crash after the
			// credit leaves both in place: the redelivery is acked.
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: dup, settled: 20000},
			// A plain redelivery keeps its transport id: caught.
			{handler: "broker-key", verdict: ok, settled: 10000},
			{handler: "setnx-no-release", verdict: dup, settled: 20000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// gateway timeout: the first charge takes effect but its answer is
		// lost; gateway up before the second deliver. Only the setnx handlers
		// call the gateway; the database handlers credit on the first
		// delivery and the second deliver finds nothing ready.
		{"gateway-timeout", 10000, []cell{
			{handler: "naive", verdict: ok, settled: 10000},
			{handler: "unique", verdict: ok, settled: 10000},
			// The ambiguous failure: charged, yet an error; DEL and nack, and the
			// redelivery claims the key again and charges a second time.
			{handler: "setnx", verdict: dup, settled: 20000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			// The token does not help: the claim it releases is its own, and the
			// provider does not deduplicate on the reference here.
			{handler: "setnx-token", verdict: dup, settled: 20000},
			// ok where setnx-token is duplicate: not because of the fence, but because it credits its own
			// database and never calls the gateway, whose lost answers are this preset's problem.
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: ok, settled: 10000},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			{handler: "broker-key", verdict: ok, settled: 10000},
			// ok by luck: its bug (no DEL on a gateway error) leaves "processing",
			// the redelivery is acked without charging, and this time the
			// charge had in fact happened. Compare gateway-failure, where it is lost.
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// gateway-timeout with "gateway dedup on" first: the provider charges
		// a reference once and answers a repeat with success.
		{"gateway-timeout-dedup", 10000, []cell{
			{handler: "naive", verdict: ok, settled: 10000},
			{handler: "unique", verdict: ok, settled: 10000},
			// ok, like setnx-token: setnx also passes the idempotency key as the
			// reference, so the redelivery's charge is deduplicated. The
			// provider saves it, not the Redis key.
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			// The redelivery charges with reference pay-1: success, nothing charged.
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: ok, settled: 10000},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			{handler: "broker-key", verdict: ok, settled: 10000},
			// "processing" blocks the redelivery, as in gateway-timeout.
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// gateway stall 90m (processing-ttl 1h), deliver-concurrent same, then
		// a producer retry delivered. Worker 1's call hangs and never reaches
		// the provider; its claim expires meanwhile and worker 2 gets the
		// message, claims, charges, writes "done" and acks; worker 1 then sees
		// a timeout. The database handlers never wait on the gateway: their
		// worker 1 is not slow, there is no second delivery, and the row reads
		// as a plain producer retry for them.
		{"stolen-claim", 10000, []cell{
			// The retry is credited again.
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			// Worker 1's unconditional DEL deleted worker 2's "done"; the retry
			// finds no key and charges a second time (no deduplication here).
			{handler: "setnx", verdict: dup, settled: 20000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			// Its compare-and-delete finds worker 2's "done", not its token, and
			// leaves it: the retry is acked without charging.
			{handler: "setnx-token", verdict: ok, settled: 10000},
			// ok without its fence: it never waits on the stalled gateway, so no second worker comes.
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// The retry fails on UNIQUE until the DLQ.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// The retry is counted and acked (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			// The retry has a new transport id.
			{handler: "broker-key", verdict: dup, settled: 20000},
			// ok: it never deletes its key, so worker 2's "done" survives; its
			// own bug needs a gateway error with nobody else to charge.
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// done-ttl: 24h; the retry comes 25h later.
		{"ttl-expired-replay", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			// The "done" key expired: SET NX succeeds and charges a second time.
			{handler: "setnx", verdict: dup, settled: 20000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			// No inbox-retention header: inbox rows are kept for ever.
			{handler: "inbox", verdict: ok, settled: 10000},
			// The "done" key expired, as for setnx.
			{handler: "setnx-token", verdict: dup, settled: 20000},
			// The "done" key expired, as for setnx-token; the late redelivery's token is newer, so the fence passes it.
			{handler: "setnx-fence", verdict: dup, settled: 20000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// Its rows never expire: the late retry is counted and acked (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			{handler: "broker-key", verdict: dup, settled: 20000},
			{handler: "setnx-no-release", verdict: dup, settled: 20000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// max-deliveries: 2. Two deliveries each die before the ack, the message
		// is dead-lettered, replayed under a new transport id and delivered.
		{"dlq-replay", 10000, []cell{
			// Three credits: both crashed deliveries and the replay.
			{handler: "naive", verdict: dup, settled: 30000},
			{handler: "unique", verdict: ok, settled: 10000},
			// The "done" key (24h) is still there: no time passes.
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			// The second delivery fails on UNIQUE but the worker dies before the
			// nack; the replay fails on UNIQUE, is nacked, and settlement's drain
			// uses its second delivery and dead-letters it again.
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// The second delivery counts the repeat and dies before its ack; the replay
			// counts it again and is acked, so nothing is left in the DLQ (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			// 20000, not 30000: the second delivery kept topups/0/1 and was
			// caught; only the replay (topups/0/2) credits again.
			{handler: "broker-key", verdict: dup, settled: 20000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// dlq-replay with inbox-retention: 24h and three days before the replay.
		{"inbox-retention-too-short", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 30000},
			// unique never deletes its rows.
			{handler: "unique", verdict: ok, settled: 10000},
			// The "done" key (24h TTL) expired during the 3 days.
			{handler: "setnx", verdict: dup, settled: 20000},
			// The order stays PAID for ever.
			{handler: "statemachine", verdict: ok, settled: 10000},
			// inbox is a duplicate here: the reaper deleted its row (older than
			// 24h) before the replay, which then looks new and is credited again.
			{handler: "inbox", verdict: dup, settled: 20000},
			// The "done" key (24h TTL) expired during the 3 days, as for setnx.
			{handler: "setnx-token", verdict: dup, settled: 20000},
			// The "done" key (24h TTL) expired during the 3 days; the late copy's token is newer, so the fence passes it.
			{handler: "setnx-fence", verdict: dup, settled: 20000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			// Its transactions rows are never reaped (the reaper only touches "inbox").
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// Its rows are never reaped: the replay is counted and acked (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			{handler: "broker-key", verdict: dup, settled: 20000},
			{handler: "setnx-no-release", verdict: dup, settled: 20000},
			// Its table is also called "inbox": same reaper, same hole.
			{handler: "inbox-no-hash", verdict: dup, settled: 20000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 20000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 20000},
		}},

		// acme's pay-1 (10000, alice) and globex's pay-1 (5000, bob): the key is
		// "pay-1" for both. Every lost cell settles at acme's 10000.
		{"tenant-collision", 15000, []cell{
			// naive is ok: without any key there is nothing to collide; the two
			// messages are delivered once each and credited once each.
			{handler: "naive", verdict: ok, settled: 15000},
			// UNIQUE(idempotency_key) spans tenants: globex's pay-1 is acked as a repeat.
			{handler: "unique", verdict: lost, settled: 10000},
			// The Redis key idem:pay-1 has no tenant in it.
			{handler: "setnx", verdict: lost, settled: 10000},
			// UPDATE ... WHERE id = 'pay-1' marked both tenants' orders PAID at
			// once; globex's message then updates 0 rows and is acked.
			{handler: "statemachine", verdict: lost, settled: 10000},
			// Keyed on (tenant, operation_id).
			{handler: "inbox", verdict: ok, settled: 15000},
			// The Redis key idem:pay-1 has no tenant in it, as for setnx.
			{handler: "setnx-token", verdict: lost, settled: 10000},
			// The Redis key idem:pay-1 and the fence row pay-1 have no tenant in them, as for setnx-token.
			{handler: "setnx-fence", verdict: lost, settled: 10000},
			// The key alone is unique, as in unique: globex's pay-1 inserts 0 rows and is acked.
			{handler: "unique-on-conflict", verdict: lost, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 15000},
			{handler: "check-then-insert", verdict: lost, settled: 10000},
			// Lost, not poison: globex's message fails on UNIQUE until the DLQ,
			// but the oracle checks the balance first (and that dead letter was
			// never applied, so it would not be poison either).
			{handler: "unique-error", verdict: lost, settled: 10000, dl: 1},
			// globex's pay-1 is counted as a repeat of acme's and acked: lost, as unique,
			// with no dead letter on SQLite.
			{handler: "unique-same-tx", verdict: lost, settled: 10000},
			{handler: "marker-first", verdict: lost, settled: 10000},
			{handler: "effect-first", verdict: lost, settled: 10000},
			// ok by accident: two publishes are two transport ids, so keying on
			// the delivery happens to keep the tenants apart.
			{handler: "broker-key", verdict: ok, settled: 15000},
			{handler: "setnx-no-release", verdict: lost, settled: 10000},
			// The hash is missing, the tenant is not: keyed on (tenant, operation_id).
			{handler: "inbox-no-hash", verdict: ok, settled: 15000},
			{handler: "absolute-update", verdict: ok, settled: 15000},
			{handler: "redelivered-flag", verdict: ok, settled: 15000},
			{handler: "offset-in-db", verdict: ok, settled: 15000},
		}},

		{"order-shipped-late-duplicate", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			{handler: "setnx", verdict: ok, settled: 10000},
			// The order is SHIPPED: WHERE status = 'CREATED' matches nothing and
			// the late copy is acked (its log cannot tell paid from shipped).
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			{handler: "setnx-token", verdict: ok, settled: 10000},
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// The late copy is counted and acked (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			{handler: "marker-first", verdict: ok, settled: 10000},
			{handler: "effect-first", verdict: ok, settled: 10000},
			// A plain redelivery: same transport id.
			{handler: "broker-key", verdict: ok, settled: 10000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},

		// max-deliveries: 3; evt-1 for 5000 is published and retried twice.
		{"webhook-retries", 5000, []cell{
			// Three copies, three credits.
			{handler: "naive", verdict: dup, settled: 15000},
			{handler: "unique", verdict: ok, settled: 5000},
			{handler: "setnx", verdict: ok, settled: 5000},
			{handler: "statemachine", verdict: ok, settled: 5000},
			{handler: "inbox", verdict: ok, settled: 5000},
			{handler: "setnx-token", verdict: ok, settled: 5000},
			{handler: "setnx-fence", verdict: ok, settled: 5000},
			{handler: "unique-on-conflict", verdict: ok, settled: 5000},
			{handler: "version-guard", verdict: ok, settled: 5000},
			{handler: "check-then-insert", verdict: ok, settled: 5000},
			// Two dead letters: each resent webhook fails on UNIQUE through its
			// three deliveries (the rest in settlement's drain).
			{handler: "unique-error", verdict: poison, settled: 5000, dl: 2},
			// Both resends are counted as repeats and acked: no dead letter on SQLite
			// (on PostgreSQL two, as unique-error).
			{handler: "unique-same-tx", verdict: ok, settled: 5000},
			{handler: "marker-first", verdict: ok, settled: 5000},
			{handler: "effect-first", verdict: ok, settled: 5000},
			// Each resend is a new broker message with a new transport id.
			{handler: "broker-key", verdict: dup, settled: 15000},
			{handler: "setnx-no-release", verdict: ok, settled: 5000},
			{handler: "inbox-no-hash", verdict: ok, settled: 5000},
			{handler: "absolute-update", verdict: ok, settled: 5000},
			// A retry or a DLQ replay is a new message: it arrives with redelivered=false, and the handler never looks.
			{handler: "redelivered-flag", verdict: dup, settled: 15000},
			// A retry or a DLQ replay is a new record at a new offset: credited again.
			{handler: "offset-in-db", verdict: dup, settled: 15000},
		}},

		// bet-1-settle (5000), then the revision bet-1-settle-r2 (2500), a new
		// operation with its own key and order, crashed before the ack.
		{"settlement-revision", 7500, []cell{
			// The revision's redelivery is credited again: 5000 + 2500 + 2500.
			{handler: "naive", verdict: dup, settled: 10000},
			{handler: "unique", verdict: ok, settled: 7500},
			{handler: "setnx", verdict: ok, settled: 7500},
			// The revision has its own order (bet-1-settle-r2), still CREATED.
			{handler: "statemachine", verdict: ok, settled: 7500},
			{handler: "inbox", verdict: ok, settled: 7500},
			{handler: "setnx-token", verdict: ok, settled: 7500},
			{handler: "setnx-fence", verdict: ok, settled: 7500},
			{handler: "unique-on-conflict", verdict: ok, settled: 7500},
			{handler: "version-guard", verdict: ok, settled: 7500},
			{handler: "check-then-insert", verdict: ok, settled: 7500},
			// Only the revision's redelivery fails on UNIQUE, so one dead letter.
			{handler: "unique-error", verdict: poison, settled: 7500, dl: 1},
			// The revision's redelivery is counted and acked (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 7500},
			{handler: "marker-first", verdict: ok, settled: 7500},
			{handler: "effect-first", verdict: ok, settled: 7500},
			// The only repeat is a plain redelivery: same transport id.
			{handler: "broker-key", verdict: ok, settled: 7500},
			{handler: "setnx-no-release", verdict: ok, settled: 7500},
			{handler: "inbox-no-hash", verdict: ok, settled: 7500},
			{handler: "absolute-update", verdict: ok, settled: 7500},
			{handler: "redelivered-flag", verdict: ok, settled: 7500},
			{handler: "offset-in-db", verdict: ok, settled: 7500},
		}},

		// pay-1 (10000, version 1) fails before any call; pay-2 (5000,
		// version 2) is delivered; then pay-1's redelivery. Only the order
		// matters here: no copy is applied twice.
		{"webhook-out-of-order", 15000, []cell{
			{handler: "naive", verdict: ok, settled: 15000},
			{handler: "unique", verdict: ok, settled: 15000},
			// The crash is before the first call, SET NX included: no claim is left.
			{handler: "setnx", verdict: ok, settled: 15000},
			{handler: "statemachine", verdict: ok, settled: 15000},
			{handler: "inbox", verdict: ok, settled: 15000},
			{handler: "setnx-token", verdict: ok, settled: 15000},
			{handler: "setnx-fence", verdict: ok, settled: 15000},
			{handler: "unique-on-conflict", verdict: ok, settled: 15000},
			// Version 1 after version 2 is ignored.
			{handler: "version-guard", verdict: ok, settled: 15000},
			{handler: "check-then-insert", verdict: ok, settled: 15000},
			{handler: "unique-error", verdict: ok, settled: 15000},
			{handler: "unique-same-tx", verdict: ok, settled: 15000},
			// The crash comes before its marker too: nothing to skip.
			{handler: "marker-first", verdict: ok, settled: 15000},
			{handler: "effect-first", verdict: ok, settled: 15000},
			{handler: "broker-key", verdict: ok, settled: 15000},
			{handler: "setnx-no-release", verdict: ok, settled: 15000},
			{handler: "inbox-no-hash", verdict: ok, settled: 15000},
			// The older snapshot (balance 10000) is written last.
			{handler: "absolute-update", verdict: lost, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 15000},
			// pay-2's offset is stored first; pay-1's lower offset is then skipped.
			{handler: "offset-in-db", verdict: lost, settled: 5000},
		}},

		// charged-not-marked with "gateway dedup on" first: the worker dies
		// right after the effect, the redelivery comes after the one-hour
		// processing TTL, and the provider deduplicates on the reference.
		{"activity-retry-dedup", 10000, []cell{
			{handler: "naive", verdict: dup, settled: 20000},
			{handler: "unique", verdict: ok, settled: 10000},
			// The late redelivery charges again with reference pay-1, and the
			// provider answers success without charging (charged-not-marked: dup).
			{handler: "setnx", verdict: ok, settled: 10000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			{handler: "inbox", verdict: ok, settled: 10000},
			// Same as setnx: the provider's deduplication, not the token, saves it.
			{handler: "setnx-token", verdict: ok, settled: 10000},
			// duplicate where setnx-token is ok: it credits its own database, which keeps no reference the
			// way the provider does. The claim expired after the crash, and the retry's newer token passes the fence.
			{handler: "setnx-fence", verdict: dup, settled: 20000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			{handler: "check-then-insert", verdict: ok, settled: 10000},
			{handler: "unique-error", verdict: poison, settled: 10000, dl: 1},
			// The late redelivery is counted and acked (PostgreSQL: poison).
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			// Its marker commits before the credit: the redelivery is acked.
			{handler: "marker-first", verdict: ok, settled: 10000},
			// The gateway's deduplication does not reach a database credit.
			{handler: "effect-first", verdict: dup, settled: 20000},
			{handler: "broker-key", verdict: ok, settled: 10000},
			{handler: "setnx-no-release", verdict: ok, settled: 10000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},
		// A worker pauses between its claim and its write (switch=2: just before
		// its second call) for longer than the claim lives; the broker hands the
		// message to worker 2, which writes; then worker 1 wakes up and writes too.
		{"paused-worker", 10000, []cell{
			{handler: "naive", verdict: ok, settled: 10000},
			// Its one transaction ends before its call 2: worker 1 never pauses
			// (SQLite's lock holds the switch to the end of the transaction), so
			// there is no second delivery. The same for every handler below that
			// checks and writes in one transaction.
			{handler: "unique", verdict: ok, settled: 10000},
			// The claim expired during the pause; worker 2 claimed and charged,
			// and worker 1 charged on waking: nothing checks a claim when the
			// charge is made.
			{handler: "setnx", verdict: dup, settled: 20000},
			{handler: "statemachine", verdict: ok, settled: 10000},
			// Worker 1 paused after its SELECT; its INSERT then hits the (tenant,
			// operation) primary key worker 2 committed, and it nacks a message
			// already settled: the operation's key in the ledger catches the late
			// write as a fence does.
			{handler: "inbox", verdict: ok, settled: 10000},
			// The owner token protects the key (worker 1 leaves worker 2's "done"
			// alone), not the charge, which worker 1 makes a second time.
			{handler: "setnx-token", verdict: dup, settled: 20000},
			// The fence: worker 2's credit moved the ledger's token to 2, and
			// worker 1's transaction, with token 1, changes no fence row and
			// rolls back.
			{handler: "setnx-fence", verdict: ok, settled: 10000},
			{handler: "unique-on-conflict", verdict: ok, settled: 10000},
			{handler: "version-guard", verdict: ok, settled: 10000},
			// Worker 1 paused between its SELECT and its INSERT: both found no row.
			{handler: "check-then-insert", verdict: dup, settled: 20000},
			{handler: "unique-error", verdict: ok, settled: 10000},
			{handler: "unique-same-tx", verdict: ok, settled: 10000},
			// ok by luck: worker 1 committed its marker before the pause, so worker
			// 2 acks without crediting and worker 1's credit is the only one.
			{handler: "marker-first", verdict: ok, settled: 10000},
			// Worker 1 paused after its credit, before its marker: worker 2 found
			// no marker and credited again.
			{handler: "effect-first", verdict: dup, settled: 20000},
			{handler: "broker-key", verdict: ok, settled: 10000},
			// As setnx: it never deletes, but worker 1 still charges on waking.
			{handler: "setnx-no-release", verdict: dup, settled: 20000},
			{handler: "inbox-no-hash", verdict: ok, settled: 10000},
			{handler: "absolute-update", verdict: ok, settled: 10000},
			{handler: "redelivered-flag", verdict: ok, settled: 10000},
			{handler: "offset-in-db", verdict: ok, settled: 10000},
		}},
	}
}

// conformanceRuns caches one Execute of every handler per preset, shared by the tests.
var conformanceRuns sync.Map // preset name -> *conformanceRun

type conformanceRun struct {
	once    sync.Once
	results map[string]sim.Result
	err     error
}

func conformanceResults(t *testing.T, name string) map[string]sim.Result {
	t.Helper()
	v, _ := conformanceRuns.LoadOrStore(name, &conformanceRun{})
	pr := v.(*conformanceRun)
	pr.once.Do(func() {
		presets, err := sim.Presets()
		if err != nil {
			pr.err = err
			return
		}
		p, err := sim.FindPreset(presets, name)
		if err != nil {
			pr.err = err
			return
		}
		run, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"all"}})
		if err != nil {
			pr.err = fmt.Errorf("execute %s: %w", name, err)
			return
		}
		pr.results = map[string]sim.Result{}
		for _, r := range run.Results {
			pr.results[r.Handler] = r
		}
	})
	if pr.err != nil {
		t.Fatal(pr.err)
	}
	return pr.results
}

func conformancePresets(t *testing.T) []sim.Preset {
	t.Helper()
	presets, err := sim.Presets()
	if err != nil {
		t.Fatalf("presets: %v", err)
	}
	if len(presets) == 0 {
		t.Fatal("no presets in index.txt")
	}
	return presets
}

// TestConformanceMatrixComplete checks the table itself: a row for every
// preset in index.txt, a cell for every handler in handlers.List(), nothing
// stale or doubled, and every cell's verdict consistent with its balance.
func TestConformanceMatrixComplete(t *testing.T) {
	presets := conformancePresets(t)
	known := map[string]bool{}
	for _, p := range presets {
		known[p.Name] = true
	}
	hs := handlers.List()
	knownH := map[string]bool{}
	for _, h := range hs {
		knownH[h.Name] = true
	}

	rows := map[string]conformanceRow{}
	for _, r := range conformanceMatrix() {
		if _, dupRow := rows[r.preset]; dupRow {
			t.Errorf("preset %s has two rows in the conformance matrix", r.preset)
		}
		rows[r.preset] = r
		if !known[r.preset] {
			t.Errorf("matrix row %s names no preset in index.txt: remove it or add the preset", r.preset)
		}
	}
	for _, p := range presets {
		if _, has := rows[p.Name]; !has {
			t.Errorf("preset %s is in index.txt but has no row in the conformance matrix", p.Name)
		}
	}

	// Rows the totals do not decide, judged operation by operation (or,
	// for a handler writing absolute state, account by account): a refund
	// never applied leaves more than expected and is lost; a key with two
	// payloads is right with either one.
	notByTotals := map[string]bool{"refund-before-payment": true, "change-payload": true}
	for _, r := range conformanceMatrix() {
		// 0 is possible: a phantom message, or a payment and its refund.
		if r.expected < 0 {
			t.Errorf("%s: expected balance %d must not be negative", r.preset, r.expected)
		}
		seen := map[string]bool{}
		for _, c := range r.cells {
			if seen[c.handler] {
				t.Errorf("%s: handler %s has two cells", r.preset, c.handler)
			}
			seen[c.handler] = true
			if !knownH[c.handler] {
				t.Errorf("%s: cell for %s, which is not in handlers.List()", r.preset, c.handler)
			}
			// The oracle's order: the balance decides duplicate and lost;
			// every other verdict needs the balance to be exact.
			switch {
			case notByTotals[r.preset]:
			case c.verdict == sim.Duplicate && c.settled <= r.expected,
				c.verdict == sim.Lost && c.settled >= r.expected,
				c.verdict != sim.Duplicate && c.verdict != sim.Lost && c.settled != r.expected:
				t.Errorf("%s/%s: verdict %s is inconsistent with settled %d, expected %d",
					r.preset, c.handler, c.verdict, c.settled, r.expected)
			}
			if c.verdict == sim.Poison && c.dl == 0 {
				t.Errorf("%s/%s: poison needs a dead letter", r.preset, c.handler)
			}
		}
		for _, h := range hs {
			if !seen[h.Name] {
				t.Errorf("%s: handler %s has no cell in the conformance matrix", r.preset, h.Name)
			}
		}
	}
}

// TestConformanceMatrix runs every preset on every handler and compares each
// result with its cell. It iterates over the presets and handlers the lab
// actually has, so a new one without a row or cell fails here too.
func TestConformanceMatrix(t *testing.T) {
	rows := map[string]conformanceRow{}
	for _, r := range conformanceMatrix() {
		rows[r.preset] = r
	}
	for _, p := range conformancePresets(t) {
		t.Run(p.Name, func(t *testing.T) {
			r, has := rows[p.Name]
			if !has {
				t.Fatalf("preset %s has no row in the conformance matrix", p.Name)
			}
			cells := map[string]conformanceCell{}
			for _, c := range r.cells {
				cells[c.handler] = c
			}
			results := conformanceResults(t, p.Name)
			hs := handlers.List()
			if len(results) != len(hs) {
				t.Errorf("engine returned %d results, handlers.List() has %d", len(results), len(hs))
			}
			for _, h := range hs {
				t.Run(h.Name, func(t *testing.T) {
					c, has := cells[h.Name]
					if !has {
						t.Fatalf("handler %s has no cell in the %s row", h.Name, p.Name)
					}
					if c.bug != "" {
						t.Skip("BUG: " + c.bug)
					}
					res, has := results[h.Name]
					if !has {
						t.Fatalf("engine returned no result for %s", h.Name)
					}
					if res.Verdict != c.verdict {
						t.Errorf("verdict %s, want %s (reason: %s)", res.Verdict, c.verdict, res.Reason)
					}
					if res.Settled != c.settled {
						t.Errorf("settled %d, want %d (reason: %s)", res.Settled, c.settled, res.Reason)
					}
					if res.Expected != r.expected {
						t.Errorf("expected %d, want %d", res.Expected, r.expected)
					}
					if res.Quarantined != c.quar {
						t.Errorf("quarantined %d, want %d", res.Quarantined, c.quar)
					}
					if res.DeadLettered != c.dl {
						t.Errorf("dead-lettered %d, want %d", res.DeadLettered, c.dl)
					}
				})
			}
		})
	}
}

// TestConformanceAcceptance asserts the acceptance facts directly on
// the engine, independently of the matrix above.
func TestConformanceAcceptance(t *testing.T) {
	verdictOf := func(t *testing.T, res map[string]sim.Result, h string) sim.Result {
		t.Helper()
		r, has := res[h]
		if !has {
			t.Fatalf("no result for handler %s", h)
		}
		return r
	}
	want := func(t *testing.T, res map[string]sim.Result, h string, v sim.Verdict) sim.Result {
		t.Helper()
		r := verdictOf(t, res, h)
		if r.Verdict != v {
			t.Errorf("%s: verdict %s, want %s (reason: %s)", h, r.Verdict, v, r.Reason)
		}
		return r
	}

	t.Run("crash-before-ack: naive duplicate, the other core handlers ok", func(t *testing.T) {
		res := conformanceResults(t, "crash-before-ack")
		want(t, res, "naive", sim.Duplicate)
		var others []string
		for _, h := range handlers.List() {
			if h.Core && h.Name != "naive" {
				others = append(others, h.Name)
				want(t, res, h.Name, sim.OK)
			}
		}
		if len(others) != 4 {
			t.Errorf("core handlers besides naive: %v, want 4", others)
		}
	})

	t.Run("change-payload: inbox ok with one quarantined; unique, setnx, statemachine silent-conflict", func(t *testing.T) {
		res := conformanceResults(t, "change-payload")
		r := want(t, res, "inbox", sim.OK)
		if r.Quarantined != 1 {
			t.Errorf("inbox: quarantined %d, want exactly 1", r.Quarantined)
		}
		for _, h := range []string{"unique", "setnx", "statemachine"} {
			want(t, res, h, sim.SilentConflict)
		}
	})

	t.Run("concurrent-duplicates: check-then-insert duplicate", func(t *testing.T) {
		want(t, conformanceResults(t, "concurrent-duplicates"), "check-then-insert", sim.Duplicate)
	})

	t.Run("gateway-timeout: setnx duplicate; with dedup on, setnx-token ok", func(t *testing.T) {
		want(t, conformanceResults(t, "gateway-timeout"), "setnx", sim.Duplicate)
		want(t, conformanceResults(t, "gateway-timeout-dedup"), "setnx-token", sim.OK)
	})

	t.Run("stolen-claim: setnx duplicate, setnx-token ok", func(t *testing.T) {
		res := conformanceResults(t, "stolen-claim")
		want(t, res, "setnx", sim.Duplicate)
		want(t, res, "setnx-token", sim.OK)
	})

	t.Run("paused-worker: setnx-token duplicate, setnx-fence ok", func(t *testing.T) {
		res := conformanceResults(t, "paused-worker")
		want(t, res, "setnx-token", sim.Duplicate)
		want(t, res, "setnx-fence", sim.OK)
	})

	t.Run("crash-before-effect: marker-first lost, inbox ok", func(t *testing.T) {
		res := conformanceResults(t, "crash-before-effect")
		want(t, res, "marker-first", sim.Lost)
		want(t, res, "inbox", sim.OK)
	})

	t.Run("crash-after-effect: effect-first duplicate, inbox ok", func(t *testing.T) {
		res := conformanceResults(t, "crash-after-effect")
		want(t, res, "effect-first", sim.Duplicate)
		want(t, res, "inbox", sim.OK)
	})
}
