package web_test

// The glossary test: every Russian text a learner can read uses the
// course's words. The rules (forms ruled out) live in lessons/GLOSSARY.md,
// one term a line; this test only parses them and scans. It lives in
// package web because only web sees every learner-facing text: the lessons,
// the practice bank, the UI catalogue, the preset narration and the Russian
// string literals of the engine's source.

import (
	"bufio"
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
)

const glossaryFile = "../lessons/GLOSSARY.md"

// glossaryRule is one ruled-out form of GLOSSARY.md.
type glossaryRule struct {
	form   string          // as written, inside «…»
	use    string          // what to write instead: the term line's Russian
	line   int             // its line in GLOSSARY.md
	re     *regexp.Regexp  // matches the folded text
	scopes map[string]bool // the texts it applies to ("not in lessons, practice:"); nil: every text
}

// The texts a rule can be scoped to, one per test below.
const (
	scopeLessons   = "lessons"   // the Russian lessons
	scopePractice  = "practice"  // the practice bank
	scopeCatalogue = "catalogue" // the UI catalogue
	scopePresets   = "presets"   // the presets' titles, summaries and narration
	scopeEngine    = "engine"    // the Russian string literals of the Go source
)

var glossaryScopes = map[string]bool{scopeLessons: true, scopePractice: true, scopeCatalogue: true, scopePresets: true, scopeEngine: true}

// applies reports whether the rule rules its form out in texts of scope.
func (r glossaryRule) applies(scope string) bool { return r.scopes == nil || r.scopes[scope] }

// foldRU lower-cases s and writes ё as е, so that a rule matches either
// spelling. Line breaks are kept, so offsets still give line numbers.
func foldRU(s string) string {
	return strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if r == 'ё' {
			return 'е'
		}
		return r
	}, s)
}

// compileForm turns a form such as «едет в заголов*» into a regexp over
// folded text: whole words, any whitespace between them, and a trailing *
// letting a word go on.
func compileForm(form string) (*regexp.Regexp, error) {
	words := strings.Fields(foldRU(form))
	if len(words) == 0 {
		return nil, fmt.Errorf("empty form")
	}
	parts := make([]string, len(words))
	for i, w := range words {
		open := strings.HasSuffix(w, "*")
		w = strings.TrimSuffix(w, "*")
		if w == "" || strings.Contains(w, "*") {
			return nil, fmt.Errorf("form %q: * may only end a word", form)
		}
		parts[i] = regexp.QuoteMeta(w)
		if open {
			parts[i] += `[\pL\pM]*`
		}
	}
	return regexp.Compile(`(?:^|[^\pL\pM\pN])(` + strings.Join(parts, `\s+`) + `)(?:[^\pL\pM\pN]|$)`)
}

var guillemets = regexp.MustCompile(`«([^»]*)»`)

// parseGlossary reads the term lines of GLOSSARY.md: "- English → Russian"
// with an optional " — not: «form», «form»" (every text) or
// " — not in lessons, practice: «form»" (only the texts named).
func parseGlossary(text string) ([]glossaryRule, int, error) {
	var rules []glossaryRule
	terms := 0
	inTerms := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			inTerms = strings.TrimSpace(line) == "## Terms"
			continue
		}
		if !inTerms || !strings.HasPrefix(line, "- ") {
			continue
		}
		en, ru, ok := strings.Cut(strings.TrimPrefix(line, "- "), " → ")
		if !ok || strings.TrimSpace(en) == "" {
			return nil, 0, fmt.Errorf("GLOSSARY.md:%d: a term line is \"- English → Russian [— not: «form», …]\"", n)
		}
		terms++
		var scopes map[string]bool
		use, not, hasNot := strings.Cut(ru, " — not: ")
		if !hasNot {
			var in string
			if use, in, hasNot = strings.Cut(ru, " — not in "); hasNot {
				var list string
				var ok bool
				if list, not, ok = strings.Cut(in, ": "); !ok {
					return nil, 0, fmt.Errorf("GLOSSARY.md:%d: write \" — not in lessons, practice: «form»\"", n)
				}
				scopes = map[string]bool{}
				for _, sc := range strings.Split(list, ",") {
					sc = strings.TrimSpace(sc)
					if !glossaryScopes[sc] {
						return nil, 0, fmt.Errorf("GLOSSARY.md:%d: unknown text %q after \"not in\" (lessons, practice, catalogue, presets, engine)", n, sc)
					}
					scopes[sc] = true
				}
			}
		}
		if strings.TrimSpace(use) == "" {
			return nil, 0, fmt.Errorf("GLOSSARY.md:%d: no Russian for %q", n, en)
		}
		if !hasNot {
			if strings.Contains(ru, "not:") {
				return nil, 0, fmt.Errorf("GLOSSARY.md:%d: write the ruled-out forms after \" — not: \"", n)
			}
			continue
		}
		forms := guillemets.FindAllStringSubmatch(not, -1)
		if len(forms) == 0 {
			return nil, 0, fmt.Errorf("GLOSSARY.md:%d: \"not:\" with no «form»", n)
		}
		for _, f := range forms {
			re, err := compileForm(f[1])
			if err != nil {
				return nil, 0, fmt.Errorf("GLOSSARY.md:%d: %v", n, err)
			}
			rules = append(rules, glossaryRule{form: f[1], use: strings.TrimSpace(use), line: n, re: re, scopes: scopes})
		}
	}
	return rules, terms, sc.Err()
}

