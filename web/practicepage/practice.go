// Package practice is the drill's pages at /practice: questions and
// predictions graded on the spot, the three modes, and progress export and
// import; the practice package of the module root (imported here as
// drill) is the bank, the grading and the store.
package practicepage

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
)

// Practice is the drill's part of the lab: the question bank, the
// progress store and the clock that dates answers.
type Practice struct {
	Shell    *page.Shell
	bank     *practice.Bank   // practice questions
	progress *practice.Store  // nil: the practice pages answer 503
	now      func() time.Time // dates practice answers
	handlers []handlers.Info  // for the predict exercises' handler summaries
	// Sandbox runs the handler files of coding exercises; nil: they
	// answer 503.
	Sandbox *sandbox.Runner
	// NoCode, with Sandbox nil, says why: this machine cannot isolate a
	// child (lab serve's self-test failed).
	NoCode string
	// run stands in for Sandbox.Run in tests; nil: Sandbox.Run.
	run       func(context.Context, sandbox.Request) (*sandbox.Response, error)
	gradeRuns atomic.Int64 // files handed to the sandbox to grade
}

// New builds the practice part on the shell.
func New(shell *page.Shell, bank *practice.Bank, store *practice.Store, now func() time.Time) *Practice {
	return &Practice{Shell: shell, bank: bank, progress: store, now: now, handlers: handlers.List()}
}

// The practice section: the interview questions and predict-the-outcome
// exercises of package practice, graded on the spot and saved in the
// progress store under an anonymous profile kept in a cookie.
//
//	GET  /practice                    progress bars, the three modes, export and import
//	GET  /practice?topic=SLUG         one topic's items (the lessons link here)
//	GET  /practice/interview          a new mixed run: redirects to ?seed=N&started=UNIX
//	GET  /practice/interview?seed=N   the run's items, the same for the same seed
//	GET  /practice/review             the items due again (spaced repetition)
//	GET  /practice/q/{id}             one item, unanswered
//	GET  /practice/q/{id}/compare     an open question: one's answer beside the model answer
//	POST /practice/q/{id}             an answer: graded, recorded, 303 to its result
//	GET  /practice/q/{id}/result      the graded answer the address carries
//	GET  /practice/export             one's progress as a JSON file
//	POST /practice/import             merge an uploaded progress file, 303 to /practice
//
// The mode an item was opened in travels with it as topic=SLUG, seed=N or
// review=1, so "next" stays in the mode and every address can be reloaded
// or shared. Only the POST records: the result page grades the answer in
// its own address again (the engine reruns a prediction), so reloading it
// never records twice. A coding exercise's file is the exception: its
// grade is kept, and the result page shows it (see code.go).

// MaxOwnAnswer bounds the answer a person writes to an open question; it
// travels in the address of the comparison page and is never stored.
const MaxOwnAnswer = 4000

// MaxImportForm bounds an upload: the file and the multipart framing.
const MaxImportForm = practice.MaxImportBytes + 64<<10

// The modes an item is answered in.
const (
	modeTopic     = "topic"
	modeInterview = "interview"
	modeReview    = "review"
)

// practiceMode is the run an item belongs to, for "next" and "back".
type practiceMode struct {
	kind  string
	topic string // modeTopic: the topic's slug
	seed  uint64 // modeInterview: the run's seed
	// started is when an interview run began, in Unix seconds; 0 when the
	// address does not say (a shared run, or one from before the timer).
	started int64
}

// fields are the mode as form fields and query parameters.
func (m practiceMode) fields() []page.Field {
	switch m.kind {
	case modeInterview:
		f := []page.Field{{Name: "seed", Value: strconv.FormatUint(m.seed, 10)}}
		if m.started > 0 {
			f = append(f, page.Field{Name: "started", Value: strconv.FormatInt(m.started, 10)})
		}
		return f
	case modeReview:
		return []page.Field{{Name: "review", Value: "1"}}
	}
	return []page.Field{{Name: "topic", Value: m.topic}}
}

