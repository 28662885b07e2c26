// Package handler is a corpus of the idioms handler files use, each a
// small function that returns a printable result. It is a handler file
// (it passes sandbox.Parse) and a Go package: TestInterpreterIsGo
// (sandbox/idioms_test.go) calls each function compiled, from this
// package, and interpreted, from this source through the sandbox's
// interpreter, and wants the same result. An idiom the interpreter
// cannot be made to run as Go does is not here but in
// testdata/divergent, and Parse refuses it: among them an error type of
// the file's own, so the errors here are sentinels and the standard
// library's.
package handler

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/redis/go-redis/v9"
)

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error { return nil }

// Sentinels, as handler files declare them.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = fmt.Errorf("conflict: %w", ErrNotFound)
)

func SentinelWrapped() string {
	err := fmt.Errorf("load order-1: %w", ErrNotFound)
	return fmt.Sprint(errors.Is(err, ErrNotFound), errors.Is(err, ErrConflict), errors.Is(ErrConflict, ErrNotFound),
		err == ErrNotFound, errors.Unwrap(err) == ErrNotFound, err)
}

func WrapTwice() string {
	a, b := errors.New("a"), errors.New("b")
	both := fmt.Errorf("%w and %w", a, b)
	joined := errors.Join(a, nil, b)
	return fmt.Sprint(errors.Is(both, a), errors.Is(both, b), errors.Unwrap(both) == nil, errors.Is(joined, b), joined.Error() == "a\nb", both)
}

func ErrorfWithoutWrap() string {
	err := fmt.Errorf("load: %v", ErrNotFound)
	return fmt.Sprint(errors.Is(err, ErrNotFound), err)
}

func AsStandardTypes() string {
	_, err := strconv.ParseInt("x1", 10, 64)
	err = fmt.Errorf("parse amount: %w", err)
	var num *strconv.NumError
	ok := errors.As(err, &num)
	var syn *json.SyntaxError
	okSyn := errors.As(fmt.Errorf("body: %w", json.Unmarshal([]byte("{"), &struct{}{})), &syn)
	return fmt.Sprint(ok, num.Func, okSyn, errors.As(err, &syn))
}

func SentinelIdentity() string {
	// Two errors.New of the same text are two errors.
	a, b := errors.New("x"), errors.New("x")
	same := ErrNotFound
	return fmt.Sprint(a == b, errors.Is(a, b), same == ErrNotFound, errors.Is(same, ErrNotFound))
}

func UnwrapChains() string {
	inner := fmt.Errorf("tx: %w", sql.ErrNoRows)
	outer := fmt.Errorf("handle: %w", inner)
	joined := errors.Join(outer, ErrConflict)
	return fmt.Sprint(errors.Is(outer, sql.ErrNoRows), errors.Unwrap(outer) == inner, errors.Unwrap(errors.Unwrap(inner)) == nil,
		errors.Is(joined, ErrNotFound), errors.Is(joined, sql.ErrNoRows), outer)
}

func TypeSwitchOnErrors() string {
	_, numErr := strconv.Atoi("x")
	synErr := json.Unmarshal([]byte("{"), &struct{}{})
	var out []string
	for _, err := range []error{nil, numErr, synErr, ErrNotFound, fmt.Errorf("w: %w", ErrNotFound)} {
		switch e := err.(type) {
		case nil:
			out = append(out, "nil")
		case *strconv.NumError:
			out = append(out, "num "+e.Func)
		case *json.SyntaxError:
			out = append(out, "syntax "+strconv.FormatInt(e.Offset, 10))
		default:
			out = append(out, "other "+e.Error())
		}
	}
	return strings.Join(out, "; ")
}

func NilErrorInterface() string {
	// A nil *strconv.NumError in an error is not a nil error.
	var nf *strconv.NumError
	var err error = nf
	var none error
	return fmt.Sprint(err == nil, none == nil, nf == nil)
}

func StandardSentinels() string {
	_, err := strconv.Atoi("12a")
	var num *strconv.NumError
	as := errors.As(err, &num)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return fmt.Sprint(errors.Is(err, strconv.ErrSyntax), as, num.Func, num.Num,
		errors.Is(fmt.Errorf("get: %w", redis.Nil), redis.Nil), fmt.Errorf("q: %w", sql.ErrNoRows) != sql.ErrNoRows,
		ctx.Err() == context.Canceled, errors.Is(ctx.Err(), context.Canceled))
}

