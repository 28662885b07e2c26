package sim

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

// Verdict is what a handler's run settles to.
type Verdict string

// Verdicts, in the order the oracle checks them: the first that matches wins.
const (
	Duplicate      Verdict = "duplicate"       // credited more than the intents asked for
	Lost           Verdict = "lost"            // credited less
	Poison         Verdict = "poison"          // an applied message kept failing until the DLQ
	SilentConflict Verdict = "silent-conflict" // a changed payload was acked as success, not quarantined
	OK             Verdict = "ok"
)

// Options choose what a run does.
type Options struct {
	Handlers  []string // handler names; empty means the core handlers
	Steps     int      // run only the first Steps steps; 0 means all
	Snapshots bool     // copy every world's state after every step
}

// Run is the outcome of a script on each chosen handler.
type Run struct {
	Script  *Script  `json:"-"`
	Steps   int      `json:"steps"` // steps executed
	Results []Result `json:"results"`
}

// Result is one handler's run.
type Result struct {
	Handler      string  `json:"handler"`
	Balance      int64   `json:"balance"`  // credited by the end of the script
	Settled      int64   `json:"settled"`  // credited after settlement
	Expected     int64   `json:"expected"` // what the intents asked for
	Verdict      Verdict `json:"verdict"`
	Reason       string  `json:"reason"`
	Deliveries   int     `json:"deliveries"`
	DeadLettered int     `json:"dead_lettered"`
	Quarantined  int     `json:"quarantined"`
	GatewayCalls int     `json:"gateway_calls"`
	Trace        []Trace `json:"trace"`
	Settlement   Trace   `json:"settlement"`
	// Final is the state after the last step, before settlement.
	Final *State `json:"-"`
}

// Trace is what happened in one step.
type Trace struct {
	Step     int         `json:"step"` // 1-based; 0 for the settlement
	Line     int         `json:"line,omitempty"`
	Text     string      `json:"text"`
	TextRU   string      `json:"text_ru,omitempty"` // the settlement's description in Russian
	Events   []Event     `json:"events"`
	Balance  int64       `json:"balance"`
	Expected int64       `json:"expected"`
	Broker   BrokerState `json:"-"`
	State    *State      `json:"-"` // only with Options.Snapshots
}

// Handlers resolves handler names: a list, "core" or "all".
func Handlers(names []string) ([]handlers.Info, error) {
	all := handlers.List()
	if len(names) == 0 || (len(names) == 1 && names[0] == "core") {
		var core []handlers.Info
		for _, h := range all {
			if h.Core {
				core = append(core, h)
			}
		}
		return core, nil
	}
	if len(names) == 1 && names[0] == "all" {
		return all, nil
	}
	var out []handlers.Info
	seen := map[string]bool{}
	for _, n := range names {
		found := false
		for _, h := range all {
			if h.Name == n {
				found = true
				if !seen[n] {
					out = append(out, h)
					seen[n] = true
				}
			}
		}
		if !found {
			valid := make([]string, len(all))
			for i, h := range all {
				valid[i] = h.Name
			}
			return nil, fmt.Errorf("unknown handler %q; valid handlers: %s (or core, all)", n, strings.Join(valid, ", "))
		}
	}
	return out, nil
}

