package handlers

import (
	"context"
	"fmt"
)

// uniqueSchema with a counter of the repeats each key has seen.
const uniqueSameTxSchema = `
CREATE TABLE transactions (
    id              INTEGER PRIMARY KEY,
    idempotency_key TEXT    NOT NULL,
    account         TEXT    NOT NULL,
    amount          INTEGER NOT NULL,
    repeats         INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT uq_transactions_idempotency_key UNIQUE (idempotency_key)
);
`

// UniqueSameTx is Unique with one mistake: after the duplicate-key error it
// goes on using the same transaction, to count the repeat.
//
// Whether that works depends on the database. SQLite fails only the
// statement: the transaction is still open, the UPDATE runs, the commit
// succeeds and the repeat is acked. PostgreSQL aborts the whole
// transaction on any error: every statement after it fails with SQLSTATE
// 25P02 ("current transaction is aborted, commands ignored until end of
// transaction block"), and its COMMIT is a ROLLBACK. So on PostgreSQL the
// UPDATE fails, the repeat is nacked, redelivered, fails the same way, and
// ends in the dead-letter queue: a poison message, like unique-error's,
// that a test suite run on SQLite never shows. After an error, roll back
// and start a new transaction (or use a SAVEPOINT); better still, write a
// statement that cannot fail on a repeat (unique-on-conflict).
func UniqueSameTx(ctx context.Context, d Deps, m Message) error {
	d.Point(Yield)
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	d.Point(BeforeEffect)
	_, err = tx.ExecContext(ctx,
		`INSERT INTO transactions (idempotency_key, account, amount) VALUES (?, ?, ?)`,
		m.Key, m.Account, m.Amount)
	if IsUniqueViolation(err, "uq_transactions_idempotency_key", "transactions.idempotency_key") {
		// The bug: this transaction has just had an error. SQLite lets
		// it go on; on PostgreSQL it is aborted, this UPDATE fails with
		// 25P02, and even a COMMIT would only roll it back.
		if _, err := tx.ExecContext(ctx,
			`UPDATE transactions SET repeats = repeats + 1 WHERE idempotency_key = ?`, m.Key); err != nil {
			return fmt.Errorf("count repeat of %s: %w", m.Key, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("commit repeat of %s: %w", m.Key, err)
		}
		d.Log("duplicate key %s: repeat counted, ack", m.Key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert transaction: %w", err)
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
