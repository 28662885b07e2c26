package sim

import (
	"github.com/idempotency-lab/lab/script"

	"github.com/idempotency-lab/lab/narration"
)

// Batches and offsets, as a Kafka consumer sees them (the verb: script/batch.go).

// deliverBatch carries out deliver-batch.
func (w *world) deliverBatch(st script.Step) error {
	n := min(st.Batch, len(w.broker.Ready))
	if n == 0 {
		w.note("broker", narration.T("event.broker.empty"))
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
	w.note("broker", narration.T("event.batch.poll", num(n), batchRange(msgs)))
	if n < st.Batch {
		w.note("broker", narration.T("event.batch.short", num(n), num(st.Batch)))
	}
	commit := func(ms []*Message) {
		if len(ms) == 0 {
			return
		}
		if ba, ok := w.queue.(BatchAcker); ok {
			ba.AckBatch(ms)
		} else {
			for _, m := range ms {
				w.queue.Ack(m)
			}
		}
		w.t.add(Event{Actor: "worker-1", Kind: KindAck, Msg: ms[len(ms)-1].TransportID,
			Note: narration.T("event.batch.commit", num(len(ms)), batchRange(ms))})
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
			key := "event.batch.crash-replay"
			if st.Commit == script.CommitBefore {
				key = "event.batch.crash-lost"
			}
			w.t.add(Event{Actor: "worker-1", Kind: KindCrash, Note: narration.T(key, num(i+1), num(n))})
			for _, m := range msgs {
				if w.broker.InFlightHas(m) {
					w.queue.Drop(m) // its consumer is gone
				}
			}
			return nil
		}
	}
	if crashAt > n {
		w.note("worker-1", narration.T("event.batch.no-crash", num(crashAt)))
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
		w.note("worker-1", narration.T("event.batch.committed", rest[0].TransportID, err.Error()))
		return nil
	}
	commit(handled)
	w.t.add(Event{Actor: "worker-1", Kind: KindNack, Msg: rest[0].TransportID,
		Note: narration.T("event.batch.nack", err.Error(), rest[0].TransportID)})
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
