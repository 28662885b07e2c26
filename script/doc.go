// Package script is the lab's script language apart from the engine: it
// reads a scenario (Parse) into a Script of Steps, writes one back in
// canonical form (Script.String, Step.String; parsing the result gives
// the same script), and holds the language's words: its verbs, key
// modes, crash points, limits and defaults, and the broker profiles its
// broker: header names. The engine (package sim) runs a Script and
// imports this package; a package that only reads or writes scripts
// needs no engine.
//
// Every error is an *Error: the line it is on and a narration.Text, a key
// and its arguments; package narration (narration/script.go) has its
// words in English and Russian, and this package writes none.
//
// Where things are:
//   - script.go: Script, Step, Parse and the broker side's verbs (publish,
//     retry, change-payload, deliver, redeliver, deliver-concurrent,
//     dlq-replay, advance, gateway, ship, drain), the headers, the limits,
//     Error, and the canonical writer;
//   - api.go: the API side's verbs (request, request-concurrent, retry of
//     a request, complete), and why a script tells one side only;
//   - retry.go: the client-retry: and server-capacity: headers
//     (ClientRetry);
//   - producer.go: produce and relay, the producer's modes (dual-write,
//     publish-first, outbox);
//   - ordering.go: refunds (kind=refund order=) and deliver OP;
//   - batch.go: deliver-batch, its commit modes and crash points;
//   - profile.go: the broker profiles (broker: lab|sqs|sqs-fifo|rabbitmq|
//     nats|kafka) and the numbers each sets.
package script
