package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idempotency-lab/lab/narration"
)

// Batches and offsets, as a Kafka consumer sees them:
//
//	deliver-batch N [commit=after|before] [crash=after-message:K]
//
// One worker polls the N oldest ready messages and handles them in order.
// commit=after (the default) commits its offset, acking the whole batch,
// once it has handled them all: a crash in the middle leaves the whole
// uncommitted range in flight, and the broker replays it, the messages the
// worker finished included. commit=before commits first, as auto-commit
// does: a crash in the middle loses the messages it had not reached.
// crash=after-message:K kills the worker right after its K-th message.

// VerbDeliverBatch is the verb of a batch.
const VerbDeliverBatch = "deliver-batch"

// Commit modes of a batch (Step.Commit).
const (
	CommitAfter  = "after"
	CommitBefore = "before"
)

// MaxBatch is the most messages one batch may take.
const MaxBatch = 50

// batchStep reads deliver-batch.
func batchStep(n int, args []string) (Step, error) {
	st := Step{Verb: VerbDeliverBatch, Commit: CommitAfter}
	if len(args) == 0 || strings.Contains(args[0], "=") {
		return st, errf(n, "deliver-batch needs the batch size first, as in: %s", "deliver-batch: сначала нужен размер пачки, например: %s", usage(VerbDeliverBatch))
	}
	size, err := strconv.Atoi(args[0])
	if err != nil || size < 1 || size > MaxBatch || strconv.Itoa(size) != args[0] {
		return st, errf(n, "deliver-batch: %q is not a batch size; it is a whole number from 1 to %d", "deliver-batch: %q — не размер пачки; нужно целое число от 1 до %d", args[0], MaxBatch)
	}
	st.Batch = size
	opts, oerr := options(n, VerbDeliverBatch, args[1:], []string{"commit", "crash"})
	if oerr != nil {
		return st, oerr
	}
	if c, ok := opts["commit"]; ok {
		if c != CommitAfter && c != CommitBefore {
			return st, errf(n, "commit=%s: unknown commit mode; valid modes: after (commit the offset once the batch is handled), before (commit first, as auto-commit does)",
				"commit=%s: неизвестный режим коммита; допустимые: after (коммит смещения после обработки пачки), before (сначала коммит, как при auto-commit)", c)
		}
		st.Commit = c
	}
	if c, ok := opts["crash"]; ok {
		k, ok := batchCrash(c)
		if !ok || k > size {
			return st, errf(n, "crash=%s: unknown batch crash point; the valid point is after-message:K (the worker dies right after the K-th message of the batch), K from 1 to the batch size %d",
				"crash=%s: неизвестная точка падения в пачке; допустима after-message:K (воркер падает сразу после K-го сообщения пачки), K от 1 до размера пачки %d", c, size)
		}
		st.Crash = c
	}
	return st, nil
}

// batchCrash reads after-message:K.
func batchCrash(c string) (int, bool) {
	v, ok := strings.CutPrefix(c, "after-message:")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 1 || strconv.Itoa(k) != v {
		return 0, false
	}
	return k, true
}

// writeBatch writes deliver-batch's arguments, as batchStep reads them.
func writeBatch(b *strings.Builder, st Step) {
	fmt.Fprintf(b, " %d", st.Batch)
	if st.Commit == CommitBefore {
		b.WriteString(" commit=before")
	}
	if st.Crash != "" {
		b.WriteString(" crash=" + st.Crash)
	}
}

// deliverBatch carries out deliver-batch.
func (w *world) deliverBatch(st Step) error {
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
		for _, m := range ms {
			w.queue.Ack(m)
		}
		w.t.add(Event{Actor: "worker-1", Kind: KindAck, Msg: ms[len(ms)-1].TransportID,
			Note: narration.T("event.batch.commit", num(len(ms)), batchRange(ms))})
	}
	if st.Commit == CommitBefore {
		commit(msgs)
	}
	crashAt, _ := batchCrash(st.Crash)
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
			if st.Commit == CommitBefore {
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
	if st.Commit == CommitAfter {
		commit(handled)
	}
	return nil
}

// batchFailed ends a batch whose handler failed on a message: the consumer
// commits what it handled before it and seeks back to the failed message,
// which is delivered again with the rest. With commit=before everything
// was committed already, and the failure is only logged.
func (w *world) batchFailed(st Step, handled, rest []*Message, err error, commit func([]*Message)) error {
	if st.Commit == CommitBefore {
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
