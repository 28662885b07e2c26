package practice

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
	"go.yaml.in/yaml/v3"
)

//go:embed questions/*.yaml _exercises
var content embed.FS

// Text is a piece of content in both languages of the lab.
type Text struct {
	EN string `yaml:"en"`
	RU string `yaml:"ru"`
}

// In returns the text in lang ("ru" or "en"); any other value gets English.
func (t Text) In(lang string) string {
	if lang == "ru" {
		return t.RU
	}
	return t.EN
}

// Kind is what sort of item a question is, and so how it is answered and
// graded.
type Kind string

const (
	// KindChoice is multiple choice: one or more options are correct, and the
	// answer must pick exactly those.
	KindChoice Kind = "choice"
	// KindOpen is answered in the person's own words, then self-assessed against
	// the key points of a model answer.
	KindOpen Kind = "open"
	// KindPredict is predict-the-outcome: the person names the settled balance
	// and the verdict of one handler on a script, and the engine grades it.
	KindPredict Kind = "predict"
	// KindCode is a coding exercise: the person writes a handler file from
	// a starter, and the engine grades it by running it (in the sandbox)
	// on named presets and searching its schedules.
	KindCode Kind = "code"
)

// Exercise is a coding exercise's hidden checks and files.
type Exercise struct {
	// Files names the folder _exercises/FILES holding starter.go (what
	// the editor opens with) and solution.go (the model solution). The
	// underscore makes the go tool skip them: they are handler files,
	// each a package handler of its own, not this package's code.
	Files string `yaml:"files"`
	// Exercise is the checks: the presets that must settle ok, the
	// verdicts the schedule search must not find, its depth and header.
	sandbox.Exercise `yaml:",inline"`

	starter, solution string
}

// Starter is the file the exercise's editor opens with.
func (e Exercise) Starter() string { return e.starter }

// Solution is the model solution.
func (e Exercise) Solution() string { return e.solution }

// Topic is a lesson of the course; every question belongs to one.
type Topic struct {
	Slug  string `yaml:"slug"` // the lesson's slug: /lessons/{slug}
	Order int    `yaml:"order"`
	Title Text   `yaml:"title"`
}

// Option is one answer of a multiple-choice question. ID is its letter
// ("a", "b", ...) by position, which is what a form posts back.
type Option struct {
	ID      string `yaml:"-"`
	Text    Text   `yaml:"text"`
	Correct bool   `yaml:"correct"`
	Why     Text   `yaml:"why"` // why this option is right or wrong
}

// Question is one item of the bank: a multiple-choice question, an open
// question or a predict-the-outcome exercise. Only the fields of its Kind
// are set.
type Question struct {
	ID    string `yaml:"id"`    // stable: progress is stored under it
	Topic string `yaml:"topic"` // a Topic slug
	Kind  Kind   `yaml:"kind"`
	Text  Text   `yaml:"text"` // the question, or the exercise's prompt

	Options []Option `yaml:"options"` // choice: the options in order

	Answer Text   `yaml:"answer"` // open: the model answer
	Points []Text `yaml:"points"` // open: key points the person ticks

	Handler string `yaml:"handler"` // predict: the handler that runs
	Preset  string `yaml:"preset"`  // predict: a preset name, or
	Script  string `yaml:"script"`  // predict: an inline script

	Code *Exercise `yaml:"code"` // code: the exercise's files and checks

	source string         // predict: the script text that runs
	script *script.Script // predict: the parsed script
}

// Source is the script a predict exercise runs: the preset's text or the
// inline script. It is empty for other kinds.
func (q Question) Source() string { return q.source }

// Steps is a predict exercise's script as the exercise shows it: the
// settings that change the run and the steps, without the title, summary,
// narration and comments of a preset, which would give the answer away. It
// is empty for other kinds.
func (q Question) Steps() string {
	if q.script == nil {
		return ""
	}
	s := *q.script
	s.Title, s.TitleRU, s.Summary, s.SummaryRU = "", "", "", ""
	s.Steps = slices.Clone(s.Steps)
	for i := range s.Steps {
		s.Steps[i].NarrationEN, s.Steps[i].NarrationRU = "", ""
	}
	return s.String()
}

// LabURL is the playground address that opens a predict exercise's script
// with its handler chosen, for "open in the lab": /lab?preset=NAME&handlers=H
// or /lab?script=ESCAPED&handlers=H. It is empty for other kinds.
func (q Question) LabURL() string {
	if q.Kind != KindPredict {
		return ""
	}
	l := link.Lab{Preset: q.Preset, Handlers: []string{q.Handler}}
	if q.Preset == "" {
		l.Script, l.Plain = q.Script, true
	}
	return l.String()
}

// Correct returns the IDs of the correct options of a choice question.
func (q Question) Correct() []string {
	var ids []string
	for _, o := range q.Options {
		if o.Correct {
			ids = append(ids, o.ID)
		}
	}
	return ids
}

