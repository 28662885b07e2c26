package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// APICompleteFunc is an API handler's completer: a background process of
// the server, not a request. It finishes the requests whose clients gave
// up before they got a final answer, and forgets keys past their
// lifetime. The engine runs it at a script's complete step.
type APICompleteFunc func(ctx context.Context, d Deps) error

// APIIdempotencyKeyComplete is APIIdempotencyKey's completer and reaper, as
// brandur's "Implementing Stripe-like Idempotency Keys in Postgres" has
// them. A key left unfinished, with no live request on it (its lock free
// or older than lockTimeout) and claimed at least lockTimeout ago, is a
// request its client abandoned: a closed tab, an app killed between
// retries. The completer takes the key's lock, as a retry would, and
// pushes the request on from its recovery point with the body the key
// row kept: from started it charges with the request's reference (the
// charge may have happened before the crash, so this is safe only with a
// provider that deduplicates by reference, exactly as for the client's
// own retry); from charged it only records the payment. It saves the 201,
// so a client that does come back gets it replayed. A charge the provider
// refuses leaves the key, its lock released, for the next run. The
// reaper deletes keys older than d.KeyTTL, finished or not: by then no
// client may retry with them.
func APIIdempotencyKeyComplete(ctx context.Context, d Deps) error {
	now := d.Now()
	if _, err := d.DB.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_at <= ?`, stamp(now.Add(-d.KeyTTL))); err != nil {
		return fmt.Errorf("reap keys: %w", err)
	}
	stale := stamp(now.Add(-lockTimeout))
	rows, err := d.DB.QueryContext(ctx,
		`SELECT tenant, idem_key, recovery_point, request_body FROM idempotency_keys
		 WHERE recovery_point <> ? AND created_at <= ? AND (locked_at IS NULL OR locked_at <= ?)
		 ORDER BY created_at, tenant, idem_key`, pointFinished, stale, stale)
	if err != nil {
		return fmt.Errorf("find abandoned keys: %w", err)
	}
	type abandoned struct{ tenant, key, point, body string }
	var keys []abandoned
	for rows.Next() {
		var a abandoned
		if err := rows.Scan(&a.tenant, &a.key, &a.point, &a.body); err != nil {
			rows.Close()
			return fmt.Errorf("read abandoned keys: %w", err)
		}
		keys = append(keys, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read abandoned keys: %w", err)
	}
	for _, a := range keys {
		var body struct {
			Account string `json:"account"`
			Amount  int64  `json:"amount"`
		}
		if err := json.Unmarshal([]byte(a.body), &body); err != nil {
			d.Log("complete %s/%s: the saved body does not parse: %v", a.tenant, a.key, err)
			continue
		}
		r := APIRequest{Tenant: a.tenant, Key: a.key, Method: http.MethodPost, Path: "/payments",
			Body: []byte(a.body), Account: body.Account, Amount: body.Amount}
		if err := completeKey(ctx, d, r, a.point, stale); err != nil {
			return err
		}
	}
	return nil
}

// completeKey pushes one abandoned key to finished, the phases of
// APIIdempotencyKey from its recovery point, under a lock of its own.
func completeKey(ctx context.Context, d Deps, r APIRequest, point, stale string) error {
	ref, lock := reference(r), stamp(d.Now())
	res, err := d.DB.ExecContext(ctx,
		`UPDATE idempotency_keys SET locked_at = ?
		 WHERE tenant = ? AND idem_key = ? AND recovery_point = ? AND (locked_at IS NULL OR locked_at <= ?)`,
		lock, r.Tenant, r.Key, point, stale)
	if err != nil {
		return fmt.Errorf("lock %s/%s: %w", r.Tenant, r.Key, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // a retry took it meanwhile
	}
	d.Log("completer takes %s/%s over at recovery point %s", r.Tenant, r.Key, point)
	if point == pointStarted {
		if err := d.Gateway.Charge(ctx, r.Account, r.Amount, ref); err != nil {
			d.DB.ExecContext(ctx,
				`UPDATE idempotency_keys SET locked_at = NULL WHERE tenant = ? AND idem_key = ? AND locked_at = ?`,
				r.Tenant, r.Key, lock)
			d.Log("complete %s/%s: charge: %v; left for the next run", r.Tenant, r.Key, err)
			return nil
		}
		if _, err := d.DB.ExecContext(ctx,
			`UPDATE idempotency_keys SET recovery_point = ? WHERE tenant = ? AND idem_key = ? AND locked_at = ?`,
			pointCharged, r.Tenant, r.Key, lock); err != nil {
			return fmt.Errorf("record charge %s/%s: %w", r.Tenant, r.Key, err)
		}
	}
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	p, err := recordPayment(ctx, tx, d, r, ref)
	if err != nil {
		return fmt.Errorf("record payment %s/%s: %w", r.Tenant, r.Key, err)
	}
	resp := created(p)
	if _, err := tx.ExecContext(ctx,
		`UPDATE idempotency_keys SET recovery_point = ?, locked_at = NULL, response_status = ?, response_body = ?
		 WHERE tenant = ? AND idem_key = ? AND locked_at = ?`,
		pointFinished, resp.Status, resp.Body, r.Tenant, r.Key, lock); err != nil {
		return fmt.Errorf("save response %s/%s: %w", r.Tenant, r.Key, err)
	}
	return tx.Commit()
}
