package practicepage

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// The practice pages' view models: plain data the templates print. Every
// decision (which words, which state, which link) is made here.

// progressBar is one progress bar: how much of a topic is answered and how
// well, as widths in percent and as words.
type progressBar struct {
	Title    string
	URL      string
	Slug     string
	Answered int // percent of the items answered: the light fill
	Score    int // percent of the topic known (latest scores over all items): the solid fill
	Summary  string
}

func newBar(t page.Text, tp practice.TopicProgress) progressBar {
	b := progressBar{Slug: tp.Topic, Answered: tp.AnsweredPercent(), Score: tp.ScorePercent()}
	if tp.Answered == 0 {
		b.Summary = t.F("pr.bar.none", tp.Total)
	} else {
		b.Summary = t.F("pr.bar.summary", tp.Answered, tp.Total, int(math.Round(tp.Average*100)))
	}
	return b
}

// homeView is the practice overview.
type homeView struct {
	T            page.Text
	PageTitle    string
	Intro        string
	Notice       string // what an import did
	Overall      progressBar
	Topics       []progressBar
	InterviewURL string
	ReviewURL    string
	ReviewDue    int
	ReviewText   string
	HasProgress  bool // the reader has a profile with answers: offer the export
	ImportLimit  string
}

func (s *Practice) homeView(t page.Text, p practice.Progress, q url.Values) homeView {
	v := homeView{
		T:            t,
		PageTitle:    t.S("pr.title") + " · " + t.S("app.name"),
		InterviewURL: "/practice/interview",
		ReviewURL:    "/practice/review",
		HasProgress:  p.Overall.Answered > 0,
		ImportLimit:  t.F("pr.keep.limit", practice.MaxImportBytes>>20),
	}
	kinds := map[practice.Kind]int{}
	for _, q := range s.bank.Questions() {
		kinds[q.Kind]++
	}
	v.Intro = t.F("pr.intro", kinds[practice.KindChoice]+kinds[practice.KindOpen], kinds[practice.KindPredict], kinds[practice.KindCode], len(s.bank.Topics()))
	v.Overall = newBar(t, p.Overall)
	v.Overall.Title = t.S("pr.overall")
	for _, tp := range p.Topics {
		b := newBar(t, tp)
		if topic, ok := s.bank.Topic(tp.Topic); ok {
			b.Title = topic.Title.In(t.Lang())
		}
		b.URL = topicURL(tp.Topic)
		v.Topics = append(v.Topics, b)
	}
	now := s.now()
	v.ReviewDue = len(p.Review(now))
	v.ReviewText = reviewStatus(t, p, now)
	if added, err1 := strconv.Atoi(q.Get("imported")); err1 == nil {
		if skipped, err2 := strconv.Atoi(q.Get("skipped")); err2 == nil && added >= 0 && skipped >= 0 {
			v.Notice = t.F("pr.imported", added, skipped)
		}
	}
	return v
}

// reviewStatus says what the review mode holds now, or when it next will.
func reviewStatus(t page.Text, p practice.Progress, now time.Time) string {
	if n := len(p.Review(now)); n > 0 {
		return t.F("pr.review.due", n)
	}
	if len(p.Items) == 0 {
		return t.S("pr.review.nothing")
	}
	var next time.Time
	for _, it := range p.Items {
		if next.IsZero() || it.Due.Before(next) {
			next = it.Due
		}
	}
	return t.F("pr.review.next", relTime(t, next.Sub(now)))
}

// relTime writes a wait roughly, in the largest unit that fits.
func relTime(t page.Text, d time.Duration) string {
	switch {
	case d < time.Minute:
		return t.S("pr.in.moment")
	case d < time.Hour:
		return t.F("pr.in.min", int(math.Ceil(d.Minutes())))
	case d < 23*time.Hour:
		return t.F("pr.in.hours", int(math.Round(d.Hours())))
	case d < 36*time.Hour:
		return t.S("pr.in.tomorrow")
	}
	return t.F("pr.in.days", int(math.Round(d.Hours()/24)))
}

