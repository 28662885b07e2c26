package handler

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Scripts that run inside Redis, atomically.
const (
	// releaseIfOwner deletes the claim only while it is still ours.
	releaseIfOwner = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`
	// finishUnlessTaken writes "done" over our claim, or over no key at
	// all, but never over another worker's claim or its "done".
	finishUnlessTaken = `local v = redis.call('GET', KEYS[1]) if v == ARGV[1] or not v then redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2]) return 1 end return 0`
)

// Handle claims the key with a token of this attempt and credits the
// account. The token keeps this worker from touching another worker's
// claim, but nothing stops the credit of a worker whose claim expired
// while it was paused.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	redisKey := "idem:" + m.Key
	token := fmt.Sprintf("%s#%d", m.TransportID, m.Delivery)
	d.Point(handlers.Yield)
	ok, err := d.Redis.SetNX(ctx, redisKey, token, d.ProcessingTTL).Result()
	if err != nil {
		return fmt.Errorf("setnx %s: %w", redisKey, err)
	}
	if !ok {
		d.Log("key %s is in progress or done: ack without crediting", m.Key)
		return nil
	}

	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		d.Redis.Eval(ctx, releaseIfOwner, []string{redisKey}, token)
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	d.Point(handlers.BeforeEffect)
	if err := credit(ctx, tx, m.Account, m.Amount); err != nil {
		tx.Rollback()
		d.Redis.Eval(ctx, releaseIfOwner, []string{redisKey}, token)
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	if err := tx.Commit(); err != nil {
		d.Redis.Eval(ctx, releaseIfOwner, []string{redisKey}, token)
		return fmt.Errorf("commit: %w", err)
	}
	d.Point(handlers.AfterEffect)

	d.Redis.Eval(ctx, finishUnlessTaken, []string{redisKey}, token, d.DoneTTL.Milliseconds())
	return nil
}

func credit(ctx context.Context, tx *sql.Tx, account string, amount int64) error {
	res, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, amount, account)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("account %s: nothing credited (%v)", account, err)
	}
	return nil
}
