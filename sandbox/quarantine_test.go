package sandbox_test

import (
	"context"
	"testing"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
)

// TestFileCallsQuarantine: a handler file reaches d.Quarantine through
// the interpreter's symbols, and the oracle counts the message it sets
// aside: a changed payload acked that way is no silent conflict.
func TestFileCallsQuarantine(t *testing.T) {
	const code = "package handler\n\nimport (\n\t\"context\"\n\t\"database/sql\"\n\t\"errors\"\n\n\t\"github.com/idempotency-lab/lab/handlers\"\n)\n\n" +
		"const Schema = `CREATE TABLE received (msg_key TEXT PRIMARY KEY, amount INTEGER NOT NULL);`\n\n" +
		`func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	var amount int64
	err := d.DB.QueryRowContext(ctx, "SELECT amount FROM received WHERE msg_key = ?", m.Key).Scan(&amount)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		tx, err := d.DB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "INSERT INTO received (msg_key, amount) VALUES (?, ?)", m.Key, m.Amount); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account); err != nil {
			return err
		}
		return tx.Commit()
	case err != nil:
		return err
	case amount != m.Amount:
		d.Quarantine("the amount changed under the key")
	}
	return nil
}
`
	resp, err := runner(sandbox.Limits{}).Run(context.Background(), sandbox.Request{Op: "run", Name: "yours", Code: code,
		Script: "publish a amount=100\ndeliver\nchange-payload a amount=150\ndeliver\n"})
	if err != nil || resp.Error != nil {
		t.Fatalf("%v %+v", err, resp.Error)
	}
	res := resp.Run.Unwire()
	if res.Verdict != sim.OK || res.Quarantined != 1 {
		t.Errorf("verdict %s (%s), %d quarantined; want ok, 1", res.Verdict, res.Reason, res.Quarantined)
	}
	found := false
	for _, e := range res.Trace[3].Events {
		found = found || e.Kind == sim.KindQuarantine
	}
	if !found {
		t.Errorf("no quarantine event in the fourth step: %+v", res.Trace[3].Events)
	}
}
