package page

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message/catalog"
)

// The words of the shell and of each part live in message files beside
// their code, one per language: messages/en.json and messages/ru.json,
// each a JSON object from key to text, embedded in the binary. A text is a
// fmt format: its verbs (%s, %d, %[2]s) take the arguments t.F is given.
//
// A text that counts something is a plural: its key is given once per
// plural form the language has, with the form's name after an underscore,
// as i18next and CLDR name them (key_one, key_other in English; key_one,
// key_few, key_many, key_other in Russian: 1 and 21 are "one", 2-4 and
// 22-24 "few", 0, 5-20 and 25-30 "many"). The count is the first argument
// (%[1]d or the first %d), x/text's plural rules pick the form, and the
// page asks for the bare key: t.F("key", n, ...).
//
// LoadMessages reads a part's files into a Catalog. It refuses, naming
// each problem: a file that is missing or is not such an object, a key a
// file gives twice, a key one language has and the other lacks, a text
// whose verbs read the arguments otherwise than the other language's (a
// %d in English and a %s in Russian, or an argument only one of them
// shows), and a plural that lacks one of its language's forms, has one
// the language does not, or does not count its first argument with %d.
// The server loads every part's files when it starts, so a broken file
// stops the start, and every part's tests load its own.
func LoadMessages(fsys fs.FS) (Catalog, error) {
	var byLang [2]map[string]string
	var errs []error
	for i, l := range langs {
		name := "messages/" + string(l) + ".json"
		m, err := readMessages(fsys, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		byLang[i] = m
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	c := Catalog{}
	for key, en := range byLang[0] {
		if _, _, ok := pluralForm(key); ok {
			continue // a plural's forms: below
		}
		ru, ok := byLang[1][key]
		if !ok {
			errs = append(errs, fmt.Errorf("%s is in messages/en.json but not in messages/ru.json", key))
			continue
		}
		c[key] = [2]string{en, ru}
	}
	for key := range byLang[1] {
		if _, _, ok := pluralForm(key); ok {
			continue
		}
		if _, ok := byLang[0][key]; !ok {
			errs = append(errs, fmt.Errorf("%s is in messages/ru.json but not in messages/en.json", key))
		}
	}
	errs = append(errs, plurals(byLang, c)...)
	for key, v := range c {
		if base, _, ok := pluralForm(key); ok {
			// Every form reads the arguments as the plural's English
			// "other" does.
			other := c[base+"_other"]
			for i, s := range v {
				if err := sameVerbs(other[0], s); err != nil {
					errs = append(errs, fmt.Errorf("%s (%s): %w", key, langs[i], err))
				}
			}
		} else if err := sameVerbs(v[0], v[1]); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", key, err))
		}
		for _, s := range v {
			// x/text's catalogue reads ${name} as a macro to expand, not as
			// text: no message uses one, and none may by accident.
			if strings.Contains(s, "${") {
				errs = append(errs, fmt.Errorf("%s: %q has ${, which the catalogue would read as a macro", key, s))
			}
		}
	}
	if len(errs) > 0 {
		slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// pluralForms are the plural forms each language's texts give, in the
// order x/text's selector tries them ("other" last, as it must be).
var pluralForms = map[Lang][]string{EN: {"one", "other"}, RU: {"one", "few", "many", "other"}}

// pluralForm splits a plural's key into its base and form: "x.n_few" is
// form "few" of "x.n".
func pluralForm(key string) (base, form string, ok bool) {
	i := strings.LastIndexByte(key, '_')
	if i < 0 {
		return "", "", false
	}
	switch form = key[i+1:]; form {
	case "zero", "one", "two", "few", "many", "other":
		return key[:i], form, true
	}
	return "", "", false
}

// plurals puts each plural's forms into c, a form one language lacks as
// that language's "other" (so every key reads in both, as the catalogue's
// checks expect, though the selector never picks it), and returns what is wrong with them: a form missing, a form the
// language has not, a base given in one language only, a count that is
// not the first argument read with %d.
func plurals(byLang [2]map[string]string, c Catalog) []error {
	var errs []error
	bases := map[string][2]bool{}
	for i, l := range langs {
		for key := range byLang[i] {
			base, form, ok := pluralForm(key)
			if !ok {
				continue
			}
			b := bases[base]
			b[i] = true
			bases[base] = b
			if !slices.Contains(pluralForms[l], form) {
				errs = append(errs, fmt.Errorf("%s: %s texts have no plural form %q; theirs: %s", key, l, form, strings.Join(pluralForms[l], ", ")))
				continue
			}
			v := c[key]
			v[i] = byLang[i][key]
			c[key] = v
		}
	}
	for base, in := range bases {
		if !in[0] || !in[1] {
			errs = append(errs, fmt.Errorf("%s is a plural in messages/%s.json only", base, langs[slices.Index(in[:], true)]))
			for key := range c {
				if b, _, _ := pluralForm(key); b == base {
					delete(c, key) // its verbs cannot be compared
				}
			}
			continue
		}
		for i, l := range langs {
			for _, form := range pluralForms[l] {
				if _, ok := byLang[i][base+"_"+form]; !ok {
					errs = append(errs, fmt.Errorf("%s lacks its %s form in messages/%s.json", base, form, l))
				}
			}
		}
		for key, v := range c {
			if b, _, ok := pluralForm(key); ok && b == base {
				for i := range v {
					if v[i] == "" {
						v[i] = byLang[i][base+"_other"]
					}
				}
				c[key] = v
			}
		}
		if other, ok := byLang[0][base+"_other"]; ok && !slices.Contains(verbs(other), "%[1]d") {
			errs = append(errs, fmt.Errorf("%s: a plural counts its first argument, read with %%d; %q does not", base, other))
		}
	}
	return errs
}

// MustMessages is LoadMessages for a part's Catalog: its files are
// embedded in the binary, so a broken one panics when the server starts
// and in the part's tests, never while serving.
func MustMessages(fsys fs.FS) Catalog {
	c, err := LoadMessages(fsys)
	if err != nil {
		panic(err)
	}
	return c
}

// readMessages reads one file: a JSON object whose values are strings. A
// key given twice is an error (encoding/json would keep the last one
// silently).
func readMessages(fsys fs.FS, name string) (map[string]string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := json.NewDecoder(f)
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object of key to text")
	}
	m := map[string]string{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // inside an object, the decoder yields keys as strings
		var text string
		if err := d.Decode(&text); err != nil {
			return nil, fmt.Errorf("%s: the text must be a JSON string: %w", key, err)
		}
		if _, ok := m[key]; ok {
			return nil, fmt.Errorf("%s is given twice", key)
		}
		m[key] = text
	}
	if _, err := d.Token(); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more after the object's closing brace")
	}
	return m, nil
}

// sameVerbs is nil when the two formats read the same arguments with the
// same verbs, in whatever order their sentences need them.
func sameVerbs(en, ru string) error {
	ve, vr := verbs(en), verbs(ru)
	if !slices.Equal(ve, vr) {
		return fmt.Errorf("the English text reads the arguments as %v, the Russian one as %v", ve, vr)
	}
	return nil
}

// verbs lists what a fmt format does with its arguments, as fmt reads it:
// "%[1]d" for an integer as the first argument, each once and in order of
// the argument. Flags, widths and precisions do not count; %% is text.
func verbs(format string) []string {
	var out []string
	arg := 1
next:
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
	spec: // flags, [n], widths and precisions up to the verb
		for ; i < len(format); i++ {
			switch c := format[i]; {
			case c == '[':
				j := strings.IndexByte(format[i:], ']')
				n, err := strconv.Atoi(format[i+1 : i+max(j, 1)])
				if j < 0 || err != nil {
					out = append(out, "%!(BADINDEX)")
					continue next
				}
				arg, i = n, i+j
			case c == '*':
				out = append(out, "%["+strconv.Itoa(arg)+"]*")
				arg++
			case strings.IndexByte("+-# 0.123456789", c) >= 0:
			default:
				break spec
			}
		}
		if i >= len(format) {
			out = append(out, "%!(NOVERB)")
			break
		}
		r, size := utf8.DecodeRuneInString(format[i:])
		i += size - 1
		if r == '%' {
			continue
		}
		out = append(out, "%["+strconv.Itoa(arg)+"]"+string(r))
		arg++
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// tags are langs as x/text names them.
var tags = map[Lang]language.Tag{EN: language.English, RU: language.Russian}

// messages is a catalogue compiled into an x/text message catalogue, which
// Text reads its words from, and the contexts that read it in each
// language, kept for reuse: a page looks up hundreds of words, and a new
// context for each would cost four allocations a word.
type messages struct {
	readers [2]sync.Pool // of *reader, in the order of langs
}

// reader reads one message at a time: ctx renders it into v.
type reader struct {
	v   verbatim
	ctx *catalog.Context
}

// compile puts a catalogue's words into an x/text catalogue: one entry per
// key and language.
func (c Catalog) compile() *messages {
	b := catalog.NewBuilder()
	for key, v := range c {
		if base, form, ok := pluralForm(key); ok && form == "other" {
			// The bare key selects among the forms by the count.
			for i, l := range langs {
				var cases []any
				for _, f := range pluralForms[l] {
					cases = append(cases, f, c[base+"_"+f][i])
				}
				if err := b.Set(tags[l], base, plural.Selectf(1, "%d", cases...)); err != nil {
					panic(fmt.Sprintf("page: catalogue plural %s: %v", base, err))
				}
			}
		}
		for i, l := range langs {
			// The texts are plain strings without ${, which LoadMessages
			// refuses, so setting them cannot fail.
			if err := b.SetString(tags[l], key, v[i]); err != nil {
				panic(fmt.Sprintf("page: catalogue key %s: %v", key, err))
			}
		}
	}
	m := &messages{}
	for i, l := range langs {
		m.readers[i].New = func() any {
			r := &reader{}
			r.ctx = b.Context(tags[l], &r.v)
			return r
		}
	}
	return m
}

// lookup is the text of key in language l (English unless l is Russian),
// as its file writes it.
func (m *messages) lookup(l Lang, key string, args ...any) (string, bool) {
	i := 0
	if l == RU {
		i = 1
	}
	r := m.readers[i].Get().(*reader)
	defer m.readers[i].Put(r)
	r.v.s, r.v.args = "", args
	defer func() { r.v.args = nil }()
	if err := r.ctx.Execute(key); err != nil {
		return "", false
	}
	return r.v.s, true
}

// verbatim receives a message's text from the x/text catalogue as it is
// written, %d and all. Text formats it with fmt itself rather than with
// x/text's message.Printer, which would write numbers the locale's way
// (1,234 in English, 1 234 in Russian): the lab writes its numbers its own
// way (money.Display), the same in both languages, and pages must read as
// they always have.
type verbatim struct {
	s    string
	args []any // what the page formats the text with: a plural counts args[0]
}

func (v *verbatim) Render(s string) { v.s += s }

// Arg gives a plural's selector its count, argument i (from 1). Text
// formats the arguments into the chosen form itself.
func (v *verbatim) Arg(i int) any {
	if i < 1 || i > len(v.args) {
		return nil
	}
	return v.args[i-1]
}
