// Package room keeps live classrooms: an instructor steps through a
// scenario and every student's page follows.
//
// A room's state is a script and a step number, so any view of it is
// rebuilt by replaying the script; the hub only stores and broadcasts that
// small state. Rooms are ephemeral by design: they live in memory, or,
// for several lab servers serving one classroom, in Redis (NewRedisHub).
package room

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Errors a caller maps to pages and statuses.
var (
	ErrNotFound     = errors.New("no such room: it may have expired")
	ErrForbidden    = errors.New("only the instructor who opened this room can do that")
	ErrTooManyRooms = errors.New("the server has as many rooms open as it allows; try again later")
	ErrRoomFull     = errors.New("this room is full")
	ErrNoPoll       = errors.New("no poll is open in this room")
	ErrBadAnswer    = errors.New("that answer is not one of the poll's options")
)

// Config bounds the hub. Now is the clock; the server passes time.Now and
// tests pass a fake one.
type Config struct {
	MaxRooms    int
	MaxStudents int
	IdleTTL     time.Duration
	Now         func() time.Time
	// Buffer is how many updates a slow student may fall behind before
	// being disconnected (the page reconnects and resumes at the current
	// step).
	Buffer int
	// MaxHistory is how many closed polls a room keeps for its results;
	// older ones are dropped (and counted). 0 means DefaultMaxHistory.
	MaxHistory int
}

// State is what a student needs to rebuild the instructor's view.
type State struct {
	Code     string   `json:"code"`
	Script   string   `json:"script"`
	Step     int      `json:"step"`
	Handlers []string `json:"handlers"`
	Version  int      `json:"version"` // grows on every change
	Poll     *Poll    `json:"poll,omitempty"`
	Students int      `json:"students"`
	// Joined is how many identities the room has issued: each student
	// gets one when they join (Join), and keeps it.
	Joined int `json:"joined,omitempty"`
	// HideVerdicts is the instructor's V: every page of the room leaves
	// out the verdicts and expected balances, poll or no poll, until the
	// instructor shows them again.
	HideVerdicts bool `json:"hide_verdicts,omitempty"`
	// Broker is the real broker the room's steps run on (the lab's
	// broker=: nats, kafka); "" for the lab's own model.
	Broker string `json:"broker,omitempty"`
}

// Kind is what a poll asks for.
type Kind string

// The kinds of poll.
const (
	// KindBalance: a handler's balance after the next step. An answer is
	// an amount in minor units.
	KindBalance Kind = "balance"
	// KindVerdict: the verdict a handler settles to after the next step,
	// one of Options (the engine's verdicts). An answer is an index.
	KindVerdict Kind = "verdict"
	// KindChoice: a question the instructor writes, with 2 to MaxOptions
	// answers. An answer is an index.
	KindChoice Kind = "choice"
)

// Kinds lists the kinds of poll, in the order a form offers them.
var Kinds = []Kind{KindBalance, KindVerdict, KindChoice}

// Limits on a question an instructor types, and on a room's history.
const (
	MaxQuestion       = 200 // runes in a choice question
	MaxOption         = 80  // runes in one answer
	MinOptions        = 2
	MaxOptions        = 6
	DefaultMaxHistory = 100
)

// hasOptions reports whether a kind's answers are options (an index).
func (k Kind) hasOptions() bool { return k == KindVerdict || k == KindChoice }

// Question is what an instructor asks the room.
type Question struct {
	Kind    Kind
	Handler string // balance and verdict: whose outcome
	// Step is the step whose outcome is predicted (balance, verdict), or
	// the step the room was at when asked (choice).
	Step    int
	Text    string   // choice: the question as typed
	Options []string // verdict: the engine's verdicts; choice: the answers as typed
	// Answer is the right answer when it is known: a balance in minor
	// units, or an option's index. Students see it only once revealed.
	Answer *int64
}

// QuestionError says what is wrong with a Question.
type QuestionError struct {
	Problem string // "kind", "handler", "text-empty", "text-long", "options-few", "options-many", "option-empty", "option-long", "answer"
	Option  int    // the option concerned (0-based), for option-empty and option-long
	Limit   int    // the limit broken, for the -long and -few/-many problems
}

