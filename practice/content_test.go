package practice

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

func mustLoad(tb testing.TB) *Bank {
	tb.Helper()
	b, err := Load()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// The course's lessons, in order (issue 4).
func lessonSlugs() []string {
	return []string{"duplicates", "keys", "unique", "setnx", "statemachine", "inbox", "failures", "cost", "api", "producer", "brokers", "retries", "fencing", "webhooks", "durable", "check-your-handler"}
}

func TestTopicsAreTheLessons(t *testing.T) {
	b := mustLoad(t)
	var got []string
	for i, tp := range b.Topics() {
		got = append(got, tp.Slug)
		if tp.Order != i+1 {
			t.Errorf("topic %s has order %d, want %d", tp.Slug, tp.Order, i+1)
		}
		if tp.Title.EN == "" || tp.Title.RU == "" {
			t.Errorf("topic %s: title missing a language", tp.Slug)
		}
	}
	if !slices.Equal(got, lessonSlugs()) {
		t.Fatalf("topics = %v, want %v", got, lessonSlugs())
	}
}

// TestTopicsMatchLessonFiles checks every lesson written so far against the
// topics: a lesson file NN-slug.LANG.md must be topic slug with order NN.
// Lessons still being written are simply not there yet.
func TestTopicsMatchLessonFiles(t *testing.T) {
	b := mustLoad(t)
	files, _ := filepath.Glob(filepath.Join("..", "lessons", "content", "*.md"))
	name := regexp.MustCompile(`^(\d+)-([a-z0-9-]+)\.(en|ru)\.md$`)
	for _, f := range files {
		m := name.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			continue
		}
		order, _ := strconv.Atoi(m[1])
		tp, ok := b.Topic(m[2])
		if !ok {
			t.Errorf("lesson %s has no practice topic", filepath.Base(f))
			continue
		}
		if tp.Order != order {
			t.Errorf("lesson %s: topic %s has order %d", filepath.Base(f), tp.Slug, tp.Order)
		}
	}
}

func TestContent(t *testing.T) {
	b := mustLoad(t)
	qs := b.Questions()
	kinds := map[Kind]int{}
	perTopic := map[string]int{}
	ids := map[string]bool{}
	for _, q := range qs {
		kinds[q.Kind]++
		if q.Kind != KindPredict && q.Kind != KindCode {
			perTopic[q.Topic]++
		}
		if ids[q.ID] {
			t.Errorf("id %s used twice", q.ID)
		}
		ids[q.ID] = true
		if !slices.Contains(lessonSlugs(), q.Topic) {
			t.Errorf("%s: topic %q is not a lesson", q.ID, q.Topic)
		}
		checkText(t, q.ID+" text", q.Text)
		t.Run(q.ID, func(t *testing.T) {
			switch q.Kind {
			case KindChoice:
				checkChoiceContent(t, q)
			case KindOpen:
				checkOpenContent(t, q)
			case KindPredict:
				checkPredictContent(t, b, q)
			case KindCode:
				// The files are whole handler files: the exercises' own test
				// (code_exercises_test.go) runs the starter and the solution.
				if q.Code.Starter() == "" || q.Code.Solution() == "" || q.Code.Starter() == q.Code.Solution() {
					t.Error("a code exercise needs a starter and a different solution")
				}
			default:
				t.Errorf("kind %q", q.Kind)
			}
		})
	}
	if n := kinds[KindChoice] + kinds[KindOpen]; n < 40 {
		t.Errorf("%d questions, want at least 40", n)
	}
	if kinds[KindPredict] < 12 {
		t.Errorf("%d predict exercises, want at least 12", kinds[KindPredict])
	}
	if kinds[KindChoice] == 0 || kinds[KindOpen] == 0 {
		t.Errorf("kinds: %v, want both choice and open questions", kinds)
	}
	for _, slug := range lessonSlugs() {
		if perTopic[slug] < 4 {
			t.Errorf("topic %s has %d questions, want at least 4", slug, perTopic[slug])
		}
	}
	t.Logf("%d choice, %d open, %d predict, %d code", kinds[KindChoice], kinds[KindOpen], kinds[KindPredict], kinds[KindCode])
}

func checkText(t *testing.T, what string, x Text) {
	t.Helper()
	if strings.TrimSpace(x.EN) == "" || strings.TrimSpace(x.RU) == "" {
		t.Errorf("%s: needs both en and ru: %+v", what, x)
	}
	// The Russian text is a translation, not a copy, unless it is code.
	if x.RU == x.EN && !looksLikeCode(x.EN) {
		t.Errorf("%s: the ru text is a copy of the en text", what)
	}
}

