package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/idempotency-lab/lab/narration"
)

// Event is one thing that happened during a step: a message published or
// delivered, a statement the handler ran, a crash, an ack.
type Event struct {
	Actor  string `json:"actor"`            // producer, broker, worker-1, worker-2, clock, reaper, warehouse, gateway
	Kind   string `json:"kind"`             // see the Kind constants
	Text   string `json:"text"`             // the statement, command or description (the Note in English)
	Args   string `json:"args,omitempty"`   // bound SQL arguments
	Result string `json:"result,omitempty"` // what came back
	Msg    string `json:"msg,omitempty"`    // transport id of the message concerned
	To     string `json:"to,omitempty"`     // deliver: the worker that takes the message
	// Note is the description where it is the lab's own words, as a
	// message of package narration; Text holds it in English (see add).
	// A statement, a command or a handler's own line has none.
	Note narration.Text `json:"note,omitzero"`
	// Call numbers a worker's I/O calls (to SQLite, Redis, the gateway)
	// within its delivery, from 1: what crash=call:N and switch= name.
	Call int `json:"call,omitempty"`
}

// Event kinds.
const (
	KindPublish  = "publish"  // producer -> broker
	KindDeliver  = "deliver"  // broker -> worker
	KindSQL      = "sql"      // worker -> SQLite
	KindRedis    = "redis"    // worker -> Redis
	KindGateway  = "gateway"  // worker -> payment gateway
	KindLog      = "log"      // the handler's own log line
	KindYield    = "yield"    // a worker pauses so the other one runs
	KindCrash    = "crash"    // the worker process dies
	KindAck      = "ack"      // worker -> broker: done
	KindNack     = "nack"     // worker -> broker: failed, requeue
	KindDLQ      = "dlq"      // broker moves a message to the dead-letter queue
	KindRequeue  = "requeue"  // broker puts an in-flight message back to ready
	KindClock    = "clock"    // simulated time moves
	KindReaper   = "reaper"   // inbox retention deletes old rows
	KindShip     = "ship"     // the warehouse ships an order
	KindSwitch   = "switch"   // the gateway goes down or up
	KindNote     = "note"     // the engine explains a no-op
	KindConflict = "conflict" // a changed payload was acked without quarantine
	// KindQuarantine is a handler setting a message aside for a person
	// (Deps.Quarantine).
	KindQuarantine = "quarantine"
	// The API side (api.go).
	KindRequest     = "request"      // client -> server: an API request
	KindResponse    = "response"     // server -> client: its answer
	KindWrongStatus = "wrong-status" // the oracle: an answer other than the one due
)

// tracer collects the events of one world. Only one worker runs at a time,
// so the current actor is a plain field.
type tracer struct {
	actor  string // who is acting now; "" records nothing (the lab's own queries)
	events []Event
	// limit, when above 0, keeps only the first limit events of a step;
	// omitted counts the events dropped since the last take.
	limit   int
	omitted int
	// writes counts the SQL statements run, by anyone, that may have
	// changed a row: the engine reads the balance again only after one.
	writes int
	// io, when set, is told of every I/O call (world.beforeCall).
	io ioHook
	// spent counts the bytes of text the world's events have kept, for
	// MaxRunText.
	spent int
}

// ioHook is told of each call to SQLite, Redis or the gateway: the world
// numbers a worker's calls, and crashes or pauses it at one.
type ioHook interface {
	// beforeCall is a call about to run, named by what: it returns the
	// call's number in its worker's delivery (0 for a call that is not
	// a worker's), or errCrashed when the worker is dead and the call
	// must not run.
	beforeCall(what string) (int, error)
	// afterCall is the call done.
	afterCall()
}

// errCrashed is what a dead worker's calls return: its connections are gone.
var errCrashed = errors.New("the worker crashed: its connection is gone")

// startCall records an I/O call about to run, numbered; an error means
// the worker is dead and the call must not run. It returns the event's
// index, as emit does.
func (t *tracer) startCall(kind, text, args string) (int, error) {
	n := 0
	if t.io != nil {
		var err error
		if n, err = t.io.beforeCall(text); err != nil {
			return -1, err
		}
	}
	i := t.emit(kind, text, args)
	if i >= 0 {
		t.events[i].Call = n
	}
	return i, nil
}