// itemURL is the address of an item (or of one of its pages, with suffix)
// in this mode, with extra parameters first.
func (m practiceMode) itemURL(id, suffix string, extra url.Values) string {
	q := url.Values{}
	for k, vs := range extra {
		q[k] = vs
	}
	for _, f := range m.fields() {
		q.Set(f.Name, f.Value)
	}
	return "/practice/q/" + url.PathEscape(id) + suffix + "?" + q.Encode()
}

// listURL is the page that lists the mode's items.
func (m practiceMode) listURL() string {
	switch m.kind {
	case modeInterview:
		return interviewRunURL(m.seed, m.started)
	case modeReview:
		return "/practice/review"
	}
	return topicURL(m.topic)
}

func topicURL(slug string) string { return "/practice?topic=" + url.QueryEscape(slug) }

func interviewURL(seed uint64) string {
	return "/practice/interview?seed=" + strconv.FormatUint(seed, 10)
}

// interviewRunURL is a run's address with its start, when known.
func interviewRunURL(seed uint64, started int64) string {
	if started <= 0 {
		return interviewURL(seed)
	}
	return interviewURL(seed) + "&started=" + strconv.FormatInt(started, 10)
}

// InterviewMinutes is how long an "interview in 15 minutes" lasts.
const InterviewMinutes = 15

// parseStarted reads an interview's start: Unix seconds, or none.
func parseStarted(v url.Values) (int64, error) {
	if !v.Has("started") {
		return 0, nil
	}
	raw := v.Get("started")
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n <= 0 || n > 1<<40 {
		return 0, page.BadRequest("pr.err.started", raw)
	}
	return n, nil
}

// Only wraps a practice handler: 503 when the server has no
// progress store, and the reader's mistakes on a page that leads back to
// where they were in practice rather than to the lab.
func (s *Practice) Only(h page.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := &page.Error{Status: http.StatusServiceUnavailable, Key: "pr.err.unavailable", Title: "pr.title.unavailable"}
		if s.progress != nil {
			w.Header().Set("Cache-Control", "private, no-cache")
			w.Header().Add("Vary", "Cookie")
			if e := h(w, r); e == nil {
				return
			} else if !errors.As(e, &err) || page.IsPartial(r) {
				s.Shell.RenderError(w, r, e)
				return
			}
		}
		t := s.Shell.Text(r)
		v := page.ErrorView{Status: err.Status, Title: t.S(err.TitleKey(t)), Message: t.F(err.Key, page.BoundArgs(err.Args)...)}
		w.Header().Set("Cache-Control", "no-store")
		s.Shell.Render(w, r, err.Status, practiceErrorPage(page.ShortLangs(s.practicePage(t, r, v.Title+" · "+t.S("app.name")), "/practice"), v, practiceBack(r)))
	}
}

// practiceBack is the practice page the reader came from, for the error
// page's way back; "" when it is unknown or the page that failed.
func practiceBack(r *http.Request) string {
	u, err := url.Parse(r.Referer())
	if err != nil || u.Host != r.Host || !strings.HasPrefix(u.Path, "/practice") || u.RequestURI() == r.URL.RequestURI() {
		return ""
	}
	return u.RequestURI()
}

// progressOf is the reader's progress; a reader without a profile has
// answered nothing yet.
func (s *Practice) progressOf(r *http.Request) (practice.Progress, error) {
	id := page.ProfileOf(r)
	if id == "" {
		return s.bank.Progress(nil), nil
	}
	return s.progress.Progress(r.Context(), id)
}

// TopicPercents is the lessons' progress hook: for each lesson, the share
// of its practice items the reader has answered. ok is false for a reader
// who has answered nothing, or a server without a progress store.
func (s *Practice) TopicPercents(r *http.Request) (percent map[string]int, ok bool, err error) {
	if s.progress == nil || page.ProfileOf(r) == "" {
		return nil, false, nil
	}
	p, err := s.progressOf(r)
	if err != nil {
		return nil, false, err
	}
	percent = map[string]int{}
	for _, tp := range p.Topics {
		percent[tp.Topic] = tp.AnsweredPercent()
	}
	return percent, true, nil
}