// looksLikeCode allows options that are the same SQL or code in both
// languages.
func looksLikeCode(s string) bool {
	return strings.ContainsAny(s, "=()'") || strings.HasPrefix(s, "PostgreSQL") || strings.HasPrefix(s, "SQLite")
}

func checkChoiceContent(t *testing.T, q Question) {
	if len(q.Options) < 2 {
		t.Fatalf("%d options", len(q.Options))
	}
	if len(q.Correct()) == 0 {
		t.Error("no correct option")
	}
	for i, o := range q.Options {
		if o.ID != string(rune('a'+i)) {
			t.Errorf("option %d has id %q", i, o.ID)
		}
		checkText(t, "option "+o.ID, o.Text)
		checkText(t, "why of option "+o.ID, o.Why)
	}
	// The answer key grades itself as fully right.
	b := mustLoad(t)
	g, err := b.GradeChoice(q.ID, q.Correct())
	if err != nil || g.Score != 1 {
		t.Errorf("grading the key: score %v, err %v", g.Score, err)
	}
}

func checkOpenContent(t *testing.T, q Question) {
	checkText(t, "answer", q.Answer)
	if len(q.Points) < 3 || len(q.Points) > 5 {
		t.Errorf("%d key points, want 3 to 5", len(q.Points))
	}
	for i, p := range q.Points {
		checkText(t, "point "+strconv.Itoa(i), p)
	}
}

func checkPredictContent(t *testing.T, b *Bank, q Question) {
	sc, err := script.Parse(q.Source())
	if err != nil {
		t.Fatalf("script does not parse: %v", err)
	}
	if _, err := sim.HandlersFor(sc, []string{q.Handler}); err != nil {
		t.Fatal(err)
	}
	res, err := b.Run(q.ID)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !slices.Contains(q.Verdicts(), res.Verdict) {
		t.Errorf("verdict %q is not offered by the question's Verdicts()", res.Verdict)
	}
	if sc.API != slices.Contains(q.Verdicts(), sim.WrongStatus) {
		t.Errorf("API script %v, but wrong-status offered: %v", sc.API, q.Verdicts())
	}
	// What the person sees must not give the answer away.
	steps := q.Steps()
	if strings.Contains(steps, "#") || strings.Contains(steps, "title") || strings.Contains(steps, "summary") {
		t.Errorf("Steps() shows narration or titles:\n%s", steps)
	}
	if _, err := script.Parse(steps); err != nil {
		t.Errorf("Steps() does not parse: %v", err)
	}
	// The lab link opens this script with this handler.
	u, err := url.Parse(q.LabURL())
	if err != nil || u.Path != "/lab" {
		t.Fatalf("lab URL %q: %v", q.LabURL(), err)
	}
	v := u.Query()
	if v.Get("handlers") != q.Handler {
		t.Errorf("lab URL handlers=%q, want %q", v.Get("handlers"), q.Handler)
	}
	if q.Preset != "" && v.Get("preset") != q.Preset {
		t.Errorf("lab URL preset=%q, want %q", v.Get("preset"), q.Preset)
	}
	if q.Preset == "" && v.Get("script") != q.Script {
		t.Errorf("lab URL script does not round-trip: %q", v.Get("script"))
	}
}

func TestPredictCoversEveryHandler(t *testing.T) {
	b := mustLoad(t)
	covered := map[string]bool{}
	inline := 0
	for _, q := range b.Questions() {
		if q.Kind == KindPredict {
			covered[q.Handler] = true
			if q.Preset == "" {
				inline++
			}
		}
	}
	for _, h := range handlers.List() {
		if !covered[h.Name] {
			t.Errorf("no predict exercise for handler %s", h.Name)
		}
	}
	if inline == 0 {
		t.Error("no exercise with a hand-written script")
	}
}

// The interview questions the lectures pose must be in the bank.
func TestLectureInterviewQuestions(t *testing.T) {
	b := mustLoad(t)
	for _, id := range []string{
		"unique-payment-webhook",      // the webhook handler that must never credit twice
		"setnx-enough-choice",         // is SET NX enough?
		"setnx-enough-open",           //
		"inbox-changed-amount-choice", // a repeat with another amount
		"inbox-changed-amount-open",   //
	} {
		if _, ok := b.Question(id); !ok {
			t.Errorf("question %s is missing", id)
		}
	}
}

func TestByTopic(t *testing.T) {
	b := mustLoad(t)
	total := 0
	for _, slug := range lessonSlugs() {
		qs, err := b.ByTopic(slug)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if q.Topic != slug {
				t.Errorf("ByTopic(%s) returned %s of topic %s", slug, q.ID, q.Topic)
			}
		}
		total += len(qs)
	}
	if total != len(b.Questions()) {
		t.Errorf("topics hold %d items, the bank %d", total, len(b.Questions()))
	}
	if _, err := b.ByTopic("nope"); err == nil || !strings.Contains(err.Error(), "duplicates") {
		t.Errorf("unknown topic: err = %v, want ErrUnknownTopic listing the topics", err)
	}
}

