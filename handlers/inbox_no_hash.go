package handlers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

const inboxNoHashSchema = `
CREATE TABLE inbox (
    tenant       TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    response     TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (tenant, operation_id)
);
`

// InboxNoHash is Inbox without the payload hash: a known (tenant,
// operation) is answered with the saved response, whatever it carries.
//
// Still survives crashes and duplicates, since the inbox row and the credit
// commit together. It fails on a conflict: a repeat of an operation id with
// a different amount is acked as a success and its amount is never
// applied, and nobody is told. The producer believes it was credited.
func InboxNoHash(ctx context.Context, d Deps, m Message) error {
	d.Point(Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	var response string
	err = tx.QueryRowContext(ctx,
		`SELECT response FROM inbox WHERE tenant = ? AND operation_id = ?`,
		m.Tenant, m.Key).Scan(&response)
	if err == nil {
		// The bug: nothing checks that this is the same request.
		d.Log("repeat of %s/%s: replaying saved response %q", m.Tenant, m.Key, response)
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read inbox: %w", err)
	}

	d.Point(BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO inbox (tenant, operation_id, response, created_at) VALUES (?, ?, ?, ?)`,
		m.Tenant, m.Key, fmt.Sprintf("credited %d to %s", m.Amount, m.Account),
		d.Now().Format(time.RFC3339))
	if err != nil {
		return fmt.Errorf("insert inbox: %w", err)
	}
	if err := credit(ctx, tx, m.Account, m.Amount); err != nil {
		return fmt.Errorf("credit %s: %w", m.Account, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	d.Point(AfterEffect)
	return nil
}