// Home is the overview, or with ?topic= one topic's items.
func (s *Practice) Home(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if q.Has("topic") {
		return s.practiceTopic(w, r, q.Get("topic"))
	}
	p, err := s.progressOf(r)
	if err != nil {
		return err
	}
	t := s.Shell.Text(r)
	v := s.homeView(t, p, q)
	return s.Shell.Render(w, r, http.StatusOK, practiceHomePage(s.practicePage(t, r, v.PageTitle), v))
}

func (s *Practice) practiceTopic(w http.ResponseWriter, r *http.Request, slug string) error {
	topic, ok := s.bank.Topic(slug)
	if !ok {
		return s.unknownTopic(slug)
	}
	items, err := s.bank.ByTopic(slug)
	if err != nil {
		return err
	}
	p, err := s.progressOf(r)
	if err != nil {
		return err
	}
	t := s.Shell.Text(r)
	v := s.topicView(t, topic, items, p)
	return s.Shell.Render(w, r, http.StatusOK, practiceListPage(s.practicePage(t, r, v.PageTitle), v))
}

func (s *Practice) unknownTopic(slug string) error {
	var slugs []string
	for _, tp := range s.bank.Topics() {
		slugs = append(slugs, tp.Slug)
	}
	return &page.Error{Status: http.StatusNotFound, Key: "pr.err.topic", Args: []any{slug, strings.Join(slugs, ", ")}}
}

// Interview shows a mixed run. Without a seed it picks one and
// redirects, so the run's address can be reloaded, resumed and shared.
func (s *Practice) Interview(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	// A new run, or a shared run someone starts now (?start=now): the
	// address gets the run's start, so its deadline survives reloads.
	if !q.Has("seed") || q.Get("start") == "now" {
		seed := 1 + rand.Uint64N(999_999)
		if q.Has("seed") {
			var err error
			if seed, err = parseSeed(q.Get("seed")); err != nil {
				return err
			}
		}
		u := interviewRunURL(seed, s.now().Unix())
		if q.Has("lang") {
			u += "&lang=" + url.QueryEscape(q.Get("lang"))
		}
		http.Redirect(w, r, u, http.StatusFound)
		return nil
	}
	seed, err := parseSeed(q.Get("seed"))
	if err != nil {
		return err
	}
	started, err := parseStarted(q)
	if err != nil {
		return err
	}
	p, err := s.progressOf(r)
	if err != nil {
		return err
	}
	var attempts []practice.Attempt
	if id := page.ProfileOf(r); id != "" {
		if attempts, err = s.progress.Attempts(r.Context(), id); err != nil {
			return err
		}
	}
	t := s.Shell.Text(r)
	v := s.interviewView(t, r, seed, started, p, attempts)
	return s.Shell.Render(w, r, http.StatusOK, practiceListPage(s.practicePage(t, r, v.PageTitle), v))
}

func parseSeed(raw string) (uint64, error) {
	seed, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return 0, page.BadRequest("pr.err.seed", raw)
	}
	return seed, nil
}

func (s *Practice) Review(w http.ResponseWriter, r *http.Request) error {
	p, err := s.progressOf(r)
	if err != nil {
		return err
	}
	t := s.Shell.Text(r)
	v := s.reviewView(t, p)
	return s.Shell.Render(w, r, http.StatusOK, practiceListPage(s.practicePage(t, r, v.PageTitle), v))
}

// question finds the item the address names.
func (s *Practice) question(r *http.Request) (practice.Question, error) {
	id := chi.URLParam(r, "id")
	q, ok := s.bank.Question(id)
	if !ok {
		return q, &page.Error{Status: http.StatusNotFound, Key: "pr.err.question", Args: []any{id}}
	}
	return q, nil
}