func mustGlossary(tb testing.TB) []glossaryRule {
	tb.Helper()
	b, err := os.ReadFile(glossaryFile)
	if err != nil {
		tb.Fatal(err)
	}
	rules, _, err := parseGlossary(string(b))
	if err != nil {
		tb.Fatal(err)
	}
	return rules
}

// glossaryHits lists every form ruled out in text, a text of scope. where
// names the text; when line is true, each hit adds the line it starts on
// (for files).
func glossaryHits(rules []glossaryRule, scope, where string, text string, line bool) []string {
	folded := foldRU(text)
	var hits []string
	for _, r := range rules {
		if !r.applies(scope) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(folded, -1) {
			at := where
			if line {
				at = fmt.Sprintf("%s:%d", where, 1+strings.Count(folded[:m[2]], "\n"))
			}
			found := folded[m[2]:m[3]]
			if len(folded) == len(text) {
				found = text[m[2]:m[3]] // folding kept every offset: quote the original
			}
			found = strings.Join(strings.Fields(found), " ")
			hits = append(hits, fmt.Sprintf("%s: «%s» is ruled out by «%s» (GLOSSARY.md:%d); write: %s", at, found, r.form, r.line, r.use))
		}
	}
	return hits
}

func reportHits(t *testing.T, hits []string) {
	t.Helper()
	sort.Strings(hits)
	for _, h := range hits {
		t.Error(h)
	}
}