// Execute runs the script once per chosen handler, each in a fresh world.
// The worlds share nothing, so they run in parallel; the result depends only
// on the script.
func Execute(ctx context.Context, s *Script, opt Options) (*Run, error) {
	hs, err := Handlers(opt.Handlers)
	if err != nil {
		return nil, err
	}
	steps := len(s.Steps)
	if opt.Steps > 0 && opt.Steps < steps {
		steps = opt.Steps
	}
	run := &Run{Script: s, Steps: steps, Results: make([]Result, len(hs))}
	errs := make([]error, len(hs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			run.Results[i], errs[i] = runHandler(s, h, steps, opt.Snapshots)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return run, nil
}

func runHandler(s *Script, h handlers.Info, steps int, snapshots bool) (Result, error) {
	res := Result{Handler: h.Name}
	w, err := newWorld(s, h)
	if err != nil {
		return res, err
	}
	defer w.close()
	for i, st := range s.Steps[:steps] {
		tr := Trace{Step: i + 1, Line: st.Line, Text: st.String()}
		if err := w.step(st); err != nil {
			return res, fmt.Errorf("%s, line %d: %w", h.Name, st.Line, err)
		}
		if tr.Balance, err = w.balance(); err != nil {
			return res, err
		}
		tr.Expected, tr.Events, tr.Broker = w.expected(), w.t.take(), w.broker.State()
		if snapshots {
			if tr.State, err = w.state(); err != nil {
				return res, err
			}
		}
		res.Trace = append(res.Trace, tr)
	}
	if res.Balance, err = w.balance(); err != nil {
		return res, err
	}
	if res.Final, err = w.state(); err != nil {
		return res, err
	}
	if err := w.settle(); err != nil {
		return res, fmt.Errorf("%s, settlement: %w", h.Name, err)
	}
	res.Settlement = Trace{Text: "settle: gateway up, redeliver in-flight messages, drain",
		TextRU: "доводим до конца: шлюз работает, сообщения в обработке доставляются снова, очередь разбирается", Events: w.t.take(),
		Broker: w.broker.State()}
	if res.Settled, err = w.balance(); err != nil {
		return res, err
	}
	res.Settlement.Balance, res.Settlement.Expected = res.Settled, w.expected()
	res.Expected = w.expected()
	if res.Quarantined, err = w.quarantined(); err != nil {
		return res, err
	}
	res.Deliveries, res.DeadLettered, res.GatewayCalls = w.deliveries, len(w.broker.DLQ), len(w.gateway.calls)
	res.Verdict, res.Reason = w.verdict(res.Settled, res.Expected)
	return res, nil
}

// verdict is the oracle. Totals first; then each operation on its own, so
// that one operation credited twice and another never cannot cancel out
// into a balance that looks right.
func (w *world) verdict(settled, expected int64) (Verdict, string) {
	switch {
	case settled > expected:
		return Duplicate, fmt.Sprintf("credited %d, expected %d: %d too much", settled, expected, settled-expected)
	case settled < expected:
		return Lost, fmt.Sprintf("credited %d, expected %d: %d never arrived", settled, expected, expected-settled)
	}
	var over, under []string
	for _, in := range w.intentList() {
		got := w.applied[intentKey{in.tenant, in.op}]
		switch {
		case got > in.amount:
			over = append(over, fmt.Sprintf("%s/%s credited %d of %d", in.tenant, in.op, got, in.amount))
		case got < in.amount:
			under = append(under, fmt.Sprintf("%s/%s credited %d of %d", in.tenant, in.op, got, in.amount))
		}
	}
	if len(over) > 0 {
		return Duplicate, "the total looks right, but errors cancel out: " + strings.Join(append(over, under...), "; ")
	}
	if len(under) > 0 {
		return Lost, "the total looks right, but errors cancel out: " + strings.Join(under, "; ")
	}
	for _, m := range w.broker.DLQ {
		if w.failedAfterApplied[m] {
			return Poison, fmt.Sprintf("message %s was applied, then failed until the dead-letter queue", m.TransportID)
		}
	}
	if w.conflicts > 0 {
		return SilentConflict, fmt.Sprintf("%s acked as a success though the amount changed", plural(w.conflicts, "changed payload"))
	}
	return OK, fmt.Sprintf("credited %d, as expected", settled)
}

// settle finishes what the script left open: the gateway comes back, the
// in-flight messages time out and everything ready is delivered. The DLQ is
// left alone: nobody replays it automatically.
func (w *world) settle() error {
	if !w.gateway.up {
		w.step(Step{Verb: VerbGateway, Up: true})
	}
	if len(w.broker.InFlight) > 0 {
		w.step(Step{Verb: VerbRedeliver})
	}
	return w.step(Step{Verb: VerbDrain})
}

// step carries out one script step.
func (w *world) step(st Step) error {
	switch st.Verb {
	case VerbPublish, VerbRetry, VerbChangePayload:
		return w.publish(st)
	case VerbDeliver:
		m := w.broker.Take()
		if m == nil {
			w.note("broker", "nothing is ready to deliver", "доставлять нечего: очередь пуста")
			return nil
		}
		w.deliver([]*Message{m}, st.Crash)
	case VerbDeliverConcurrent:
		var ms []*Message
		for range 2 {
			if m := w.broker.Take(); m != nil {
				ms = append(ms, m)
			}
		}
		switch len(ms) {
		case 0:
			w.note("broker", "nothing is ready to deliver", "доставлять нечего: очередь пуста")
		case 1:
			w.note("broker", "only one message is ready: a single worker takes it", "готово только одно сообщение: его берёт один воркер")
		}
		if len(ms) > 0 {
			w.deliver(ms, "")
		}
	case VerbRedeliver:
		moved, dead := w.broker.Redeliver()
		if len(moved) == 0 {
			w.note("broker", "no message is in flight", "неподтверждённых сообщений нет")
		}
		for i, m := range moved {
			w.brokerMoved(m, dead[i], "visibility timeout")
		}
	case VerbDrain:
		// Every message reaches the DLQ after MaxDeliveries failures, so
		// the loop ends; the bound only guards against a broker bug.
		limit := (len(w.broker.Ready) + 1) * (w.broker.MaxDeliveries + 1)
		for n := 0; len(w.broker.Ready) > 0; n++ {
			if n > limit {
				return fmt.Errorf("drain did not finish after %d deliveries", limit)
			}
			w.deliver([]*Message{w.broker.Take()}, "")
		}
	case VerbDLQReplay:
		replayed := w.broker.ReplayDLQ()
		if len(replayed) == 0 {
			w.note("broker", "the dead-letter queue is empty", "DLQ пуста")
		}
		for _, m := range replayed {
			w.t.add(Event{Actor: "broker", Kind: KindPublish, Msg: m.TransportID,
				Text:   fmt.Sprintf("replay from DLQ: key %s, amount %d, new transport id %s", m.Key, m.Amount, m.TransportID),
				TextRU: fmt.Sprintf("повтор из DLQ: ключ %s, сумма %d, новый транспортный id %s", m.Key, m.Amount, m.TransportID)})
		}
	case VerbAdvance:
		return w.advance(st.Advance)
	case VerbGateway:
		w.gateway.up = st.Up
		e := Event{Actor: "gateway", Kind: KindSwitch, Text: "payment gateway down: every charge fails",
			TextRU: "платёжный шлюз недоступен: каждое списание падает"}
		if st.Up {
			e.Text, e.TextRU = "payment gateway up", "платёжный шлюз снова работает"
		}
		w.t.add(e)
	case VerbShip:
		return w.ship(st)
	default:
		return fmt.Errorf("unknown verb %q", st.Verb)
	}
	return nil
}

func (w *world) note(actor, en, ru string) {
	w.t.add(Event{Actor: actor, Kind: KindNote, Text: en, TextRU: ru})
}

// publish is the producer: it records the intent on its first publish (the
// order service creates the order and the account exists), picks the key by
// the intent's key mode and sends a message.
func (w *world) publish(st Step) error {
	ik := intentKey{st.Tenant, st.Op}
	in := w.intents[ik]
	if in == nil {
		if st.Verb != VerbPublish {
			return fmt.Errorf("%s %s: operation not published", st.Verb, st.Op)
		}
		in = &intent{tenant: st.Tenant, op: st.Op, account: st.Account, amount: st.Amount, keyMode: st.KeyMode, key: st.Op}
		if st.KeyMode == KeyV7 {
			in.key = w.newKey(true)
		}
		w.intents[ik] = in
		if _, err := w.db.Exec(`INSERT OR IGNORE INTO accounts (id) VALUES (?)`, in.account); err != nil {
			return err
		}
		if _, err := w.db.Exec(`INSERT INTO orders (tenant, id, status) VALUES (?, ?, 'CREATED')`, in.tenant, in.op); err != nil {
			return err
		}
	}
	m := &Message{Key: in.key, Tenant: in.tenant, Op: in.op, Account: in.account, Amount: in.amount}
	if in.keyMode == KeyFresh {
		m.Key = w.newKey(false)
	}
	if st.Verb == VerbChangePayload {
		m.Amount = st.Amount
		m.Changed = st.Amount != in.amount
	}
	w.broker.Publish(m)
	what, whatRU := "publish", "публикация"
	switch st.Verb {
	case VerbRetry:
		what, whatRU = "producer retry", "повтор продюсера"
	case VerbChangePayload:
		what, whatRU = "same key, changed payload", "тот же ключ, другая нагрузка"
	}
	w.t.add(Event{Actor: "producer", Kind: KindPublish, Msg: m.TransportID,
		Text:   fmt.Sprintf("%s: key %s, tenant %s, %s +%d as %s", what, m.Key, m.Tenant, m.Account, m.Amount, m.TransportID),
		TextRU: fmt.Sprintf("%s: ключ %s, тенант %s, %s +%d как %s", whatRU, m.Key, m.Tenant, m.Account, m.Amount, m.TransportID)})
	return nil
}

func (w *world) brokerMoved(m *Message, dead bool, why string) {
	if dead {
		w.t.add(Event{Actor: "broker", Kind: KindDLQ, Msg: m.TransportID,
			Text:   fmt.Sprintf("%s delivered %d times without an ack: moved to the dead-letter queue", m.TransportID, m.Deliveries),
			TextRU: fmt.Sprintf("%s доставлено %d раз без ack: перемещено в DLQ", m.TransportID, m.Deliveries)})
		return
	}
	whyRU := "истёк visibility timeout"
	if why == "nack" {
		whyRU = "nack"
	}
	w.t.add(Event{Actor: "broker", Kind: KindRequeue, Msg: m.TransportID,
		Text:   fmt.Sprintf("%s back to ready (%s)", m.TransportID, why),
		TextRU: fmt.Sprintf("%s снова в очереди (%s)", m.TransportID, whyRU)})
}

func (w *world) advance(d time.Duration) error {
	before := w.redisKeys()
	w.now = w.now.Add(d)
	if w.mr != nil {
		w.mr.FastForward(d)
	}
	w.t.add(Event{Actor: "clock", Kind: KindClock,
		Text:   fmt.Sprintf("+%s: now %s", formatDuration(d), w.now.Format(time.RFC3339)),
		TextRU: fmt.Sprintf("+%s: теперь %s", formatDuration(d), w.now.Format(time.RFC3339))})
	for _, k := range missing(before, w.redisKeys()) {
		w.t.add(Event{Actor: "clock", Kind: KindClock, Text: "Redis key " + k + " expired", TextRU: "ключ Redis " + k + " истёк"})
	}
	if w.script.InboxRetention > 0 && w.tables["inbox"] {
		cutoff := w.now.Add(-w.script.InboxRetention).Format(time.RFC3339)
		w.t.actor = "reaper"
		_, err := w.db.Exec(`DELETE FROM inbox WHERE created_at < ?`, cutoff)
		w.t.actor = ""
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *world) ship(st Step) error {
	w.t.actor = "warehouse"
	res, err := w.db.Exec(`UPDATE orders SET status = 'SHIPPED' WHERE tenant = ? AND id = ? AND status = 'PAID'`, st.Tenant, st.Op)
	w.t.actor = ""
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var status string
		if err := w.db.QueryRow(`SELECT status FROM orders WHERE tenant = ? AND id = ?`, st.Tenant, st.Op).Scan(&status); err != nil {
			return err
		}
		w.note("warehouse", fmt.Sprintf("order %s is %s, not PAID: nothing shipped", st.Op, status),
			fmt.Sprintf("заказ %s в статусе %s, а не PAID: отгружать нечего", st.Op, status))
	}
	return nil
}

// crashSignal unwinds a handler that reached the crash point it was told to
// die at. Only deferred tx.Rollback calls run, which is what the database
// does for a dead connection anyway.
type crashSignal struct{ point string }

// worker is one consumer process handling one delivery.
type worker struct {
	name    string
	msg     *Message
	crash   string
	resume  chan struct{}
	started bool
}

// deliver runs one worker per message. With two workers, only one runs at a
// time: a worker that reaches a Yield point hands over to the next, so both
// pass their checks before either writes. Inside a transaction the
// handlers never yield: there the database serializes the workers, as
// PostgreSQL would make the second wait on the first one's row lock.
func (w *world) deliver(ms []*Message, crash string) {
	ws := make([]*worker, len(ms))
	for i, m := range ms {
		ws[i] = &worker{name: fmt.Sprintf("worker-%d", i+1), msg: m, crash: crash, resume: make(chan struct{})}
	}
	yielded := make(chan bool) // true: the worker finished
	active := ws
	for len(active) > 0 {
		var next []*worker
		for _, wk := range active {
			w.t.actor = wk.name
			if !wk.started {
				wk.started = true
				go w.work(wk, len(ws) > 1, yielded)
			} else {
				wk.resume <- struct{}{}
			}
			if done := <-yielded; !done {
				next = append(next, wk)
			}
		}
		active = next
	}
	w.t.actor = ""
}

// work runs in the worker's goroutine and reports on yielded when it
// pauses (false) or ends (true).
func (w *world) work(wk *worker, racing bool, yielded chan bool) {
	defer func() { yielded <- true }()
	m := wk.msg
	w.deliveries++
	redelivered := ""
	if m.Redelivered {
		redelivered = ", redelivered"
	}
	redeliveredRU := ""
	if m.Redelivered {
		redeliveredRU = ", повторная"
	}
	w.t.add(Event{Actor: "broker", Kind: KindDeliver, Msg: m.TransportID, To: wk.name,
		Text:   fmt.Sprintf("%s to %s: key %s, %s +%d (delivery %d%s)", m.TransportID, wk.name, m.Key, m.Account, m.Amount, m.Deliveries, redelivered),
		TextRU: fmt.Sprintf("%s для %s: ключ %s, %s +%d (доставка %d%s)", m.TransportID, wk.name, m.Key, m.Account, m.Amount, m.Deliveries, redeliveredRU)})
	quarantinedBefore := w.quietQuarantined()

	point := func(name string) {
		if name == handlers.Yield {
			if racing {
				w.t.say(KindYield, "race window: the other worker runs now", "окно гонки: сейчас работает другой воркер")
				yielded <- false
				<-wk.resume
			}
			return
		}
		if name == handlers.AfterEffect {
			w.applied[intentKey{m.Tenant, m.Op}] += m.Amount
		}
		if name == wk.crash {
			w.t.say(KindCrash, "worker dies at "+name, "воркер падает в точке "+name)
			// What runs from here on is the database cleaning up after the
			// lost connection, not the worker.
			w.t.actor = "sqlite"
			panic(crashSignal{name})
		}
	}
	err, crashedAt := w.call(wk, point)
	w.t.actor = wk.name
	switch {
	case crashedAt != "":
		return // the message stays in flight until it times out
	case wk.crash == CrashBeforeAck && err != nil:
		w.t.say(KindCrash, "worker dies before it can nack", "воркер падает, не успев отправить nack")
		return
	case wk.crash == CrashBeforeAck:
		w.t.say(KindCrash, "worker dies before it can ack", "воркер падает, не успев отправить ack")
		return
	case wk.crash != "":
		w.t.say(KindNote, "the handler never reached "+wk.crash+": the worker did not crash",
			"обработчик не дошёл до "+wk.crash+": воркер не упал")
	}
	if err != nil {
		if w.applied[intentKey{m.Tenant, m.Op}] > 0 {
			// Failing a message whose operation is already done: if this
			// goes on until the DLQ, it is a poison message.
			w.failedAfterApplied[m] = true
		}
		w.t.say(KindNack, "nack: "+err.Error(), "nack: "+err.Error())
		dead := w.broker.Nack(m)
		w.brokerMoved(m, dead, "nack")
		return
	}
	w.t.say(KindAck, "ack "+m.TransportID, "ack "+m.TransportID)
	w.broker.Ack(m)
	if m.Changed {
		if w.quietQuarantined() == quarantinedBefore {
			w.conflicts++
			w.t.add(Event{Actor: "oracle", Kind: KindConflict, Msg: m.TransportID,
				Text:   fmt.Sprintf("amount changed to %d under key %s, yet acked as a success and not quarantined", m.Amount, m.Key),
				TextRU: fmt.Sprintf("сумма под ключом %s изменилась на %d, но сообщение подтверждено как успех и не попало в карантин", m.Key, m.Amount)})
		}
	}
}

// quietQuarantined counts quarantined messages without tracing the query:
// it is the lab looking, not the worker.
func (w *world) quietQuarantined() int {
	actor := w.t.actor
	w.t.actor = ""
	defer func() { w.t.actor = actor }()
	n, _ := w.quarantined()
	return n
}

// call runs the handler, turning the crash signal back into a value.
func (w *world) call(wk *worker, point func(string)) (err error, crashedAt string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(crashSignal); ok {
				crashedAt = c.point
				return
			}
			err = fmt.Errorf("handler panicked: %v", r)
		}
	}()
	m := wk.msg
	msg := handlers.Message{
		Key: m.Key, Tenant: m.Tenant, Account: m.Account, OrderID: m.Op, Amount: m.Amount,
		Headers:     map[string]string{"idempotency-key": m.Key, "tenant": m.Tenant},
		TransportID: m.TransportID,
	}
	return w.handler.Handle(ctx, w.deps(point), msg), ""
}