// endCall records the call's result ("" leaves it for later) and tells
// the world the call is done.
func (t *tracer) endCall(i int, res string) {
	if res != "" {
		t.result(i, res)
	}
	if t.io != nil {
		t.io.afterCall()
	}
}

// add records an event and returns its index, or -1 when the step already
// holds limit events and it is only counted. Its texts are cut to their
// bounds here, the one place events come in (see cutEvent). An event with
// a Note gets its Text from it, in English: the text every reader of the
// trace in English (the CLI, the JSON, the stories' checks) reads.
func (t *tracer) add(e Event) int {
	if t.limit > 0 && len(t.events) >= t.limit {
		t.omitted++
		return -1
	}
	if !e.Note.IsZero() && e.Text == "" {
		e.Text = e.Note.String()
	}
	t.events = append(t.events, t.cutEvent(e))
	return len(t.events) - 1
}

// Bounds on the texts of events. A handler's texts (its log lines, its
// statements and their arguments, its Redis commands, the errors it
// returns, what comes back) may be as long as it likes; a trace keeps
// the start of each and says how much more there was, so that a page
// drawing it, or a sandbox child sending it, has bounded work. The lab's
// own texts are far shorter than every bound: they are kept whole.
const (
	// MaxEventText bounds each text of an event (Text, Args, Result, its
	// Note in each language), in bytes, the note that says what was cut
	// included.
	MaxEventText = 2048
	// MaxArgText bounds one bound argument of a statement, as quoted.
	MaxArgText = 256
	// MaxRunText bounds the bytes of text the events of one world keep
	// in full; past it, each further text is cut to TightEventText.
	MaxRunText = 64 << 10
	// TightEventText bounds each text once a world has used MaxRunText.
	TightEventText = 256
)

// cutEvent cuts e's texts to their bounds, counting what is kept against
// the world's MaxRunText.
func (t *tracer) cutEvent(e Event) Event {
	e.Text = t.cutSpend(e.Text, false)
	if !e.Note.IsZero() {
		// A Note's arguments may carry a handler's text (its error, its
		// reason): each is cut to the bound in force, and the Note in
		// Russian counts against MaxRunText as a text of its own.
		max := MaxEventText
		if t.spent >= MaxRunText {
			max = TightEventText
		}
		if len(e.Note.Args) > 0 {
			args := make([]string, len(e.Note.Args))
			for i, a := range e.Note.Args {
				args[i] = cutText(a, max, false)
			}
			e.Note.Args = args
		}
		t.cutSpend(e.Note.In("ru"), true)
	}
	e.Args = t.cutSpend(e.Args, false)
	e.Result = t.cutSpend(e.Result, false)
	return e
}

// cutSpend cuts s to the bound in force and counts what it keeps.
func (t *tracer) cutSpend(s string, ru bool) string {
	max := MaxEventText
	if t.spent >= MaxRunText {
		max = TightEventText
	}
	s = cutText(s, max, ru)
	t.spent += len(s)
	return s
}

// cutNote is what ends a cut text, in English and in Russian: a format
// of the count of bytes cut (narration's trace.cut).
var (
	cutNoteEN = narration.T("trace.cut", "%d").In("en")
	cutNoteRU = narration.T("trace.cut", "%d").In("ru")
)

// cutText shortens s to at most max bytes (max above 64), the note
// included: the start of s, cut where a character begins, then "… N more
// bytes" (in Russian with ru). A text within max is returned as it is, so
// a text cut once is never cut again; a cut text cut tighter counts the
// bytes cut the first time too.
func cutText(s string, max int, ru bool) string {
	if len(s) <= max {
		return s
	}
	note := cutNoteEN
	if ru {
		note = cutNoteRU
	}
	more := 0
	if head, n, ok := readNote(s); ok {
		s, more = head, n
	}
	// The note is at most len(note) - 2 + 20 bytes: keep room for it.
	keep := max - (len(note) + 18)
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + fmt.Sprintf(note, len(s)-keep+more)
}

