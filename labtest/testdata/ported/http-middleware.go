// http-middleware is an HTTP idempotency middleware in its common shape:
// it keys the saved response by the Idempotency-Key header's raw value,
// replays a saved response for a key it has seen, and otherwise lets the
// request through and saves what it answered.
//
// What its design predicts: the key is not scoped to the caller, so
// another tenant sending the same key gets the first tenant's saved 201
// and is never charged; the key is not parsed, so "k" and k are two keys
// and the same payment is charged twice.
package handler

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

const Schema = `
CREATE TABLE saved_responses (
    header_key TEXT PRIMARY KEY,
    status     INTEGER NOT NULL,
    body       TEXT NOT NULL
);
`

func Handle(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse {
	if r.Header == "" {
		return handlers.APIResponse{Status: 400, Body: `{"title":"Idempotency-Key required"}`}
	}
	var saved handlers.APIResponse
	err := d.DB.QueryRowContext(ctx, `SELECT status, body FROM saved_responses WHERE header_key = ?`, r.Header).Scan(&saved.Status, &saved.Body)
	switch {
	case err == nil:
		saved.Replayed = true
		return saved
	case !errors.Is(err, sql.ErrNoRows):
		return handlers.APIResponse{Status: 500, Body: `{"title":"Internal error"}`}
	}
	resp := charge(ctx, d, r)
	if resp.Status == 201 {
		if _, err := d.DB.ExecContext(ctx, `INSERT INTO saved_responses (header_key, status, body) VALUES (?, ?, ?)`, r.Header, resp.Status, resp.Body); err != nil {
			return handlers.APIResponse{Status: 500, Body: `{"title":"Internal error"}`}
		}
	}
	return resp
}

func charge(ctx context.Context, d handlers.Deps, r handlers.APIRequest) handlers.APIResponse {
	if err := d.Gateway.Charge(ctx, r.Account, r.Amount, r.Tenant+"/"+r.Key); err != nil {
		return handlers.APIResponse{Status: 502, Body: `{"title":"Payment provider failed"}`}
	}
	return handlers.APIResponse{Status: 201, Body: fmt.Sprintf(`{"account":%q,"amount":%d}`, r.Account, r.Amount)}
}