func (e *QuestionError) Error() string {
	return fmt.Sprintf("bad question: %s (option %d, limit %d)", e.Problem, e.Option, e.Limit)
}

// Check reports what is wrong with q, if anything.
func (q Question) Check() error {
	switch q.Kind {
	case KindBalance, KindVerdict:
		if q.Handler == "" {
			return &QuestionError{Problem: "handler"}
		}
	case KindChoice:
		t := strings.TrimSpace(q.Text)
		if t == "" {
			return &QuestionError{Problem: "text-empty"}
		}
		if utf8.RuneCountInString(t) > MaxQuestion {
			return &QuestionError{Problem: "text-long", Limit: MaxQuestion}
		}
	default:
		return &QuestionError{Problem: "kind"}
	}
	if q.Kind.hasOptions() {
		if len(q.Options) < MinOptions {
			return &QuestionError{Problem: "options-few", Limit: MinOptions}
		}
		if q.Kind == KindChoice && len(q.Options) > MaxOptions {
			return &QuestionError{Problem: "options-many", Limit: MaxOptions}
		}
		for i, o := range q.Options {
			if strings.TrimSpace(o) == "" {
				return &QuestionError{Problem: "option-empty", Option: i}
			}
			if utf8.RuneCountInString(o) > MaxOption {
				return &QuestionError{Problem: "option-long", Option: i, Limit: MaxOption}
			}
		}
		if q.Answer != nil && (*q.Answer < 0 || *q.Answer >= int64(len(q.Options))) {
			return &QuestionError{Problem: "answer"}
		}
	} else if len(q.Options) > 0 {
		return &QuestionError{Problem: "options-many", Limit: 0}
	}
	return nil
}

// Poll is a question to the room: a prediction about the next step (a
// handler's balance or verdict) or a multiple-choice question.
type Poll struct {
	ID       int         `json:"id"`
	Kind     Kind        `json:"kind"`
	Handler  string      `json:"handler,omitempty"`
	Step     int         `json:"step"` // the step whose outcome is being predicted; for a choice, the step when asked
	Question string      `json:"question,omitempty"`
	Options  []string    `json:"options,omitempty"`
	Votes    int         `json:"votes"`  // answers counted: each identity's last one
	Voters   int         `json:"voters"` // the distinct identities that answered
	Revealed bool        `json:"revealed"`
	Counts   []VoteCount `json:"counts,omitempty"` // the distribution, once revealed or for the instructor
	// Answer is the right answer, when known (see Question.Answer): for
	// the instructor always, for students once revealed.
	Answer *int64 `json:"answer,omitempty"`
}

// VoteCount is how many students gave one answer: a balance in minor
// units, or an option's index. An option poll lists every option, in
// order, with no answers too.
type VoteCount struct {
	Balance int64 `json:"balance"` // the answer: a balance, or an option's index (named for the first kind)
	Count   int   `json:"count"`
}

// Result is one poll of a room's history, for its results: the poll as
// it closed, with every student's answer.
type Result struct {
	Poll
	// Status: "revealed"; "closed" (replaced by a new poll before the
	// reveal); "open" (the current poll, still taking answers).
	Status  string
	Answers map[string]int64 // student id -> answer
}

// Statuses of a Result.
const (
	StatusRevealed = "revealed"
	StatusClosed   = "closed"
	StatusOpen     = "open"
)

// Hub holds every open room. Where the rooms' records live is its store:
// this process's memory (NewHub), or a Redis server that several lab
// servers share (NewRedisHub). The subscriptions, which feed this
// process's event streams, are always its own.
type Hub struct {
	cfg   Config
	store store
	// shared is nil in memory. With Redis it carries every change to the
	// other servers and counts the students following a room on all of
	// them.
	shared *shared

	mu   sync.Mutex
	subs map[string]map[*Subscription]bool // by room code
	seq  int                               // numbers this process's anonymous streams
}

