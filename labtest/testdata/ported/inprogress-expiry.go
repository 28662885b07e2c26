// inprogress-expiry is a serverless idempotency utility's record, in its
// shape: the first invocation for a key saves an INPROGRESS record that
// expires with the function's timeout (processing-ttl), runs the
// function, and saves the record COMPLETED with an expiry of its own
// (done-ttl) and the payload's hash. Another invocation finds the record:
// COMPLETED and not expired is a repeat (acked; another payload is an
// error, as the utility's validation raises one); INPROGRESS and not
// expired is "already in progress" (an error: the queue tries again);
// an expired record counts as absent and is taken over.
//
// What its design predicts: its platform's queue waits at least the
// function's timeout before it delivers again. With redelivery at once, a
// crash leaves a live INPROGRESS record and every redelivery fails until
// the dead-letter queue; with a visibility timeout longer than the
// lease, a crash before the charge is retried (ok) and a crash after it
// charges again (duplicate). A retry after the record's expiry charges
// again (duplicate), as the utility documents.
package handler

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE idempotency (
    id           TEXT PRIMARY KEY,
    status       TEXT NOT NULL,
    expiration   TEXT NOT NULL,
    payload_hash TEXT NOT NULL
);
`

var (
	ErrAlreadyInProgress = errors.New("idempotency: an invocation with this key is already in progress")
	ErrPayloadMismatch   = errors.New("idempotency: the payload differs from the one saved under this key")
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	id := m.Tenant + "#" + m.Key
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%d", m.Account, m.Amount)))
	hash := hex.EncodeToString(sum[:])
	now := d.Now().UTC()
	stamp := func(t time.Time) string { return t.Format(time.RFC3339) }

	var status, expiration, saved string
	err := d.DB.QueryRowContext(ctx, `SELECT status, expiration, payload_hash FROM idempotency WHERE id = ?`, id).Scan(&status, &expiration, &saved)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := d.DB.ExecContext(ctx, `INSERT INTO idempotency (id, status, expiration, payload_hash) VALUES (?, 'INPROGRESS', ?, ?)`,
			id, stamp(now.Add(d.ProcessingTTL)), hash); err != nil {
			if handlers.IsUniqueViolation(err, "idempotency_pkey", "idempotency.id") {
				return ErrAlreadyInProgress
			}
			return err
		}
	case err != nil:
		return err
	case expiration > stamp(now) && status == "COMPLETED":
		if saved != hash {
			return ErrPayloadMismatch
		}
		d.Log("repeat of %s", id)
		return nil
	case expiration > stamp(now):
		return ErrAlreadyInProgress
	default: // expired: take it over
		res, err := d.DB.ExecContext(ctx, `UPDATE idempotency SET status = 'INPROGRESS', expiration = ?, payload_hash = ? WHERE id = ? AND expiration = ?`,
			stamp(now.Add(d.ProcessingTTL)), hash, id, expiration)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return ErrAlreadyInProgress
		}
	}
	d.Point(handlers.BeforeEffect)
	if _, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
		return err
	}
	d.Point(handlers.AfterEffect)
	_, err = d.DB.ExecContext(ctx, `UPDATE idempotency SET status = 'COMPLETED', expiration = ? WHERE id = ?`, stamp(now.Add(d.DoneTTL)), id)
	return err
}
