package page

import "testing"

// TestAcceptLang: the Accept-Language header picks English or Russian by
// its q-values; anything else, or nothing readable, is English.
func TestAcceptLang(t *testing.T) {
	cases := []struct {
		header string
		want   Lang
	}{
		{"", EN},
		{"ru", RU},
		{"ru-RU,ru;q=0.9,en;q=0.8", RU},
		{"en-US,en;q=0.9,ru;q=0.8", EN},
		{"en;q=0.1,ru;q=0.9", RU}, // the q-values decide, not the order
		{"de-DE,ru;q=0.5", RU},    // the first the lab speaks
		{"de-DE,fr;q=0.5", EN},    // neither: the fallback
		{"ru;q=0", EN},            // q=0 means "not this one"
		{"*", EN},
		{"RU-ru", RU}, // tags are case-insensitive
		{"!!!", EN},   // unreadable
		{"en-GB", EN},
	}
	for _, c := range cases {
		if got := acceptLang(c.header); got != c.want {
			t.Errorf("Accept-Language %q: %s, want %s", c.header, got, c.want)
		}
	}
}
