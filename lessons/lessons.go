// Package lessons loads and renders the course: one Markdown file per lesson
// and language under content/, embedded in the binary and rendered once.
//
// Besides GFM, the Markdown knows four things (see README.md): a `source`
// fence quotes a declaration from handlers/, a `claim` fence states the
// verdict each handler settles to on a preset (a broker preset, or an API
// preset with the API handlers), a `mermaid` fence is a
// diagram, drawn ahead of time by `make diagrams` into diagrams/ and put in
// the page as inline SVG, and a `lab:PRESET?handlers=a,b` link opens
// the playground. Load checks every preset, handler and declaration a lesson
// names, so a lesson that refers to something that does not exist never
// loads; the content test runs every claim on the engine.
package lessons

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

//go:embed content diagrams/*.svg code/*.html
var embedded embed.FS

// Embedded returns the course compiled into the binary, laid out as Load
// expects: content/*.md at its root, the diagrams' SVGs in diagrams/.
func Embedded() fs.FS { return embedded }

// The languages every lesson is written in.
const (
	English = "en"
	Russian = "ru"
)

// Langs returns the course's languages.
func Langs() []string { return []string{English, Russian} }

// Course is every lesson in every language. It does not change after Load,
// so any number of requests may read it at once.
type Course struct {
	byLang map[string][]*Lesson // ordered by Order
}

// Lesson is one lesson in one language, rendered.
type Lesson struct {
	Slug    string   // the URL: /lessons/{Slug}
	Order   int      // position in the table of contents, from 1
	Lang    string   // English or Russian
	Title   string   // plain text
	Summary string   // plain text, one sentence
	Presets []string // presets the lesson demonstrates, from the front matter

	// HTML is the rendered body. Everything in it that came from the
	// Markdown is escaped: raw HTML in the content is dropped.
	HTML     template.HTML
	Headings []Heading // every heading, in document order

	ReadingMinutes int          // words/200 rounded up, at least 1
	Claims         []Claim      // the claim fences, in document order
	LabLinks       []LabLink    // the lab: links, in document order
	Editors        []EditorLink // the source fences marked editor=PRESET, in document order
	Diagrams       int          // the mermaid fences, drawn as inline SVG
	Source         string       // the file it came from: content/05-statemachine.en.md
	links          []pageLink   // links to lessons, for the content test
	quotes         []sourceRef  // source fences, for the content test
}

// Heading is a heading of a lesson; ID is its anchor (without '#').
type Heading struct {
	Level int
	ID    string
	Text  string
}

// Claim is a claim fence: on Preset, each handler settles to a verdict. The
// content test runs the preset and fails if the engine disagrees.
type Claim struct {
	Preset   string
	Verdicts []HandlerVerdict
	Line     int // line of the fence in Lesson.Source
	// Engine is "real" for a claim about PostgreSQL and Redis (the
	// fence's "engine: real" line), "" for the embedded engine.
	Engine string
	// Broker is the broker the claim holds on (the fence's "broker:
	// NAME" line, a profile of script.BrokerProfiles), "" for the lab's own
	// model. The tests run the preset under that broker's profile and on
	// the real broker (link.Brokers: NATS and Kafka in process, RabbitMQ
	// on a throwaway server).
	Broker string
	// API: Preset is one of the API side's (sim.APIPresets), a script of
	// HTTP requests run by the API handlers. Its box also links the live
	// endpoint (TryAPIURL) and names the `lab run` command.
	API bool
}

// Handlers returns the names of the handlers the claim is about, in order.
func (c Claim) Handlers() []string {
	names := make([]string, len(c.Verdicts))
	for i, v := range c.Verdicts {
		names[i] = v.Handler
	}
	return names
}

// TryAPIURL is the page of the live payments endpoint, with its curl
// cheat-sheet: where an API claim's box sends the reader.
const TryAPIURL = "/try-api"

// RunCommand is the command line that runs a claim's preset on its
// handlers: lab run PRESET --handlers a,b (with --engine real for a claim
// about PostgreSQL and Redis, and --broker NAME for one about a broker
// the lab runs for real).
func RunCommand(c Claim) string {
	cmd := "lab run " + c.Preset + " --handlers " + strings.Join(c.Handlers(), ",")
	if c.Engine == "real" {
		cmd += " --engine real"
	}
	switch {
	case slices.Contains(InProcessBrokers, c.Broker):
		cmd += " --broker " + c.Broker
	case c.Broker == "rabbitmq":
		// scripts/real-servers.sh start-rabbitmq exports it.
		cmd += ` --broker "$LAB_RABBITMQ_URL"`
	}
	return cmd
}