// record is a room as its store keeps it: everything but the
// subscriptions. In Redis it is stored as JSON.
type record struct {
	Code       string           `json:"code"`
	Secret     string           `json:"secret"`
	State      State            `json:"state"`
	LastActive time.Time        `json:"last_active"`
	Votes      map[string]int64 `json:"votes"` // student id -> answer: a balance, or an option's index
	Polls      int              `json:"polls"`
	History    []Result         `json:"history"` // closed polls, oldest first, at most Config.MaxHistory
	Dropped    int              `json:"dropped"` // older polls left out of history
}

// Subscription delivers a room's states to one student, in order.
type Subscription struct {
	C          <-chan State
	c          chan State
	hub        *Hub
	code       string
	instructor bool   // not counted among the students; hears every vote
	student    string // the student's id, when the server knows it
	key        string // the place the subscription takes (see placeKey); "" for the instructor
	last       int    // the version of the last state sent
}

// NewHub makes a hub that keeps its rooms in memory; zero limits get
// sensible defaults.
func NewHub(cfg Config) *Hub {
	cfg = cfg.withDefaults()
	return &Hub{cfg: cfg, store: newMemStore(cfg), subs: map[string]map[*Subscription]bool{}}
}

func (cfg Config) withDefaults() Config {
	if cfg.MaxRooms <= 0 {
		cfg.MaxRooms = 50
	}
	if cfg.MaxStudents <= 0 {
		cfg.MaxStudents = 300
	}
	if cfg.IdleTTL <= 0 {
		cfg.IdleTTL = 2 * time.Hour
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = 64
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxHistory <= 0 {
		cfg.MaxHistory = DefaultMaxHistory
	}
	return cfg
}

// codeAlphabet leaves out letters and digits that read alike (0/O, 1/I/L).
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

func newCode() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b), nil
}

// NormalizeCode accepts what a person types: any case, spaces or dashes.
func NormalizeCode(s string) string {
	s = strings.ToUpper(s)
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, s)
}

// Create opens a room on a script and returns its join code and the
// instructor's secret.
func (h *Hub) Create(script string, step int, handlers []string) (code, secret string, err error) {
	return h.CreateOn(script, "", step, handlers)
}

// CreateOn is Create for a room whose steps run on a real broker
// (State.Broker; "" for the lab's model).
func (h *Hub) CreateOn(script, broker string, step int, handlers []string) (code, secret string, err error) {
	sb := make([]byte, 16)
	if _, err := rand.Read(sb); err != nil {
		return "", "", err
	}
	secret = hex.EncodeToString(sb)
	for {
		if code, err = newCode(); err != nil {
			return "", "", err
		}
		rec := &record{
			Code: code, Secret: secret,
			State:      State{Code: code, Script: script, Step: step, Handlers: handlers, Version: 1, Broker: broker},
			LastActive: h.cfg.Now(),
			Votes:      map[string]int64{},
		}
		switch err := h.store.create(rec); {
		case err == nil:
			return code, secret, nil
		case !errors.Is(err, errCodeTaken):
			return "", "", err
		}
	}
}

// State returns a room's current state. The vote distribution of an open
// poll is left out unless forInstructor.
func (h *Hub) State(code string, forInstructor bool) (State, error) {
	code = NormalizeCode(code)
	var st State
	if err := h.store.view(code, func(r *record) error {
		st = r.snapshot(forInstructor)
		return nil
	}); err != nil {
		return State{}, err
	}
	places, err := h.places(code)
	st.Students = len(places)
	return st, err
}

// IsInstructor reports whether secret is the room's instructor secret.
func (h *Hub) IsInstructor(code, secret string) bool {
	return h.store.view(NormalizeCode(code), func(r *record) error { return r.checkSecret(secret) }) == nil
}

func (r *record) checkSecret(secret string) error {
	if subtle.ConstantTimeCompare([]byte(r.Secret), []byte(secret)) != 1 {
		return ErrForbidden
	}
	return nil
}

// errNoChange, from a change's function, leaves the room as it was.
var errNoChange = errors.New("nothing changed")

