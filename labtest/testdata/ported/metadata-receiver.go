// metadata-receiver is an idempotent receiver over a metadata store, in
// the shape integration frameworks give it: before the message goes on
// to the service, putIfAbsent(key, payload) on the store; a key already
// there marks the message a duplicate, which is discarded. When the
// service fails, the key is removed so that the retry goes through. The
// key is the message's key as the header carries it, without the tenant.
//
// What its design predicts: the removal runs on a returned error, not on
// a dead worker, so a crash between the put and the credit leaves the key
// and the redelivery is discarded (lost); another tenant's message with
// the same key is discarded (lost); another payload under the key is
// discarded without a trace (silent conflict). A crash after the credit
// is harmless: the redelivery is discarded.
package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE metadata_store (
    metadata_key   TEXT PRIMARY KEY,
    metadata_value TEXT NOT NULL
);
`

// putIfAbsent stores value under key unless the key is there, and says
// whether it stored it.
func putIfAbsent(ctx context.Context, d handlers.Deps, key, value string) (bool, error) {
	res, err := d.DB.ExecContext(ctx, `INSERT INTO metadata_store (metadata_key, metadata_value) VALUES (?, ?) ON CONFLICT (metadata_key) DO NOTHING`, key, value)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func remove(ctx context.Context, d handlers.Deps, key string) error {
	_, err := d.DB.ExecContext(ctx, `DELETE FROM metadata_store WHERE metadata_key = ?`, key)
	return err
}

func service(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.BeforeEffect)
	_, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account)
	return err
}

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	stored, err := putIfAbsent(ctx, d, m.Key, fmt.Sprintf("%s:%d", m.Account, m.Amount))
	if err != nil {
		return err
	}
	if !stored {
		d.Log("discarded %s: a duplicate", m.Key)
		return nil
	}
	if err := service(ctx, d, m); err != nil {
		if rerr := remove(ctx, d, m.Key); rerr != nil {
			return fmt.Errorf("%w (and the key stays: %v)", err, rerr)
		}
		return err
	}
	return nil
}
