// Package room keeps live classrooms: an instructor steps through a
// scenario and every student's page follows.
//
// A room's state is a script and a step number, so any view of it is
// rebuilt by replaying the script; the hub only stores and broadcasts that
// small state. Rooms live in memory: they are ephemeral by design.
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
	// HideVerdicts is the instructor's V: every page of the room leaves
	// out the verdicts and expected balances, poll or no poll, until the
	// instructor shows them again.
	HideVerdicts bool `json:"hide_verdicts,omitempty"`
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
	Votes    int         `json:"votes"`
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

// Hub holds every open room.
type Hub struct {
	cfg   Config
	mu    sync.Mutex
	rooms map[string]*room
}

type room struct {
	code, secret string
	state        State
	lastActive   time.Time
	subs         map[*Subscription]bool
	votes        map[string]int64 // student id -> answer: a balance, or an option's index
	polls        int
	history      []Result // closed polls, oldest first, at most Config.MaxHistory
	dropped      int      // older polls left out of history
}

// Subscription delivers a room's states to one student, in order.
type Subscription struct {
	C          <-chan State
	c          chan State
	hub        *Hub
	code       string
	instructor bool   // not counted among the students; hears every vote
	student    string // the student's id, when the server knows it
}

// NewHub makes a hub; zero limits get sensible defaults.
func NewHub(cfg Config) *Hub {
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
	return &Hub{cfg: cfg, rooms: map[string]*room{}}
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
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sweepLocked()
	if len(h.rooms) >= h.cfg.MaxRooms {
		return "", "", ErrTooManyRooms
	}
	for {
		if code, err = newCode(); err != nil {
			return "", "", err
		}
		if h.rooms[code] == nil {
			break
		}
	}
	sb := make([]byte, 16)
	if _, err := rand.Read(sb); err != nil {
		return "", "", err
	}
	secret = hex.EncodeToString(sb)
	h.rooms[code] = &room{
		code: code, secret: secret,
		state:      State{Code: code, Script: script, Step: step, Handlers: handlers, Version: 1},
		lastActive: h.cfg.Now(),
		subs:       map[*Subscription]bool{},
		votes:      map[string]int64{},
	}
	return code, secret, nil
}

func (h *Hub) get(code string) (*room, error) {
	r := h.rooms[NormalizeCode(code)]
	if r == nil || h.cfg.Now().Sub(r.lastActive) > h.cfg.IdleTTL {
		return nil, ErrNotFound
	}
	return r, nil
}

// State returns a room's current state. The vote distribution of an open
// poll is left out unless forInstructor.
func (h *Hub) State(code string, forInstructor bool) (State, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.get(code)
	if err != nil {
		return State{}, err
	}
	return r.snapshot(forInstructor), nil
}

// IsInstructor reports whether secret is the room's instructor secret.
func (h *Hub) IsInstructor(code, secret string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.get(code)
	return err == nil && subtle.ConstantTimeCompare([]byte(r.secret), []byte(secret)) == 1
}

// instructorRoom finds a room and checks the secret.
func (h *Hub) instructorRoom(code, secret string) (*room, error) {
	r, err := h.get(code)
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(r.secret), []byte(secret)) != 1 {
		return nil, ErrForbidden
	}
	return r, nil
}

// Update moves the room: a new step, and optionally a new script or
// handler list (empty keeps the current one). Only the instructor may.
func (h *Hub) Update(code, secret, script string, step int, handlers []string) (State, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.instructorRoom(code, secret)
	if err != nil {
		return State{}, err
	}
	if script != "" {
		r.state.Script = script
	}
	if handlers != nil {
		r.state.Handlers = handlers
	}
	r.state.Step = step
	if p := r.state.Poll; p != nil && !p.Revealed && p.Kind != KindChoice && step >= p.Step {
		// Moving onto the predicted step reveals the poll. A choice
		// question is about no step: the instructor reveals it.
		h.closePollLocked(r, StatusRevealed)
	}
	h.changedLocked(r)
	return r.snapshot(true), nil
}