func ErrorsInFmt() string {
	err := fmt.Errorf("load %q: %w", "k", ErrNotFound)
	return fmt.Sprintf("%v|%s|%q|%v|%+v", err, err, ErrNotFound, fmt.Errorf("x: %w", err), []error{ErrNotFound, nil})
}

// state is an enum with a method naming each value (a String method is
// refused: fmt would not call it in the interpreter).
type state int

const (
	pending state = iota
	processing
	done
)

func (s state) Name() string {
	switch s {
	case pending:
		return "pending"
	case processing:
		return "processing"
	case done:
		return "done"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

func EnumNames() string {
	return fmt.Sprintf("%v %s %d %v", processing.Name(), done.Name(), done, state(9).Name())
}

func Closures() string {
	counter := func() func() int {
		n := 0
		return func() int {
			n++
			return n
		}
	}
	next := counter()
	next()
	next()
	other := counter()
	return fmt.Sprint(next(), other())
}

func LoopVariablesPerIteration() string {
	// Since Go 1.22 each iteration has its own variable: 0 1 2, not 3 3 3.
	var fns []func() int
	for i := 0; i < 3; i++ {
		fns = append(fns, func() int { return i })
	}
	var keys []func() string
	for _, k := range []string{"a", "b", "c"} {
		keys = append(keys, func() string { return k })
	}
	var out []string
	for j := range fns {
		out = append(out, strconv.Itoa(fns[j]())+keys[j]())
	}
	return strings.Join(out, " ")
}

func LoopVariableAddresses() string {
	// Since Go 1.22 each iteration's variable has its own address.
	var ps []*int
	for i := 0; i < 3; i++ {
		ps = append(ps, &i)
	}
	var qs []*string
	for _, s := range []string{"a", "b"} {
		qs = append(qs, &s)
	}
	return fmt.Sprint(*ps[0], *ps[1], *ps[2], ps[0] == ps[1], *qs[0], *qs[1])
}

func LoopVariableChangedInBody() string {
	// The body's change carries to the next iteration: 0, then 2 skipped to 3.
	var out []string
	for i := 0; i < 5; i++ {
		out = append(out, strconv.Itoa(i))
		if i == 1 {
			i++
		}
	}
	return strings.Join(out, ",")
}

func DeferOrder() (s string) {
	var out []string
	func() {
		defer func() { out = append(out, "first deferred, last run") }()
		x := 1
		defer func() { out = append(out, "x="+strconv.Itoa(x)) }() // a closure reads x when it runs
		x = 2
		defer note("constant") // a deferred call with a constant argument
	}()
	defer func() { s += "|named result changed by defer" }()
	return strings.Join(out, ",")
}

func note(s string) string { return s }

func recoverToError(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	f()
	return nil
}

func DeferRecover() string {
	e1 := recoverToError(func() { panic("boom") })
	e2 := recoverToError(func() { panic(ErrNotFound) })
	e3 := recoverToError(func() {
		var m map[string]int
		m["x"] = 1
	})
	e4 := recoverToError(func() {})
	return fmt.Sprint(e1, "|", e2, "|", strings.Contains(e3.Error(), "nil map"), "|", e4)
}

// account has methods with both receivers.
type account struct {
	ID      string
	Balance int64
}

func (a account) Credited(n int64) account { a.Balance += n; return a }
func (a *account) Credit(n int64)          { a.Balance += n }

func Receivers() string {
	a := account{ID: "alice"}
	b := a.Credited(5) // a value receiver works on a copy
	a.Credit(10)       // a pointer receiver on a itself
	credit := a.Credit // a method value binds &a
	credit(1)
	p := &a
	p.Credit(100)
	viaFunc := func(acc *account, n int64) { acc.Credit(n) }
	viaFunc(&b, 1000)
	return fmt.Sprintf("%d %d %v %+v", a.Balance, b.Balance, a, &b)
}

// key is a struct used as a map key: a tenant and a message key.
type key struct{ Tenant, ID string }

type entry struct {
	Amount int64
	Seen   int
}

func MapsOfStructs() string {
	seen := map[key]entry{}
	for _, m := range []struct {
		k key
		n int64
	}{{key{"t1", "a"}, 10}, {key{"t2", "a"}, 20}, {key{"t1", "a"}, 10}} {
		e := seen[m.k] // a map's struct value is a copy: change it and store it back
		e.Amount = m.n
		e.Seen++
		seen[m.k] = e
	}
	ptrs := map[string]*entry{"x": {Amount: 1}}
	ptrs["x"].Seen = 5
	_, missing := seen[key{"t3", "a"}]
	return fmt.Sprint(len(seen), seen[key{"t1", "a"}], seen[key{"t2", "a"}], missing, *ptrs["x"], key{"a", "b"} == key{"a", "b"})
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func MapIterationSorted() string {
	// A handler sorts a map's keys for a deterministic fingerprint
	// (sort is not an allowed import: by hand, or through encoding/json,
	// which sorts a map's keys).
	m := map[string]int{"b": 2, "c": 3, "a": 1}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sortStrings(ks)
	j, err := json.Marshal(m)
	return fmt.Sprint(ks, string(j), err)
}

func Slices() string {
	a := make([]int, 3, 10)
	b := append(a, 4) // shares a's array
	c := append(a[:3:3], 5)
	b[0] = 9
	var nilSlice []string
	empty := []string{}
	cp := make([]int, 2)
	n := copy(cp, b)
	return fmt.Sprint(a, b, c, nilSlice == nil, empty == nil, len(nilSlice), n, cp, b[1:3], cap(b[2:]))
}

func StringsAndStrconv() string {
	var sb strings.Builder
	for i, f := range strings.Fields("  pay  refund pay ") {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strings.ToUpper(f))
	}
	before, after, found := strings.Cut("tenant-1:order-7", ":")
	n, err := strconv.ParseInt("-42", 10, 64)
	_, rangeErr := strconv.ParseInt("99999999999999999999", 10, 64)
	u, _ := strconv.Unquote(`"k-1"`)
	runes := 0
	for range "dédup" {
		runes++
	}
	return fmt.Sprint(sb.String(), before, after, found, n, err, errors.Is(rangeErr, strconv.ErrRange),
		strconv.Quote("a\"b"), u, strings.TrimPrefix("idem:pay-1", "idem:"), strings.Repeat("ab", 2),
		strings.EqualFold("Pay", "PAY"), runes, len("dédup"), strconv.FormatFloat(1.5, 'f', 2, 64))
}

// payload has json tags, as a handler stores a message.
type payload struct {
	Account string `json:"account"`
	Amount  int64  `json:"amount,omitempty"`
	Note    string `json:"-"`
	inner   int
}

func JSONAndHash() string {
	b, err := json.Marshal(payload{Account: "alice", Amount: 100, Note: "x", inner: 1})
	var back payload
	err2 := json.Unmarshal([]byte(`{"account":"bob","amount":7}`), &back)
	sum := sha256.Sum256(b)
	var anyv map[string]any
	_ = json.Unmarshal(b, &anyv)
	return fmt.Sprint(string(b), err, back, err2, hex.EncodeToString(sum[:8]), anyv["amount"])
}

func Time() string {
	t0 := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	lease := 90 * time.Second
	expires := t0.Add(lease)
	later := t0.Add(2 * time.Minute)
	d, err := time.ParseDuration("1h30m")
	return fmt.Sprint(expires.Format(time.RFC3339), later.After(expires), later.Sub(expires), lease, d, err, t0.Unix(),
		expires.Before(later), t0.Add(24*time.Hour).Format("2006-01-02"))
}

// store is an interface the file declares, implemented by its own type.
type store interface {
	Get(k string) (string, bool)
}

type memStore struct{ m map[string]string }

func (s memStore) Get(k string) (string, bool) { v, ok := s.m[k]; return v, ok }

type countingStore struct {
	store // embedded: its methods are promoted
	hits  int
}

func (c *countingStore) Get(k string) (string, bool) {
	c.hits++
	return c.store.Get(k)
}

func InterfacesAndEmbedding() string {
	var s store = &countingStore{store: memStore{m: map[string]string{"a": "1"}}}
	v, ok := s.Get("a")
	_, ok2 := s.Get("b")
	cs, isCounting := s.(*countingStore)
	_, isMem := s.(memStore)
	return fmt.Sprint(v, ok, ok2, isCounting, cs.hits, isMem)
}

func FunctionValues() string {
	// "fail" has a parameter without a name.
	steps := map[string]func(int64) (int64, error){
		"double": func(n int64) (int64, error) { return 2 * n, nil },
		"fail":   func(int64) (int64, error) { return 0, fmt.Errorf("step: %w", ErrNotFound) },
	}
	sum := func(xs ...int64) (t int64) {
		for _, x := range xs {
			t += x
		}
		return
	}
	d, err := steps["double"](21)
	_, err2 := steps["fail"](1)
	return fmt.Sprint(d, err, err2, sum(), sum(1, 2, 3), sum([]int64{4, 5}...))
}

func Labels() string {
	var out []string
outer:
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			switch {
			case j == 1:
				continue outer
			case i == 2:
				break outer
			}
			out = append(out, strconv.Itoa(i)+strconv.Itoa(j))
		}
	}
	switch x := 1; x {
	case 1:
		out = append(out, "one")
		fallthrough
	case 2:
		out = append(out, "two")
	}
	return strings.Join(out, " ")
}

