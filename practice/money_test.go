package practice

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseMoney(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"200", 20000}, // major units: 200 is 200.00, not 2.00
		{"200.00", 20000},
		{"200,00", 20000},
		{"200.5", 20050},
		{"200,50", 20050},
		{".5", 50},
		{"+7", 700},
		{"  7000\n", 700000},
		{"1 234.50", 123450},
		{"1\u00a0234,50", 123450},
		{"1\u202f234.00", 123400},
		{"1'000", 100000},
		{"20_000", 2000000},
		{"200 ₽", 20000},
		{"200₽", 20000},
		{"₽200", 20000},
		{"$200", 20000},
		{"$ 200.00", 20000},
		{"200 RUB", 20000},
		{"200 rub", 20000},
		{"200 руб.", 20000},
		{"200 РУБ", 20000},
		{"200 р.", 20000},
		{"200р", 20000},
		{"€1 234,56", 123456},
		{"USD 99.99", 9999},
		{"9999999999999.99", 999999999999999},
	} {
		got, err := ParseMoney(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, why string }{
		{"", "no amount"},
		{" ", "no amount"},
		{"₽", "no amount"},
		{"-5", "negative"},
		{"−5", "negative"},
		{"-5 ₽", "negative"},
		{"$-5", "negative"},
		{"1.234", "at most two decimals"},
		{"1,000", "at most two decimals"},
		{"200.001", "at most two decimals"},
		{"50.", "no digits after"},
		{".", "no digits"},
		{"1.2.3", "more than one decimal separator"},
		{"1,234.50", "more than one decimal separator"},
		{"1e5", "not a number"},
		{"abc", "not a number"},
		{"0x10", "not a number"},
		{"٣", "not a number"},
		{"200 ₽ ₽", "not a number"},
		{"$200 ₽", "not a number"},
		{"12345678901234", "too large"},
		{"99999999999999999999", "too large"},
	} {
		got, err := ParseMoney(tc.in)
		if !errors.Is(err, ErrMalformedBalance) {
			t.Errorf("ParseMoney(%q) = %d, %v; want ErrMalformedBalance", tc.in, got, err)
			continue
		}
		// The message says what is wrong and names the accepted forms.
		if msg := err.Error(); !strings.Contains(msg, tc.why) || !strings.Contains(msg, "major units, e.g. 200, 200.00, 200,00") {
			t.Errorf("ParseMoney(%q): message %q should say %q and name the accepted forms", tc.in, msg, tc.why)
		}
	}
}

// FuzzParseMoney: the parser never panics; whatever it accepts is a
// non-negative amount within bounds that reads back the same when written
// as major units with two decimals. Seeds are in
// testdata/fuzz/FuzzParseMoney.
func FuzzParseMoney(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseMoney(s)
		if err != nil {
			if !errors.Is(err, ErrMalformedBalance) {
				t.Fatalf("error is not ErrMalformedBalance: %v", err)
			}
			return
		}
		if n < 0 || n > 999_999_999_999_999 {
			t.Fatalf("ParseMoney(%q) = %d, out of range", s, n)
		}
		major := formatMajor(n)
		if back, err := ParseMoney(major); err != nil || back != n {
			t.Fatalf("ParseMoney(%q) = %d, but %q reads back as %d, %v", s, n, major, back, err)
		}
	})
}

func formatMajor(n int64) string { return fmt.Sprintf("%d.%02d", n/100, n%100) }

// TestFormatMoneyRoundTrip: what FormatMoney writes, ParseMoney reads back.
func TestFormatMoneyRoundTrip(t *testing.T) {
	for _, minor := range []int64{0, 5, 100, 20000, 123456789} {
		if got, err := ParseMoney(FormatMoney(minor)); err != nil || got != minor {
			t.Errorf("ParseMoney(FormatMoney(%d)) = %d, %v", minor, got, err)
		}
	}
}