// LoadFS rejects broken content with an error that names the problem.
func TestLoadFSRejects(t *testing.T) {
	topics, err := os.ReadFile("questions/topics.yaml")
	if err != nil {
		t.Fatal(err)
	}
	choice := func(extra string) string {
		return `- id: q1
  topic: unique
  kind: choice
  text: {en: "Q?", ru: "В?"}
  options:
    - {text: {en: "a", ru: "а"}, correct: true, why: {en: "w", ru: "п"}}
    - {text: {en: "b", ru: "б"}, why: {en: "w", ru: "п"}}
` + extra
	}
	for _, tc := range []struct{ name, yaml, want string }{
		{"ok", choice(""), ""},
		{"unknown field", choice("  colour: red\n"), "colour"},
		{"missing ru", `- {id: q1, topic: unique, kind: open, text: {en: "Q?"}}`, "both en and ru"},
		{"no correct option", `- id: q1
  topic: unique
  kind: choice
  text: {en: "Q?", ru: "В?"}
  options:
    - {text: {en: "a", ru: "а"}, why: {en: "w", ru: "п"}}
    - {text: {en: "b", ru: "б"}, why: {en: "w", ru: "п"}}
`, "no option is marked correct"},
		{"option without why", `- id: q1
  topic: unique
  kind: choice
  text: {en: "Q?", ru: "В?"}
  options:
    - {text: {en: "a", ru: "а"}, correct: true}
    - {text: {en: "b", ru: "б"}, why: {en: "w", ru: "п"}}
`, "option a needs"},
		{"unknown topic", strings.Replace(choice(""), "topic: unique", "topic: kafka", 1), "unknown topic"},
		{"duplicate id", choice("") + strings.TrimPrefix(choice(""), ""), "used twice"},
		{"bad id", strings.Replace(choice(""), "id: q1", "id: Q 1", 1), "question id"},
		{"unknown kind", `- {id: q1, topic: unique, kind: essay, text: {en: "Q?", ru: "В?"}}`, "unknown kind"},
		{"open with two points", `- id: q1
  topic: unique
  kind: open
  text: {en: "Q?", ru: "В?"}
  answer: {en: "A", ru: "О"}
  points: [{en: "1", ru: "1"}, {en: "2", ru: "2"}]
`, "3 to 5 key points"},
		{"unknown handler", `- {id: p1, topic: unique, kind: predict, handler: magic, preset: happy-path, text: {en: "Q?", ru: "В?"}}`, "unknown handler"},
		{"unknown preset", `- {id: p1, topic: unique, kind: predict, handler: unique, preset: nope, text: {en: "Q?", ru: "В?"}}`, "unknown scenario"},
		{"preset and script", `- {id: p1, topic: unique, kind: predict, handler: unique, preset: happy-path, script: "deliver", text: {en: "Q?", ru: "В?"}}`, "not both"},
		{"bad script", `- {id: p1, topic: unique, kind: predict, handler: unique, script: "fly away", text: {en: "Q?", ru: "В?"}}`, "unknown verb"},
		{"predict with options", `- id: p1
  topic: unique
  kind: predict
  handler: unique
  preset: happy-path
  text: {en: "Q?", ru: "В?"}
  options: [{text: {en: "a", ru: "а"}, correct: true, why: {en: "w", ru: "п"}}]
`, "only text, handler"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"questions/topics.yaml": {Data: topics},
				"questions/x.yaml":      {Data: []byte(tc.yaml)},
			}
			_, err := LoadFS(fsys)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestStepsKeepSettingsDropNarration(t *testing.T) {
	b := mustLoad(t)
	q, _ := b.Question("predict-setnx-processing-ttl")
	if s := q.Steps(); !strings.HasPrefix(s, "processing-ttl: 10m\npublish pay-1 amount=10000\n") {
		t.Errorf("inline script steps:\n%s", s)
	}
	q, _ = b.Question("predict-inbox-retention") // a preset with headers and narration
	s := q.Steps()
	for _, want := range []string{"max-deliveries: 2\n", "inbox-retention: 1d\n", "advance 3d\n", "dlq-replay\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("preset steps lack %q:\n%s", want, s)
		}
	}
	if strings.Contains(q.Source(), "#en:") == strings.Contains(s, "#en:") {
		t.Errorf("Source() should keep the narration and Steps() drop it")
	}
	if c, _ := b.Question("dup-sources"); c.Steps() != "" || c.LabURL() != "" || c.Source() != "" {
		t.Error("a choice question has no script")
	}
}
