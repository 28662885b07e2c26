// Package sim is the lab's engine: a simulated at-least-once broker, a
// clock, a payment gateway and an oracle, driving real handlers (package
// handlers) on real data stores, one world per handler, step by step as a
// script says.
//
// A run starts from a script (Parse; the language is in script.go, with
// the API side's requests in api_script.go, the producer's in
// producer.go, orderings in ordering.go and batches in batch.go) and
// returns a Result per handler: its trace, the balances the oracle
// counted and a Verdict (verdict.go has the words for each).
//
// Where things happen:
//   - run.go: Run, the loop over steps, settlement and the oracle's
//     verdict;
//   - world.go, worlds.go: one handler's world (its database, Redis,
//     broker and gateway), and the embedded worlds a search reuses;
//   - broker.go, profile.go: the model broker and the broker profiles
//     (broker: lab|sqs|sqs-fifo|rabbitmq|nats|kafka) that set its
//     semantics;
//   - engine.go, block.go: the real engine (PostgreSQL and Redis servers)
//     and two workers blocking on PostgreSQL; differences.go lists where
//     the two engines may disagree;
//   - calls.go, dies.go: crashing a worker at any call;
//   - api.go, api_retry.go, api_complete.go: the API side (an
//     Idempotency-Key server and its clients);
//   - record.go, guard.go: the SQL recorder behind the trace and the guards
//     that keep a handler inside its world;
//   - trace.go, storage.go, budget.go: what a run reports, what a handler
//     keeps, and the bound on a run's work;
//   - presets.go: the shipped scenarios (presets/).
//
// A run depends only on its script: the clock is simulated and every
// random choice is seeded from it, so the same script gives byte-identical
// output.
package sim
