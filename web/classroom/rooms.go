package classroom

// Instructor mode, part two: live rooms. An instructor opens a room on the
// scenario being presented; students join with a short code and follow the
// instructor's step over server-sent events; before a step the instructor
// may ask the room to predict a balance. The hub (web/room) keeps each
// room's state, a script and a step; every page of a room is rebuilt from
// it by replay, exactly as the lab rebuilds a page from its address.

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

const (
	SecretCookie  = "lab_room"    // the instructor's secret, scoped to /rooms/{code}
	StudentCookie = "lab_student" // a student's identity in one room, for its polls, scoped to /rooms/{code}
	VoteCookie    = "lab_vote"    // "poll:answer" (a balance, or an option's index), the student's last answer, scoped to /rooms/{code}
)

const (
	// defaultHeartbeat keeps a quiet event stream open through proxies
	// that close idle connections.
	defaultHeartbeat = 15 * time.Second
	// streamWriteTimeout bounds one write to an event stream: a student
	// whose connection died is let go instead of holding a goroutine.
	streamWriteTimeout = 30 * time.Second
)

// roomProblem is a failure in a room that gets a page of its own: the
// room closed, the room is full, only the instructor may do that. Its
// page links to where one can go from there.
type roomProblem struct {
	status     int
	title, msg string // catalog keys
	args       []any
	code       string // the room, when there is one to go back to
}

func (e *roomProblem) Error() string {
	return fmt.Sprintf("room %s: %d %s %v", e.code, e.status, e.msg, e.args)
}

// problemFor maps the hub's errors to pages.
func problemFor(code string, err error) error {
	shown := page.InputExcerpt(displayCode(code)) // the code comes from the address: quote a part of it
	switch {
	case errors.Is(err, room.ErrNotFound):
		return &roomProblem{status: http.StatusNotFound, title: "rm.closed.t", msg: "rm.closed.m", args: []any{shown}}
	case errors.Is(err, room.ErrForbidden):
		return &roomProblem{status: http.StatusForbidden, title: "rm.forbidden.t", msg: "rm.forbidden.m", args: []any{shown}, code: code}
	case errors.Is(err, room.ErrRoomFull):
		return &roomProblem{status: http.StatusServiceUnavailable, title: "rm.full.t", msg: "rm.full.m", args: []any{shown}}
	case errors.Is(err, room.ErrTooManyRooms):
		return &roomProblem{status: http.StatusServiceUnavailable, title: "rm.busy.t", msg: "rm.busy.m"}
	case errors.Is(err, room.ErrNoPoll):
		return &roomProblem{status: http.StatusConflict, title: "rm.nopoll.t", msg: "rm.nopoll.m", code: code}
	}
	return err
}

// badRoomInput is a 400 in a room: the lab's own message for the input,
// on a page that leads back to the room.
func badRoomInput(code string, err error) error {
	var he *page.Error
	if errors.As(err, &he) {
		return &roomProblem{status: he.Status, title: he.DefaultTitle(), msg: he.Key, args: page.BoundArgs(he.Args), code: code}
	}
	return err
}

// HandleRoom is handle for room pages: a roomProblem becomes its page.
func (s *Classroom) HandleRoom(h page.HandlerFunc) http.HandlerFunc {
	return s.Shell.Handle(func(w http.ResponseWriter, r *http.Request) error {
		err := h(w, r)
		var p *roomProblem
		if errors.As(err, &p) {
			t := s.Shell.Text(r)
			v := noticeView{T: t, Status: p.status, Title: t.S(p.title), Message: t.F(p.msg, p.args...)}
			if p.code != "" {
				v.RoomURL, v.RoomCode = "/rooms/"+p.code, displayCode(p.code)
			}
			w.Header().Set("Cache-Control", "no-store")
			if p.status == http.StatusServiceUnavailable {
				w.Header().Set("Retry-After", "60")
				// A full room, or no room left, is the lab keeping the
				// limits it was started with, not a fault: a WARN (never
				// an ERROR) that names the flag to raise if it recurs.
				limit := "--max-students"
				if p.msg == "rm.busy.m" {
					limit = "--max-rooms"
				}
				s.Shell.Log.Warn("room limit reached", "path", r.URL.Path, "limit", limit)
			}
			// The language links repeat the address; a bad one may be long.
			page := page.ShortLangs(s.presentPageFor(t, r, v.Title+" · "+t.S("app.name")), "/join")
			return s.Shell.Render(w, r, p.status, noticePage(page, v))
		}
		return err
	})
}

// noticeView is the page of a roomProblem.
type noticeView struct {
	T                 page.Text
	Status            int
	Title, Message    string
	RoomURL, RoomCode string
}

func roomCode(r *http.Request) string { return room.NormalizeCode(chi.URLParam(r, "code")) }

