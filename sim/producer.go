package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/narration"
)

// The producer side: where a duplicate, or a loss, is born before any
// consumer sees the message. The order service must do two things, commit
// its order and publish the message, and no transaction spans a database
// and a broker.
//
//	produce pay-1 amount=N [tenant=] [account=] [mode=dual-write|publish-first|outbox] [crash=after-commit|after-publish]
//	relay [crash=after-publish]
//
// dual-write commits the order, then publishes: a crash in between
// (after-commit) loses the message for good. publish-first publishes,
// then commits: a crash in between (after-publish) leaves a message for an
// order that was rolled back. outbox commits the order and an outbox row
// in one transaction and publishes nothing; the relay publishes pending
// rows and marks each sent, so a crash between the two (relay
// crash=after-publish) publishes the row again under the same key: the
// outbox never loses a message and may send one twice, which the
// consumer's defence must absorb.
//
// The oracle counts an intent from the moment its order commits: a
// committed order whose message never arrives is lost, and a credit for an
// order that never committed is a duplicate.

// Producer modes (Step.Mode).
const (
	ModeDualWrite    = "dual-write"
	ModePublishFirst = "publish-first"
	ModeOutbox       = "outbox"
)

// Producer crash points (Step.Crash of produce and relay).
const (
	CrashAfterCommit  = "after-commit"
	CrashAfterPublish = "after-publish"
)

// The verbs of the producer side.
const (
	VerbProduce = "produce"
	VerbRelay   = "relay"
)

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

// UsesOutbox says whether any step writes to the outbox or runs its relay:
// the world then has the outbox table.
func (s *Script) UsesOutbox() bool {
	for _, st := range s.Steps {
		if st.Mode == ModeOutbox || st.Verb == VerbRelay {
			return true
		}
	}
	return false
}

// produceStep reads produce.
func (p *parser) produceStep(n int, args []string) (Step, error) {
	st := Step{Verb: VerbProduce, Mode: ModeDualWrite, KeyMode: KeyOp}
	if len(args) == 0 || strings.Contains(args[0], "=") {
		return st, errf(n, "produce needs an operation id first, as in: %s", "produce: сначала нужен id операции, например: %s", usage(VerbProduce))
	}
	st.Op = args[0]
	if err := checkID(n, "operation id", st.Op); err != nil {
		return st, err
	}
	opts, err := options(n, VerbProduce, args[1:], []string{"amount", "tenant", "account", "mode", "crash"})
	if err != nil {
		return st, err
	}
	if st.Tenant, err = idOption(n, opts, "tenant", DefaultTenant); err != nil {
		return st, err
	}
	if st.Account, err = idOption(n, opts, "account", DefaultAccount); err != nil {
		return st, err
	}
	v, ok := opts["amount"]
	if !ok {
		return st, errf(n, "produce needs amount=N (a positive whole number of minor units), as in: %s", "produce: нужна сумма amount=N (целое положительное число в минимальных единицах), например: %s", usage(VerbProduce))
	}
	var aerr *Error
	if st.Amount, aerr = parseAmount(v); aerr != nil {
		return st, wrapf(n, aerr, "amount=%s", v)
	}
	if m, ok := opts["mode"]; ok {
		if m != ModeDualWrite && m != ModePublishFirst && m != ModeOutbox {
			return st, errf(n, "mode=%s: unknown producer mode; valid modes: dual-write (commit, then publish), publish-first (publish, then commit), outbox (commit an outbox row; the relay publishes)",
				"mode=%s: неизвестный режим продюсера; допустимые: dual-write (коммит, затем публикация), publish-first (публикация, затем коммит), outbox (коммит строки outbox; публикует relay)", m)
		}
		st.Mode = m
	}
	if c, ok := opts["crash"]; ok {
		switch {
		case c != CrashAfterCommit && c != CrashAfterPublish:
			return st, errf(n, "crash=%s: unknown producer crash point; valid points: after-commit (the order committed, the message not yet published), after-publish (published, the order not yet committed; mode=publish-first)",
				"crash=%s: неизвестная точка падения продюсера; допустимые: after-commit (заказ закоммичен, сообщение ещё не опубликовано), after-publish (опубликовано, заказ ещё не закоммичен; mode=publish-first)", c)
		case c == CrashAfterPublish && st.Mode == ModeOutbox:
			return st, errf(n, "crash=after-publish: with mode=outbox the producer publishes nothing, the relay does: write relay crash=after-publish",
				"crash=after-publish: в режиме outbox продюсер ничего не публикует, это делает relay: напишите relay crash=after-publish")
		}
		st.Crash = c
	}
	ik := intentKey{st.Tenant, st.Op}
	if p.intents[ik] != 0 && p.intents[ik] != phantom {
		return st, errf(n, "operation %s of tenant %s is already produced; use retry to publish it again", "операция %s тенанта %s уже создана; чтобы опубликовать её снова, используйте retry", st.Op, st.Tenant)
	}
	// A publish-first producer that dies after its publish never commits
	// the order: the operation may be produced again.
	p.intents[ik] = published
	if st.Mode == ModePublishFirst && st.Crash == CrashAfterPublish {
		p.intents[ik] = phantom
	}
	return st, nil
}

