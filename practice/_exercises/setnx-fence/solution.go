package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema: the highest fencing token the ledger has accepted for each key.
const Schema = `
CREATE TABLE fences (
    lock_key TEXT   PRIMARY KEY,
    token    BIGINT NOT NULL
);
`

// The claim's value is a token only this attempt has. These two scripts run
// inside Redis, atomically: GET and DEL (or SET) with no other command in
// between, so a key that changed hands after the GET cannot be touched.
const (
	// releaseIfOwner deletes the claim only while it is still ours.
	releaseIfOwner = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`
	// finishUnlessTaken writes "done" for ARGV[2] milliseconds over our
	// claim, or over no key at all (our claim expired and nobody took it),
	// but never over another worker's claim or its "done".
	finishUnlessTaken = `local v = redis.call('GET', KEYS[1]) if v == ARGV[1] or not v then redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2]) return 1 end return 0`
)

// claimWithFence runs inside Redis, atomically: if nobody holds the claim,
// take the next number of the key's counter (INCR never hands out the same
// number twice, and never a smaller one) and hold the claim under that
// number for ARGV[1] milliseconds. It returns the number, or 0 when the key
// is claimed or done already.
const claimWithFence = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end local token = redis.call('INCR', KEYS[2]) redis.call('SET', KEYS[1], token, 'PX', ARGV[1]) return token`

// Handle, as SetNXFence, is setnx-token with a fencing token checked in
// the ledger's transaction.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	redisKey := "idem:" + m.Key
	d.Point(handlers.Yield)
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

	d.Point(handlers.BeforeEffect)
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
	d.Point(handlers.AfterEffect)

	// Mark the key done unless another worker holds it now, as SetNXToken.
	if n, _ := d.Redis.Eval(ctx, finishUnlessTaken, []string{redisKey}, token, d.DoneTTL.Milliseconds()).Int(); n == 0 {
		d.Log("key %s was taken over during the credit: left to the worker that holds it", m.Key)
	}
	return nil
}

// credit is handlers.credit.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

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