// readMode reads the mode an item was opened in. An item opened on its own,
// or from another topic's list, belongs to its own topic.
func (s *Practice) readMode(v url.Values, q practice.Question) (practiceMode, error) {
	switch {
	case v.Has("seed"):
		seed, err := parseSeed(v.Get("seed"))
		if err != nil {
			return practiceMode{}, err
		}
		started, err := parseStarted(v)
		if err != nil {
			return practiceMode{}, err
		}
		return practiceMode{kind: modeInterview, seed: seed, started: started}, nil
	case v.Has("review"):
		return practiceMode{kind: modeReview}, nil
	case v.Has("topic"):
		if _, ok := s.bank.Topic(v.Get("topic")); !ok {
			return practiceMode{}, s.unknownTopic(v.Get("topic"))
		}
	}
	return practiceMode{kind: modeTopic, topic: q.Topic}, nil
}

// Question shows an item with its answer form.
func (s *Practice) Question(w http.ResponseWriter, r *http.Request) error {
	q, m, p, err := s.itemRequest(r, r.URL.Query())
	if err != nil {
		return err
	}
	t := s.Shell.Text(r)
	v := s.questionView(t, q, m, p)
	v.Answer = s.askView(t, q, m)
	return s.renderItem(w, r, v)
}

// Compare shows one's own answer to an open question beside the
// model answer, with its key points to tick.
func (s *Practice) Compare(w http.ResponseWriter, r *http.Request) error {
	query := r.URL.Query()
	q, m, p, err := s.itemRequest(r, query)
	if err != nil {
		return err
	}
	if q.Kind != practice.KindOpen {
		return page.NotFound(r.URL.Path)
	}
	own := query.Get("mine")
	if n := utf8.RuneCountInString(own); n > MaxOwnAnswer {
		return page.BadRequest("pr.err.mine", n, MaxOwnAnswer)
	}
	t := s.Shell.Text(r)
	v := s.questionView(t, q, m, p)
	v.Answer = s.compareView(t, q, m, own)
	return s.renderItem(w, r, v)
}

// Answer grades an answer, records its score for the reader's
// profile (minting one on the first answer) and redirects to the result.
func (s *Practice) Answer(w http.ResponseWriter, r *http.Request) error {
	q, err := s.question(r)
	if err != nil {
		return err
	}
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	m, err := s.readMode(f, q)
	if err != nil {
		return err
	}
	if q.Kind == practice.KindCode {
		return s.answerCode(w, r, q, m, f)
	}
	g, answer, err := s.grade(q, f)
	if err != nil {
		return err
	}
	profile := page.EnsureProfile(w, r)
	if _, err := s.progress.Record(r.Context(), profile, q.ID, g.Score, s.now()); err != nil {
		if errors.Is(err, practice.ErrNotSaved) {
			return s.Shell.NotSaved(r, err)
		}
		return err
	}
	http.Redirect(w, r, m.itemURL(q.ID, "/result", answer), http.StatusSeeOther)
	return nil
}

// Result shows a graded answer: the one in the address, graded
// again, next to the way on in the mode.
func (s *Practice) Result(w http.ResponseWriter, r *http.Request) error {
	query := r.URL.Query()
	q, m, p, err := s.itemRequest(r, query)
	if err != nil {
		return err
	}
	if q.Kind == practice.KindCode {
		return s.resultCode(w, r, q, m, p, query)
	}
	g, _, err := s.grade(q, query)
	if err != nil {
		return err
	}
	t := s.Shell.Text(r)
	v := s.questionView(t, q, m, p)
	v.Answer = s.resultView(t, q, m, p, g)
	return s.renderItem(w, r, v)
}

func (s *Practice) itemRequest(r *http.Request, v url.Values) (practice.Question, practiceMode, practice.Progress, error) {
	q, err := s.question(r)
	if err != nil {
		return q, practiceMode{}, practice.Progress{}, err
	}
	m, err := s.readMode(v, q)
	if err != nil {
		return q, m, practice.Progress{}, err
	}
	p, err := s.progressOf(r)
	return q, m, p, err
}