// SetVerdicts hides (hide) or shows the verdicts on every page of the
// room. Only the instructor may.
func (h *Hub) SetVerdicts(code, secret string, hide bool) (State, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.instructorRoom(code, secret)
	if err != nil {
		return State{}, err
	}
	if r.state.HideVerdicts != hide {
		r.state.HideVerdicts = hide
		h.changedLocked(r)
	}
	return r.snapshot(true), nil
}

// OpenPoll starts a prediction poll about handler's balance after step.
func (h *Hub) OpenPoll(code, secret, handler string, step int) (State, error) {
	return h.Ask(code, secret, Question{Kind: KindBalance, Handler: handler, Step: step})
}

// Ask opens a poll (a *QuestionError says what is wrong with q). A poll
// still open is closed unrevealed, and kept in the results.
func (h *Hub) Ask(code, secret string, q Question) (State, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.instructorRoom(code, secret)
	if err != nil {
		return State{}, err
	}
	if err := q.Check(); err != nil {
		return State{}, err
	}
	if p := r.state.Poll; p != nil && !p.Revealed {
		h.closePollLocked(r, StatusClosed)
	}
	r.polls++
	r.votes = map[string]int64{}
	p := &Poll{ID: r.polls, Kind: q.Kind, Handler: q.Handler, Step: q.Step, Question: strings.TrimSpace(q.Text)}
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
	r.state.Poll = p
	h.changedLocked(r)
	return r.snapshot(true), nil
}

// closePollLocked ends the current poll: revealed (status revealed), or
// left unrevealed as a new one replaces it (status closed). Either way
// it joins the room's history, final: no vote changes it after this.
func (h *Hub) closePollLocked(r *room, status string) {
	p := r.state.Poll
	if status == StatusRevealed {
		p.Revealed = true
	}
	r.history = append(r.history, r.result(status))
	if over := len(r.history) - h.cfg.MaxHistory; over > 0 {
		r.history = append([]Result(nil), r.history[over:]...)
		r.dropped += over
	}
}

// result is the current poll with its distribution and answers.
func (r *room) result(status string) Result {
	p := r.pollCopy()
	p.Counts = r.distribution()
	answers := make(map[string]int64, len(r.votes))
	for s, v := range r.votes {
		answers[s] = v
	}
	return Result{Poll: p, Status: status, Answers: answers}
}

// pollCopy is the current poll, sharing nothing with it.
func (r *room) pollCopy() Poll {
	pc := *r.state.Poll
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
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.instructorRoom(code, secret)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Result, 0, len(r.history)+1)
	for _, res := range r.history {
		c := res
		c.Options = append([]string(nil), res.Options...)
		c.Counts = append([]VoteCount(nil), res.Counts...)
		c.Answers = make(map[string]int64, len(res.Answers))
		for s, v := range res.Answers {
			c.Answers[s] = v
		}
		out = append(out, c)
	}
	if p := r.state.Poll; p != nil && !p.Revealed {
		out = append(out, r.result(StatusOpen))
	}
	return out, r.dropped, nil
}

// Reveal shows the poll's distribution to everyone.
func (h *Hub) Reveal(code, secret string) (State, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.instructorRoom(code, secret)
	if err != nil {
		return State{}, err
	}
	if r.state.Poll == nil {
		return State{}, ErrNoPoll
	}
	if !r.state.Poll.Revealed {
		h.closePollLocked(r, StatusRevealed)
	}
	h.changedLocked(r)
	return r.snapshot(true), nil
}

// Vote records (or replaces) a student's answer to the open poll: a
// balance in minor units, or, for a poll with options, an option's index
// (ErrBadAnswer when there is no such option).
func (h *Hub) Vote(code, student string, pollID int, answer int64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.get(code)
	if err != nil {
		return err
	}
	p := r.state.Poll
	if p == nil || p.ID != pollID || p.Revealed {
		return ErrNoPoll
	}
	if p.Kind.hasOptions() && (answer < 0 || answer >= int64(len(p.Options))) {
		return fmt.Errorf("%w: %d of %d", ErrBadAnswer, answer, len(p.Options))
	}
	r.votes[student] = answer
	p.Votes = len(r.votes)
	// Only the instructor follows the tally: a burst of votes from a full
	// room must not flood every student's stream.
	h.notifyLocked(r, true)
	return nil
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
func (h *Hub) SubscribeStudent(code, student string) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.get(code)
	if err != nil {
		return nil, err
	}
	if n := r.students(); n >= h.cfg.MaxStudents && !r.follows(student) {
		return nil, fmt.Errorf("%w: %d of %d places taken", ErrRoomFull, n, h.cfg.MaxStudents)
	}
	return h.subscribeLocked(r, false, student), nil
}

