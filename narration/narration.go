// Package narration puts the lab's words outside the web into English and
// Russian: what happened at each step of a run, what a real broker
// answered, what went wrong in a script, a handler file or a goal, the
// checker's notes, the cost charts' labels and the lessons' chrome. The
// engine, the script parser, the real brokers' adapters, the sandbox, the
// checker, the cost lab, the lessons' renderer and the practice grader
// name a message by a key and its arguments (a Text) and write no words
// themselves (internal/readme's TestEngineWritesNoWords keeps it so); the
// CLI and the web pages call In(lang) where they show one. The web's own
// words (buttons, headings, help) live in each part's message files,
// which web/page loads into its catalogue instead.
//
// Each file of the package registers its messages with register, one
// file per kind of message (events.go, errors.go, ...); a key registered
// twice stops the program at start, and a test checks that every
// message says the same arguments in both languages.
package narration

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

// Text is a message not yet in words: its key and its arguments, each
// already written as it is shown (numbers, keys and durations read the
// same in both languages; where they do not, the message's own function
// writes them).
type Text struct {
	Key  string   `json:"key"`
	Args []string `json:"args,omitempty"`
}

// T is the Text of key with args.
func T(key string, args ...string) Text { return Text{Key: key, Args: args} }

// IsZero reports whether t names no message.
func (t Text) IsZero() bool { return t.Key == "" }

// String is t in English: what logs, errors and the CLI print.
func (t Text) String() string { return t.In("en") }

// In writes t in lang ("ru" for Russian; anything else is English). An
// unknown key is written as itself with its arguments, so a slip shows
// on the page instead of vanishing (a test keeps every key known).
func (t Text) In(lang string) string {
	m, ok := messages[t.Key]
	if !ok {
		return fmt.Sprintf("%s%q", t.Key, t.Args)
	}
	if m.write != nil {
		return m.write(lang, t.Args)
	}
	format := m.en
	if lang == "ru" {
		format = m.ru
	}
	args := make([]any, len(t.Args))
	for i, a := range t.Args {
		args[i] = a
	}
	return fmt.Sprintf(format, args...)
}

// message is one message in both languages: two fmt formats whose verbs
// are all %s (or %[n]s) over the Text's arguments, or, where the words
// depend on an argument (a plural, a choice), a function that writes it.
type message struct {
	en, ru string
	write  func(lang string, args []string) string
}

// msg is a message written by two formats; fn one written by a function.
func msg(en, ru string) message                                { return message{en: en, ru: ru} }
func fn(write func(lang string, args []string) string) message { return message{write: write} }

var messages = map[string]message{}

// register adds a file's messages; a key already registered panics, at
// start, naming it.
func register(m map[string]message) {
	for k, v := range m {
		if _, dup := messages[k]; dup {
			panic("narration: message " + strconv.Quote(k) + " registered twice")
		}
		messages[k] = v
	}
}

// Keys lists every registered key, sorted.
func Keys() []string {
	keys := make([]string, 0, len(messages))
	for k := range messages {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var verb = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%(\[\d+\])?[a-zA-Z]`) })

// argsUsed lists, for a format, which arguments its verbs read (1-based),
// in order, so the two languages of a message can be compared.
func argsUsed(format string) []int {
	var used []int
	next := 1
	for _, v := range verb().FindAllStringSubmatch(format, -1) {
		n := next
		if v[1] != "" {
			n, _ = strconv.Atoi(v[1][1 : len(v[1])-1])
		}
		used = append(used, n)
		next = n + 1
	}
	slices.Sort(used)
	return slices.Compact(used)
}

// Plural picks the form of a count n by CLDR's plural rules (x/text's, as
// the web's message files use): English one/other, Russian's one, few and
// many (1, 21 → one; 2–4, 22–24 → few; 0, 5–20, 25 → many).
func Plural(lang string, n int, one, few, many string) string {
	tag := language.English
	if lang == "ru" {
		tag = language.Russian
	}
	switch plural.Cardinal.MatchPlural(tag, max(n, -n), 0, 0, 0, 0) {
	case plural.One:
		return one
	case plural.Few:
		return few
	}
	return many
}
