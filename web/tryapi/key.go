package tryapi

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The Idempotency-Key header. The IETF draft makes its value an RFC 8941
// structured-field string, "key-1": between double quotes, printable
// ASCII, with a backslash before each '"' and '\' in it and nowhere else.
// Stripe's clients send the key bare, key-1, with no quotes. Both name
// the same key, and a server that took "key-1" and key-1 for two keys
// would charge the same body twice; so ParseKey reads both forms to one
// key, and refuses anything else with what is wrong, rather than guess.

// tokenChars are the characters a bare key may hold: RFC 8941's sf-token
// characters (RFC 9110's tchar, ':' and '/'). RFC 8941 wants a token to
// begin with a letter or '*'; a bare key may begin with any of them, as
// Stripe's UUID keys begin with digits.
const tokenChars = "!#$%&'*+-.^_`|~:/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// ParseKey reads one Idempotency-Key header value (net/http has trimmed
// its spaces): an RFC 8941 string ("key-1") or a bare token (key-1). It
// returns the key, or "" and what is wrong with the value, naming the
// byte at fault (counted from 1) and the way to send the key. A key has 1
// to MaxKeyLen characters, counted in the key, not in its quotes and
// escapes.
func ParseKey(v string) (key, problem string) {
	if v == "" {
		return "", `it is empty: send a key such as "key-1"`
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= utf8.RuneSelf:
			r, _ := utf8.DecodeRuneInString(v[i:])
			what := fmt.Sprintf("%q", r)
			if r == utf8.RuneError {
				what = fmt.Sprintf("the byte 0x%02X", c)
			}
			return "", fmt.Sprintf("it holds %s at byte %d: a key is printable ASCII (RFC 8941); encode anything else, in hex or base64, before it is a key", what, i+1)
		case c < 0x20 || c == 0x7f:
			return "", fmt.Sprintf("it holds a control character (0x%02X) at byte %d: a key is printable ASCII", c, i+1)
		}
	}
	if v[0] == '"' {
		var b strings.Builder
		for i := 1; i < len(v); i++ {
			switch c := v[i]; c {
			case '\\':
				if i+1 == len(v) {
					return "", fmt.Sprintf(`the backslash at byte %d ends the value: the string is never closed; inside quotes a backslash goes only before '"' or '\'`, i+1)
				}
				if n := v[i+1]; n != '"' && n != '\\' {
					return "", fmt.Sprintf(`bad escape \%c at byte %d: inside quotes a backslash goes only before '"' or '\' (RFC 8941); send %c as it is`, n, i+1, n)
				}
				i++
				b.WriteByte(v[i])
			case '"':
				if rest := v[i+1:]; rest != "" {
					if rest[0] == ';' {
						return "", fmt.Sprintf("parameters (%s) after the string: Idempotency-Key takes none; send the string alone", excerpt(rest))
					}
					return "", fmt.Sprintf(`text after the closing quote at byte %d: the whole key goes inside one pair of quotes, with \" for a quote in it`, i+1)
				}
				return checkLen(b.String())
			default:
				b.WriteByte(c)
			}
		}
		return "", `unbalanced quote: the string opened at byte 1 is never closed; send "key-1", or the bare key-1`
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			return "", fmt.Sprintf(`unbalanced quote at byte %d: a quoted key is quoted whole, "key-1"; a quote inside it is written \"`, i+1)
		case c == ' ' || c == '\t':
			return "", fmt.Sprintf(`a space at byte %d: a bare key has none; send a key with spaces as a string, "%s"`, i+1, excerpt(v))
		case !strings.ContainsRune(tokenChars, rune(c)):
			return "", fmt.Sprintf(`%q at byte %d: a bare key holds only letters, digits and %s; send any other character inside a string, such as "%s"`,
				c, i+1, "!#$%&'*+-.^_`|~:/", excerpt(v))
		}
	}
	return checkLen(v)
}

// checkLen refuses a key that is empty or longer than MaxKeyLen
// characters.
func checkLen(key string) (string, string) {
	switch n := utf8.RuneCountInString(key); {
	case n == 0:
		return "", `the string is empty: send a key such as "key-1"`
	case n > MaxKeyLen:
		return "", fmt.Sprintf("at most %d characters; this one has %d", MaxKeyLen, n)
	}
	return key, ""
}