// CutText is the trace's cut for a page's own bounds: s shortened to at
// most max bytes (max above 64), ending "… N more bytes" (in Russian with
// ru), N counting what the trace cut before.
func CutText(s string, max int, ru bool) string { return cutText(s, max, ru) }

// readNote splits a cut text into what was kept and the bytes cut, the
// note in English or in Russian.
func readNote(s string) (head string, n int, ok bool) {
	i := strings.LastIndex(s, "… ")
	if i < 0 {
		return s, 0, false
	}
	for _, note := range []string{cutNoteEN, cutNoteRU} {
		if _, err := fmt.Sscanf(s[i:], note, &n); err == nil && n > 0 && fmt.Sprintf(note, n) == s[i:] {
			return s[:i], n, true
		}
	}
	return s, 0, false
}

// CutInRussian says the note of a text the trace cut ("… N more bytes") in
// Russian (narration's trace.cut); any other text is returned as it is. A
// page in Russian shows a handler's texts, which have no Russian of their own,
// with it.
func CutInRussian(s string) string {
	if !strings.HasSuffix(s, " more bytes") {
		return s
	}
	head, n, ok := readNote(s)
	if !ok {
		return s
	}
	return head + fmt.Sprintf(cutNoteRU, n)
}

// In is the event's description in lang ("ru" or anything else for
// English): its Note, cut to MaxEventText, or else its Text, which has one
// language (a statement, a command, a handler's line), its cut note said
// in Russian with ru.
func (e Event) In(lang string) string {
	if e.Note.IsZero() {
		if lang == "ru" {
			return CutInRussian(e.Text)
		}
		return e.Text
	}
	if lang != "ru" {
		return e.Text // the Note in English, cut where the trace cut it
	}
	return cutText(e.Note.In(lang), MaxEventText, true)
}

// emit records an event by the current actor, if any, and returns its
// index (-1 when nothing was recorded).
func (t *tracer) emit(kind, text, args string) int {
	if t.actor == "" {
		return -1
	}
	return t.add(Event{Actor: t.actor, Kind: kind, Text: text, Args: args})
}

// quiet stops recording until the returned function restores the actor:
// the lab's own reads (balances, counts, state) are nobody's events.
// Use as: defer w.t.quiet()().
func (t *tracer) quiet() (restore func()) {
	actor := t.actor
	t.actor = ""
	return func() { t.actor = actor }
}

// say records an event by the current actor, in the lab's own words.
func (t *tracer) say(kind string, note narration.Text) {
	if t.actor != "" {
		t.add(Event{Actor: t.actor, Kind: kind, Note: note})
	}
}

func (t *tracer) result(i int, res string) {
	if i >= 0 {
		t.events[i].Result = t.cutSpend(res, false)
	}
}

// take returns the events recorded since the last call, and how many more
// there were beyond the limit.
func (t *tracer) take() (events []Event, omitted int) {
	ev, n := t.events, t.omitted
	t.events, t.omitted = nil, 0
	for i := range ev {
		// A text set on an event after add (a pipeline's first command)
		// is held to the bound too.
		e := &ev[i]
		e.Text = cutText(e.Text, MaxEventText, false)
		e.Args, e.Result = cutText(e.Args, MaxEventText, false), cutText(e.Result, MaxEventText, false)
	}
	if ev == nil {
		ev = []Event{} // a step where nothing happened still lists its events: none
	}
	return ev, n
}

// squash collapses the whitespace of a statement to single spaces, so a
// multi-line query in handler source reads as one line in the trace.
func squash(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// quoteArg renders one bound argument as SQL would show a literal.
func quoteArg(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		if len(x) > MaxArgText {
			// Cut before quoting: a long argument costs no more than
			// its bound, and its quotes stay paired.
			x = cutText(x, MaxArgText-2, false)
		}
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case []byte:
		if len(x) > MaxArgText/2 {
			return fmt.Sprintf("x'%x'", x[:MaxArgText/2-20]) + fmt.Sprintf(cutNoteEN, len(x)-(MaxArgText/2-20))
		}
		return fmt.Sprintf("x'%x'", x)
	default:
		return cutText(fmt.Sprint(x), MaxArgText, false)
	}
}

// num writes a number as a Note's argument: the same in both languages.
func num[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }
