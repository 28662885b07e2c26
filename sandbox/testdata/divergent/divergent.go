// Package handler holds the idioms the lab's interpreter runs otherwise
// than Go, each a small function with a printable result. Parse refuses
// each construct in a handler file (sandbox/divergence.go);
// TestRefusedIdiomsStillDiverge runs them compiled and interpreted
// (past Parse) and fails once they agree: the refusal may then go.
package handler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// errCode is an error type of named string type, with constants.
type errCode string

func (e errCode) Error() string { return string(e) }

const ErrBusy errCode = "busy"

func NamedStringConstant() string {
	// Go: true true true. The interpreter: a constant is not equal to itself.
	var err error = ErrBusy
	return fmt.Sprint(errors.Is(err, ErrBusy), err == ErrBusy, errors.Is(fmt.Errorf("w: %w", ErrBusy), ErrBusy))
}

// notFound is an error type with a pointer receiver.
type notFound struct{ key string }

func (e *notFound) Error() string { return "no record " + e.key }

func ErrorsAsOwnType() (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprint("panic: ", r)
		}
	}()
	var nf *notFound
	ok := errors.As(fmt.Errorf("load: %w", &notFound{"k"}), &nf)
	return fmt.Sprint(ok, nf != nil)
}

func TypeSwitchOwnType() string {
	for _, err := range []error{&notFound{"k"}} {
		switch err.(type) {
		case *notFound:
			return "not found"
		}
	}
	return "other"
}

// state prints itself.
type state int

func (s state) String() string { return "state-" + strconv.Itoa(int(s)) }

func StringerThroughFmt() string { return fmt.Sprint(state(2)) }

// amount encodes itself.
type amount int64

func (a amount) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(a), 10) + ` cents"`), nil
}

func MarshalJSONMethod() string {
	b, err := json.Marshal(struct{ A amount }{5})
	return fmt.Sprint(string(b), err)
}

type counter struct{ n int }

func (c *counter) Add(k int) { c.n += k }

func MethodExpression() (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprint("panic: ", r)
		}
	}()
	var c counter
	add := (*counter).Add
	add(&c, 3)
	return strconv.Itoa(c.n)
}

func DeferArgument() string {
	var out []string
	func() {
		x := 1
		defer func(v int) { out = append(out, strconv.Itoa(v)) }(x) // Go reads x here: 1
		x = 2
	}()
	return strings.Join(out, ",")
}

func DeferInLoop() string {
	var out []string
	func() {
		for _, k := range []string{"a", "b", "c"} {
			defer func() { out = append(out, k) }()
		}
	}()
	return strings.Join(out, ",")
}

type timeouter interface{ Timeout() bool }

func AssertToOwnInterface() string {
	var err error = context.DeadlineExceeded
	t, ok := err.(timeouter)
	return fmt.Sprint(ok, ok && t.Timeout())
}

func ErrorsAsOwnInterface() (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprint("panic: ", r)
		}
	}()
	var t timeouter
	return fmt.Sprint(errors.As(fmt.Errorf("w: %w", context.DeadlineExceeded), &t))
}

func RecoveredValue() (s string) {
	defer func() {
		r := recover()
		msg, ok := r.(string)
		s = fmt.Sprint(ok, msg, r == "boom")
	}()
	panic("boom")
}

type wallet struct{ balance int64 }

func (w wallet) plus(n int64) int64 { return w.balance + n }

func MethodValueOfValueReceiver() string {
	// Go copies w when the method value is made: 1+1 = 2.
	w := wallet{balance: 1}
	plus := w.plus
	w.balance = 100
	return strconv.FormatInt(plus(1), 10)
}

func LoopVariableChangedAndCaptured() string {
	// Go 1.22: each iteration's own i (1, then 3); yaegi shares one.
	var fs []func() int
	for i := 0; i < 4; i++ {
		i++
		fs = append(fs, func() int { return i })
	}
	return fmt.Sprint(fs[0](), fs[1]())
}
