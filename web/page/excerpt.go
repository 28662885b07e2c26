package page

// Error pages quote what the reader sent so that they can see what was
// wrong, but only an excerpt of it, once: a 200,000-character room code
// must not make an 800 KB page. The page's HTML escaping (templ) is what
// makes the quote safe; this file only keeps it short.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// MaxQuoteRunes is how much of one bad value an error message quotes.
	MaxQuoteRunes = 100
	// MaxTextRunes bounds one argument of the lab's own words (a list of
	// valid choices, a parser's sentence): longer than any of them, and a
	// backstop should one ever carry the reader's text unshortened.
	MaxTextRunes = 1000
	// maxLangURL is the longest address an error page's language links
	// repeat; a longer one came from the reader, so the links go to a
	// plain page of the section instead.
	maxLangURL = 256
	// MaxPathBytes is the longest path the lab answers. None of its
	// addresses comes near it (long data travels in the query).
	MaxPathBytes = 1 << 10
)

// InputExcerpt is what an error message quotes of a value the reader
// sent: the whole of it up to MaxQuoteRunes runes, else its first
// MaxQuoteRunes runes and "…".
func InputExcerpt(s string) string {
	if len(s) <= MaxQuoteRunes || utf8.RuneCountInString(s) <= MaxQuoteRunes {
		return s
	}
	i, n := 0, 0
	for i = range s {
		if n == MaxQuoteRunes {
			break
		}
		n++
	}
	return s[:i] + "…"
}

// BoundText shortens a sentence of the lab's own words that may quote the
// reader's input (the script parser's "unknown verb "…"", a progress
// file's "unknown question "…""): every quoted string and every run
// without spaces keeps at most MaxQuoteRunes runes, then "…". The text
// is read once, left to right, so a hostile one costs no more than its
// length. Whatever is still longer than MaxTextRunes is cut there.
func BoundText(s string) string {
	if utf8.RuneCountInString(s) <= MaxQuoteRunes {
		return s
	}
	var b strings.Builder
	quoted, escaped := false, false
	n, cut := 0, false // runes written of the current word or quoted string; the rest left out
	for _, c := range s {
		boundary := false // c ends a word or opens or closes a quoted string
		switch {
		case quoted && escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
		case c == '"':
			quoted, boundary = !quoted, true
		case !quoted && unicode.IsSpace(c):
			boundary = true
		}
		switch {
		case boundary:
			n, cut = 0, false
			b.WriteRune(c)
		case cut:
		case n == MaxQuoteRunes:
			b.WriteString("…")
			cut = true
		default:
			b.WriteRune(c)
			n++
		}
	}
	out := b.String()
	if utf8.RuneCountInString(out) > MaxTextRunes {
		out = string([]rune(out)[:MaxTextRunes]) + "…"
	}
	return out
}

// BoundArgs makes an error message's arguments safe to show. By the
// convention of every message in the catalog, the first argument, when
// it is a string, is the value the reader sent (a preset name, a path, a
// step), so it is quoted as an excerpt; later string arguments are the
// lab's own (the valid choices), kept whole up to MaxTextRunes; the
// parser's message (bilingual) has its quoted tokens shortened.
func BoundArgs(args []any) []any {
	if len(args) == 0 {
		return args
	}
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			if i == 0 {
				out[i] = InputExcerpt(v)
			} else {
				out[i] = BoundText(v)
			}
		case Bilingual:
			out[i] = Bilingual{BoundText(v.EN), BoundText(v.RU)}
		default:
			out[i] = a
		}
	}
	return out
}

// ShortLangs keeps an error page's language links from repeating a long
// address: the address carries the bad input, which the message has quoted
// already. Such a link goes to fallback in that language instead.
func ShortLangs(p View, fallback string) View {
	langs := make([]LangLink, len(p.Langs))
	for i, l := range p.Langs {
		if len(l.URL) > maxLangURL {
			l.URL = fallback + "?lang=" + l.Code
		}
		langs[i] = l
	}
	p.Langs = langs
	return p
}
