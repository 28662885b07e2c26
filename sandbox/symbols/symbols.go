// Package symbols holds the yaegi symbol tables of the packages a person's
// handler file may import: go-redis and the lab's handlers package,
// generated (make symbols) by yaegi's extract tool at the version pinned
// in go.mod, and the allowed packages of the standard library
// (stdlib_*.go), copies of yaegi's own stdlib/go1_22_*.go at that version
// (TestStdlibIsYaegis holds them to it). The copies, not yaegi's stdlib
// package, keep the sandbox child lean (#30): that package links and
// initialises the whole standard library's table (net/http/httptest,
// net/rpc, encoding/gob, testing/slogtest, …) for the ten packages a
// handler may import. sandbox filters what a handler may reach.
package symbols

import "reflect"

// Symbols maps an import path (with its package name: "path/name") to its
// exported names.
var Symbols = map[string]map[string]reflect.Value{}

//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract -include ^Client$,^Cmd$,^Cmder$,^StatusCmd$,^StringCmd$,^BoolCmd$,^IntCmd$,^FloatCmd$,^SliceCmd$,^StringSliceCmd$,^IntSliceCmd$,^BoolSliceCmd$,^MapStringStringCmd$,^DurationCmd$,^Pipeliner$,^Tx$,^Script$,^Scripter$,^Nil$,^TxFailedErr$,^NewScript$,^Z$,^SetArgs$,^KeepTTL$,^Error$,^HasErrorPrefix$ github.com/redis/go-redis/v9
//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract -include ^Deps$,^Message$,^Gateway$,^Func$,^BeforeEffect$,^AfterEffect$,^Yield$,^BaseSchema$,^IsUniqueViolation$,^APIRequest$,^APIResponse$,^APIFunc$,^Fingerprint$,^Payment$,^Problem$,^KindPayment$,^KindRefund$ github.com/idempotency-lab/lab/handlers