// listView is a page listing items: a topic, an interview run, the review.
type listView struct {
	T          page.Text
	PageTitle  string
	Crumb      string // the page's name in the breadcrumb
	Title      string
	Lead       string
	Bar        *progressBar
	LessonURL  string // the topic's lesson
	StartURL   string
	StartLabel string
	ShareURL   string // an interview run's address, to copy
	NewRunURL  string
	Items      []itemView
	Empty      string // what to say when there are no items
	Summary    string
	Deadline   *deadlineView // an interview run's clock
}

// itemView is one item in a list.
type itemView struct {
	N          int
	URL        string
	Kind       string
	KindLabel  string
	Text       string
	Topic      string
	State      string // new, hit or miss
	StateLabel string
}

func (s *Practice) items(t page.Text, qs []practice.Question, m func(practice.Question) practiceMode, p practice.Progress, showTopic bool) ([]itemView, string) {
	var out []itemView
	start := ""
	for i, q := range qs {
		it := itemView{N: i + 1, URL: m(q).itemURL(q.ID, "", nil), Kind: string(q.Kind),
			KindLabel: t.S("pr.kind." + string(q.Kind)), Text: excerpt160(q.Text.In(t.Lang()))}
		if showTopic {
			if tp, ok := s.bank.Topic(q.Topic); ok {
				it.Topic = tp.Title.In(t.Lang())
			}
		}
		it.State, it.StateLabel = itemState(t, p, q.ID)
		if start == "" && it.State == "new" {
			start = it.URL
		}
		out = append(out, it)
	}
	return out, start
}

func itemState(t page.Text, p practice.Progress, id string) (state, label string) {
	it, ok := p.Items[id]
	switch {
	case !ok:
		return "new", t.S("pr.state.new")
	case it.LastScore >= practice.HitScore:
		return "hit", t.F("pr.state.hit", int(math.Round(it.LastScore*100)))
	}
	return "miss", t.F("pr.state.miss", int(math.Round(it.LastScore*100)))
}

// runState is the state of an item answered in the interview run being
// shown, from the score of its first try in the run.
func runState(t page.Text, score float64) (state, label string) {
	if score >= practice.HitScore {
		return "hit", t.F("pr.state.run.hit", int(math.Round(score*100)))
	}
	return "miss", t.F("pr.state.run.miss", int(math.Round(score*100)))
}

// excerpt160 shortens a prompt for a list, at a word boundary.
func excerpt160(s string) string {
	const limit = 160
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)[:limit]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > limit/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:—-") + "…"
}

func (s *Practice) topicView(t page.Text, topic practice.Topic, qs []practice.Question, p practice.Progress) listView {
	title := topic.Title.In(t.Lang())
	bar := newBar(t, p.Topic(topic.Slug))
	v := listView{
		T:         t,
		PageTitle: title + " · " + t.S("pr.title") + " · " + t.S("app.name"),
		Crumb:     title,
		Title:     title,
		Lead:      t.S("pr.topic.lead"),
		Bar:       &bar,
		LessonURL: "/lessons/" + url.PathEscape(topic.Slug),
	}
	mode := func(practice.Question) practiceMode { return practiceMode{kind: modeTopic, topic: topic.Slug} }
	var start string
	v.Items, start = s.items(t, qs, mode, p, false)
	v.StartURL, v.StartLabel = startOf(t, v.Items, start)
	return v
}

// startOf is where "start" leads: the first unanswered item, or the first.
func startOf(t page.Text, items []itemView, firstNew string) (string, string) {
	switch {
	case len(items) == 0:
		return "", ""
	case firstNew == items[0].URL:
		return firstNew, t.S("pr.start")
	case firstNew != "":
		return firstNew, t.S("pr.continue")
	}
	return items[0].URL, t.S("pr.again")
}

// deadlineView is an interview's clock: when it ends, as text that needs
// no script, and the instant for practice.js's live countdown.
type deadlineView struct {
	Text     string // "Ends at 14:35 UTC" or "Time is up: …"
	ISO      string // the deadline, for <time datetime>
	EndsMS   int64  // the deadline in Unix milliseconds
	Left     string // the countdown's format: "%s left"
	Over     string // what the countdown says once the time is up
	StartURL string // for a run without a start: the address that starts its clock
}

