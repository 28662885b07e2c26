// Package sim is the lab's engine: a simulated at-least-once broker, a
// clock, a payment gateway and an oracle, driving real handlers (package
// handlers) on real data stores, one world per handler, step by step as a
// script says.
//
// A run starts from a script (a script.Script: the language, its parser
// and its canonical writer are package script, which this package
// imports) and returns a Result per handler: its trace, the balances the
// oracle counted and a Verdict (verdict.go has the words for each).
//
// Where things happen:
//   - run.go: Run, the loop over steps, settlement and the oracle's
//     verdict;
//   - world.go, worlds.go: one handler's world (its database, Redis,
//     broker and gateway), and the embedded worlds a search reuses;
//   - broker.go: the model broker, whose semantics the script's broker
//     profile sets (script.BrokerProfile);
//   - engine.go, block.go: the real engine (PostgreSQL and Redis servers)
//     and two workers blocking on PostgreSQL; differences.go lists where
//     the two engines may disagree;
//   - calls.go, dies.go: crashing a worker at any call;
//   - api.go, api_retry.go, api_complete.go: the API side (an
//     Idempotency-Key server and its clients, retrying as the script's
//     client-retry: says);
//   - producer.go, ordering.go, batch.go: the order service and its
//     outbox relay, messages out of order and refunds, and a consumer's
//     batches and offsets;
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
