package practice

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/idempotency-lab/lab/money"
	"github.com/idempotency-lab/lab/narration"
)

// MaxMoneyDigits bounds the whole part of a typed amount: 13 digits, so
// any accepted amount in minor units fits an int64 with room to spare.
const MaxMoneyDigits = 13

// MoneyForms names the forms ParseMoney accepts, for messages and hints.
var MoneyForms = textOf(narration.T("practice.money-forms"))

// currencyMarks are the currency signs and codes a person may type around
// an amount, longest first so "руб." is stripped whole. They are matched
// without regard to case.
var currencyMarks = []string{"rub.", "руб.", "rub", "руб", "usd", "eur", "р.", "₽", "$", "€", "£", "р"}

// FormatMoney writes an amount of minor units as a person types it and
// ParseMoney reads it back: 20000 is "200.00" (money.Plain).
func FormatMoney(minor int64) string {
	return money.Plain(minor)
}

// ParseMoney reads an amount of money as a person types one, in major
// units, and returns it in minor units (hundredths): "200", "200.00",
// "200,00", "1 234.50", "200 ₽", "$200", "200 RUB" and "200 руб." all mean
// 20000. A currency sign or code may come before or after the number;
// spaces (also non-breaking and thin ones), underscores and apostrophes
// between digits are ignored; the decimal separator is a point or a comma,
// followed by one or two digits (200.5 is 200.50). A negative amount, a
// third decimal, more than MaxMoneyDigits whole digits or anything else is
// an error wrapping ErrMalformedBalance that names the accepted forms.
func ParseMoney(raw string) (int64, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s; enter an amount %s", ErrMalformedBalance, excerpt(raw), why, MoneyForms.EN)
	}
	s := strings.TrimSpace(raw)
	s = stripCurrency(s)
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\u00a0', '\u202f', '\u2009', '_', '\'', '’':
			return -1
		}
		return r
	}, s)
	if s == "" {
		return 0, bad("no amount")
	}
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "−") || strings.HasPrefix(s, "–") {
		return 0, bad("a balance cannot be negative")
	}
	s = strings.TrimPrefix(s, "+")
	if strings.Count(s, ".")+strings.Count(s, ",") > 1 {
		return 0, bad("more than one decimal separator")
	}
	whole, frac, hasSep := strings.Cut(strings.Replace(s, ",", ".", 1), ".")
	switch {
	case !allDigits(whole) || !allDigits(frac):
		return 0, bad("not a number")
	case whole == "" && frac == "":
		return 0, bad("no digits")
	case hasSep && frac == "":
		return 0, bad("no digits after the decimal separator")
	case len(frac) > 2:
		return 0, bad("at most two decimals")
	case len(whole) > MaxMoneyDigits:
		return 0, bad("too large")
	}
	var n int64
	for _, r := range whole {
		n = n*10 + int64(r-'0')
	}
	frac += "00"[len(frac):]
	return n*100 + int64(frac[0]-'0')*10 + int64(frac[1]-'0'), nil
}

// stripCurrency removes one currency sign or code at the start or the end
// of s, and the spaces next to it.
func stripCurrency(s string) string {
	for _, m := range currencyMarks {
		if len(s) >= len(m) && strings.EqualFold(s[len(s)-len(m):], m) {
			return strings.TrimSpace(s[:len(s)-len(m)])
		}
		if len(s) >= len(m) && strings.EqualFold(s[:len(m)], m) {
			return strings.TrimSpace(s[len(m):])
		}
	}
	return s
}

// allDigits reports whether s is made of ASCII digits only ("" is).
func allDigits(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
}

// excerpt bounds a typed value quoted in an error.
func excerpt(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:40]) + "…"
}