// relayStep reads relay.
func relayStep(n int, args []string) (Step, error) {
	st := Step{Verb: VerbRelay}
	opts, err := options(n, VerbRelay, args, []string{"crash"})
	if err != nil {
		return st, err
	}
	if c, ok := opts["crash"]; ok {
		if c != CrashAfterPublish {
			return st, errf(n, "crash=%s: unknown relay crash point; the one valid point is after-publish (a row published, not yet marked sent)",
				"crash=%s: неизвестная точка падения relay; допустима только after-publish (строка опубликована, но ещё не отмечена отправленной)", c)
		}
		st.Crash = c
	}
	return st, nil
}

// writeProduce writes produce's arguments, as produceStep reads them.
func writeProduce(b *strings.Builder, st Step) {
	fmt.Fprintf(b, " %s amount=%d", st.Op, st.Amount)
	if st.Tenant != DefaultTenant {
		b.WriteString(" tenant=" + st.Tenant)
	}
	if st.Account != DefaultAccount {
		b.WriteString(" account=" + st.Account)
	}
	if st.Mode != ModeDualWrite {
		b.WriteString(" mode=" + st.Mode)
	}
	if st.Crash != "" {
		b.WriteString(" crash=" + st.Crash)
	}
}

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
func (w *world) produce(st Step) error {
	ik := intentKey{st.Tenant, st.Op}
	// The producer numbers the operation among its account's before it
	// writes anything: a publish-first message carries its version too.
	in := &intent{tenant: st.Tenant, op: st.Op, account: st.Account, amount: st.Amount,
		keyMode: KeyOp, key: st.Op, variants: []int64{st.Amount}}
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
		if st.Mode == ModeOutbox {
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
	case ModeOutbox:
		if err := commit(); err != nil {
			return err
		}
		if st.Crash == CrashAfterCommit {
			crash("event.producer.crash-commit-outbox")
			return nil
		}
		w.t.say(KindNote, narration.T("event.producer.outbox-waits"))
	case ModePublishFirst:
		publish()
		if st.Crash == CrashAfterPublish {
			w.totals[st.Account] -= st.Amount // rolled back: not in the producer's total
			crash("event.producer.crash-publish-first")
			return nil
		}
		if err := commit(); err != nil {
			return err
		}
		if st.Crash == CrashAfterCommit {
			crash("event.producer.crash-commit-both")
		}
	default: // dual-write: commit, then publish
		if err := commit(); err != nil {
			return err
		}
		if st.Crash == CrashAfterCommit {
			crash("event.producer.crash-commit-dual")
			return nil
		}
		publish()
		if st.Crash == CrashAfterPublish {
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
func (w *world) relay(st Step) error {
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
		if st.Crash == CrashAfterPublish {
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
	for _, q := range [][]*Message{w.broker.Ready, w.broker.InFlight, w.broker.Acked, w.broker.DLQ} {
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
