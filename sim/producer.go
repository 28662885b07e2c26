package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
)

// The producer side's engine: the order service commits its order and
// publishes in the order its mode says, and the outbox relay publishes
// pending rows (the verbs, modes and crash points: script/producer.go).
// The oracle counts an intent from the moment its order commits: a
// committed order whose message never arrives is lost, and a credit for an
// order that never committed is a duplicate.

// outboxSchema is the order service's outbox: a row per message to
// publish, written in the order's transaction.
const outboxSchema = `
CREATE TABLE outbox (
    id           INTEGER PRIMARY KEY,
    tenant       TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    message_key  TEXT NOT NULL,
    account      TEXT NOT NULL,
    amount       INTEGER NOT NULL,
    version      INTEGER NOT NULL,
    balance      INTEGER NOT NULL,
    created_at   TEXT NOT NULL,
    published_at TEXT
);
`

// addOutbox gives a world the outbox table, when its script uses one.
func (w *world) addOutbox() error {
	if !w.script.UsesOutbox() {
		return nil
	}
	schema := outboxSchema
	if w.conn.postgres {
		schema = pgSchema(schema)
	}
	if _, err := w.db.Exec(schema); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	tables := maps.Clone(w.tables) // the template's map is shared: never written
	tables["outbox"] = true
	w.tables = tables
	return nil
}

