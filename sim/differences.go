package sim

// EngineDifferences are the handlers whose outcome may differ between the
// embedded engine (SQLite) and a real one (PostgreSQL), and why: `lab
// conform` accepts a difference only on these. Every other handler must
// reach the same verdict and balance on both engines, on every preset.
var EngineDifferences = map[string]string{
	"unique-same-tx": "after an error inside a transaction, PostgreSQL fails every later statement with 25P02 " +
		"(\"current transaction is aborted\") until ROLLBACK, and SQLite carries on: the repeat SQLite records " +
		"and acks is nacked on PostgreSQL until the dead-letter queue",
	"redelivered-flag": "a worker paused inside its transaction (paused-worker's switch=2 comes right after its BEGIN): " +
		"on PostgreSQL the BEGIN holds no lock, so the second worker commits first, and the paused first delivery " +
		"(redelivered=false, so it checks nothing) then credits again; on SQLite the engine runs a worker in a " +
		"transaction to its end before the switch (SQLite's one write lock would make the other wait), so they never overlap",
}

// Difference is one preset and handler whose runs differ between engines.
type Difference struct {
	Preset, Handler string
	Embedded, Real  Result
	Documented      bool
	Why             string // the documented reason, if any
}

// Differ reports whether two runs of a handler disagree on what the oracle
// judges: the verdict or a balance.
func Differ(a, b Result) bool {
	return a.Verdict != b.Verdict || a.Settled != b.Settled || a.Balance != b.Balance || a.Expected != b.Expected
}
