package handlers

import (
	"context"
	"fmt"
)

// fenceSchema: the highest fencing token the ledger has accepted for each
// key. The check sits next to the data it protects, not in Redis.
const fenceSchema = `
CREATE TABLE fences (
    lock_key TEXT   PRIMARY KEY,
    token    BIGINT NOT NULL
);
`

// claimWithFence runs inside Redis, atomically: if nobody holds the claim,
// take the next number of the key's counter (INCR never hands out the same
// number twice, and never a smaller one) and hold the claim under that
// number for ARGV[1] milliseconds. It returns the number, or 0 when the key
// is claimed or done already.
const claimWithFence = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end local token = redis.call('INCR', KEYS[2]) redis.call('SET', KEYS[1], token, 'PX', ARGV[1]) return token`

// SetNXFence is setnx-token with a fencing token checked where the write
// happens: the corrected form of the pattern for a write the handler's own
// database takes, not an anti-pattern. It credits the account in the
// database instead of charging a gateway, because a fence needs a store
// that compares it; a payment provider takes an idempotency key, not your
// token.
//
// A Redis claim is a lease: it runs out after ProcessingTTL whether or not
// its holder is done. A worker that pauses (a long GC pause, a frozen VM, a
// slow disk) between its claim and its write wakes up not knowing that the
// claim expired and that a second worker claimed the key and wrote. The
// owner token of setnx-token protects the key (the paused worker cannot
// delete the second one's claim), not the write: the paused worker still
// writes.
//
// Here every claim carries a number from a counter that only grows, and the
// ledger keeps the highest number it has accepted for the key, in the same
// transaction as the credit. A write with a smaller number than the one
// kept is refused: the paused worker's token is older than its successor's,
// so its credit is rolled back and the message acked.
//
// The fence orders the holders of a claim; it does not recognise a repeat
// of the operation. A redelivery after the claim (or its "done") expired
// gets a newer number and credits again, as in SetNX: only the operation's
// own key kept in the ledger (Unique, Inbox) stops that.
func SetNXFence(ctx context.Context, d Deps, m Message) error {
	redisKey := "idem:" + m.Key
	d.Point(Yield)
	token, err := d.Redis.Eval(ctx, claimWithFence, []string{redisKey, "fence:" + m.Key},
		d.ProcessingTTL.Milliseconds()).Int64()
	if err != nil {
		return fmt.Errorf("claim %s: %w", redisKey, err)
	}
	if token == 0 {
		d.Log("key %s is in progress or done: ack without crediting", m.Key)
		return nil
	}

	// On an error, release the claim if it is still ours, so that the
	// redelivery can try again (the transaction is over by then).
	release := func() { d.Redis.Eval(ctx, releaseIfOwner, []string{redisKey}, token) }
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		release()
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(BeforeEffect)
	// The fence: move the key's token up to ours, only if ours is newer.
	// No row changes when the ledger has accepted this number or a newer
	// one: a worker whose claim moved on meanwhile.
	res, err := tx.ExecContext(ctx,
		`INSERT INTO fences (lock_key, token) VALUES (?, ?)
		 ON CONFLICT (lock_key) DO UPDATE SET token = excluded.token
		 WHERE fences.token < excluded.token`,
		m.Key, token)
	if err != nil {
		tx.Rollback()
		release()
		return fmt.Errorf("fence %s: %w", m.Key, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		tx.Rollback()
		release()
		return fmt.Errorf("fence %s: %w", m.Key, err)
	}
	if n == 0 {
		// A newer holder wrote: its credit stands, ours would be a second
		// one. Write nothing and ack; the newer holder finishes the key.
		d.Log("key %s: token %d is older than the one the ledger accepted: ack without crediting", m.Key, token)
		return nil
	}
	if err := credit(ctx, tx, m.Account, m.Amount); err != nil {
		tx.Rollback()
		release()
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	if err := tx.Commit(); err != nil {
		release()
		return fmt.Errorf("commit: %w", err)
	}
	d.Point(AfterEffect)

	// Mark the key done unless another worker holds it now, as SetNXToken.
	if n, _ := d.Redis.Eval(ctx, finishUnlessTaken, []string{redisKey}, token, d.DoneTTL.Milliseconds()).Int(); n == 0 {
		d.Log("key %s was taken over during the credit: left to the worker that holds it", m.Key)
	}
	return nil
}
