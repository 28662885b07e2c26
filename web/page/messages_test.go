package page

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// files is a part's message files, en.json and ru.json.
func files(en, ru string) fstest.MapFS {
	return fstest.MapFS{
		"messages/en.json": {Data: []byte(en)},
		"messages/ru.json": {Data: []byte(ru)},
	}
}

// TestLoadMessagesRefusesBrokenFiles: each way a message file can be
// wrong stops the load with an error that names the key or file at fault.
func TestLoadMessagesRefusesBrokenFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys fs.FS
		want string // in the error; "" for none
	}{
		{"good", files(`{"a": "one", "b": "%d of %s"}`, `{"b": "%d из %s", "a": "один"}`), ""},
		// Russian may reorder the arguments its sentence needs.
		{"reordered", files(`{"a": "%d titles in %d lessons match %s"}`, `{"a": "%[3]s: %[1]d, %[2]d"}`), ""},
		// An argument written twice is still one argument read one way.
		{"repeated argument", files(`{"a": "%[1]s and %[1]s"}`, `{"a": "%s"}`), ""},
		{"%% is text", files(`{"a": "100%% of %d"}`, `{"a": "%d — 100%%"}`), ""},
		{"no Russian file", fstest.MapFS{"messages/en.json": {Data: []byte(`{}`)}}, "messages/ru.json: open"},
		{"not JSON", files(`{}`, `a: b`), "messages/ru.json: not a JSON object"},
		{"an array", files(`[]`, `{}`), "messages/en.json: not a JSON object"},
		{"not a string", files(`{"a": 1}`, `{"a": "1"}`), "messages/en.json: a: the text must be a JSON string"},
		{"a key twice", files(`{"a": "x", "a": "y"}`, `{"a": "x"}`), "messages/en.json: a is given twice"},
		{"after the object", files(`{"a": "x"} {}`, `{"a": "x"}`), "messages/en.json: more after the object"},
		{"only English", files(`{"a": "x", "b": "y"}`, `{"a": "x"}`), "b is in messages/en.json but not in messages/ru.json"},
		// A key only one language has is that problem, not also one of verbs.
		{"only English, with a verb", files(`{"a": "x", "b": "%d"}`, `{"a": "x"}`), "b is in messages/en.json but not in messages/ru.json"},
		{"only Russian", files(`{"a": "x"}`, `{"a": "x", "c": "y"}`), "c is in messages/ru.json but not in messages/en.json"},
		{"another verb", files(`{"a": "%d left"}`, `{"a": "осталось %s"}`), "a: the English text reads the arguments as [%[1]d], the Russian one as [%[1]s]"},
		{"a lost argument", files(`{"a": "%s on %s"}`, `{"a": "%s"}`), "a: the English text reads the arguments as [%[1]s %[2]s], the Russian one as [%[1]s]"},
		{"a macro", files(`{"a": "${x}"}`, `{"a": "${x}"}`), "a: \"${x}\" has ${"},
		{"a plural", files(`{"a": "x", "n_one": "%d failure", "n_other": "%d failures"}`, `{"a": "х", "n_one": "%d сбой", "n_few": "%d сбоя", "n_many": "%d сбоев", "n_other": "%d сбоя"}`), ""},
		// Russian has forms English has not: each language gives its own.
		{"a Russian plural without few", files(`{"n_one": "%d failure", "n_other": "%d failures"}`, `{"n_one": "%d сбой", "n_many": "%d сбоев", "n_other": "%d сбоя"}`), "n lacks its few form in messages/ru.json"},
		{"an English plural with few", files(`{"n_one": "%d failure", "n_few": "%d failures", "n_other": "%d failures"}`, `{"n_one": "%d сбой", "n_few": "%d сбоя", "n_many": "%d сбоев", "n_other": "%d сбоя"}`), "n_few: en texts have no plural form \"few\"; theirs: one, other"},
		{"a plural in English only", files(`{"n_one": "%d failure", "n_other": "%d failures"}`, `{"n": "%d сбоев"}`), "n is a plural in messages/en.json only"},
		// The count is the first argument: "%s has %d" cannot say which.
		{"a plural counting its second argument", files(`{"n_one": "%s: %d failure", "n_other": "%s: %d failures"}`, `{"n_one": "%s: %d сбой", "n_few": "%s: %d сбоя", "n_many": "%s: %d сбоев", "n_other": "%s: %d сбоя"}`), "n: a plural counts its first argument, read with %d"},
		// 21 is "one" in Russian, so the "one" form must show the number.
		{"a form without the count", files(`{"n_one": "%d failure", "n_other": "%d failures"}`, `{"n_one": "один сбой", "n_few": "%d сбоя", "n_many": "%d сбоев", "n_other": "%d сбоя"}`), "n_one (ru): the English text reads the arguments as [%[1]d], the Russian one as []"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := LoadMessages(tc.fsys)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == "":
				if len(c) == 0 || c["a"][0] == "" || c["a"][1] == "" {
					t.Errorf("loaded %v", c)
				}
			case err == nil:
				t.Fatalf("loaded %v, want an error with %q", c, tc.want)
			case !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q, want %q in it", err, tc.want)
			case !strings.Contains(tc.want, "reads the arguments") && strings.Contains(err.Error(), "reads the arguments"):
				t.Errorf("error %q blames the verbs too", err)
			}
		})
	}
}