// InProcessBrokers are the real brokers every lab starts in its own
// process when asked (NATS JetStream, Kafka's kfake): a claim about one
// opens the lab on it (broker=). RabbitMQ is a server of its own, which
// a lab offers only when given one, so its claims open the lab's model
// under the rabbitmq profile.
var InProcessBrokers = []string{"nats", "kafka"}

// BrokerName is how a claim box names a broker profile: the product, in
// both languages.
func BrokerName(profile string) string {
	switch profile {
	case "nats":
		return "NATS JetStream"
	case "kafka":
		return "Kafka"
	case "rabbitmq":
		return "RabbitMQ"
	case "sqs":
		return "Amazon SQS"
	case "sqs-fifo":
		return "Amazon SQS FIFO"
	}
	return profile
}

// HandlerVerdict is one line of a claim.
type HandlerVerdict struct {
	Handler string
	Verdict sim.Verdict
}

// LabLink is a lab: link: it opens the playground on Preset with Handlers
// chosen (none means the lab's default).
type LabLink struct {
	Preset   string
	Handlers []string
	Line     int
}

// pageLink is a link to /lessons/SLUG[#anchor] found in a lesson.
type pageLink struct {
	Slug, Anchor string
	Line         int
}

// Hit is a search result: a lesson's title (Anchor empty) or one of its
// headings.
type Hit struct {
	Slug   string
	Title  string // the lesson's title
	Anchor string // heading ID, "" when the title matched
	Text   string // the title or heading that matched
	Level  int    // heading level, 0 for the title
}

