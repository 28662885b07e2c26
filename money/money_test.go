package money

import (
	"math"
	"testing"
)

func TestFormats(t *testing.T) {
	tests := []struct {
		minor          int64
		plain, display string
	}{
		{0, "0.00", "0.00"},
		{5, "0.05", "0.05"},
		{20000, "200.00", "200.00"},
		{123456789, "1234567.89", "1\u202f234\u202f567.89"},
		// A negative amount of less than one major unit: the sign goes
		// in front once, not inside the cents ("-1.-50" was the old bug
		// for -150, "0.-50" for -50).
		{-50, "-0.50", "−0.50"},
		{-150, "-1.50", "−1.50"},
		{-100000, "-1000.00", "−1\u202f000.00"},
		// The extremes do not overflow: -MinInt64 has no int64.
		{math.MinInt64, "-92233720368547758.08", "−92\u202f233\u202f720\u202f368\u202f547\u202f758.08"},
		{math.MaxInt64, "92233720368547758.07", "92\u202f233\u202f720\u202f368\u202f547\u202f758.07"},
	}
	for _, tt := range tests {
		if got := Plain(tt.minor); got != tt.plain {
			t.Errorf("Plain(%d) = %q, want %q", tt.minor, got, tt.plain)
		}
		if got := Display(tt.minor); got != tt.display {
			t.Errorf("Display(%d) = %q, want %q", tt.minor, got, tt.display)
		}
	}
}