// TestVerbs reads formats the way fmt does.
func TestVerbs(t *testing.T) {
	for _, tc := range []struct {
		format string
		want   []string
	}{
		{"no verbs", nil},
		{"%s on %d", []string{"%[1]s", "%[2]d"}},
		{"%-8s|%6.2f|%+d", []string{"%[1]s", "%[2]f", "%[3]d"}},
		// After %[3]s the next plain verb reads the fourth argument.
		{"%[3]s %s %[1]q", []string{"%[1]q", "%[3]s", "%[4]s"}},
		{"%*d", []string{"%[1]*", "%[2]d"}},
		{"50%% off, 100%%", nil},
		{"a «%s» in Russian quotes", []string{"%[1]s"}},
		{"dangling %", []string{"%!(NOVERB)"}},
		{"%[x]d", []string{"%!(BADINDEX)"}},
	} {
		if got := verbs(tc.format); !slices.Equal(got, tc.want) {
			t.Errorf("verbs(%q) = %q, want %q", tc.format, got, tc.want)
		}
	}
}

// messageDirs are the directories of web that hold message files: the
// shell's and every part's.
func messageDirs(t testing.TB) []string {
	dirs, err := filepath.Glob("../*/messages")
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestEveryMessageFileLoads reads the files the shell and the parts embed
// (from disk: this package cannot import the parts, which import it): each
// loads, no key is in two of them, and Text gives back every text in each
// language exactly as its file writes it.
func TestEveryMessageFileLoads(t *testing.T) {
	dirs := messageDirs(t)
	// The shell, checkpage, classroom, costpage, course, labview,
	// practicepage, tryapi.
	if len(dirs) < 8 {
		t.Fatalf("message files in %v only", dirs)
	}
	var parts []Catalog
	for _, dir := range dirs {
		c, err := LoadMessages(os.DirFS(filepath.Dir(dir)))
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		if len(c) == 0 {
			t.Errorf("%s: no words", dir)
		}
		parts = append(parts, c)
	}
	all, err := Join(parts...)
	if err != nil {
		t.Fatal(err)
	}
	en, ru := NewText(EN, all), NewText(RU, all)
	for key, v := range all {
		if got := en.S(key); got != v[0] {
			t.Errorf("%s in English: %q, the file has %q", key, got, v[0])
		}
		if got := ru.S(key); got != v[1] {
			t.Errorf("%s in Russian: %q, the file has %q", key, got, v[1])
		}
	}
}

// TestPlurals: a plural's bare key picks the form its language's plural
// rules give the count (CLDR's, through x/text), then formats it.
func TestPlurals(t *testing.T) {
	c, err := LoadMessages(files(
		`{"n_one": "%d failure in %s", "n_other": "%d failures in %s"}`,
		`{"n_one": "%d сбой в %s", "n_few": "%d сбоя в %s", "n_many": "%d сбоев в %s", "n_other": "%d сбоя в %s"}`))
	if err != nil {
		t.Fatal(err)
	}
	en, ru := NewText(EN, c), NewText(RU, c)
	for _, tc := range []struct {
		n      int
		en, ru string
	}{
		{1, "1 failure in x", "1 сбой в x"},
		{2, "2 failures in x", "2 сбоя в x"},
		{5, "5 failures in x", "5 сбоев в x"},
		// 11-14 are "many" in Russian, though they end in 1-4.
		{11, "11 failures in x", "11 сбоев в x"},
		{12, "12 failures in x", "12 сбоев в x"},
		// 21 and 22 end like 1 and 2, and read like them.
		{21, "21 failures in x", "21 сбой в x"},
		{22, "22 failures in x", "22 сбоя в x"},
		{0, "0 failures in x", "0 сбоев в x"},
		{111, "111 failures in x", "111 сбоев в x"},
	} {
		if got := en.F("n", tc.n, "x"); got != tc.en {
			t.Errorf("en %d: %q, want %q", tc.n, got, tc.en)
		}
		if got := ru.F("n", tc.n, "x"); got != tc.ru {
			t.Errorf("ru %d: %q, want %q", tc.n, got, tc.ru)
		}
	}
	// Each form stays a key of its own, as its file writes it.
	if got := ru.S("n_few"); got != "%d сбоя в %s" {
		t.Errorf("n_few: %q", got)
	}
}

// TestTextFormatsNumbersItsOwnWay: the catalogue gives Text a message's
// text and fmt formats it, so a number reads the same in both languages.
// x/text's message.Printer would write 12345 as "12,345" in English and
// "12 345" in Russian.
func TestTextFormatsNumbersItsOwnWay(t *testing.T) {
	c := Catalog{"n": {"%d left", "осталось %d"}, "empty": {"", ""}}
	for _, tc := range []struct {
		lang Lang
		key  string
		args []any
		want string
	}{
		{EN, "n", []any{12345}, "12345 left"},
		{RU, "n", []any{12345}, "осталось 12345"},
		// An empty text is a text, not a missing key.
		{RU, "empty", nil, ""},
		{EN, "missing", nil, "⟦missing⟧"},
	} {
		tx := NewText(tc.lang, c)
		if got := tx.F(tc.key, tc.args...); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.lang, tc.key, got, tc.want)
		}
		if has := tx.Has(tc.key); has != (tc.key != "missing") {
			t.Errorf("%s Has(%s) = %v", tc.lang, tc.key, has)
		}
	}
	if (Text{}).Has("n") || (Text{}).S("n") != "⟦n⟧" {
		t.Error("a Text without a catalogue has words")
	}
}

// BenchmarkLoadCatalog is what the server's start pays for its words:
// reading every message file and joining them (files; here from disk, the
// server reads the same files embedded), then compiling the x/text
// catalogue (compile).
func BenchmarkLoadCatalog(b *testing.B) {
	dirs := messageDirs(b)
	load := func() Catalog {
		var parts []Catalog
		for _, dir := range dirs {
			c, err := LoadMessages(os.DirFS(filepath.Dir(dir)))
			if err != nil {
				b.Fatal(err)
			}
			parts = append(parts, c)
		}
		c, err := Join(parts...)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	b.Run("files", func(b *testing.B) {
		for b.Loop() {
			load()
		}
	})
	b.Run("compile", func(b *testing.B) {
		c := load()
		for b.Loop() {
			c.compile()
		}
	})
}

// BenchmarkTextS is one word looked up through the x/text catalogue.
func BenchmarkTextS(b *testing.B) {
	c, err := NewCatalog()
	if err != nil {
		b.Fatal(err)
	}
	tx := NewText(RU, c)
	for b.Loop() {
		tx.S("err.title.404")
	}
}