// TestGlossaryParses: the rules load, and the file keeps the decisions the
// three of us share.
func TestGlossaryParses(t *testing.T) {
	b, err := os.ReadFile(glossaryFile)
	if err != nil {
		t.Fatal(err)
	}
	rules, terms, err := parseGlossary(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if terms < 10 || len(rules) < 10 {
		t.Fatalf("%d terms and %d ruled-out forms: is the \"## Terms\" list there?", terms, len(rules))
	}
	have := map[string]glossaryRule{}
	for _, r := range rules {
		have[r.form] = r
	}
	for _, f := range []string{"идентичност*", "хэш*", "ядовит*", "мёртв* писем", "переигр*", "ретранслятор*", "досчит*", "едет в заголов*",
		"кэш*", "ретрай*", "ретраи", "оффсет*", "консьюмер*", "шаблон*", "убира* дубл*"} {
		if r, ok := have[f]; !ok {
			t.Errorf("GLOSSARY.md has lost the rule «%s»", f)
		} else if r.scopes != nil {
			t.Errorf("GLOSSARY.md:%d: «%s» is ruled out only in some texts; it was ruled out in every one", r.line, f)
		}
	}
	// One Russian term per idea (issue 25): «референс» is ruled out in
	// every text but the engine's strings (sim/run.go and sim/world.go
	// still write it); the other rejected variants are in the list above.
	for _, f := range []string{"референс*"} {
		r, ok := have[f]
		if !ok {
			t.Errorf("GLOSSARY.md has lost the rule «%s»", f)
			continue
		}
		for _, sc := range []string{scopeLessons, scopePractice, scopeCatalogue, scopePresets} {
			if !r.applies(sc) {
				t.Errorf("GLOSSARY.md:%d: «%s» must be ruled out in the %s", r.line, f, sc)
			}
		}
	}
}

// TestGlossaryChosenTerms: the terms GLOSSARY.md chose are the ones the
// lessons use, so a rule cannot stand in for a word the course never
// writes.
func TestGlossaryChosenTerms(t *testing.T) {
	b, err := os.ReadFile(glossaryFile)
	if err != nil {
		t.Fatal(err)
	}
	glossary := foldRU(string(b))
	files, err := fs.Glob(lessons.Embedded(), "content/*.ru.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Russian lessons: %v", err)
	}
	var all strings.Builder
	for _, f := range files {
		b, err := fs.ReadFile(lessons.Embedded(), f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	text := foldRU(all.String())
	for _, term := range []struct{ en, ru, stem string }{
		{"consumer", "потребитель", "потребител"},
		{"offset", "смещение (offset)", "смещени"},
		{"reference", "идентификатор списания", "идентификатор списания"},
		{"relay", "релей", "релей"},
		{"cache", "кеш", "кеш"},
		{"pattern", "паттерн", "паттерн"},
		{"retry", "повтор", "повтор"},
		{"to deduplicate", "дедуплицировать", "дедуплицир"},
		{"lease", "аренда", "аренд"},
		{"fencing token", "токен ограждения", "токен ограждени"},
		{"end-to-end argument", "сквозной принцип", "сквозной принцип"},
	} {
		if !regexp.MustCompile(`(?m)^- (?:[^→\n]*[ ,])?` + regexp.QuoteMeta(term.en) + `[ ,(][^→\n]*→ [^\n]*` + regexp.QuoteMeta(term.ru)).MatchString(glossary) {
			t.Errorf("GLOSSARY.md has no term line for %q → %s", term.en, term.ru)
		}
		if !strings.Contains(text, term.stem) {
			t.Errorf("no Russian lesson writes «%s…», the term GLOSSARY.md chose for %q (%s)", term.stem, term.en, term.ru)
		}
	}
}

// TestGlossaryMatching pins down how a form matches, so that a rule does
// not flag innocent words.
func TestGlossaryMatching(t *testing.T) {
	rules := mustGlossary(t)
	for _, tc := range []struct {
		text  string
		bad   bool
		scope string
	}{
		{"Хэш содержимого", true, scopeLessons},
		{"хеш содержимого", false, scopeLessons},
		{"это бизнес-идентичность операции", true, scopeLessons},
		{"идентичный ответ", false, scopeLessons},
		{"очередь мертвых\nписем", true, scopeLessons},
		{"оператор переигрывает DLQ", true, scopeLessons},
		{"POISON: ЯД", true, scopeLessons},
		{"пришло десять раз подряд", false, scopeLessons},
		{"ключ едет в\nзаголовке", true, scopeLessons},
		{"ключ передаётся в заголовке", false, scopeLessons},
		{"досчёт прогона", true, scopeLessons},
		{"под высокой нагрузкой", false, scopeLessons},
		{"с другой нагрузкой", true, scopeLessons},
		{"на авторитетном primary", true, scopeLessons},
		{"на основном узле (primary)", false, scopeLessons},
		{"консьюмер делает nack", true, scopeLessons},
		{"консьюмеров несколько", true, scopePractice},
		{"потребитель делает nack", false, scopeLessons},
		{"консьюмер Kafka в каталоге", true, scopeCatalogue},
		{"группа консьюмеров в пресете", true, scopePresets},
		{"списание с тем же референсом", true, scopeLessons},
		{"по идентификатору списания", false, scopeLessons},
		{"повтор референса", true, scopeCatalogue},
		// Ruled out everywhere, the engine's strings too.
		{"референс в строке движка", true, scopeEngine},
		{"провайдер убирает дубли по ссылке", true, scopePractice},
		{"провайдер дедуплицирует", false, scopePractice},
		{"провайдер убирает дубли", true, scopePresets},
		{"промахи кэша", true, scopeEngine},
		{"промахи кеша", false, scopeLessons},
		{"каждый ретрай", true, scopeLessons},
		{"ретраи продюсера", true, scopePresets},
		{"ретранслятор", true, scopeLessons},
		{"каждый повтор", false, scopeLessons},
		{"паттерн inbox", false, scopeLessons},
		{"шаблон inbox", true, scopeLessons},
		{"пять основных шаблонов", true, scopeCatalogue},
		{"оффсет партиции", true, scopeLessons},
		{"смещение (offset) партиции", false, scopeLessons},
	} {
		hits := glossaryHits(rules, tc.scope, "text", tc.text, false)
		if got := len(hits) > 0; got != tc.bad {
			t.Errorf("%q: flagged %v, want %v (%v)", tc.text, got, tc.bad, hits)
		}
	}
}

// TestGlossaryLessons scans the Russian lessons as the binary embeds them.
func TestGlossaryLessons(t *testing.T) {
	rules := mustGlossary(t)
	files, err := fs.Glob(lessons.Embedded(), "content/*.ru.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Russian lessons: %v", err)
	}
	var hits []string
	for _, f := range files {
		b, err := fs.ReadFile(lessons.Embedded(), f)
		if err != nil {
			t.Fatal(err)
		}
		hits = append(hits, glossaryHits(rules, scopeLessons, "lessons/"+f, string(b), true)...)
	}
	reportHits(t, hits)
}

// TestGlossaryPractice scans every Russian text of the practice bank.
func TestGlossaryPractice(t *testing.T) {
	rules := mustGlossary(t)
	bank, err := practice.Load()
	if err != nil {
		t.Fatalf("the practice bank does not load: %v", err)
	}
	var hits []string
	for _, tp := range bank.Topics() {
		hits = append(hits, glossaryHits(rules, scopePractice, "practice topic "+tp.Slug+" title", tp.Title.RU, false)...)
	}
	for _, q := range bank.Questions() {
		at := "practice question " + q.ID
		hits = append(hits, glossaryHits(rules, scopePractice, at+" text", q.Text.RU, false)...)
		for _, o := range q.Options {
			hits = append(hits, glossaryHits(rules, scopePractice, at+" option "+o.ID, o.Text.RU, false)...)
			hits = append(hits, glossaryHits(rules, scopePractice, at+" option "+o.ID+" why", o.Why.RU, false)...)
		}
		hits = append(hits, glossaryHits(rules, scopePractice, at+" answer", q.Answer.RU, false)...)
		for i, p := range q.Points {
			hits = append(hits, glossaryHits(rules, scopePractice, fmt.Sprintf("%s point %d", at, i+1), p.RU, false)...)
		}
	}
	// The challenges are practice too (practice/challenges/*.yaml).
	for _, c := range practice.Challenges() {
		at := "practice challenge " + c.ID
		hits = append(hits, glossaryHits(rules, scopePractice, at+" title", c.Title.RU, false)...)
		hits = append(hits, glossaryHits(rules, scopePractice, at+" task", c.Goal.RU, false)...)
		hits = append(hits, glossaryHits(rules, scopePractice, at+" hint", c.Hint.RU, false)...)
	}
	reportHits(t, hits)
}

// TestGlossaryCatalogue scans the Russian side of the UI catalogue.
func TestGlossaryCatalogue(t *testing.T) {
	rules := mustGlossary(t)
	var hits []string
	for key, v := range web.NewCatalog() {
		hits = append(hits, glossaryHits(rules, scopeCatalogue, "web catalogue key "+key, v[1], false)...)
	}
	reportHits(t, hits)
}

// TestGlossaryPresets scans each preset's Russian title, summary and step
// narration.
func TestGlossaryPresets(t *testing.T) {
	rules := mustGlossary(t)
	presets, err := sim.Presets()
	if err != nil {
		t.Fatalf("the presets do not load: %v", err)
	}
	var hits []string
	for _, p := range presets {
		at := "sim/presets/" + p.Name + ".lab"
		hits = append(hits, glossaryHits(rules, scopePresets, at+" title-ru", p.Script.TitleRU, false)...)
		hits = append(hits, glossaryHits(rules, scopePresets, at+" summary-ru", p.Script.SummaryRU, false)...)
		for _, st := range p.Script.Steps {
			hits = append(hits, glossaryHits(rules, scopePresets, fmt.Sprintf("%s:%d #ru", at, st.Line), st.NarrationRU, false)...)
		}
	}
	reportHits(t, hits)
}

// TestGlossaryEngine scans the Russian string literals in the Go source of
// the engine, its words (narration) and handlers (events, notes, errors),
// and of the other packages whose Go code speaks Russian to a learner:
// lessons (verdict labels, claim boxes), practice (grading) and
// web/labview/timeline (actor names and the timeline's labels).
// The UI catalogue is checked through newCatalog above.
func TestGlossaryEngine(t *testing.T) {
	rules := mustGlossary(t)
	var hits []string
	n := 0
	for _, dir := range []string{"../sim", "../narration", "../handlers", "../lessons", "../practice", "labview/timeline"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no Go source in %s: is the scan looking in the right place?", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimPrefix(filepath.ToSlash(f), "../")
			if !strings.HasPrefix(dir, "../") {
				name = "web/" + filepath.ToSlash(f)
			}
			for _, lit := range russianLiterals(src) {
				n++
				hits = append(hits, glossaryHits(rules, scopeEngine, fmt.Sprintf("%s:%d", name, lit.line), lit.text, false)...)
			}
		}
	}
	if n == 0 {
		t.Fatal("found no Russian string literal in the engine's source: is the scan looking in the right place?")
	}
	reportHits(t, hits)
}

type literal struct {
	line int
	text string
}

// russianLiterals returns the string literals of Go source that contain
// Cyrillic, unquoted, with the line each starts on.
func russianLiterals(src []byte) []literal {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	var out []literal
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok != token.STRING {
			continue
		}
		text, err := strconv.Unquote(lit)
		if err != nil {
			text = lit
		}
		if strings.IndexFunc(text, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) >= 0 {
			out = append(out, literal{line: fset.Position(pos).Line, text: text})
		}
	}
}