// interviewDeadline is the clock of the run that began at started (Unix
// seconds); for a run whose start is unknown, a way to start it.
func (s *Practice) interviewDeadline(t page.Text, seed uint64, started int64) *deadlineView {
	if started <= 0 {
		return &deadlineView{Text: t.F("pr.timer.none", InterviewMinutes), StartURL: interviewURL(seed) + "&start=now"}
	}
	end := time.Unix(started, 0).Add(InterviewMinutes * time.Minute).UTC()
	d := &deadlineView{ISO: end.Format(time.RFC3339), EndsMS: end.UnixMilli(),
		Left: t.S("pr.timer.left"), Over: t.S("pr.timer.over")}
	if s.now().Before(end) {
		d.Text = t.F("pr.timer.ends", end.Format("15:04"))
	} else {
		d.Text = t.F("pr.timer.ended", end.Format("15:04"))
	}
	return d
}

func (s *Practice) interviewView(t page.Text, r *http.Request, seed uint64, started int64, p practice.Progress, attempts []practice.Attempt) listView {
	qs := s.bank.Interview(seed, 0)
	link := interviewURL(seed)
	v := listView{
		T:         t,
		PageTitle: t.S("pr.interview") + " · " + t.S("app.name"),
		Crumb:     t.S("pr.interview"),
		Title:     t.S("pr.interview"),
		Lead:      t.F("pr.interview.lead", len(qs)),
		ShareURL:  page.Absolute(r, link),
		NewRunURL: "/practice/interview",
	}
	mode := func(practice.Question) practiceMode {
		return practiceMode{kind: modeInterview, seed: seed, started: started}
	}
	v.Deadline = s.interviewDeadline(t, seed, started)
	var start string
	v.Items, start = s.items(t, qs, mode, p, true)
	v.StartURL, v.StartLabel = startOf(t, v.Items, start)
	// The run's score counts each question's first answer in the run: a
	// candidate who retries after reading the model answer gets no credit
	// for the retry, as in a real interview.
	ids := make([]string, len(qs))
	for i, q := range qs {
		ids[i] = q.ID
	}
	var since time.Time
	if started > 0 {
		since = time.Unix(started, 0)
	}
	firsts := practice.FirstTries(attempts, ids, since)
	if started > 0 {
		// An item answered in this run says so, with the score the run
		// counts (its first try here): "last time" would read as an
		// earlier session. A run without a start cannot tell this run's
		// answers from older ones, so its items keep "last time".
		for i := range v.Items {
			if score, ok := firsts[qs[i].ID]; ok {
				v.Items[i].State, v.Items[i].StateLabel = runState(t, score)
			}
		}
	}
	answered, sum := len(firsts), 0.0
	for _, score := range firsts {
		sum += score
	}
	if answered > 0 {
		v.Summary = t.F("pr.interview.summary", answered, len(qs), int(math.Round(sum*100/float64(len(qs)))))
	}
	return v
}

func (s *Practice) reviewView(t page.Text, p practice.Progress) listView {
	now := s.now()
	var qs []practice.Question
	for _, it := range p.Review(now) {
		if q, ok := s.bank.Question(it.Question); ok {
			qs = append(qs, q)
		}
	}
	v := listView{
		T:         t,
		PageTitle: t.S("pr.review") + " · " + t.S("app.name"),
		Crumb:     t.S("pr.review"),
		Title:     t.S("pr.review"),
		Lead:      t.S("pr.review.lead"),
		Summary:   reviewStatus(t, p, now),
	}
	if len(qs) == 0 {
		v.Empty = t.S("pr.review.empty")
	}
	mode := func(practice.Question) practiceMode { return practiceMode{kind: modeReview} }
	v.Items, _ = s.items(t, qs, mode, p, true)
	if len(v.Items) > 0 {
		v.StartURL, v.StartLabel = v.Items[0].URL, t.S("pr.review.start")
	}
	return v
}

// questionView is one item's page; Answer is the part that changes as it
// is answered, and the part htmx swaps.
type questionView struct {
	T          page.Text
	PageTitle  string
	ID         string
	Kind       string
	KindLabel  string
	Prompt     string
	TopicTitle string
	TopicURL   string
	ModeLabel  string // where the item sits in its mode: "Interview in 15 minutes · 3 of 10"
	ModeURL    string
	Deadline   *deadlineView // in an interview run: its clock
	// A predict exercise: the handler and the script it runs.
	Handler        string
	HandlerSummary string
	Steps          string
	Hint           string
	Answer         answerView
}