// renderItem writes an item's page, or for htmx only its answer area, and
// keeps the address bar on the address that shows the same again.
func (s *Practice) renderItem(w http.ResponseWriter, r *http.Request, v questionView) error {
	w.Header().Add("Vary", "HX-Request, HX-Request-Type")
	if page.IsPartial(r) {
		w.Header().Set("HX-Push-Url", r.URL.RequestURI())
		return s.Shell.Render(w, r, http.StatusOK, answerFragment(v))
	}
	t := v.T
	return s.Shell.Render(w, r, http.StatusOK, practiceItemPage(s.practicePage(t, r, v.PageTitle), v))
}

// grade grades the answer in v for q and returns it as the canonical
// parameters of the result's address. Bad answers are 400s that say what
// to give instead.
func (s *Practice) grade(q practice.Question, v url.Values) (practice.Grade, url.Values, error) {
	answer := url.Values{}
	switch q.Kind {
	case practice.KindChoice:
		picked := v["option"]
		if len(picked) == 0 {
			return practice.Grade{}, nil, page.BadRequest("pr.err.nooption")
		}
		for _, p := range picked {
			if !slices.ContainsFunc(q.Options, func(o practice.Option) bool { return o.ID == p }) {
				return practice.Grade{}, nil, page.BadRequest("pr.err.option", p, OptionIDs(q))
			}
		}
		g, err := s.bank.GradeChoice(q.ID, picked)
		if err != nil {
			return g, nil, err
		}
		for _, o := range g.Options {
			if o.Picked {
				answer.Add("option", o.ID)
			}
		}
		return g, answer, nil
	case practice.KindOpen:
		var ticked []int
		for _, p := range v["point"] {
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 || n >= len(q.Points) {
				return practice.Grade{}, nil, page.BadRequest("pr.err.point", p, len(q.Points)-1)
			}
			ticked = append(ticked, n)
		}
		g, err := s.bank.GradeOpen(q.ID, ticked)
		if err != nil {
			return g, nil, err
		}
		for i, pt := range g.Points {
			if pt.Ticked {
				answer.Add("point", strconv.Itoa(i))
			}
		}
		return g, answer, nil
	case practice.KindPredict:
		balance, verdict := v.Get("balance"), v.Get("verdict")
		if strings.TrimSpace(balance) == "" {
			return practice.Grade{}, nil, page.BadRequest("pr.err.nobalance")
		}
		if _, err := practice.ParseMoney(balance); err != nil {
			return practice.Grade{}, nil, page.BadRequest("err.money", balance)
		}
		if _, err := q.ParseVerdict(verdict); err != nil {
			if strings.TrimSpace(verdict) == "" {
				return practice.Grade{}, nil, page.BadRequest("pr.err.noverdict", VerdictNamesOf(q))
			}
			return practice.Grade{}, nil, page.BadRequest("pr.err.verdict", verdict, VerdictNamesOf(q))
		}
		g, err := s.bank.GradePredict(q.ID, balance, verdict)
		if err != nil {
			return g, nil, err
		}
		// The result address carries the prediction as typed money is read:
		// in major units, so it grades the same when opened again.
		answer.Set("balance", practice.FormatMoney(g.Outcome.PredictedBalance))
		answer.Set("verdict", string(g.Outcome.PredictedVerdict))
		return g, answer, nil
	case practice.KindCode:
		// Graded once and kept: answerCode and resultCode.
		return practice.Grade{}, nil, errors.New("practice: coding exercise " + q.ID + " graded outside grade")
	}
	return practice.Grade{}, nil, errors.New("practice: question " + q.ID + " has unknown kind " + string(q.Kind))
}

func OptionIDs(q practice.Question) string {
	ids := make([]string, len(q.Options))
	for i, o := range q.Options {
		ids[i] = o.ID
	}
	return strings.Join(ids, ", ")
}