// change applies f to the room, makes it a new version and sends it to
// the instructor's pages and, unless instructorOnly, to every student.
// It returns the room's state for the instructor.
func (h *Hub) change(code string, instructorOnly bool, f func(*record) error) (State, error) {
	code = NormalizeCode(code)
	var forStudents, forInstructor State
	err := h.store.update(code, func(r *record) error {
		if err := f(r); err != nil {
			return err
		}
		r.State.Version++
		r.LastActive = h.cfg.Now()
		forStudents, forInstructor = r.snapshot(false), r.snapshot(true)
		return nil
	})
	if errors.Is(err, errNoChange) {
		return h.State(code, true)
	}
	if err != nil {
		return State{}, err
	}
	places, err := h.places(code)
	if err != nil {
		return State{}, err
	}
	forStudents.Students, forInstructor.Students = len(places), len(places)
	if h.shared != nil {
		err = h.shared.publish(code, forStudents, forInstructor, instructorOnly)
	} else {
		h.deliver(code, forStudents, forInstructor, instructorOnly)
	}
	return forInstructor, err
}

// instructorChange is a change only the instructor may make.
func (h *Hub) instructorChange(code, secret string, f func(*record) error) (State, error) {
	return h.change(code, false, func(r *record) error {
		if err := r.checkSecret(secret); err != nil {
			return err
		}
		return f(r)
	})
}

// Update moves the room: a new step, and optionally a new script or
// handler list (empty keeps the current one). Only the instructor may.
func (h *Hub) Update(code, secret, script string, step int, handlers []string) (State, error) {
	return h.instructorChange(code, secret, func(r *record) error {
		if script != "" {
			r.State.Script = script
		}
		if handlers != nil {
			r.State.Handlers = handlers
		}
		r.State.Step = step
		if p := r.State.Poll; p != nil && !p.Revealed && p.Kind != KindChoice && step >= p.Step {
			// Moving onto the predicted step reveals the poll. A choice
			// question is about no step: the instructor reveals it.
			r.closePoll(StatusRevealed, h.cfg.MaxHistory)
		}
		return nil
	})
}

// SetVerdicts hides (hide) or shows the verdicts on every page of the
// room. Only the instructor may.
func (h *Hub) SetVerdicts(code, secret string, hide bool) (State, error) {
	return h.instructorChange(code, secret, func(r *record) error {
		if r.State.HideVerdicts == hide {
			return errNoChange
		}
		r.State.HideVerdicts = hide
		return nil
	})
}

// OpenPoll starts a prediction poll about handler's balance after step.
func (h *Hub) OpenPoll(code, secret, handler string, step int) (State, error) {
	return h.Ask(code, secret, Question{Kind: KindBalance, Handler: handler, Step: step})
}

// Ask opens a poll (a *QuestionError says what is wrong with q). A poll
// still open is closed unrevealed, and kept in the results.
func (h *Hub) Ask(code, secret string, q Question) (State, error) {
	return h.instructorChange(code, secret, func(r *record) error {
		if err := q.Check(); err != nil {
			return err
		}
		if p := r.State.Poll; p != nil && !p.Revealed {
			r.closePoll(StatusClosed, h.cfg.MaxHistory)
		}
		r.Polls++
		r.Votes = map[string]int64{}
		p := &Poll{ID: r.Polls, Kind: q.Kind, Handler: q.Handler, Step: q.Step, Question: strings.TrimSpace(q.Text)}
		if q.Kind.hasOptions() {
			p.Options = make([]string, len(q.Options))
			for i, o := range q.Options {
				p.Options[i] = strings.TrimSpace(o)
			}
		}
		if q.Answer != nil {
			a := *q.Answer
			p.Answer = &a
		}
		r.State.Poll = p
		return nil
	})
}

// closePoll ends the current poll: revealed (status revealed), or left
// unrevealed as a new one replaces it (status closed). Either way it
// joins the room's history, final: no vote changes it after this.
func (r *record) closePoll(status string, maxHistory int) {
	p := r.State.Poll
	if status == StatusRevealed {
		p.Revealed = true
	}
	r.History = append(r.History, r.result(status))
	if over := len(r.History) - maxHistory; over > 0 {
		r.History = append([]Result(nil), r.History[over:]...)
		r.Dropped += over
	}
}