// produce is the order service: it commits its order (and, with the
// outbox, the outbox row) and publishes, in the order its mode says.
func (w *world) produce(st script.Step) error {
	ik := intentKey{st.Tenant, st.Op}
	// The producer numbers the operation among its account's before it
	// writes anything: a publish-first message carries its version too.
	in := &intent{tenant: st.Tenant, op: st.Op, account: st.Account, amount: st.Amount,
		keyMode: script.KeyOp, key: st.Op, variants: []int64{st.Amount}}
	w.version(in)
	m := &Message{Key: in.key, Tenant: st.Tenant, Op: st.Op, Account: st.Account, Amount: st.Amount,
		Version: in.version, Balance: in.balance}
	// The account exists before the story starts: the lab's own write.
	if _, err := w.db.Exec(`INSERT INTO accounts (id) VALUES (?) ON CONFLICT DO NOTHING`, st.Account); err != nil {
		return err
	}
	w.t.actor = "producer"
	defer func() { w.t.actor = "" }()
	crash := func(key string) {
		w.crashes++
		w.t.say(KindCrash, narration.T(key))
	}
	commit := func() error {
		tx, err := w.db.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.Exec(`INSERT INTO orders (tenant, id, status) VALUES (?, ?, 'CREATED')`, st.Tenant, st.Op); err != nil {
			return err
		}
		if st.Mode == script.ModeOutbox {
			if _, err := tx.Exec(`INSERT INTO outbox (tenant, operation_id, message_key, account, amount, version, balance, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				st.Tenant, st.Op, m.Key, st.Account, st.Amount, m.Version, m.Balance, w.now.Format(time.RFC3339)); err != nil {
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		// The order is committed: from now on the operation is owed.
		w.intents[ik] = in
		return nil
	}
	publish := func() {
		if w.dedupDrops(m) {
			return
		}
		w.queue.Publish(m)
		w.t.add(Event{Actor: "producer", Kind: KindPublish, Msg: m.TransportID,
			Note: narration.T("event.producer.publish", "publish", m.Key, m.Tenant, m.Account, num(m.Amount), m.TransportID)})
	}
	switch st.Mode {
	case script.ModeOutbox:
		if err := commit(); err != nil {
			return err
		}
		if st.Crash == script.CrashAfterCommit {
			crash("event.producer.crash-commit-outbox")
			return nil
		}
		w.t.say(KindNote, narration.T("event.producer.outbox-waits"))
	case script.ModePublishFirst:
		publish()
		if st.Crash == script.CrashAfterPublish {
			w.totals[st.Account] -= st.Amount // rolled back: not in the producer's total
			crash("event.producer.crash-publish-first")
			return nil
		}
		if err := commit(); err != nil {
			return err
		}
		if st.Crash == script.CrashAfterCommit {
			crash("event.producer.crash-commit-both")
		}
	default: // dual-write: commit, then publish
		if err := commit(); err != nil {
			return err
		}
		if st.Crash == script.CrashAfterCommit {
			crash("event.producer.crash-commit-dual")
			return nil
		}
		publish()
		if st.Crash == script.CrashAfterPublish {
			crash("event.producer.crash-publish-both")
		}
	}
	return nil
}

// outboxRow is one row of the outbox the relay reads.
type outboxRow struct {
	id                       int64
	tenant, op, key, account string
	amount, version, balance int64
}

// relay is the outbox relay: it publishes each pending row, oldest first,
// then marks it sent. With crash=after-publish it dies right after its
// first publish, before marking the row: the next relay publishes it again.
func (w *world) relay(st script.Step) error {
	w.t.actor = "relay"
	defer func() { w.t.actor = "" }()
	rows, err := w.db.Query(`SELECT id, tenant, operation_id, message_key, account, amount, version, balance FROM outbox WHERE published_at IS NULL ORDER BY id`)
	if err != nil {
		return err
	}
	var pending []outboxRow
	for rows.Next() {
		var r outboxRow
		if err := rows.Scan(&r.id, &r.tenant, &r.op, &r.key, &r.account, &r.amount, &r.version, &r.balance); err != nil {
			rows.Close()
			return err
		}
		pending = append(pending, r)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if len(pending) == 0 {
		w.t.say(KindNote, narration.T("event.relay.none"))
		return nil
	}
	for _, r := range pending {
		m := &Message{Key: r.key, Tenant: r.tenant, Op: r.op, Account: r.account, Amount: r.amount, Version: r.version, Balance: r.balance}
		if !w.dedupDrops(m) {
			w.queue.Publish(m)
			w.t.add(Event{Actor: "relay", Kind: KindPublish, Msg: m.TransportID,
				Note: narration.T("event.relay.publish", num(r.id), m.Key, m.Tenant, m.Account, num(m.Amount), m.TransportID)})
		}
		if st.Crash == script.CrashAfterPublish {
			w.crashes++
			w.t.say(KindCrash, narration.T("event.relay.crash", num(r.id)))
			return nil
		}
		if _, err := w.db.Exec(`UPDATE outbox SET published_at = ? WHERE id = ?`, w.now.Format(time.RFC3339), r.id); err != nil {
			return err
		}
	}
	return nil
}

// pendingOutbox says whether the outbox holds a row not yet marked sent.
func (w *world) pendingOutbox() (bool, error) {
	if !w.tables["outbox"] {
		return false, nil
	}
	defer w.t.quiet()()
	var n int
	err := w.db.QueryRow(`SELECT COUNT(*) FROM outbox WHERE published_at IS NULL`).Scan(&n)
	return n > 0, err
}

// producerStory names, for the oracle's reason, what the producer side
// did wrong: operations credited though their order never committed, and
// committed orders whose message was never published. "" when neither.
func (w *world) producerStory() string {
	if w.api != nil {
		return w.apiStory() // a client's requests: no producer, no messages
	}
	var out []string
	for _, ik := range w.phantoms() {
		out = append(out, fmt.Sprintf("%s/%s credited %d though its order never committed", ik.tenant, ik.op, w.applied[ik]))
	}
	sent := map[intentKey]bool{}
	for _, q := range [][]*Message{w.broker.Ready, w.broker.InFlight, w.broker.Acked, w.broker.DLQ, w.broker.Dropped} {
		for _, m := range q {
			sent[intentKey{m.Tenant, m.Op}] = true
		}
	}
	for _, in := range w.intentList() {
		if ik := (intentKey{in.tenant, in.op}); !sent[ik] && w.applied[ik] == 0 {
			out = append(out, fmt.Sprintf("%s/%s: its order committed, and no message for it was ever published", in.tenant, in.op))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

// phantoms are the operations credited though no intent was ever born for
// them (a publish-first producer died before its commit), in a stable
// order.
func (w *world) phantoms() []intentKey {
	var out []intentKey
	for ik, got := range w.applied {
		if w.intents[ik] == nil && got > 0 {
			out = append(out, ik)
		}
	}
	slices.SortFunc(out, func(a, b intentKey) int {
		return strings.Compare(a.tenant+"\x00"+a.op, b.tenant+"\x00"+b.op)
	})
	return out
}