// Bank is the loaded, validated content: topics in course order and
// questions in file order within each topic. It is read-only after Load, so
// any number of goroutines may share one.
type Bank struct {
	files     fs.FS // where _exercises/ is read from
	topics    []Topic
	questions []Question
	byID      map[string]int
}

// Load reads the bank embedded in the binary.
func Load() (*Bank, error) { return LoadFS(content) }

// LoadFS reads questions/topics.yaml and every other questions/*.yaml file
// from fsys (a directory on disk in dev mode) and validates them: unknown
// fields, missing translations, bad answer keys, unknown topics, handlers or
// presets, and scripts that do not parse are errors naming the file and id.
func LoadFS(fsys fs.FS) (*Bank, error) {
	presets, err := sim.Presets()
	if err != nil {
		return nil, err
	}
	api, err := sim.APIPresets()
	if err != nil {
		return nil, err
	}
	presets = append(presets, api...)
	b := &Bank{byID: map[string]int{}, files: fsys}
	if err := decodeFile(fsys, "questions/topics.yaml", &b.topics); err != nil {
		return nil, err
	}
	if err := checkTopics(b.topics); err != nil {
		return nil, err
	}
	slices.SortFunc(b.topics, func(x, y Topic) int { return x.Order - y.Order })
	files, err := fs.Glob(fsys, "questions/*.yaml")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if path.Base(f) == "topics.yaml" {
			continue
		}
		var qs []Question
		if err := decodeFile(fsys, f, &qs); err != nil {
			return nil, err
		}
		for _, q := range qs {
			if err := b.add(q, presets); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	// Topic order first, file order within a topic.
	slices.SortStableFunc(b.questions, func(x, y Question) int {
		return b.topicOrder(x.Topic) - b.topicOrder(y.Topic)
	})
	for i, q := range b.questions {
		b.byID[q.ID] = i
	}
	return b, nil
}

func decodeFile(fsys fs.FS, name string, v any) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func checkTopics(ts []Topic) error {
	if len(ts) == 0 {
		return fmt.Errorf("topics.yaml: no topics")
	}
	slugs, orders := map[string]bool{}, map[int]bool{}
	for _, t := range ts {
		if !validID(t.Slug) || t.Order < 1 || !complete(t.Title) {
			return fmt.Errorf("topics.yaml: topic %q needs a slug, an order from 1 and a title in en and ru", t.Slug)
		}
		if slugs[t.Slug] || orders[t.Order] {
			return fmt.Errorf("topics.yaml: topic %q repeats a slug or an order", t.Slug)
		}
		slugs[t.Slug], orders[t.Order] = true, true
	}
	return nil
}

// Topics returns the topics in course order.
func (b *Bank) Topics() []Topic { return slices.Clone(b.topics) }

// Topic returns the topic with that slug.
func (b *Bank) Topic(slug string) (Topic, bool) {
	for _, t := range b.topics {
		if t.Slug == slug {
			return t, true
		}
	}
	return Topic{}, false
}

// Question returns the question with that id.
func (b *Bank) Question(id string) (Question, bool) {
	i, ok := b.byID[id]
	if !ok {
		return Question{}, false
	}
	return b.questions[i], true
}

// Questions returns every question of the bank, in course order.
func (b *Bank) Questions() []Question { return slices.Clone(b.questions) }

// ByTopic returns the questions of one topic in their file order: the
// "by topic" mode. An unknown slug is an error.
func (b *Bank) ByTopic(slug string) ([]Question, error) {
	if _, ok := b.Topic(slug); !ok {
		return nil, fmt.Errorf("%w %q; valid topics: %s", ErrUnknownTopic, slug, strings.Join(b.slugs(), ", "))
	}
	var out []Question
	for _, q := range b.questions {
		if q.Topic == slug {
			out = append(out, q)
		}
	}
	return out, nil
}

func (b *Bank) slugs() []string {
	s := make([]string, len(b.topics))
	for i, t := range b.topics {
		s[i] = t.Slug
	}
	return s
}

func (b *Bank) topicOrder(slug string) int {
	t, _ := b.Topic(slug)
	return t.Order
}

// add validates one question and appends it.
func (b *Bank) add(q Question, presets []sim.Preset) error {
	if !validID(q.ID) {
		return fmt.Errorf("question id %q: use lowercase letters, digits and dashes", q.ID)
	}
	if _, dup := b.byID[q.ID]; dup {
		return fmt.Errorf("question %s: the id is used twice", q.ID)
	}
	b.byID[q.ID] = len(b.questions)
	if _, ok := b.Topic(q.Topic); !ok {
		return fmt.Errorf("question %s: unknown topic %q; valid topics: %s", q.ID, q.Topic, strings.Join(b.slugs(), ", "))
	}
	if !complete(q.Text) {
		return fmt.Errorf("question %s: text needs both en and ru", q.ID)
	}
	var err error
	switch q.Kind {
	case KindChoice:
		err = checkChoice(&q)
	case KindOpen:
		err = checkOpen(q)
	case KindPredict:
		err = checkPredict(&q, presets)
	case KindCode:
		err = checkCode(q, presets, b.files)
	default:
		err = fmt.Errorf("unknown kind %q; valid kinds: choice, open, predict, code", q.Kind)
	}
	if err != nil {
		return fmt.Errorf("question %s: %w", q.ID, err)
	}
	b.questions = append(b.questions, q)
	return nil
}

func checkChoice(q *Question) error {
	if len(q.Options) < 2 || len(q.Options) > 26 {
		return fmt.Errorf("a choice question needs 2 to 26 options, has %d", len(q.Options))
	}
	if q.Answer != (Text{}) || q.Points != nil || q.Handler != "" || q.Preset != "" || q.Script != "" {
		return fmt.Errorf("a choice question has only text and options")
	}
	correct := 0
	for i := range q.Options {
		o := &q.Options[i]
		o.ID = string(rune('a' + i))
		if !complete(o.Text) || !complete(o.Why) {
			return fmt.Errorf("option %s needs text and why in both en and ru", o.ID)
		}
		if o.Correct {
			correct++
		}
	}
	if correct == 0 {
		return fmt.Errorf("no option is marked correct")
	}
	return nil
}

func checkOpen(q Question) error {
	if q.Options != nil || q.Handler != "" || q.Preset != "" || q.Script != "" {
		return fmt.Errorf("an open question has only text, answer and points")
	}
	if !complete(q.Answer) {
		return fmt.Errorf("the model answer needs both en and ru")
	}
	if len(q.Points) < 3 || len(q.Points) > 5 {
		return fmt.Errorf("an open question needs 3 to 5 key points, has %d", len(q.Points))
	}
	for i, p := range q.Points {
		if !complete(p) {
			return fmt.Errorf("key point %d needs both en and ru", i+1)
		}
	}
	return nil
}

func checkPredict(q *Question, presets []sim.Preset) error {
	if q.Options != nil || q.Answer != (Text{}) || q.Points != nil {
		return fmt.Errorf("a predict exercise has only text, handler and a preset or a script")
	}
	if q.Handler == "" {
		return fmt.Errorf("a predict exercise needs a handler")
	}
	switch {
	case (q.Preset == "") == (q.Script == ""):
		return fmt.Errorf("name a preset or write a script, not both or neither")
	case q.Preset != "":
		p, err := sim.FindPreset(presets, q.Preset)
		if err != nil {
			return err
		}
		q.source, q.script = p.Source, p.Script
	default:
		s, err := script.Parse(q.Script)
		if err != nil {
			return fmt.Errorf("script: %w", err)
		}
		q.source, q.script = q.Script, s
	}
	// The handler must serve the script's side: a message handler for a
	// broker story, an API handler for a client's requests.
	if _, err := sim.HandlersFor(q.script, []string{q.Handler}); err != nil {
		return fmt.Errorf("handler %q: %v", q.Handler, err)
	}
	return nil
}

func complete(t Text) bool {
	return strings.TrimSpace(t.EN) != "" && strings.TrimSpace(t.RU) != ""
}

// validID reports whether s is a slug: lowercase letters, digits and inner
// dashes, at most 64 bytes.
func validID(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

// checkCode validates a coding exercise and reads its files.
func checkCode(q Question, presets []sim.Preset, fsys fs.FS) error {
	e := q.Code
	if e == nil || q.Options != nil || q.Answer != (Text{}) || q.Points != nil || q.Handler != "" || q.Preset != "" || q.Script != "" {
		return fmt.Errorf("a code exercise has only text and code")
	}
	if !validID(e.Files) {
		return fmt.Errorf("code.files %q: a folder name of lowercase letters, digits and dashes", e.Files)
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"starter.go", &e.starter}, {"solution.go", &e.solution}} {
		b, err := fs.ReadFile(fsys, "_exercises/"+e.Files+"/"+f.name)
		if err != nil {
			return fmt.Errorf("code: %w", err)
		}
		*f.dst = string(b)
	}
	if len(e.Presets) == 0 {
		return fmt.Errorf("code.presets: name at least one preset the handler must settle ok")
	}
	for _, p := range e.Presets {
		if _, err := sim.FindPreset(presets, p); err != nil {
			return fmt.Errorf("code.presets: %w", err)
		}
	}
	for _, v := range e.Forbid {
		if !slices.Contains(sim.Verdicts(), v) || v == sim.OK {
			return fmt.Errorf("code.forbid: %q is not a failing verdict", v)
		}
	}
	if e.Depth < 1 || e.Depth > 4 {
		return fmt.Errorf("code.depth %d: from 1 to 4", e.Depth)
	}
	if _, err := script.Parse(e.Header); err != nil {
		return fmt.Errorf("code.header: %w", err)
	}
	return nil
}