func VerdictNames() string { return verdictNames(practice.Verdicts()) }

// VerdictNamesOf lists the verdicts a question's prediction may name.
func VerdictNamesOf(q practice.Question) string { return verdictNames(q.Verdicts()) }

func verdictNames(vs []sim.Verdict) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = string(v)
	}
	return strings.Join(names, ", ")
}

// Export downloads the reader's progress as a JSON file.
func (s *Practice) Export(w http.ResponseWriter, r *http.Request) error {
	profile := page.ProfileOf(r)
	if profile == "" {
		return &page.Error{Status: http.StatusNotFound, Key: "pr.err.noprogress"}
	}
	data, err := s.progress.Export(r.Context(), profile)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment",
		map[string]string{"filename": "idempotency-lab-progress-" + s.now().UTC().Format("2006-01-02") + ".json"}))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
	return nil
}

// Import merges an uploaded progress file into the reader's
// profile (minting one if there is none) and redirects to the overview,
// which says what was added. A bad file writes nothing.
func (s *Practice) Import(w http.ResponseWriter, r *http.Request) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		return page.BadRequest("pr.err.import.form")
	}
	tooLarge := &page.Error{Status: http.StatusRequestEntityTooLarge, Key: "pr.err.import.large", Args: []any{practice.MaxImportBytes >> 20}}
	r.Body = http.MaxBytesReader(w, r.Body, MaxImportForm)
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return tooLarge
		}
		return page.BadRequest("pr.err.import.form")
	}
	defer r.MultipartForm.RemoveAll()
	file, _, err := r.FormFile("file")
	if err != nil {
		return page.BadRequest("pr.err.import.nofile")
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, practice.MaxImportBytes+1))
	switch {
	case err != nil:
		return page.BadRequest("pr.err.import.form")
	case len(data) > practice.MaxImportBytes:
		return tooLarge
	case len(data) == 0:
		return page.BadRequest("pr.err.import.empty")
	case !json.Valid(data):
		return page.BadRequest("pr.err.import.json")
	}
	var head struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(data, &head) != nil || head.Format != practice.ExportFormat {
		return page.BadRequest("pr.err.import.format", practice.ExportFormat)
	}
	if _, err := practice.ParseExport(data, s.bank); err != nil {
		return page.BadRequest("pr.err.import.bad", strings.TrimPrefix(err.Error(), practice.ErrBadImport.Error()+": "))
	}
	res, err := s.progress.Import(r.Context(), page.EnsureProfile(w, r), data)
	var tooMany *practice.TooManyAttemptsError
	switch {
	case errors.Is(err, practice.ErrImportConflict):
		return page.BadRequest("pr.err.import.conflict")
	case errors.As(err, &tooMany):
		// The file is well formed; it is its size next to what is stored
		// that cannot be taken: 422, and nothing was written.
		return &page.Error{Status: http.StatusUnprocessableEntity, Key: "pr.err.import.cap",
			Args: []any{tooMany.Max, tooMany.Have, tooMany.Added}}
	case errors.Is(err, practice.ErrNotSaved):
		return s.Shell.NotSaved(r, err)
	case errors.Is(err, practice.ErrBadImport):
		return page.BadRequest("pr.err.import.bad", strings.TrimPrefix(err.Error(), practice.ErrBadImport.Error()+": "))
	case err != nil:
		return err
	}
	http.Redirect(w, r, "/practice?"+url.Values{
		"imported": {strconv.Itoa(res.Added)}, "skipped": {strconv.Itoa(res.Skipped)}}.Encode()+"#keep", http.StatusSeeOther)
	return nil
}

// practicePage is the page frame with the section's stylesheet.
func (s *Practice) practicePage(t page.Text, r *http.Request, title string) page.View {
	p := s.Shell.PageFor(t, r, title)
	p.Styles = append(p.Styles, s.Shell.Assets.URL("practice.css"))
	p.Scripts = append(p.Scripts, s.Shell.Assets.URL("practice.js"))
	return p
}
