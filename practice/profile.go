package practice

import "crypto/rand"

// NewProfileID mints an anonymous profile id: 26 characters of base32
// (A-Z, 2-7) carrying 128 random bits from crypto/rand. It names nobody;
// the web keeps it in a cookie, and whoever holds it holds the progress.
func NewProfileID() string { return rand.Text() }

// ValidProfileID reports whether s has the form NewProfileID makes. The web
// checks a cookie with it before using it, and mints a new one otherwise.
func ValidProfileID(s string) bool {
	if len(s) != 26 {
		return false
	}
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < '2' || r > '7') {
			return false
		}
	}
	return true
}