func Shadowing() string {
	err := errors.New("outer")
	if _, err := strconv.Atoi("x"); err != nil {
		_ = err // the if's own err
	}
	x := 1
	{
		x := 2
		x++
	}
	return fmt.Sprint(err, x)
}

// ctxKey is a context key type of the file's own.
type ctxKey struct{}

func ContextValues() string {
	ctx := context.WithValue(context.Background(), ctxKey{}, "tenant-1")
	ctx, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	v, ok := ctx.Value(ctxKey{}).(string)
	_, deadline := ctx.Deadline()
	return fmt.Sprint(v, ok, ctx.Value("other") == nil, deadline, ctx.Err())
}

func AnonymousStructsAndArrays() string {
	p := struct {
		Key    string
		Amount int64
	}{"a", 10}
	q := p
	q.Amount = 20
	arr := [3]int{1, 2, 3}
	arr2 := arr
	arr2[0] = 9
	return fmt.Sprint(p, q, p == q, arr, arr2, arr == [3]int{1, 2, 3})
}

func Generics() string {
	return fmt.Sprint(keysOf(map[string]int{"b": 1, "a": 2}), firstOr([]string{}, "none"), firstOr([]int{7}, 0))
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

func firstOr[T any](s []T, def T) T {
	if len(s) == 0 {
		return def
	}
	return s[0]
}

func MethodValues() string {
	// A method value of a pointer receiver binds the pointer.
	p := &account{ID: "p"}
	credit := p.Credit
	credit(5)
	a := account{ID: "a", Balance: 1}
	credited := func(n int64) account { return a.Credited(n) } // reads a at the call
	a.Balance = 100
	return fmt.Sprint(p.Balance, credited(1).Balance)
}

func AssignmentsAndArithmetic() string {
	a, b := 1, 2
	a, b = b, a
	xs := []int{1, 2, 3}
	xs[0], xs[2] = xs[2], xs[0]
	var small int8 = 127
	small++
	big := int64(1) << 40
	return fmt.Sprint(a, b, xs, small, int32(big), -7/2, -7%2, 7>>1, fmt.Sprintf("%5.2f|%x|%08b|%-4s|%+d", 3.14159, 255, 5, "ab", 3))
}

func namedResults(n int) (doubled int, err error) {
	if n < 0 {
		err = fmt.Errorf("negative: %d", n)
		return
	}
	doubled = 2 * n
	return
}

func NamedResults() string {
	d, err := namedResults(4)
	_, err2 := namedResults(-1)
	return fmt.Sprint(d, err, err2)
}

func appendTo(xs []string, s string) []string { return append(xs, s) }

func grow(xs []string) { xs[0] = "changed" }

func SlicesThroughFunctions() string {
	xs := make([]string, 1, 4)
	ys := appendTo(xs, "y")
	zs := appendTo(xs, "z") // the same array: ys[1] becomes z
	grow(xs)
	return fmt.Sprint(xs, ys, zs, len(xs))
}

func SwitchForms() string {
	var out []string
	for _, s := range []string{"pay", "refund", "other", ""} {
		switch s {
		case "pay", "refund":
			out = append(out, "money")
		case "":
			out = append(out, "empty")
		default:
			out = append(out, "?")
		}
	}
	n := 42
	switch {
	case n > 100:
		out = append(out, "big")
	case n > 10:
		out = append(out, "medium")
	}
	return strings.Join(out, ",")
}

func Channels() string {
	ch := make(chan int, 3)
	done := make(chan struct{})
	go func() {
		for i := 1; i <= 3; i++ {
			ch <- i
		}
		close(ch)
	}()
	sum := 0
	go func() {
		for v := range ch {
			sum += v
		}
		close(done)
	}()
	<-done
	_, open := <-ch
	return fmt.Sprint(sum, open)
}

func ClosuresOverStructs() string {
	acc := &account{ID: "c"}
	add := func(n int64) { acc.Balance += n }
	add(3)
	add(4)
	byKey := map[string]*account{}
	for _, id := range []string{"x", "y"} {
		byKey[id] = &account{ID: id}
	}
	byKey["x"].Credit(7)
	return fmt.Sprint(acc.Balance, byKey["x"].Balance, byKey["y"].Balance, byKey["x"].ID)
}