func (s *Practice) questionView(t page.Text, q practice.Question, m practiceMode, p practice.Progress) questionView {
	lang := t.Lang()
	v := questionView{
		T:         t,
		ID:        q.ID,
		Kind:      string(q.Kind),
		KindLabel: t.S("pr.kind." + string(q.Kind)),
		Prompt:    q.Text.In(lang),
		TopicURL:  topicURL(q.Topic),
		ModeURL:   m.listURL(),
	}
	if tp, ok := s.bank.Topic(q.Topic); ok {
		v.TopicTitle = tp.Title.In(lang)
	}
	seq := s.sequence(m, p)
	pos := slices.IndexFunc(seq, func(x practice.Question) bool { return x.ID == q.ID })
	switch m.kind {
	case modeInterview:
		v.ModeLabel = t.S("pr.interview")
		v.Deadline = s.interviewDeadline(t, m.seed, m.started)
	case modeReview:
		v.ModeLabel = t.S("pr.review")
	default:
		v.ModeLabel = v.TopicTitle
	}
	if pos >= 0 {
		v.ModeLabel += " · " + t.F("pr.pos", pos+1, len(seq))
	}
	v.PageTitle = v.KindLabel + " · " + v.ModeLabel + " · " + t.S("app.name")
	if q.Kind == practice.KindPredict {
		v.Handler = q.Handler
		v.HandlerSummary = s.handlerSummary(t, q.Handler)
		v.Steps = strings.TrimRight(q.Steps(), "\n")
		v.Hint = practice.PredictHint().In(lang)
	}
	return v
}

func (s *Practice) handlerSummary(t page.Text, name string) string {
	for _, h := range s.handlers {
		if h.Name == name {
			return page.HandlerSummary(t, h)
		}
	}
	return ""
}

// sequence is the items of a mode, in order. For review, the items due now.
func (s *Practice) sequence(m practiceMode, p practice.Progress) []practice.Question {
	switch m.kind {
	case modeInterview:
		return s.bank.Interview(m.seed, 0)
	case modeReview:
		var qs []practice.Question
		for _, it := range p.Review(s.now()) {
			if q, ok := s.bank.Question(it.Question); ok {
				qs = append(qs, q)
			}
		}
		return qs
	}
	qs, _ := s.bank.ByTopic(m.topic)
	return qs
}

// answerView is the answer area: the form to answer (Stage "ask"), an
// open answer beside the model answer ("compare"), or the graded answer
// ("result").
type answerView struct {
	T       page.Text
	Stage   string
	Kind    string
	Action  string       // where the answer is posted
	Compare string       // an open question: where one's own answer goes first
	Mode    []page.Field // the mode, as hidden fields
	// Asking.
	Multi    bool // more than one option is correct: checkboxes, not radios
	Options  []choiceView
	Balance  string // a prediction to edit again
	Verdicts []page.Option
	MaxOwn   int
	// Comparing an open answer.
	Own    string
	Model  string
	Points []pointView
	// A coding exercise: the file in the form (the starter, or the
	// person's own to try again), the editor's script, and the result.
	Code       string
	EditorSrc  string
	CodeResult *codeResult
	Note       string // above the editor: why the file is back in it
	// What is wrong with the file in the editor (a Format without
	// JavaScript that could not parse it), listed above it and marked at
	// its line by the editor.
	Problems []labview.CodeProblem
	// The result.
	Result    string // right, partial or wrong
	Headline  string
	ScoreText string
	Outcome   *outcomeView
	Retry     *answerView // a prediction that was not right: the form again
	Progress  string      // the topic's bar after this answer, in words
	NextURL   string
	NextLabel string
	ListURL   string
	ListLabel string
}

type choiceView struct {
	ID, Letter, Text string
	// In a result.
	Picked, Correct, Right bool
	Why                    string
	PickedLabel            string
	CorrectLabel           string
}

type pointView struct {
	ID     string
	Text   string
	Ticked bool
}

