package page

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/language"

	"github.com/idempotency-lab/lab/money"
	"github.com/idempotency-lab/lab/script"
)

// Lang is a language the lab's pages speak.
type Lang string

const (
	EN Lang = "en"
	RU Lang = "ru"
)

// LangCookie remembers the reader's choice of language for a year.
const LangCookie = "lab_lang"

// PickLang chooses the page's language: an explicit ?lang=, then the
// cookie a previous choice left, then the browser's Accept-Language, then
// English. It reports whether the choice came from ?lang= (and so should
// be remembered). An unknown ?lang= value is ignored, not an error: the
// page is still readable in the fallback language.
func PickLang(r *http.Request) (l Lang, explicit bool) {
	if l, ok := ParseLang(r.URL.Query().Get("lang")); ok {
		return l, true
	}
	if c, err := r.Cookie(LangCookie); err == nil {
		if l, ok := ParseLang(c.Value); ok {
			return l, false
		}
	}
	return acceptLang(r.Header.Get("Accept-Language")), false
}

func ParseLang(s string) (Lang, bool) {
	switch strings.ToLower(s) {
	case "en":
		return EN, true
	case "ru":
		return RU, true
	}
	return "", false
}

// langs are the languages the pages speak, in the matcher's order: the
// first is the fallback.
var langs = []Lang{EN, RU}

// matcher picks among langs by BCP 47 and CLDR's rules
// (golang.org/x/text/language): "ru-RU" is Russian, "en-GB" English.
var matcher = sync.OnceValue(func() language.Matcher {
	return language.NewMatcher([]language.Tag{language.English, language.Russian})
})

// acceptLang returns the supported language the browser prefers most, by
// the q-values of an Accept-Language header such as "ru-RU,ru;q=0.9,en;q=0.8":
// English when the header names neither, or cannot be read.
func acceptLang(header string) Lang {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return EN
	}
	_, i, confidence := matcher().Match(tags...)
	if confidence == language.No {
		return EN
	}
	return langs[i]
}

func LangCookieFor(l Lang) *http.Cookie {
	return &http.Cookie{Name: LangCookie, Value: string(l), Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteLaxMode}
}

// Catalog holds every string a reader sees, keyed by a short name, in
// English and in Russian: the words of the message files (LoadMessages)
// of the shell and every part, joined (NewCatalog).
type Catalog map[string][2]string

// Text is the catalog in one language: what templates call to write words.
// It reads them from the x/text message catalogue the catalog compiles to.
type Text struct {
	lang Lang
	m    *messages
}

// NewText is catalogue c in language l. It compiles c, which takes a few
// milliseconds: a server's pages use Shell.Text, compiled once at start.
func NewText(l Lang, c Catalog) Text { return Text{lang: l, m: c.compile()} }

// Has reports whether the catalog has key.
func (t Text) Has(key string) bool {
	_, ok := t.lookup(key)
	return ok
}

// S returns the string for key. A missing key shows as ⟦key⟧, which the
// tests look for on every page.
func (t Text) S(key string) string {
	s, ok := t.lookup(key)
	if !ok {
		return "⟦" + key + "⟧"
	}
	return s
}

// lookup is the text of key in the page's language, as the message file
// writes it (verbatim).
func (t Text) lookup(key string, args ...any) (string, bool) {
	if t.m == nil {
		return "", false
	}
	return t.m.lookup(t.lang, key, args...)
}

// F formats the string for key with args, as fmt.Sprintf does (not as
// x/text's message.Printer would: see verbatim). An argument already
// written in both languages (bilingual) is given in the page's language.
func (t Text) F(key string, args ...any) string {
	copied := false
	for i, a := range args {
		if b, ok := a.(Bilingual); ok {
			if !copied {
				args, copied = append([]any(nil), args...), true
			}
			args[i] = b.EN
			if t.lang == RU {
				args[i] = b.RU
			}
		}
	}
	format, ok := t.lookup(key, args...) // a plural's form depends on its count
	if !ok {
		format = "⟦" + key + "⟧"
	}
	return fmt.Sprintf(format, args...)
}

// Bilingual is a message that comes with its own translation, such as the
// script parser's.
type Bilingual struct{ EN, RU string }

// ParseMessage is the parser's message in both languages; withLine keeps
// the line number.
func ParseMessage(err error, withLine bool) any {
	var se *script.Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	if withLine {
		return Bilingual{se.In("en"), se.In("ru")}
	}
	return Bilingual{se.Message("en"), se.Message("ru")}
}

// Is reports whether the text is in language l.
func (t Text) Is(l Lang) bool { return t.lang == l }

// Lang is the page's language code, for <html lang>.
func (t Text) Lang() string { return string(t.lang) }

// Money writes an amount of minor units for a reader (money.Display):
// 123456789 is "1 234 567.89" in both languages.
func Money(minor int64) string {
	return money.Display(minor)
}

// Duration writes a simulated duration compactly: 1h30m, 2d, 90s.
func Duration(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
