package tryapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits of a payment request, each named in the error that enforces it.
const (
	// MaxBody is the most bytes a payment's body may have: its JSON is
	// some 40 bytes. Larger: 413.
	MaxBody = 4 << 10
	// MaxAmount is the largest amount, in minor units: 1,000,000.00.
	MaxAmount = 100_000_000
	// MaxKeyLen is the longest Idempotency-Key, Stripe's limit.
	MaxKeyLen = 255
	// MaxDelay bounds Lab-Gateway-Delay.
	MaxDelay = 5 * time.Second
)

var (
	// ledgerName: what a person may call a ledger; it is in URLs and
	// is the tenant of the ledger's requests.
	ledgerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]{1,40}$`) })
	// accountName: an account, as in "acc-1".
	accountName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`) })
)

// FieldError is one thing wrong in a request, by the field (a body
// member) or header that holds it.
type FieldError struct {
	Field  string `json:"field"`
	In     string `json:"in"` // "body" or "header"
	Detail string `json:"detail"`
}

// Payment is a payment request's body, decoded and valid.
type Payment struct {
	Account string
	Amount  int64
}

// DecodePayment reads a payment's body: one JSON object with exactly the
// members "account" (1–40 letters, digits, '-' or '_') and "amount" (a
// JSON integer from 1 to MaxAmount), nothing else. It never fails
// silently: every problem it finds is a FieldError, those of the members
// first, in the order of the members' names. Member names match exactly
// (encoding/json would take "Amount" for "amount"), so the check is done
// here rather than with DisallowUnknownFields.
func DecodePayment(body []byte) (Payment, []FieldError) {
	if len(bytes.TrimSpace(body)) == 0 {
		return Payment{}, []FieldError{{In: "body", Detail: `the body is empty: send a JSON object such as {"account": "acc-1", "amount": 1000}`}}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return Payment{}, []FieldError{{In: "body", Detail: fmt.Sprintf("the body is not valid JSON (at byte %d)", syn.Offset)}}
		case errors.As(err, &typ):
			return Payment{}, []FieldError{{In: "body", Detail: "the body must be a JSON object, not " + jsonKind(typ.Value)}}
		default: // io.ErrUnexpectedEOF and the like
			return Payment{}, []FieldError{{In: "body", Detail: "the body is not valid JSON: it ends too early"}}
		}
	}
	if top == nil {
		return Payment{}, []FieldError{{In: "body", Detail: "the body must be a JSON object, not null"}}
	}
	if err := dec.Decode(&json.RawMessage{}); err != io.EOF {
		return Payment{}, []FieldError{{In: "body", Detail: fmt.Sprintf("the body must be one JSON object; more follows it at byte %d", dec.InputOffset())}}
	}
	var errs []FieldError
	names := make([]string, 0, len(top))
	for name := range top {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if name != "account" && name != "amount" {
			errs = append(errs, FieldError{Field: excerpt(name), In: "body", Detail: "unknown member: a payment has only account and amount"})
			if len(errs) == 5 {
				break // enough to see the pattern
			}
		}
	}
	var p Payment
	if raw, ok := top["account"]; !ok {
		errs = append(errs, FieldError{Field: "account", In: "body", Detail: `required: the account to pay, such as "acc-1"`})
	} else if err := json.Unmarshal(raw, &p.Account); err != nil || bytes.Equal(raw, []byte("null")) {
		errs = append(errs, FieldError{Field: "account", In: "body", Detail: "must be a string, not " + jsonKind(string(raw))})
	} else if !accountName().MatchString(p.Account) {
		errs = append(errs, FieldError{Field: "account", In: "body", Detail: "must be 1 to 40 letters, digits, '-' or '_', such as \"acc-1\""})
	}
	if raw, ok := top["amount"]; !ok {
		errs = append(errs, FieldError{Field: "amount", In: "body", Detail: fmt.Sprintf("required: the amount in minor units (cents), a whole number from 1 to %d", MaxAmount)})
	} else if d := amountProblem(raw, &p.Amount); d != "" {
		errs = append(errs, FieldError{Field: "amount", In: "body", Detail: d})
	}
	if errs != nil {
		return Payment{}, errs
	}
	return p, nil
}

// amountProblem parses an amount into *a, or says what is wrong with it.
func amountProblem(raw json.RawMessage, a *int64) string {
	s := string(raw)
	limit := fmt.Sprintf("from 1 to %d (%s)", MaxAmount, "1,000,000.00")
	if kind := jsonKind(s); kind != "a number" {
		return "must be a number in minor units (cents), not " + kind
	}
	n, err := strconv.ParseInt(s, 10, 64)
	var ne *strconv.NumError
	switch {
	case errors.As(err, &ne) && ne.Err == strconv.ErrRange:
		return "too large: it must be " + limit
	case err != nil:
		return "must be a whole number of minor units (cents), without a fraction or an exponent: 1000 is 10.00"
	case n < 1:
		return "must be positive: " + limit
	case n > MaxAmount:
		return "too large: it must be " + limit
	}
	*a = n
	return ""
}

// jsonKind names the kind of a JSON value, from its text (or the name
// encoding/json gives it in an UnmarshalTypeError).
func jsonKind(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "nothing"
	case s == "null":
		return "null"
	case s == "true" || s == "false" || s == "bool":
		return "a boolean"
	case s[0] == '"' || s == "string":
		return "a string"
	case s[0] == '[' || s == "array":
		return "an array"
	case s[0] == '{' || s == "object":
		return "an object"
	case s[0] == '-' || (s[0] >= '0' && s[0] <= '9') || strings.HasPrefix(s, "number"):
		return "a number"
	}
	return "that value"
}

// excerpt bounds a name from the request to 40 characters.
func excerpt(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	r := []rune(s)
	return string(r[:40]) + "…"
}