// outcomeView is a graded prediction next to what the engine did.
type outcomeView struct {
	Handler                    string
	YourBalance, EngineBalance string
	YourVerdict, EngineVerdict string
	YourVerdictLabel           string
	EngineVerdictLabel         string
	EngineVerdictSymbol        string
	BalanceRight, VerdictRight bool
	BalanceMark, VerdictMark   string
	Reason                     string
	LabURL                     string
}

func (s *Practice) answerBase(t page.Text, q practice.Question, m practiceMode, stage string) answerView {
	return answerView{
		T:       t,
		Stage:   stage,
		Kind:    string(q.Kind),
		Action:  "/practice/q/" + url.PathEscape(q.ID),
		Compare: "/practice/q/" + url.PathEscape(q.ID) + "/compare",
		Mode:    m.fields(),
	}
}

func (s *Practice) askView(t page.Text, q practice.Question, m practiceMode) answerView {
	a := s.answerBase(t, q, m, "ask")
	lang := t.Lang()
	switch q.Kind {
	case practice.KindChoice:
		a.Multi = len(q.Correct()) > 1
		for _, o := range q.Options {
			a.Options = append(a.Options, choiceView{ID: o.ID, Text: o.Text.In(lang)})
		}
		a.Options = shuffled(q.ID, a.Options)
	case practice.KindOpen:
		a.MaxOwn = MaxOwnAnswer
	case practice.KindPredict:
		a.Verdicts = verdictOptions(t, q, "")
	case practice.KindCode:
		a.Code, a.EditorSrc = q.Code.Starter(), s.Shell.Assets.URL(page.EditorScript)
	}
	return a
}

func verdictOptions(t page.Text, q practice.Question, chosen sim.Verdict) []page.Option {
	out := []page.Option{{Value: "", Label: t.S("pr.predict.choose"), Selected: chosen == ""}}
	for _, v := range q.Verdicts() {
		out = append(out, page.Option{Value: string(v), Label: practice.VerdictLabel(v).In(t.Lang()), Selected: v == chosen})
	}
	return out
}

func (s *Practice) compareView(t page.Text, q practice.Question, m practiceMode, own string) answerView {
	a := s.answerBase(t, q, m, "compare")
	lang := t.Lang()
	a.Own = strings.TrimSpace(own)
	a.Model = q.Answer.In(lang)
	for i, p := range q.Points {
		a.Points = append(a.Points, pointView{ID: strconv.Itoa(i), Text: p.In(lang)})
	}
	return a
}