// result is the current poll with its distribution and answers.
func (r *record) result(status string) Result {
	p := r.pollCopy()
	p.Counts = r.distribution()
	answers := make(map[string]int64, len(r.Votes))
	for s, v := range r.Votes {
		answers[s] = v
	}
	return Result{Poll: p, Status: status, Answers: answers}
}

// pollCopy is the current poll, sharing nothing with it.
func (r *record) pollCopy() Poll {
	pc := *r.State.Poll
	pc.Options = append([]string(nil), pc.Options...)
	if pc.Answer != nil {
		a := *pc.Answer
		pc.Answer = &a
	}
	pc.Counts = nil
	return pc
}

// Results is a room's polls for the instructor, oldest first: every
// closed poll it keeps, then the open one, if any; and how many older
// polls were dropped to keep within Config.MaxHistory.
func (h *Hub) Results(code, secret string) ([]Result, int, error) {
	var out []Result
	var dropped int
	err := h.store.view(NormalizeCode(code), func(r *record) error {
		if err := r.checkSecret(secret); err != nil {
			return err
		}
		out = make([]Result, 0, len(r.History)+1)
		for _, res := range r.History {
			c := res
			c.Options = append([]string(nil), res.Options...)
			c.Counts = append([]VoteCount(nil), res.Counts...)
			c.Answers = make(map[string]int64, len(res.Answers))
			for s, v := range res.Answers {
				c.Answers[s] = v
			}
			out = append(out, c)
		}
		if p := r.State.Poll; p != nil && !p.Revealed {
			out = append(out, r.result(StatusOpen))
		}
		dropped = r.Dropped
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, dropped, nil
}

// Reveal shows the poll's distribution to everyone.
func (h *Hub) Reveal(code, secret string) (State, error) {
	return h.instructorChange(code, secret, func(r *record) error {
		if r.State.Poll == nil {
			return ErrNoPoll
		}
		if !r.State.Poll.Revealed {
			r.closePoll(StatusRevealed, h.cfg.MaxHistory)
		}
		return nil
	})
}

// Vote records (or replaces) a student's answer to the open poll: a
// balance in minor units, or, for a poll with options, an option's index
// (ErrBadAnswer when there is no such option).
func (h *Hub) Vote(code, student string, pollID int, answer int64) error {
	// Only the instructor follows the tally: a burst of votes from a full
	// room must not flood every student's stream.
	_, err := h.change(code, true, func(r *record) error {
		p := r.State.Poll
		if p == nil || p.ID != pollID || p.Revealed {
			return ErrNoPoll
		}
		if p.Kind.hasOptions() && (answer < 0 || answer >= int64(len(p.Options))) {
			return fmt.Errorf("%w: %d of %d", ErrBadAnswer, answer, len(p.Options))
		}
		if r.Votes == nil {
			r.Votes = map[string]int64{}
		}
		r.Votes[student] = answer
		// An identity's second answer replaces its first, so the votes
		// are the voters: both count identities, never requests.
		p.Votes, p.Voters = len(r.Votes), len(r.Votes)
		return nil
	})
	return err
}

// Join counts a new identity the server issued for the room (see
// State.Joined). Only the instructor's pages hear of it, as of a vote.
func (h *Hub) Join(code string) error {
	_, err := h.change(code, true, func(r *record) error {
		r.State.Joined++
		return nil
	})
	return err
}

// Subscribe follows a room. The current state arrives first, then every
// change in order. A student who falls Buffer updates behind is dropped
// (C closes); the page reconnects and resumes at the current step.
func (h *Hub) Subscribe(code string) (*Subscription, error) {
	return h.SubscribeStudent(code, "")
}

// SubscribeStudent is Subscribe for a student the server knows by an id.
// A student already following the room (a second tab, or a page
// reconnecting before its old stream has closed) keeps their place even
// when the room is full; "" is a student nobody knows.
//
// With Redis, two students joining on two servers for the last place
// may both get it: the check and the join are not one step.
func (h *Hub) SubscribeStudent(code, student string) (*Subscription, error) {
	code = NormalizeCode(code)
	if err := h.store.view(code, func(*record) error { return nil }); err != nil {
		return nil, err
	}
	places, err := h.places(code)
	if err != nil {
		return nil, err
	}
	if n := len(places); n >= h.cfg.MaxStudents && (student == "" || !places[studentKey(student)]) {
		return nil, fmt.Errorf("%w: %d of %d places taken", ErrRoomFull, n, h.cfg.MaxStudents)
	}
	return h.subscribe(code, false, student)
}

// HasPlace reports whether a student may follow the room: there is a free
// place, or the student follows it already. After each step every
// student of a full room fetches the page again, and must get it.
func (h *Hub) HasPlace(code, student string) (bool, error) {
	code = NormalizeCode(code)
	if err := h.store.view(code, func(*record) error { return nil }); err != nil {
		return false, err
	}
	places, err := h.places(code)
	if err != nil {
		return false, err
	}
	return len(places) < h.cfg.MaxStudents || (student != "" && places[studentKey(student)]), nil
}

// Watch follows a room as its instructor: the instructor's own page takes
// no student's place, and it hears every vote as it comes in.
func (h *Hub) Watch(code, secret string) (*Subscription, error) {
	code = NormalizeCode(code)
	if err := h.store.view(code, func(r *record) error { return r.checkSecret(secret) }); err != nil {
		return nil, err
	}
	return h.subscribe(code, true, "")
}

// subscribe adds a subscription, then sends it the room's current state.
// A change that reaches it in between is not lost: the state it gets
// first is whichever is newer.
func (h *Hub) subscribe(code string, instructor bool, student string) (*Subscription, error) {
	c := make(chan State, h.cfg.Buffer)
	s := &Subscription{C: c, c: c, hub: h, code: code, instructor: instructor, student: student}
	h.mu.Lock()
	if !instructor {
		h.seq++
		s.key = placeKey(student, h.instance(), h.seq)
	}
	first := s.key != "" && !h.holdsLocked(code, s.key)
	if h.subs[code] == nil {
		h.subs[code] = map[*Subscription]bool{}
	}
	h.subs[code][s] = true
	h.mu.Unlock()
	if first && h.shared != nil {
		if err := h.shared.join(code, s.key); err != nil {
			s.Close()
			return nil, err
		}
		h.placesChanged(code)
	}
	st, err := h.State(code, instructor)
	if err != nil {
		s.Close()
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[code][s] && st.Version > s.last {
		s.c <- st // the buffer is empty or holds only newer states
		s.last = st.Version
	}
	return s, nil
}

// placeKey names the place a student takes: one per known student,
// however many streams they have open on however many servers, and one
// per stream of a student nobody knows.
func placeKey(student, instance string, seq int) string {
	if student != "" {
		return studentKey(student)
	}
	return fmt.Sprintf("a:%s:%d", instance, seq)
}

func studentKey(student string) string { return "s:" + student }

func (h *Hub) instance() string {
	if h.shared != nil {
		return h.shared.instance
	}
	return "local"
}

// holdsLocked reports whether a subscription of this process takes the
// place key in the room.
func (h *Hub) holdsLocked(code, key string) bool {
	for s := range h.subs[code] {
		if s.key == key {
			return true
		}
	}
	return false
}

// places is the set of places taken in the room, by key: this process's
// streams in memory, every server's with Redis.
func (h *Hub) places(code string) (map[string]bool, error) {
	if h.shared != nil {
		return h.shared.places(code)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]bool{}
	for s := range h.subs[code] {
		if s.key != "" {
			out[s.key] = true
		}
	}
	return out, nil
}

// placesChanged tells the instructor, on whichever server, that the
// number of students changed (with Redis; in memory the count rides on
// the next change).
func (h *Hub) placesChanged(code string) {
	_, _ = h.change(code, true, func(*record) error { return nil })
}

// Places reports how many students can still join the room.
func (h *Hub) Places(code string) (int, error) {
	code = NormalizeCode(code)
	if err := h.store.view(code, func(*record) error { return nil }); err != nil {
		return 0, err
	}
	places, err := h.places(code)
	if err != nil {
		return 0, err
	}
	return max(h.cfg.MaxStudents-len(places), 0), nil
}

// Close stops the subscription.
func (s *Subscription) Close() {
	h := s.hub
	h.mu.Lock()
	if !h.subs[s.code][s] {
		h.mu.Unlock()
		return
	}
	left := h.removeLocked(s)
	h.mu.Unlock()
	h.leave(s.code, left)
}

// removeLocked drops a subscription and closes its channel. It returns
// the place it freed, if it was the last of this process to take it.
func (h *Hub) removeLocked(s *Subscription) string {
	delete(h.subs[s.code], s)
	if len(h.subs[s.code]) == 0 {
		delete(h.subs, s.code)
	}
	close(s.c)
	if s.key == "" || h.holdsLocked(s.code, s.key) {
		return ""
	}
	return s.key
}

// leave gives up places this process no longer takes.
func (h *Hub) leave(code string, keys ...string) {
	if h.shared == nil {
		return
	}
	changed := false
	for _, k := range keys {
		if k != "" {
			h.shared.leave(code, k)
			changed = true
		}
	}
	if changed {
		h.placesChanged(code)
	}
}

// Sweep closes rooms idle longer than IdleTTL, and the subscriptions of
// this process to rooms gone. The server calls it now and then.
func (h *Hub) Sweep() int {
	n := h.store.sweep()
	h.mu.Lock()
	codes := make([]string, 0, len(h.subs))
	for code := range h.subs {
		codes = append(codes, code)
	}
	h.mu.Unlock()
	for _, code := range codes {
		if err := h.store.view(code, func(*record) error { return nil }); !errors.Is(err, ErrNotFound) {
			continue
		}
		h.mu.Lock()
		for s := range h.subs[code] {
			close(s.c)
		}
		delete(h.subs, code)
		h.mu.Unlock()
		if h.shared != nil {
			h.shared.forget(code)
		}
	}
	return n
}

// Rooms is how many rooms are open.
func (h *Hub) Rooms() int {
	return h.store.count()
}

// Close stops what a Redis hub runs in the background (its subscriber
// and its heartbeat); a hub in memory has nothing to stop. Close the
// subscriptions first: the places they take are given up by them, not
// by this.
func (h *Hub) Close() {
	if h.shared != nil {
		h.shared.close()
	}
}

// deliver sends a new state to this process's subscriptions of the room:
// the instructor's pages always, students unless instructorOnly. A
// subscription that already holds a newer state skips it.
func (h *Hub) deliver(code string, forStudents, forInstructor State, instructorOnly bool) {
	h.mu.Lock()
	var left []string
	for s := range h.subs[code] {
		st := forStudents
		if s.instructor {
			st = forInstructor
		} else if instructorOnly {
			continue
		}
		if st.Version <= s.last {
			continue
		}
		select {
		case s.c <- st:
			s.last = st.Version
		default:
			// Too far behind: drop the page rather than block the room.
			left = append(left, h.removeLocked(s))
		}
	}
	h.mu.Unlock()
	h.leave(code, left...)
}

func (r *record) snapshot(forInstructor bool) State {
	st := r.State
	st.Handlers = append([]string(nil), r.State.Handlers...)
	if p := r.State.Poll; p != nil {
		pc := r.pollCopy()
		if forInstructor || p.Revealed {
			pc.Counts = r.distribution()
		} else {
			// The right answer, like the tally, waits for the reveal.
			pc.Answer = nil
		}
		st.Poll = &pc
	}
	return st
}

// distribution is the current poll's answers: by balance, or every
// option in order. An option poll with no answer yet has none.
func (r *record) distribution() []VoteCount {
	counts := map[int64]int{}
	for _, b := range r.Votes {
		counts[b]++
	}
	if p := r.State.Poll; p != nil && p.Kind.hasOptions() {
		if len(r.Votes) == 0 {
			return nil
		}
		out := make([]VoteCount, len(p.Options))
		for i := range out {
			out[i] = VoteCount{Balance: int64(i), Count: counts[int64(i)]}
		}
		return out
	}
	out := make([]VoteCount, 0, len(counts))
	for b, n := range counts {
		out = append(out, VoteCount{Balance: b, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Balance < out[j].Balance })
	return out
}
