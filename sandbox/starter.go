package sandbox

// Starter is the file the lab's editor opens with: the naive handler,
// which credits every delivery, written as a handler file, for a person
// to make safe.
const Starter = `package handler

import (
	"context"
	"fmt"

	"github.com/idempotency-lab/lab/handlers"
)

// Schema: the tables this handler needs besides accounts and orders
// (optional). For example:
//
//	const Schema = ` + "`CREATE TABLE processed (key TEXT PRIMARY KEY);`" + `

// Handle credits the account every time the message arrives: a redelivery
// credits it again. Make it safe.
func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	d.Point(handlers.BeforeEffect) // a named crash point (optional: the lab can crash at any call)
	res, err := d.DB.ExecContext(ctx,
		"UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("account %s: %d rows updated, want 1", m.Account, n)
	}
	d.Point(handlers.AfterEffect)
	return nil
}
`