// Load reads every content/*.md in fsys and renders it, each mermaid fence
// as its SVGs from fsys's diagrams/ (see DiagramFile). It fails, naming the
// file and line of each problem, when a lesson's front matter is wrong, when
// a lesson names a preset, handler, verdict or declaration that does not
// exist, when a diagram has no SVG (run make diagrams), or when the two
// languages of a lesson disagree or one is missing.
func Load(fsys fs.FS) (*Course, error) {
	presets, err := sim.Presets()
	if err != nil {
		return nil, fmt.Errorf("lessons: presets: %w", err)
	}
	apiPresets, err := sim.APIPresets()
	if err != nil {
		return nil, fmt.Errorf("lessons: API presets: %w", err)
	}
	b := newBuilder(presetsByName(presets), handlerNames(handlers.List()), handlers.Source)
	b.apiPresets = presetsByName(apiPresets)
	b.apiHandlers = apiHandlerNames(handlers.APIList())
	b.diagrams = fsys

	names, err := fs.Glob(fsys, "content/*.md")
	if err != nil {
		return nil, fmt.Errorf("lessons: %w", err)
	}
	var all []*Lesson
	var errs []error
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		l, err := b.lesson(name, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		all = append(all, l)
	}
	c, err := newCourse(all)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// newCourse indexes lessons and checks what holds between files: slugs and
// orders unique per language, and every lesson in both languages with the
// same order and presets.
func newCourse(all []*Lesson) (*Course, error) {
	var errs []error
	c := &Course{byLang: map[string][]*Lesson{}}
	bySlug := map[string]map[string]*Lesson{} // slug -> lang -> lesson
	byOrder := map[string]map[int]*Lesson{}   // lang -> order -> lesson
	for _, l := range all {
		if bySlug[l.Slug] == nil {
			bySlug[l.Slug] = map[string]*Lesson{}
		}
		if byOrder[l.Lang] == nil {
			byOrder[l.Lang] = map[int]*Lesson{}
		}
		if prev := bySlug[l.Slug][l.Lang]; prev != nil {
			errs = append(errs, fmt.Errorf("%s: duplicate slug %q (lang %s): also in %s", l.Source, l.Slug, l.Lang, prev.Source))
			continue
		}
		if prev := byOrder[l.Lang][l.Order]; prev != nil {
			errs = append(errs, fmt.Errorf("%s: duplicate order %d (lang %s): also in %s", l.Source, l.Order, l.Lang, prev.Source))
			continue
		}
		bySlug[l.Slug][l.Lang] = l
		byOrder[l.Lang][l.Order] = l
		c.byLang[l.Lang] = append(c.byLang[l.Lang], l)
	}
	for _, lang := range Langs() {
		slices.SortFunc(c.byLang[lang], func(a, b *Lesson) int { return a.Order - b.Order })
	}
	for _, lang := range Langs() {
		for _, l := range c.byLang[lang] {
			for _, other := range Langs() {
				if other == lang {
					continue
				}
				t := bySlug[l.Slug][other]
				if t == nil {
					errs = append(errs, fmt.Errorf("%s: lesson %q has no %s version (want %s)", l.Source, l.Slug, other, fileName(l.Order, l.Slug, other)))
					continue
				}
				if lang > other {
					continue // report each pair once
				}
				if t.Order != l.Order {
					errs = append(errs, fmt.Errorf("%s: order %d, but %s has order %d", l.Source, l.Order, t.Source, t.Order))
				}
				if !slices.Equal(t.Presets, l.Presets) {
					errs = append(errs, fmt.Errorf("%s: presets %v, but %s has %v", l.Source, l.Presets, t.Source, t.Presets))
				}
			}
		}
	}
	return c, errors.Join(errs...)
}

func fileName(order int, slug, lang string) string {
	return path.Join("content", fmt.Sprintf("%02d-%s.%s.md", order, slug, lang))
}

// Lessons returns the lessons in lang in table-of-contents order; nil for a
// language the course does not have.
func (c *Course) Lessons(lang string) []*Lesson {
	return slices.Clone(c.byLang[lang])
}

// Lesson returns the lesson with that slug in lang.
func (c *Course) Lesson(slug, lang string) (*Lesson, bool) {
	for _, l := range c.byLang[lang] {
		if l.Slug == slug {
			return l, true
		}
	}
	return nil, false
}

// Prev returns the lesson before l in its language, or nil for the first.
func (c *Course) Prev(l *Lesson) *Lesson { return c.neighbour(l, -1) }

// Next returns the lesson after l in its language, or nil for the last.
func (c *Course) Next(l *Lesson) *Lesson { return c.neighbour(l, +1) }

func (c *Course) neighbour(l *Lesson, d int) *Lesson {
	ls := c.byLang[l.Lang]
	i := slices.Index(ls, l)
	if i < 0 || i+d < 0 || i+d >= len(ls) {
		return nil
	}
	return ls[i+d]
}

// Search finds query in the titles and headings of the lessons in lang,
// ignoring case (any script) and treating ё as е. Every word of the query
// must occur in the text. Hits come in course order, a lesson's title
// before its headings.
func (c *Course) Search(lang, query string) []Hit {
	words := strings.Fields(Fold(query))
	if len(words) == 0 {
		return nil
	}
	match := func(s string) bool {
		s = Fold(s)
		for _, w := range words {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}
	var hits []Hit
	for _, l := range c.byLang[lang] {
		if match(l.Title) {
			hits = append(hits, Hit{Slug: l.Slug, Title: l.Title, Text: l.Title})
		}
		for _, h := range l.Headings {
			if match(h.Text) {
				hits = append(hits, Hit{Slug: l.Slug, Title: l.Title, Anchor: h.ID, Text: h.Text, Level: h.Level})
			}
		}
	}
	return hits
}

// Fold lower-cases s in any script and folds ё into е, as Russian readers
// type one for the other. It maps rune for rune, so positions in the folded
// text are positions in the original; search and its highlighting share it.
func Fold(s string) string {
	return strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if r == 'ё' {
			return 'е'
		}
		return r
	}, s)
}

// VerdictLabel is the word for a verdict in lang, as the claim boxes show
// it: the engine's own name in English (the word a claim fence states),
// sim's word in Russian.
func VerdictLabel(v sim.Verdict, lang string) string {
	if lang == Russian {
		return v.Word(lang)
	}
	return string(v)
}

// verdicts lists every verdict a claim may state: a run of message
// handlers never answers a request, so wrong-status is the API side's.
func verdicts(api bool) []sim.Verdict {
	if api {
		return sim.Verdicts()
	}
	return sim.MessageVerdicts()
}

func presetsByName(ps []sim.Preset) map[string]*script.Script {
	m := make(map[string]*script.Script, len(ps))
	for _, p := range ps {
		m[p.Name] = p.Script
	}
	return m
}

func apiHandlerNames(hs []handlers.APIInfo) []string {
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = h.Name
	}
	return names
}

func handlerNames(hs []handlers.Info) []string {
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = h.Name
	}
	return names
}