func (s *Practice) resultView(t page.Text, q practice.Question, m practiceMode, p practice.Progress, g practice.Grade) answerView {
	a := s.answerBase(t, q, m, "result")
	lang := t.Lang()
	switch {
	case g.Correct():
		a.Result, a.Headline = "right", t.S("pr.res.right")
	case g.Score > 0:
		a.Result, a.Headline = "partial", t.S("pr.res.partial")
	default:
		a.Result, a.Headline = "wrong", t.S("pr.res.wrong")
	}
	a.ScoreText = t.F("pr.res.score", int(math.Round(g.Score*100)))
	switch g.Kind {
	case practice.KindChoice:
		for _, o := range g.Options {
			c := choiceView{ID: o.ID, Text: o.Text.In(lang), Picked: o.Picked,
				Correct: o.Correct, Right: o.Right(), Why: o.Why.In(lang)}
			if o.Picked {
				c.PickedLabel = t.S("pr.res.picked")
			} else {
				c.PickedLabel = t.S("pr.res.notpicked")
			}
			if o.Correct {
				c.CorrectLabel = t.S("pr.res.correct")
			} else {
				c.CorrectLabel = t.S("pr.res.incorrect")
			}
			a.Options = append(a.Options, c)
		}
		a.Options = shuffled(g.Question, a.Options)
	case practice.KindOpen:
		a.Model = g.Answer.In(lang)
		ticked := 0
		for i, pt := range g.Points {
			a.Points = append(a.Points, pointView{ID: strconv.Itoa(i), Text: pt.Text.In(lang), Ticked: pt.Ticked})
			if pt.Ticked {
				ticked++
			}
		}
		a.Headline = t.F("pr.res.covered", ticked, len(g.Points))
	case practice.KindPredict:
		o := g.Outcome
		a.Outcome = &outcomeView{
			Handler:             o.Handler,
			YourBalance:         balanceText(o.PredictedBalance),
			EngineBalance:       balanceText(o.Balance),
			YourVerdict:         string(o.PredictedVerdict),
			EngineVerdict:       string(o.Verdict),
			YourVerdictLabel:    t.S("v." + string(o.PredictedVerdict)),
			EngineVerdictLabel:  t.S("v." + string(o.Verdict)),
			EngineVerdictSymbol: page.ResultSymbol(sim.Result{Verdict: o.Verdict, Settled: o.Balance, Expected: o.Expected}),
			BalanceRight:        o.BalanceRight,
			VerdictRight:        o.VerdictRight,
			BalanceMark:         markFor(t, o.BalanceRight),
			VerdictMark:         markFor(t, o.VerdictRight),
			Reason:              outcomeReason(t, o),
			LabURL:              o.LabURL,
		}
		if !g.Correct() {
			retry := s.answerBase(t, q, m, "ask")
			retry.Balance = strconv.FormatInt(o.PredictedBalance, 10)
			retry.Verdicts = verdictOptions(t, q, o.PredictedVerdict)
			a.Retry = &retry
		}
	}
	if g.Kind == practice.KindCode {
		a.CodeResult = s.codeResultView(t, q, g, p.Items[q.ID].Attempts)
		if !g.Correct() {
			retry := s.answerBase(t, q, m, "ask")
			retry.Code, retry.EditorSrc = g.Code.Code, s.Shell.Assets.URL(page.EditorScript)
			a.Retry = &retry
		}
	}
	bar := p.Topic(q.Topic)
	if tp, ok := s.bank.Topic(q.Topic); ok {
		a.Progress = t.F("pr.res.progress", tp.Title.In(lang), bar.Answered, bar.Total)
	}
	a.ListURL = m.listURL()
	switch m.kind {
	case modeInterview:
		a.ListLabel = t.S("pr.next.interview")
	case modeReview:
		a.ListLabel = t.S("pr.next.review")
	default:
		a.ListLabel = t.S("pr.next.topic")
	}
	if next, ok := s.next(m, p, q.ID); ok {
		a.NextURL, a.NextLabel = m.itemURL(next.ID, "", nil), t.S("pr.next")
	}
	return a
}

// next is the item after id in its mode. In review, an item answered right
// today stays in the review (a miss stands until it is answered right on a
// later day) but is done for this sitting, so next is the first item in
// review other than this one that was not answered right today.
func (s *Practice) next(m practiceMode, p practice.Progress, id string) (practice.Question, bool) {
	seq := s.sequence(m, p)
	if m.kind == modeReview {
		now := s.now()
		for _, q := range seq {
			it := p.Items[q.ID]
			if q.ID != id && !(it.LastScore >= practice.HitScore && practice.SameDay(it.LastAt, now)) {
				return q, true
			}
		}
		return practice.Question{}, false
	}
	i := slices.IndexFunc(seq, func(q practice.Question) bool { return q.ID == id })
	if i < 0 || i+1 >= len(seq) {
		return practice.Question{}, false
	}
	return seq[i+1], true
}

func markFor(t page.Text, right bool) string {
	if right {
		return t.S("pr.res.mark.right")
	}
	return t.S("pr.res.mark.wrong")
}

// balanceText writes a balance as a person types it: in major units.
func balanceText(minor int64) string {
	return page.Money(minor)
}

// outcomeReason explains the engine's verdict in the reader's language,
// as the lab does.
func outcomeReason(t page.Text, o *practice.Outcome) string {
	return page.VerdictReason(t, sim.Result{Verdict: o.Verdict, Settled: o.Balance, Expected: o.Expected, Reason: o.Reason})
}

// shuffled puts a question's options in an order of its own, the same on
// every visit (it depends only on the question id), so the right answer is
// not always where the file lists it first; letters follow the shown order.
func shuffled(id string, opts []choiceView) []choiceView {
	h := fnv.New64a()
	h.Write([]byte(id))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x1dea))
	rng.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
	for i := range opts {
		opts[i].Letter = string(rune('A' + i))
	}
	return opts
}
