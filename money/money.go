// Package money writes amounts of money. The lab keeps every amount in
// minor units (hundredths) as an int64; this package is the one place
// that turns one into text, so the CLI, labtest, practice and the web
// agree on what 12345 and -150 look like. Standard library only.
package money

import (
	"strconv"
	"strings"
)

// Plain writes minor units as major units with two decimals, as a person
// types an amount and practice.ParseMoney reads it back: 20000 is
// "200.00", -150 is "-1.50". No grouping, an ASCII minus: the form for
// answers, the CLI and logs.
func Plain(minor int64) string {
	return format(minor, "-", "")
}

// Display writes minor units for a reader: thousands grouped with a narrow
// no-break space and a typographic minus, the same in both languages:
// 123456789 is "1 234 567.89", -150 is "−1.50".
func Display(minor int64) string {
	return format(minor, "−", "\u202f")
}

func format(minor int64, minus, group string) string {
	var b strings.Builder
	// The magnitude as a uint64, so the smallest int64 has one too.
	mag := uint64(minor)
	if minor < 0 {
		b.WriteString(minus)
		mag = -mag
	}
	major := strconv.FormatUint(mag/100, 10)
	for i, r := range major {
		if i > 0 && (len(major)-i)%3 == 0 {
			b.WriteString(group)
		}
		b.WriteRune(r)
	}
	cents := mag % 100
	b.WriteByte('.')
	b.WriteByte(byte('0' + cents/10))
	b.WriteByte(byte('0' + cents%10))
	return b.String()
}
