package script

import (
	"fmt"
	"strconv"
	"strings"
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
		return st, errf(n, "script.batch-size-missing", usage(VerbDeliverBatch))
	}
	size, err := strconv.Atoi(args[0])
	if err != nil || size < 1 || size > MaxBatch || strconv.Itoa(size) != args[0] {
		return st, errf(n, "script.batch-size", strconv.Quote(args[0]), MaxBatch)
	}
	st.Batch = size
	opts, oerr := options(n, VerbDeliverBatch, args[1:], []string{"commit", "crash"})
	if oerr != nil {
		return st, oerr
	}
	if c, ok := opts["commit"]; ok {
		if c != CommitAfter && c != CommitBefore {
			return st, errf(n, "script.batch-commit", c)
		}
		st.Commit = c
	}
	if c, ok := opts["crash"]; ok {
		k, ok := BatchCrash(c)
		if !ok || k > size {
			return st, errf(n, "script.batch-crash-point", c, size)
		}
		st.Crash = c
	}
	return st, nil
}

// BatchCrash reads a batch crash point, after-message:K: K, and whether
// it is one.
func BatchCrash(c string) (int, bool) {
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
