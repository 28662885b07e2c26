package sim

import (
	"fmt"

	"github.com/idempotency-lab/lab/script"
)

// Batches and offsets, as a Kafka consumer sees them (the verb: script/batch.go).

// deliverBatch carries out deliver-batch.
func (w *world) deliverBatch(st script.Step) error {
	n := min(st.Batch, len(w.broker.Ready))
	if n == 0 {
		w.note("broker", "nothing is ready to deliver", "доставлять нечего: очередь пуста")
		return nil
	}
	if err := w.allow(n); err != nil {
		return err
	}
	msgs := make([]*Message, n)
	for i := range msgs {
		if msgs[i] = w.queue.Take(); msgs[i] == nil {
			return nil // a real broker's error, which step returns
		}
	}
	w.note("broker", fmt.Sprintf("worker-1 polls a batch of %s: %s", plural(n, "message"), batchRange(msgs)),
		fmt.Sprintf("worker-1 забирает пачку из %d сообщ.: %s", n, batchRange(msgs)))
	if n < st.Batch {
		w.note("broker", fmt.Sprintf("only %d ready: the batch is smaller than %d", n, st.Batch),
			fmt.Sprintf("готово только %d: пачка меньше %d", n, st.Batch))
	}
	commit := func(ms []*Message) {
		if len(ms) == 0 {
			return
		}
		for _, m := range ms {
			w.queue.Ack(m)
		}
		w.t.add(Event{Actor: "worker-1", Kind: KindAck, Msg: ms[len(ms)-1].TransportID,
			Text:   fmt.Sprintf("commit offset: %s acknowledged (%s)", plural(len(ms), "message"), batchRange(ms)),
			TextRU: fmt.Sprintf("коммит смещения: подтверждено сообщений: %d (%s)", len(ms), batchRange(ms))})
	}
	if st.Commit == script.CommitBefore {
		commit(msgs)
	}
	crashAt, _ := script.BatchCrash(st.Crash)
	var handled []*Message
	for i, m := range msgs {
		wk := newWorker(1, m, "")
		wk.batch = true
		w.t.actor = wk.name
		w.work(wk, nil)
		w.t.actor = ""
		if wk.err != nil {
			return w.batchFailed(st, handled, msgs[i:], wk.err, commit)
		}
		handled = append(handled, m)
		if i+1 == crashAt {
			w.crashes++
			en, ru := "worker-1 dies after its message %d of %d, before it commits: the whole batch stays in flight, and the broker will replay it from the last committed offset",
				"worker-1 падает после сообщения %d из %d, до коммита: вся пачка остаётся в обработке, и брокер повторит её с последнего закоммиченного смещения"
			if st.Commit == script.CommitBefore {
				en, ru = "worker-1 dies after its message %d of %d: the offset was committed before the batch, so the messages it never reached are lost",
					"worker-1 падает после сообщения %d из %d: смещение закоммичено до пачки, поэтому сообщения, до которых он не дошёл, потеряны"
			}
			w.t.add(Event{Actor: "worker-1", Kind: KindCrash, Text: fmt.Sprintf(en, i+1, n), TextRU: fmt.Sprintf(ru, i+1, n)})
			for _, m := range msgs {
				if w.broker.InFlightHas(m) {
					w.queue.Drop(m) // its consumer is gone
				}
			}
			return nil
		}
	}
	if crashAt > n {
		w.note("worker-1", fmt.Sprintf("the batch ended before message %d: the worker did not crash", crashAt),
			fmt.Sprintf("пачка закончилась раньше сообщения %d: воркер не упал", crashAt))
	}
	if st.Commit == script.CommitAfter {
		commit(handled)
	}
	return nil
}

// batchFailed ends a batch whose handler failed on a message: the consumer
// commits what it handled before it and seeks back to the failed message,
// which is delivered again with the rest. With commit=before everything
// was committed already, and the failure is only logged.
func (w *world) batchFailed(st script.Step, handled, rest []*Message, err error, commit func([]*Message)) error {
	if st.Commit == script.CommitBefore {
		w.note("worker-1", fmt.Sprintf("%s failed (%v), but its offset is committed: it will not be delivered again", rest[0].TransportID, err),
			fmt.Sprintf("%s не обработано (%v), но его смещение уже закоммичено: повторно его не доставят", rest[0].TransportID, err))
		return nil
	}
	commit(handled)
	w.t.add(Event{Actor: "worker-1", Kind: KindNack, Msg: rest[0].TransportID,
		Text:   fmt.Sprintf("nack: %v; the consumer seeks back to %s", err, rest[0].TransportID),
		TextRU: fmt.Sprintf("nack: %v; потребитель возвращается к %s", err, rest[0].TransportID)})
	for _, m := range rest {
		if w.applied[intentKey{m.Tenant, m.Op}] > 0 && m == rest[0] {
			w.failedAfterApplied[m] = true
		}
		dead := w.queue.Nack(m)
		w.brokerMoved(m, dead, "nack")
	}
	return nil
}

// batchRange names a batch's first and last transport ids.
func batchRange(ms []*Message) string {
	if len(ms) == 1 {
		return ms[0].TransportID
	}
	return ms[0].TransportID + " … " + ms[len(ms)-1].TransportID
}
