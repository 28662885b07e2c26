package lessons

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// frontMatter is the YAML block at the top of a lesson file.
type frontMatter struct {
	Title   string   `yaml:"title"`
	Slug    string   `yaml:"slug"`
	Order   int      `yaml:"order"`
	Lang    string   `yaml:"lang"`
	Summary string   `yaml:"summary"`
	Presets []string `yaml:"presets"`
}

var (
	slugPattern     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })
	fileNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+)-([a-z0-9-]+)\.([a-z]+)\.md$`) })
)

// splitFrontMatter cuts data into the YAML between the leading "---" lines
// and the Markdown after them. bodyLine is the file line the body starts on.
// The YAML comes back prefixed with its opening "---" line, so the line
// numbers in YAML errors are file line numbers.
func splitFrontMatter(data []byte) (yamlText, body []byte, bodyLine int, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := bytes.SplitAfter(data, []byte("\n"))
	isFence := func(line []byte) bool { return string(bytes.TrimRight(line, " \t\r\n")) == "---" }
	if len(lines) == 0 || !isFence(lines[0]) {
		return nil, nil, 0, errors.New("a lesson starts with front matter: a line ---, the YAML, and another line ---")
	}
	for i := 1; i < len(lines); i++ {
		if isFence(lines[i]) {
			yamlText = bytes.Join(lines[:i], nil)
			body = bytes.Join(lines[i+1:], nil)
			return yamlText, body, i + 2, nil
		}
	}
	return nil, nil, 0, errors.New("front matter is not closed: no second --- line")
}

// parseFrontMatter decodes and checks the front matter of the file name; it
// reports each problem on the line of the field concerned.
func (b *builder) parseFrontMatter(name string, yamlText []byte, e *errList) (frontMatter, bool) {
	var fm frontMatter
	dec := yaml.NewDecoder(bytes.NewReader(yamlText))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		yamlErrors(err, e)
		return fm, false
	}
	// A second decode, into nodes, only to know which line each key is on.
	keyLine := map[string]int{}
	var doc yaml.Node
	if yaml.Unmarshal(yamlText, &doc) == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m := doc.Content[0].Content
		for i := 0; i+1 < len(m); i += 2 {
			keyLine[m[i].Value] = m[i].Line
		}
	}
	line := func(key string) int {
		if l, ok := keyLine[key]; ok {
			return l
		}
		return 1
	}

	ok := true
	fail := func(key, format string, args ...any) {
		e.add(line(key), format, args...)
		ok = false
	}
	if fm.Title == "" {
		fail("title", "front matter: title is missing")
	}
	if fm.Summary == "" {
		fail("summary", "front matter: summary is missing")
	}
	if !slugPattern().MatchString(fm.Slug) {
		fail("slug", "front matter: slug %q is not lower-case words joined by '-'", fm.Slug)
	}
	if fm.Order < 1 {
		fail("order", "front matter: order must be a whole number from 1, not %d", fm.Order)
	}
	switch fm.Lang {
	case English, Russian:
	default:
		fail("lang", "front matter: unknown lang %q; valid: %s, %s", fm.Lang, English, Russian)
	}
	seen := map[string]bool{}
	for _, p := range fm.Presets {
		if seen[p] {
			fail("presets", "front matter: preset %q listed twice", p)
		}
		seen[p] = true
		if err := b.checkPreset(p); err != nil {
			fail("presets", "front matter: %v", err)
		}
	}

	// The file name repeats order, slug and lang, so a copied file whose
	// front matter was not updated is caught here.
	base := path.Base(name)
	m := fileNamePattern().FindStringSubmatch(base)
	switch {
	case m == nil:
		e.add(0, "file name %q is not NN-slug.LANG.md", base)
		ok = false
	case ok:
		if n, _ := strconv.Atoi(m[1]); n != fm.Order || m[2] != fm.Slug || m[3] != fm.Lang {
			e.add(0, "file name %q does not match the front matter (order %d, slug %s, lang %s): want %s",
				base, fm.Order, fm.Slug, fm.Lang, path.Base(fileName(fm.Order, fm.Slug, fm.Lang)))
			ok = false
		}
	}
	return fm, ok
}

// yamlErrors reports a YAML error on the line it names: a syntax error,
// or each of a TypeError's field errors.
func yamlErrors(err error, e *errList) {
	if errors.Is(err, io.EOF) {
		e.add(1, "front matter is empty")
		return
	}
	msgs := []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	for _, m := range msgs {
		line := 0
		if rest, ok := strings.CutPrefix(m, "line "); ok {
			if n, after, ok := strings.Cut(rest, ": "); ok {
				if l, err := strconv.Atoi(n); err == nil {
					line, m = l, after
				}
			}
		}
		m = strings.ReplaceAll(m, " into lessons.frontMatter", "")
		if f, ok := strings.CutPrefix(m, "field "); ok {
			if f, ok := strings.CutSuffix(f, " not found in type lessons.frontMatter"); ok {
				m = fmt.Sprintf("unknown field %q; valid fields: title, slug, order, lang, summary, presets", f)
			}
		}
		e.add(line, "front matter: %s", m)
	}
}

// errList collects the problems of one file, each with its line.
type errList struct {
	file string
	errs []error
}

// add records a problem on line (0: the file as a whole).
func (e *errList) add(line int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		e.errs = append(e.errs, fmt.Errorf("%s:%d: %s", e.file, line, msg))
	} else {
		e.errs = append(e.errs, fmt.Errorf("%s: %s", e.file, msg))
	}
}

func (e *errList) err() error { return errors.Join(e.errs...) }