// HasPlace reports whether a student may follow the room: there is a free
// place, or the student follows it already. After each step every
// student of a full room fetches the page again, and must get it.
func (h *Hub) HasPlace(code, student string) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.get(code)
	if err != nil {
		return false, err
	}
	return r.students() < h.cfg.MaxStudents || r.follows(student), nil
}

// follows reports whether a known student has a stream open to the room.
func (r *room) follows(student string) bool {
	if student == "" {
		return false
	}
	for s := range r.subs {
		if s.student == student {
			return true
		}
	}
	return false
}

// Watch follows a room as its instructor: the instructor's own page takes
// no student's place, and it hears every vote as it comes in.
func (h *Hub) Watch(code, secret string) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.instructorRoom(code, secret)
	if err != nil {
		return nil, err
	}
	return h.subscribeLocked(r, true, ""), nil
}

func (h *Hub) subscribeLocked(r *room, instructor bool, student string) *Subscription {
	c := make(chan State, h.cfg.Buffer)
	s := &Subscription{C: c, c: c, hub: h, code: r.code, instructor: instructor, student: student}
	r.subs[s] = true
	r.state.Students = r.students()
	c <- r.snapshot(instructor)
	return s
}

// Places reports how many students can still join the room.
func (h *Hub) Places(code string) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.get(code)
	if err != nil {
		return 0, err
	}
	return max(h.cfg.MaxStudents-r.students(), 0), nil
}

// students counts the places taken: one per known student, however many
// streams they have open, and one per stream of a student nobody knows.
func (r *room) students() int {
	n := 0
	seen := map[string]bool{}
	for s := range r.subs {
		switch {
		case s.instructor:
		case s.student == "":
			n++
		case !seen[s.student]:
			seen[s.student] = true
			n++
		}
	}
	return n
}

// Close stops the subscription.
func (s *Subscription) Close() {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[s.code]
	if r == nil || !r.subs[s] {
		return
	}
	delete(r.subs, s)
	close(s.c)
	r.state.Students = r.students()
}

// Sweep closes rooms idle longer than IdleTTL. The server calls it now and
// then; every other call sweeps too.
func (h *Hub) Sweep() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sweepLocked()
}

func (h *Hub) sweepLocked() int {
	n := 0
	now := h.cfg.Now()
	for code, r := range h.rooms {
		if now.Sub(r.lastActive) > h.cfg.IdleTTL {
			for s := range r.subs {
				close(s.c)
			}
			delete(h.rooms, code)
			n++
		}
	}
	return n
}

// Rooms is how many rooms are open.
func (h *Hub) Rooms() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.rooms)
}

func (h *Hub) changedLocked(r *room) {
	h.notifyLocked(r, false)
}

// notifyLocked records a change and sends the new state to the
// instructor's pages and, unless instructorOnly, to every student.
func (h *Hub) notifyLocked(r *room, instructorOnly bool) {
	r.state.Version++
	r.lastActive = h.cfg.Now()
	forStudents, forInstructor := r.snapshot(false), r.snapshot(true)
	for s := range r.subs {
		st := forStudents
		if s.instructor {
			st = forInstructor
		} else if instructorOnly {
			continue
		}
		select {
		case s.c <- st:
		default:
			// Too far behind: drop the page rather than block the room.
			delete(r.subs, s)
			close(s.c)
		}
	}
	r.state.Students = r.students()
}

func (r *room) snapshot(forInstructor bool) State {
	st := r.state
	st.Handlers = append([]string(nil), r.state.Handlers...)
	if p := r.state.Poll; p != nil {
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
func (r *room) distribution() []VoteCount {
	counts := map[int64]int{}
	for _, b := range r.votes {
		counts[b]++
	}
	if p := r.state.Poll; p != nil && p.Kind.hasOptions() {
		if len(r.votes) == 0 {
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
