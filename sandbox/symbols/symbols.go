// Package symbols holds the yaegi symbol tables of the packages a person's
// handler file may import beyond the standard library: go-redis and the
// lab's handlers package. The files are generated (make symbols) by
// yaegi's extract tool at the version pinned in go.mod; sandbox filters
// what a handler may reach.
package symbols

import "reflect"

// Symbols maps an import path (with its package name: "path/name") to its
// exported names.
var Symbols = map[string]map[string]reflect.Value{}

//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract -include ^Client$,^Cmd$,^Cmder$,^StatusCmd$,^StringCmd$,^BoolCmd$,^IntCmd$,^FloatCmd$,^SliceCmd$,^StringSliceCmd$,^IntSliceCmd$,^BoolSliceCmd$,^MapStringStringCmd$,^DurationCmd$,^Pipeliner$,^Tx$,^Script$,^Scripter$,^Nil$,^TxFailedErr$,^NewScript$,^Z$,^SetArgs$,^KeepTTL$,^Error$,^HasErrorPrefix$ github.com/redis/go-redis/v9
//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract -include ^Deps$,^Message$,^Gateway$,^Func$,^BeforeEffect$,^AfterEffect$,^Yield$,^BaseSchema$,^IsUniqueViolation$,^APIRequest$,^APIResponse$,^APIFunc$,^Fingerprint$,^Payment$,^Problem$,^KindPayment$,^KindRefund$ github.com/idempotency-lab/lab/handlers