// displayCode writes a code as people read it aloud, ABC 234, with a
// no-break space so that it never splits across lines.
func displayCode(code string) string {
	if len(code) == 6 {
		return code[:3] + "\u00a0" + code[3:]
	}
	return code
}

// roomURL is a room page's address, with the panels shown.
func roomURL(code, suffix string, show presentShow) string {
	u := "/rooms/" + code + suffix
	if p := show.param(); p != "" {
		u += "?show=" + p
	}
	return u
}

func cookieValue(r *http.Request, name string) string {
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// CreateRoom opens a room on the state the presenter view posts and takes
// the instructor to it, holding the room's secret in a cookie only that
// room's addresses receive.
func (s *Classroom) CreateRoom(w http.ResponseWriter, r *http.Request) error {
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	st, err := s.readPresentState(f)
	if err != nil {
		return err
	}
	if st.Total() == 0 {
		return page.BadRequest("err.roomscript")
	}
	// Replay the whole script once now, so that no step the instructor
	// moves to later can fail for being over the budget.
	full := st
	full.Step = st.Total()
	if _, err := s.Replayer.Replay(r.Context(), full); err != nil {
		return err
	}
	code, secret, err := s.Hub.CreateOn(st.Script.String(), st.Broker, st.Step, st.Handlers)
	if err != nil {
		return problemFor("", err)
	}
	http.SetCookie(w, &http.Cookie{Name: SecretCookie, Value: secret, Path: "/rooms/" + code,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
	show, _ := readShow(f) // the panels are a nicety: ignore a bad value here
	http.Redirect(w, r, roomURL(code, "/present", show), http.StatusSeeOther)
	return nil
}

// roomState is the lab state a room's state describes. The script parsed
// when the room was opened, so a failure here is the lab's own (a 500).
func (s *Classroom) roomState(st room.State) (labview.State, error) {
	sc, err := script.Parse(st.Script)
	if err != nil {
		return labview.State{}, fmt.Errorf("room %s holds a script that no longer parses: %w", st.Code, err)
	}
	return labview.State{Script: sc, Preset: s.Replayer.ByScript[sc.String()], Handlers: st.Handlers,
		Step: min(max(st.Step, 0), len(sc.Steps)), Broker: st.Broker}, nil
}

// RoomPresent is the instructor's page: the presenter view of the room's
// step, with the join code, the QR code and the poll.
func (s *Classroom) RoomPresent(w http.ResponseWriter, r *http.Request) error {
	code := roomCode(r)
	st, err := s.Hub.State(code, true)
	if err != nil {
		return problemFor(code, err)
	}
	if !s.Hub.IsInstructor(code, cookieValue(r, SecretCookie)) {
		return problemFor(code, room.ErrForbidden)
	}
	return s.renderRoom(w, r, code, st, modeInstructor)
}

// RoomStudent is a student's page: the instructor's step, followed live.
func (s *Classroom) RoomStudent(w http.ResponseWriter, r *http.Request) error {
	code := roomCode(r)
	st, err := s.Hub.State(code, false)
	if err != nil {
		return problemFor(code, err)
	}
	// A full room says so here rather than leave the page silently
	// unable to follow.
	student, joined := s.studentFrom(r, code)
	if ok, err := s.Hub.HasPlace(code, student); err != nil || !ok {
		if err == nil {
			err = room.ErrRoomFull
		}
		return problemFor(code, err)
	}
	if !joined {
		// A reader without an identity in this room (a QR code scanned, a
		// link followed) gets the join button, not an identity: one is
		// issued only by the join itself, a POST (JoinPost), so that
		// reloading the page without cookies mints nothing.
		show, err := readShow(r.URL.Query())
		if err != nil {
			return badRoomInput(code, err)
		}
		return s.renderJoin(w, r, http.StatusOK, joinView{Room: code, Shown: displayCode(code), Show: show.param()})
	}
	return s.renderRoom(w, r, code, st, modeStudent)
}

func (s *Classroom) renderRoom(w http.ResponseWriter, r *http.Request, code string, st room.State, mode string) error {
	show, err := readShow(r.URL.Query())
	if err != nil {
		return badRoomInput(code, err)
	}
	// Whether the verdicts show is the room's, not the address's: the
	// instructor's V hides them for everyone (roomVerdicts).
	show.NoVerdicts = st.HideVerdicts
	ls, err := s.roomState(st)
	if err != nil {
		return err
	}
	// After a step every student asks for the same page at once: the
	// cache makes that one replay. The page reads the room's state, the
	// reader's role and the reader's own vote besides the request.
	state, err := json.Marshal(st)
	if err != nil {
		return err
	}
	key := page.CacheKey(r, "room", mode, string(state), cookieValue(r, VoteCookie))
	return s.Shell.ServeCached(w, r, key, func(w http.ResponseWriter, r *http.Request) error {
		run, err := s.Replayer.Replay(r.Context(), ls)
		if err != nil {
			return err
		}
		t := s.Shell.Text(r)
		suffix := ""
		if mode == modeInstructor {
			suffix = "/present"
		}
		at := func(_ int, _ []string, show presentShow) string { return roomURL(code, suffix, show) }
		pv := s.presentView(t, r, ls, run, show, mode, at)
		pv.Room = s.roomView(r, code, st, ls, run, mode, show)
		if st.Poll != nil && !st.Poll.Revealed {
			// The cards would give the answer away: a verdict or an
			// expected balance tells what the next step does. The reveal
			// (a new state, so a new page) brings them back.
			pv.HideVerdicts, pv.PollHides = true, true
		}
		pv.PageTitle = t.F("rm.page", displayCode(code)) + " · " + pv.PageTitle
		w.Header().Set("Cache-Control", "no-store")
		return s.Shell.Render(w, r, http.StatusOK, presentPage(s.presentPageFor(t, r, pv.PageTitle), pv))
	})
}

// roomView is what a room adds to the presenter view.
type roomView struct {
	Code       string
	Shown      string // the code as people read it: ABC 234
	Instructor bool
	JoinURL    string // the student page, absolute: the QR code's text
	JoinAt     string // where to type the code: host/join
	QR         string // SVG markup drawn by room.QRSVG from JoinURL
	LocalOnly  bool   // the address is this machine's own: phones cannot reach it
	Students   int
	Version    int
	PollKey    string // what the page shows of the poll, for present.js
	StepURL    string
	// VerdictsURL hides or shows the verdicts for the whole room (V).
	VerdictsURL string
	PollURL     string
	VoteURL     string
	ResultsURL  string // the instructor's CSV of the room's polls
	EventsURL   string
	ShowParam   string
	Poll        *pollView
	// Asking the room about the next step (the instructor, before it).
	CanAsk      bool
	AskStep     int
	AskStepText string
	AskHandlers []page.Option
	AskKinds    []page.Option // what to predict: a balance or a verdict
	// CanAskOwn: the instructor may ask a multiple-choice question of
	// their own (any step; not while one is open).
	CanAskOwn  bool
	OwnSlots   []int // the answer fields' numbers, 1…room.MaxOptions
	MaxQ, MaxO int   // the question's and an answer's length limits
}

// pollView is a poll as one reader sees it.
type pollView struct {
	ID         int
	Kind       room.Kind
	Handler    string
	Step       int
	StepText   string // the step predicted (balance, verdict)
	Text       string // the question, in the reader's language or as typed
	Votes      int
	Voters     int // the distinct identities that answered
	Joined     int // the identities the room has issued
	Revealed   bool
	Bars       []pollBar    // the distribution, when the reader may see it
	Actual     string       // the right answer, once revealed: the balance after the step, the verdict, the option
	ActualText string       // the sentence that says it
	Mine       string       // this student's answer
	Right      bool         // the answer was the right one
	Open       bool         // the reader may still answer
	Options    []pollOption // a poll with options: the radio buttons
}

// pollOption is one answer a student may choose.
type pollOption struct {
	Value   string // 1, 2, …: what the form posts as choice=
	Label   string
	Checked bool
}

// pollBar is one answer (a predicted balance, an option) and how many
// students gave it.
type pollBar struct {
	Label        string
	Count        int
	Width        float64 // percent of the longest bar
	Actual, Mine bool
}

func (s *Classroom) roomView(r *http.Request, code string, st room.State, ls labview.State, run *sim.Run, mode string, show presentShow) *roomView {
	v := &roomView{
		Code: code, Shown: displayCode(code), Instructor: mode == modeInstructor,
		Students: st.Students, Version: st.Version,
		JoinURL:     page.Absolute(r, "/rooms/"+code),
		StepURL:     "/rooms/" + code + "/step",
		VerdictsURL: "/rooms/" + code + "/verdicts",
		PollURL:     "/rooms/" + code + "/poll",
		VoteURL:     "/rooms/" + code + "/vote",
		EventsURL:   "/rooms/" + code + "/events",
		ShowParam:   show.param(),
	}
	t := s.Shell.Text(r)
	// The export's headers follow the page's language.
	v.ResultsURL = "/rooms/" + code + "/results.csv?lang=" + t.Lang()
	v.JoinAt = strings.TrimPrefix(strings.TrimPrefix(page.Absolute(r, "/join"), "http://"), "https://")
	v.LocalOnly = isLoopback(r.Host)
	if v.Instructor {
		if svg, err := room.QRSVG(v.JoinURL); err == nil {
			v.QR = svg
		} else {
			s.Shell.Log.Warn("qr code", "err", err)
		}
	}
	if p := st.Poll; p != nil {
		v.PollKey = strconv.Itoa(p.ID)
		if p.Revealed {
			v.PollKey += "r"
		}
		v.Poll = s.pollView(r, p, st.Joined, ls, run)
	}
	openChoice := st.Poll != nil && !st.Poll.Revealed && st.Poll.Kind == room.KindChoice
	if v.Instructor && ls.Step < ls.Total() && !openChoice && (st.Poll == nil || st.Poll.Revealed || st.Poll.Step != ls.Step+1) {
		v.CanAsk, v.AskStep = true, ls.Step+1
		v.AskStepText = ls.Script.Steps[ls.Step].String()
		for _, h := range ls.Handlers {
			v.AskHandlers = append(v.AskHandlers, page.Option{Value: h, Label: h, Selected: h == "naive"})
		}
		v.AskKinds = []page.Option{{Value: string(room.KindBalance), Label: t.S("poll.kind.balance"), Selected: true},
			{Value: string(room.KindVerdict), Label: t.S("poll.kind.verdict")}}
	}
	if v.Instructor && (st.Poll == nil || st.Poll.Revealed) {
		v.CanAskOwn, v.MaxQ, v.MaxO = true, room.MaxQuestion, room.MaxOption
		for i := 1; i <= room.MaxOptions; i++ {
			v.OwnSlots = append(v.OwnSlots, i)
		}
	}
	return v
}

// optionLabels are a poll's answers as the reader reads them: the
// verdicts in the reader's language, a choice's answers as typed.
func optionLabels(t page.Text, p *room.Poll) []string {
	out := make([]string, len(p.Options))
	for i, o := range p.Options {
		out[i] = o
		if p.Kind == room.KindVerdict {
			out[i] = t.S("v." + o)
		}
	}
	return out
}

// pollQuestion is what a poll asks, in the reader's language (a choice
// question as typed).
func pollQuestion(t page.Text, p *room.Poll) string {
	switch p.Kind {
	case room.KindVerdict:
		return t.F("poll.qv", p.Handler, p.Step)
	case room.KindChoice:
		return p.Question
	}
	return t.F("poll.q", p.Handler, p.Step)
}

// choiceList names a poll's answers as a vote posts them: 1. OK; 2. …
func choiceList(labels []string) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = strconv.Itoa(i+1) + ". " + l
	}
	return strings.Join(parts, "; ")
}

// optionPollView is pollView for a poll with options (verdict, choice).
func (s *Classroom) optionPollView(r *http.Request, v *pollView, p *room.Poll) *pollView {
	t := s.Shell.Text(r)
	labels := optionLabels(t, p)
	mine, voted := int64(-1), false
	if id, n, ok := parseVoteCookie(cookieValue(r, VoteCookie)); ok && id == p.ID && n < int64(len(labels)) {
		mine, voted = n, true
		v.Mine = labels[n]
	}
	right, known := int64(-1), false
	if p.Revealed && p.Answer != nil && *p.Answer >= 0 && *p.Answer < int64(len(labels)) {
		right, known = *p.Answer, true
		v.Actual = labels[right]
		v.Right = voted && mine == right
		if p.Kind == room.KindVerdict {
			v.ActualText = t.F("poll.actualv", p.Handler, v.Actual)
		} else {
			v.ActualText = t.F("poll.actualc", v.Actual)
		}
	}
	for i, l := range labels {
		v.Options = append(v.Options, pollOption{Value: strconv.Itoa(i + 1), Label: l, Checked: voted && mine == int64(i)})
	}
	most := 0
	for _, c := range p.Counts {
		most = max(most, c.Count)
	}
	for _, c := range p.Counts {
		if c.Balance < 0 || c.Balance >= int64(len(labels)) {
			continue
		}
		b := pollBar{Label: labels[c.Balance], Count: c.Count, Actual: known && c.Balance == right, Mine: voted && c.Balance == mine}
		if most > 0 {
			b.Width = float64(c.Count) * 100 / float64(most)
		}
		v.Bars = append(v.Bars, b)
	}
	return v
}

func (s *Classroom) pollView(r *http.Request, p *room.Poll, joined int, ls labview.State, run *sim.Run) *pollView {
	v := &pollView{ID: p.ID, Kind: p.Kind, Handler: p.Handler, Step: p.Step, Votes: p.Votes, Voters: p.Voters, Joined: joined,
		Revealed: p.Revealed, Open: !p.Revealed, Text: pollQuestion(s.Shell.Text(r), p)}
	if p.Kind != room.KindChoice && p.Step >= 1 && p.Step <= ls.Total() {
		v.StepText = ls.Script.Steps[p.Step-1].String()
	}
	if p.Kind == room.KindVerdict || p.Kind == room.KindChoice {
		return s.optionPollView(r, v, p)
	}
	mine, voted := int64(0), false
	if id, bal, ok := parseVoteCookie(cookieValue(r, VoteCookie)); ok && id == p.ID {
		mine, voted = bal, true
		v.Mine = page.Money(bal)
	}
	actual, known := int64(0), false
	if p.Revealed {
		if p.Answer != nil {
			actual, known = *p.Answer, true
		} else {
			actual, known = s.balanceAt(r.Context(), ls, run, p.Handler, p.Step)
		}
		if known {
			v.Actual = page.Money(actual)
			v.Right = voted && mine == actual
			v.ActualText = s.Shell.Text(r).F("poll.actual", p.Handler, v.Actual)
		}
	}
	counts := append([]room.VoteCount(nil), p.Counts...)
	if known && len(counts) > 0 && !slices.ContainsFunc(counts, func(c room.VoteCount) bool { return c.Balance == actual }) {
		counts = append(counts, room.VoteCount{Balance: actual})
		slices.SortFunc(counts, func(a, b room.VoteCount) int { return cmp.Compare(a.Balance, b.Balance) })
	}
	most := 0
	for _, c := range counts {
		most = max(most, c.Count)
	}
	for _, c := range counts {
		b := pollBar{Label: page.Money(c.Balance), Count: c.Count, Actual: known && c.Balance == actual, Mine: voted && c.Balance == mine}
		if most > 0 {
			b.Width = float64(c.Count) * 100 / float64(most)
		}
		v.Bars = append(v.Bars, b)
	}
	return v
}

// balanceAt is handler's balance after step: from the run shown when it is
// that step, else by replaying the script that far on that handler alone.
func (s *Classroom) balanceAt(ctx context.Context, ls labview.State, run *sim.Run, handler string, step int) (int64, bool) {
	if step == ls.Step {
		for _, res := range run.Results {
			if res.Handler == handler {
				return res.Balance, true
			}
		}
	}
	if step < 0 || step > ls.Total() {
		return 0, false
	}
	st := ls
	st.Handlers, st.Step = []string{handler}, step
	other, err := s.Replayer.Replay(ctx, st)
	if err != nil || len(other.Results) != 1 {
		return 0, false
	}
	return other.Results[0].Balance, true
}

// isLoopback reports whether a Host header names this machine only, so
// a QR code made from it would not open on a student's phone.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// instructorForm reads a form the instructor posts to a room: the room's
// code, the form, the instructor's secret (checked) and the room's
// script at its current step.
func (s *Classroom) instructorForm(w http.ResponseWriter, r *http.Request) (string, url.Values, string, labview.State, error) {
	code := roomCode(r)
	f, err := page.ReadForm(w, r)
	if err != nil {
		return code, nil, "", labview.State{}, err
	}
	st, err := s.Hub.State(code, true)
	if err != nil {
		return code, nil, "", labview.State{}, problemFor(code, err)
	}
	secret := cookieValue(r, SecretCookie)
	if !s.Hub.IsInstructor(code, secret) {
		return code, nil, "", labview.State{}, problemFor(code, room.ErrForbidden)
	}
	ls, err := s.roomState(st)
	return code, f, secret, ls, err
}

// RoomStep moves the room: a step (step=N) and, optionally, the handlers
// shown (handlers=a,b). Only the instructor's cookie may.
func (s *Classroom) RoomStep(w http.ResponseWriter, r *http.Request) error {
	code, f, secret, ls, err := s.instructorForm(w, r)
	if err != nil {
		return err
	}
	raw := f.Get("step")
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n < 0 || n > ls.Total() {
		return badRoomInput(code, page.BadRequest("err.step", raw, ls.Total()))
	}
	var handlers []string
	if f.Has("handlers") {
		if handlers, err = s.Replayer.ReadHandlers([]string{f.Get("handlers")}); err != nil {
			return badRoomInput(code, err)
		}
	}
	show, err := readShow(f)
	if err != nil {
		return badRoomInput(code, err)
	}
	if _, err := s.Hub.Update(code, secret, "", n, handlers); err != nil {
		return problemFor(code, err)
	}
	http.Redirect(w, r, roomURL(code, "/present", show), http.StatusSeeOther)
	return nil
}

// RoomPoll opens a poll (kind=balance, the default, or verdict: what will
// the chosen handler's balance or verdict be after the next step?;
// kind=choice: the instructor's own question=, option=… and, optionally,
// the right one as correct=N), or, given reveal=1, reveals the open one.
func (s *Classroom) RoomPoll(w http.ResponseWriter, r *http.Request) error {
	code, f, secret, ls, err := s.instructorForm(w, r)
	if err != nil {
		return err
	}
	show, err := readShow(f)
	if err != nil {
		return badRoomInput(code, err)
	}
	if f.Get("reveal") != "" {
		if _, err := s.Hub.Reveal(code, secret); err != nil {
			return problemFor(code, err)
		}
		http.Redirect(w, r, roomURL(code, "/present", show), http.StatusSeeOther)
		return nil
	}
	q, err := s.readQuestion(r.Context(), f, ls)
	if err != nil {
		return badRoomInput(code, err)
	}
	if _, err := s.Hub.Ask(code, secret, q); err != nil {
		var qe *room.QuestionError
		if errors.As(err, &qe) {
			return badRoomInput(code, questionProblem(qe))
		}
		return problemFor(code, err)
	}
	http.Redirect(w, r, roomURL(code, "/present", show), http.StatusSeeOther)
	return nil
}

// RoomVerdicts is the instructor's V in a room: hide=true hides the
// verdicts and expected balances on every page of the room, hide=false
// shows them again (an open poll still hides them until its reveal).
func (s *Classroom) RoomVerdicts(w http.ResponseWriter, r *http.Request) error {
	code, f, secret, _, err := s.instructorForm(w, r)
	if err != nil {
		return err
	}
	hide, perr := strconv.ParseBool(f.Get("hide"))
	if perr != nil {
		return badRoomInput(code, page.BadRequest("rm.err.hide", page.InputExcerpt(f.Get("hide"))))
	}
	show, err := readShow(f)
	if err != nil {
		return badRoomInput(code, err)
	}
	if _, err := s.Hub.SetVerdicts(code, secret, hide); err != nil {
		return problemFor(code, err)
	}
	show.NoVerdicts = hide
	http.Redirect(w, r, roomURL(code, "/present", show), http.StatusSeeOther)
	return nil
}

// RoomVote records a student's prediction for the open poll (a second
// answer replaces the first).
func (s *Classroom) RoomVote(w http.ResponseWriter, r *http.Request) error {
	code := roomCode(r)
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	st, err := s.Hub.State(code, false)
	if err != nil {
		return problemFor(code, err)
	}
	rawPoll := f.Get("poll")
	id, err := strconv.Atoi(strings.TrimSpace(rawPoll))
	if err != nil || id <= 0 {
		return badRoomInput(code, page.BadRequest("err.pollid", rawPoll))
	}
	var balance int64 // the answer: a balance, or an option's index
	if p := st.Poll; p != nil && p.ID == id && p.Kind != room.KindBalance && p.Kind != "" {
		if balance, err = readChoice(s.Shell.Text(r), f.Get("choice"), p); err != nil {
			return badRoomInput(code, err)
		}
	} else {
		raw := f.Get("balance")
		// Money is typed in major units everywhere; practice reads it the same way.
		if balance, err = practice.ParseMoney(raw); err != nil {
			return badRoomInput(code, page.BadRequest("err.money", raw))
		}
	}
	show, err := readShow(f)
	if err != nil {
		return badRoomInput(code, err)
	}
	// One vote per student who joined the room, which issued their
	// signed identity in it: a cookie the server did not sign for this
	// room (missing, made up, another room's, or from before a restart)
	// is refused and not counted, and the joins that issue identities are
	// throttled per address (JoinPost), so a script cannot vote again and
	// again under new names. The instructor asks, and does not answer.
	student, ok := s.studentFrom(r, code)
	if !ok || s.Hub.IsInstructor(code, cookieValue(r, SecretCookie)) {
		return &roomProblem{status: http.StatusForbidden, title: "rm.novote.t", msg: "rm.novote.m", code: code}
	}
	if err := s.Hub.Vote(code, student, id, balance); err != nil {
		if errors.Is(err, room.ErrBadAnswer) && st.Poll != nil { // the poll changed in between
			return badRoomInput(code, unprocessable("err.pollchoice", strconv.FormatInt(balance+1, 10), choiceList(optionLabels(s.Shell.Text(r), st.Poll))))
		}
		return problemFor(code, err)
	}
	http.SetCookie(w, &http.Cookie{Name: VoteCookie, Value: strconv.Itoa(id) + ":" + strconv.FormatInt(balance, 10),
		Path: "/rooms/" + code, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
	http.Redirect(w, r, roomURL(code, "", show), http.StatusSeeOther)
	return nil
}

// mintStudent issues the reader's identity in a room, for its polls: a
// random id and its signature, "id.signature", in a cookie only that
// room's addresses receive. Only a join (JoinPost) calls it.
func (s *Classroom) mintStudent(w http.ResponseWriter, r *http.Request, code string) {
	id := rand.Text()
	http.SetCookie(w, &http.Cookie{Name: StudentCookie, Value: id + "." + s.signStudent(code, id), Path: "/rooms/" + code,
		MaxAge: 24 * 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
}

// maxStudentCookie bounds a student cookie before it is checked: an id
// (26 characters) and a signature (43) need far less.
const maxStudentCookie = 128

// newIDKey is the key that signs students' ids: random, made once per
// process, so a restart (which closes every room anyway) invalidates the
// ids it issued and students join again.
func newIDKey() []byte {
	key := make([]byte, 32)
	rand.Read(key) // never fails: crypto/rand crashes the program instead
	return key
}

// signStudent is the signature of id in room code: HMAC-SHA256 under the
// server's key, in unpadded base64url. The room is part of what is
// signed, so an identity issued in one room (say one the visitor opened
// for the purpose) counts in no other.
func (s *Classroom) signStudent(code, id string) string {
	m := hmac.New(sha256.New, s.IDKey)
	m.Write([]byte("lab_student:" + code + ":" + id))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// studentFrom returns the reader's identity in room code: the id of the
// first student cookie, "id.signature", that this server signed for this
// room. A browser may hold cookies of that name for other paths too (an
// older one scoped to all of /rooms): they are skipped.
func (s *Classroom) studentFrom(r *http.Request, code string) (string, bool) {
	for i, c := range r.CookiesNamed(StudentCookie) {
		if i == 4 {
			break // a handful is every path a browser could send it for
		}
		if id, ok := s.checkStudent(code, c.Value); ok {
			return id, true
		}
	}
	return "", false
}

// checkStudent checks one student cookie's value for room code.
func (s *Classroom) checkStudent(code, value string) (string, bool) {
	if len(value) > maxStudentCookie {
		return "", false
	}
	id, sig, ok := strings.Cut(value, ".")
	if !ok || id == "" || !hmac.Equal([]byte(sig), []byte(s.signStudent(code, id))) {
		return "", false
	}
	return id, true
}

func parseVoteCookie(v string) (poll int, balance int64, ok bool) {
	a, b, found := strings.Cut(v, ":")
	if !found {
		return 0, 0, false
	}
	p, err1 := strconv.Atoi(a)
	n, err2 := strconv.ParseInt(b, 10, 64)
	return p, n, err1 == nil && err2 == nil && n >= 0
}

// Join takes a typed room code (any case, dashes and spaces ignored) to
// the room; with no code it is the form to type one. A GET joins nobody:
// the room's page offers the join button to a reader not yet in it.
func (s *Classroom) Join(w http.ResponseWriter, r *http.Request) error {
	return s.joinCode(w, r, r.URL.Query().Get("code"))
}

// JoinPath is /join/{code}, the short address to read out or write on a
// board.
func (s *Classroom) JoinPath(w http.ResponseWriter, r *http.Request) error {
	return s.joinCode(w, r, chi.URLParam(r, "code"))
}

func (s *Classroom) joinCode(w http.ResponseWriter, r *http.Request, raw string) error {
	code, status, v := s.findRoom(s.Shell.Text(r), raw)
	if code != "" {
		http.Redirect(w, r, "/rooms/"+code, http.StatusSeeOther)
		return nil
	}
	if status != http.StatusOK {
		w.Header().Set("Cache-Control", "no-store")
	}
	return s.renderJoin(w, r, status, v)
}

// findRoom reads a typed room code. It returns the room's code when one
// is open under it; otherwise the status and the join form to show, with
// what was typed and, for a code that is none or names no open room, the
// problem.
func (s *Classroom) findRoom(t page.Text, raw string) (string, int, joinView) {
	var v joinView
	// What was typed is offered back to correct, when it fits the field;
	// a longer value is quoted once, as an excerpt, in the message.
	if utf8.RuneCountInString(raw) <= maxCodeField {
		v.Code = raw
	}
	if strings.TrimSpace(raw) == "" {
		return "", http.StatusOK, v
	}
	code := room.NormalizeCode(strings.TrimSpace(raw))
	switch _, err := s.Hub.State(code, false); {
	case !validCode(code):
		v.Problem = t.F("err.code", page.InputExcerpt(raw))
		return "", http.StatusBadRequest, v
	case err != nil:
		v.Problem = t.F("rm.nosuch", displayCode(code))
		return "", http.StatusNotFound, v
	}
	return code, http.StatusOK, v
}

// JoinPost is the join itself, posted by the join form (code=, and the
// panels as show=): it issues the reader's identity in the room, once,
// and takes them to the room's page. A reader who holds one already goes
// straight there with it. Each identity issued takes one of Admit's
// tokens for the reader's address in that room, so a script that drops
// its cookies gets a few identities, not one per request.
func (s *Classroom) JoinPost(w http.ResponseWriter, r *http.Request) error {
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	t := s.Shell.Text(r)
	code, status, v := s.findRoom(t, f.Get("code"))
	if code == "" {
		if status == http.StatusOK { // nothing typed
			status, v.Problem = http.StatusBadRequest, t.F("err.code", page.InputExcerpt(""))
		}
		w.Header().Set("Cache-Control", "no-store")
		return s.renderJoin(w, r, status, v)
	}
	show, err := readShow(f)
	if err != nil {
		return badRoomInput(code, err)
	}
	to := roomURL(code, "", show)
	if _, ok := s.studentFrom(r, code); ok {
		http.Redirect(w, r, to, http.StatusSeeOther)
		return nil
	}
	// A full room issues no identity: there is no place to use it in.
	if ok, err := s.Hub.HasPlace(code, ""); err != nil || !ok {
		if err == nil {
			err = room.ErrRoomFull
		}
		return problemFor(code, err)
	}
	if s.Admit != nil {
		if err := s.Admit(r, code); err != nil {
			return err
		}
	}
	if err := s.Hub.Join(code); err != nil {
		return problemFor(code, err)
	}
	s.mintStudent(w, r, code)
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// renderJoin writes the join form: to type a code, or, for a room given
// (v.Room), the button that joins it.
func (s *Classroom) renderJoin(w http.ResponseWriter, r *http.Request, status int, v joinView) error {
	t := s.Shell.Text(r)
	v.T = t
	title := t.S("rm.join.title")
	if v.Room != "" {
		title = t.F("rm.join.room", v.Shown)
		w.Header().Set("Cache-Control", "no-store")
	}
	p := s.presentPageFor(t, r, title+" · "+t.S("app.name"))
	return s.Shell.Render(w, r, status, joinPage(page.ShortLangs(p, "/join"), v))
}

// maxCodeField is the code field's maxlength on the join page.
const maxCodeField = 20

type joinView struct {
	T       page.Text
	Code    string // what was typed, offered back
	Problem string
	// Room is the room the page joins (a room's page, to a reader not
	// yet in it), with its code as people read it and the panels to
	// keep; "" for the form to type a code.
	Room, Shown, Show string
}

// validCode: six letters and digits, the shape of every room code.
func validCode(code string) bool {
	return len(code) == 6 && !strings.ContainsFunc(code, func(r rune) bool {
		return (r < 'A' || r > 'Z') && (r < '0' || r > '9')
	})
}

// LiveEvent is what an event stream sends on every change: enough for
// the page to tell whether the view it shows is still current. The script
// stays out: a page has it already and it does not change.
type LiveEvent struct {
	Version  int        `json:"version"`
	Step     int        `json:"step"`
	Handlers []string   `json:"handlers"`
	Students int        `json:"students"`
	Joined   int        `json:"joined"` // identities issued in the room
	Poll     *room.Poll `json:"poll,omitempty"`
	// HideVerdicts is the instructor's V (room.State.HideVerdicts).
	HideVerdicts bool `json:"hide_verdicts,omitempty"`
}

// RoomEvents streams a room's state as server-sent events: the current
// state first (so a reconnecting page resumes at the current step,
// whatever Last-Event-ID it sends), then every change in order, each with
// the state's version as its id, and a comment now and then so that
// proxies keep a quiet stream open. When the room closes the stream says
// so (event: closed) and ends; when the server stops (Config.Stop), it
// says that (event: stopped) and ends.
func (s *Classroom) RoomEvents(w http.ResponseWriter, r *http.Request) error {
	code := roomCode(r)
	// The instructor's own page watches: it takes no student's place and
	// hears every vote.
	student, _ := s.studentFrom(r, code)
	subscribe := func(code string) (*room.Subscription, error) { return s.Hub.SubscribeStudent(code, student) }
	if secret := cookieValue(r, SecretCookie); s.Hub.IsInstructor(code, secret) {
		subscribe = func(code string) (*room.Subscription, error) { return s.Hub.Watch(code, secret) }
	}
	sub, err := subscribe(code)
	if err != nil {
		return problemFor(code, err)
	}
	defer sub.Close()
	rc := http.NewResponseController(w)
	// The server's read and write timeouts are for ordinary requests; a
	// stream lives longer, and each write below gets its own deadline.
	_ = rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(chunk string) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := io.WriteString(w, chunk); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send("retry: 2000\n\n") {
		return nil
	}
	var beat <-chan time.Time
	if s.Heartbeat > 0 {
		t := time.NewTicker(s.Heartbeat)
		defer t.Stop()
		beat = t.C
	}
	for {
		select {
		case st, ok := <-sub.C:
			if !ok {
				// Either the room closed, or this page fell too far behind
				// and was let go; then it reconnects and resumes.
				if _, err := s.Hub.State(code, false); err != nil {
					send("event: closed\ndata: {}\n\n")
				}
				return nil
			}
			data, err := json.Marshal(LiveEvent{Version: st.Version, Step: st.Step, Handlers: st.Handlers, Students: st.Students, Joined: st.Joined, Poll: st.Poll, HideVerdicts: st.HideVerdicts})
			if err != nil {
				return err
			}
			if !send("id: " + strconv.Itoa(st.Version) + "\ndata: " + string(data) + "\n\n") {
				return nil
			}
		case <-beat:
			if !send(": heartbeat\n\n") {
				return nil
			}
		case <-r.Context().Done():
			return nil
		case <-s.Stop:
			// The server is stopping: say so, so that the page tells the
			// reader instead of trying to reconnect to a lab that is gone.
			send("event: stopped\ndata: {}\n\n")
			return nil
		}
	}
}
