// Package timeline draws one handler's run as a sequence diagram: server-
// rendered SVG with lifelines for the producer, the broker, the worker(s),
// SQLite, Redis and the payment gateway, one row per traced event.
//
// Build is a pure function from traces to a laid-out Diagram (every
// coordinate and every word decided, texts already cut to fit); View is the
// templ component that writes it out as SVG. Colours live in CSS classes
// (see static/timeline.css), so the page's themes apply.
package timeline

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/sim"
)

// Diagram is a laid-out sequence diagram, in viewBox units.
type Diagram struct {
	Title string // the accessible name, rendered as <title>
	Desc  string // the whole diagram as text, rendered as <desc>
	// IDPrefix goes before every id the diagram carries (step-N), so that
	// several diagrams can share one page. Build leaves it empty.
	IDPrefix  string
	Width     int
	Height    int
	Current   int  // the highlighted step; 0 for none
	Highlight *Box // the background behind the highlighted step; nil if none
	Lifelines []Lifeline
	Rows      []Row
}

// ViewBox is the value of the svg viewBox attribute.
func (d Diagram) ViewBox() string { return fmt.Sprintf("0 0 %d %d", d.Width, d.Height) }

// ScreenScale is the CSS pixels per viewBox unit at which the diagram is
// drawn when its box is wide enough: body text (fontSize units) comes out
// at 13 px, headers and the crash at about 16 px. In a narrower box the
// stylesheet shrinks it to the box's width (max-width: 100%), down to a
// min-width below which the box scrolls sideways.
const ScreenScale = 13.0 / fontSize

// ScreenWidth and ScreenHeight are the svg's width and height attributes,
// in CSS pixels: the size at ScreenScale, which the stylesheet may shrink.
func (d Diagram) ScreenWidth() int  { return int(math.Round(float64(d.Width) * ScreenScale)) }
func (d Diagram) ScreenHeight() int { return int(math.Round(float64(d.Height) * ScreenScale)) }

// Lifeline is one column: a header box and a vertical line.
type Lifeline struct {
	Actor  string // producer, broker, worker (a single worker), worker-1, worker-2, sqlite, redis, gateway
	Label  string
	X      int
	Top    int // where the vertical line starts and ends
	Bottom int
	Head   Box
	Text   Text
}

// Row is one band (the start of a step) or one event, drawn as a group.
type Row struct {
	Step    int    // Trace.Step of the step the row belongs to
	Kind    string // "step" for a step's band, else the event's kind
	Actor   string // the event's actor; "" for a band
	ID      string // "step-N" on a band ("settlement" for step 0), else ""
	Class   string // CSS classes of the row's group
	Y, H    int
	Tip     string // the full text, shown on hover as the group's <title>
	Current bool   // the band of the highlighted step
	Crash   bool   // the row marks a crash
	Boxes   []Box
	Lines   []Line
	Heads   []Head
	Texts   []Text
}

// Box is a rectangle.
type Box struct {
	X, Y, W, H, R int
	Class         string
}

// Line is a straight line.
type Line struct {
	X1, Y1, X2, Y2 int
	Class          string
}

// Head is an arrowhead: a filled triangle, or an open chevron for replies.
type Head struct {
	Points string
	Open   bool
	Class  string
}

// Text is one line of text. Size is a font size in viewBox units, 0 to
// inherit the diagram's.
type Text struct {
	X, Y   int
	Anchor string // start or middle
	Size   int
	Class  string
	S      string
}

// Geometry, in viewBox units. Text is set in a monospace font so that its
// width can be estimated: one character is about 0.6em; the estimates below
// add a little to stay on the safe side.
const (
	fontSize   = 18
	charW      = 11.2 // fontSize × 0.62
	headSize   = 22
	headCharW  = 15.6 // bold and proportional: wide for Cyrillic
	bandSize   = 20
	bandCharW  = 12.6
	crashSize  = 22
	crashCharW = 13.8
	lineH      = 24 // one line of fontSize text
	ascent     = 18 // from the top of a line to its baseline
	rowPad     = 10 // above and below a row's content
	labelPad   = 14 // between an arrow's ends and its label
	notePad    = 12 // inside a note box
	headH      = 52
	topMargin  = 14
	minGap     = 180 // between two lifelines, and twice the margins
	sideGap    = 40  // between the last worker and a side caller's tag
	tipLen     = 14  // arrowhead length
	labelLines = 3   // at most, above an arrow
	noteLines  = 4   // at most, in a note
)

var deliverTo = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bto ((?:worker|server)-[0-9]+)\b`) })

type column struct {
	actor, label string
	x            int
	left, right  int // the column's own strip: text drawn for it stays inside
}

type layout struct {
	l       Labels
	cols    []column
	worker  map[string]int // worker actor -> column; only looked up, never ranged over
	first   int            // the first worker's (or server's) column
	api     bool           // the API side: a client and servers, no producer or broker
	sqlite  int
	redis   int // -1 when absent
	gateway int // -1 when absent
	width   int
	y       int
	rows    []Row
}

// Build lays out the steps of one handler's run (traces[0..n]) as a diagram; current is the 1-based step to highlight (0: none).
func Build(traces []sim.Trace, current int, l Labels) Diagram {
	d, _ := BuildContext(context.Background(), traces, current, l)
	return d
}

// BuildContext is Build that stops, with ctx's error, when ctx ends: it
// looks at ctx before each event it lays out.
func BuildContext(ctx context.Context, traces []sim.Trace, current int, l Labels) (Diagram, error) {
	if err := ctx.Err(); err != nil {
		return Diagram{}, err
	}
	traces = localize(traces, l)
	b := newLayout(traces, l)
	d := Diagram{Width: b.width, Current: current}
	first := true
	for _, tr := range traces {
		if !first {
			b.y += 12
		}
		first = false
		top := b.y
		b.band(tr, current)
		for i, e := range tr.Events {
			if err := ctx.Err(); err != nil {
				return Diagram{}, err
			}
			b.event(tr, i, e)
		}
		if current != 0 && tr.Step == current {
			d.Highlight = &Box{X: 0, Y: top - 6, W: b.width, H: b.y - top + 12, Class: "tl-current-bg"}
		}
	}
	b.y += 24
	d.Height = b.y
	top := topMargin + headH
	for _, c := range b.cols {
		w := int(math.Ceil(float64(cells(c.label))*headCharW)) + 36
		if max := c.right - c.left - 16; w > max {
			w = max
		}
		d.Lifelines = append(d.Lifelines, Lifeline{
			Actor: c.actor, Label: c.label, X: c.x, Top: top, Bottom: d.Height - 8,
			Head: Box{X: c.x - w/2, Y: topMargin, W: w, H: headH, R: 8, Class: "tl-head-box"},
			Text: Text{X: c.x, Y: topMargin + 34, Anchor: "middle", Size: headSize, Class: "tl-head-text",
				S: truncate(c.label, fitCells(w-16, headCharW))},
		})
	}
	d.Rows = b.rows
	d.Title = title(b.cols, traces, l)
	d.Desc = desc(traces, l)
	return d, nil
}

func newLayout(traces []sim.Trace, l Labels) *layout {
	b := &layout{l: l, worker: map[string]int{}, redis: -1, gateway: -1}
	seen := map[string]bool{}
	var workers []string
	addWorker := func(name string) {
		if !seen[name] {
			seen[name] = true
			workers = append(workers, name)
		}
	}
	hasRedis, hasGateway := false, false
	for _, tr := range traces {
		for _, e := range tr.Events {
			if e.Kind == sim.KindRequest || e.Kind == sim.KindResponse || e.Actor == "client" {
				b.api = true
			}
			if e.Kind == sim.KindRequest && e.To != "" {
				addWorker(e.To)
			}
			if isWorker(e.Actor) {
				addWorker(e.Actor)
			}
			if e.Kind == sim.KindDeliver && e.To != "" {
				addWorker(e.To)
			} else if e.Kind == sim.KindDeliver {
				if m := deliverTo().FindStringSubmatch(e.Text); m != nil {
					addWorker(m[1])
				}
			}
			switch {
			case e.Kind == sim.KindRedis:
				hasRedis = true
			case e.Kind == sim.KindGateway, e.Kind == sim.KindSwitch, e.Actor == "gateway":
				hasGateway = true
			}
		}
	}
	sort.Slice(workers, func(i, j int) bool {
		ni, nj := workerNumber(workers[i]), workerNumber(workers[j])
		if ni != nj {
			return ni < nj
		}
		return workers[i] < workers[j]
	})

	add := func(actor, label string) int {
		b.cols = append(b.cols, column{actor: actor, label: label})
		return len(b.cols) - 1
	}
	// The broker side: a producer, the broker and its workers; the API
	// side: the client and the server processes that serve it.
	one, word, prefix := "worker", l.Worker, "worker-"
	if b.api {
		add("client", l.Client)
		one, word, prefix = "server", l.Server, "server-"
	} else {
		add("producer", l.Producer)
		add("broker", l.Broker)
	}
	b.first = len(b.cols)
	if len(workers) <= 1 {
		c := add(one, word)
		for _, w := range workers {
			b.worker[w] = c
		}
		b.worker[one] = c
	} else {
		for _, w := range workers {
			b.worker[w] = add(w, word+" "+strings.TrimPrefix(w, prefix))
		}
	}
	b.sqlite = add("sqlite", l.SQLite)
	if hasRedis {
		b.redis = add("redis", l.Redis)
	}
	if hasGateway {
		b.gateway = add("gateway", l.Gateway)
	}

	b.size(traces)
	b.y = topMargin + headH + 16
	return b
}

// need is room something must have: between the lifelines of columns lo
// and hi for an arrow; around the lifeline of column lo for a note (in all)
// or a crash (on each side).
type need struct {
	lo, hi int
	w      int
	shape  int
}

// size places the lifelines: each gap is as wide as what must fit in it
// (within limits: long texts wrap), so that the diagram stays narrow and its
// text large.
func (b *layout) size(traces []sim.Trace) {
	var needs []need
	for i, c := range b.cols {
		needs = append(needs, need{lo: i, hi: i, shape: shNote,
			w: int(math.Ceil(float64(cells(c.label))*headCharW)) + 36 + 16})
	}
	for _, tr := range traces {
		for i, e := range tr.Events {
			it := b.item(tr, i, e)
			switch it.shape {
			case shArrow:
				needs = append(needs, need{lo: min(it.from, it.to), hi: max(it.from, it.to), shape: shArrow,
					w: arrowWant(it.text, it.result)})
			case shSide:
				reply := arrowWant("", it.result)
				w := sideGap + max(arrowWant(it.text, nil), tagWidth(it.tag)+reply)
				needs = append(needs, need{lo: it.to - 1, hi: it.to, shape: shArrow, w: w})
			case shNote:
				needs = append(needs, need{lo: it.from, hi: it.from, shape: shNote,
					w: int(math.Ceil(float64(perLine(cells(it.text), 28, 34))*charW)) + 2*notePad + 12})
			case shCrash:
				needs = append(needs, need{lo: it.from, hi: it.from, shape: shCrash,
					w: int(math.Ceil(float64(min(cells(it.text), 22))*crashCharW)) + 2*notePad + 16})
			}
		}
	}
	// Narrow things first: what a wide arrow needs may already be there.
	sort.SliceStable(needs, func(i, j int) bool { return needs[i].hi-needs[i].lo < needs[j].hi-needs[j].lo })

	// gaps[i] is the distance between lifelines i-1 and i; gaps[0] and
	// gaps[n] are twice the left and right margins.
	n := len(b.cols)
	gaps := make([]int, n+1)
	for i := range gaps {
		gaps[i] = minGap
	}
	for _, nd := range needs {
		switch nd.shape {
		case shArrow:
			sum := 0
			for g := nd.lo + 1; g <= nd.hi; g++ {
				sum += gaps[g]
			}
			if d := nd.w - sum; d > 0 {
				k := nd.hi - nd.lo
				for g := nd.lo + 1; g <= nd.hi; g++ {
					gaps[g] += d / k
				}
				gaps[nd.hi] += d % k
			}
		case shNote: // the room left and right of the lifeline, together
			if d := nd.w - gaps[nd.lo]/2 - gaps[nd.lo+1]/2; d > 0 {
				gaps[nd.lo] += d + 1
				gaps[nd.lo+1] += d + 1
			}
		case shCrash: // the room on each side of the lifeline
			for _, g := range []int{nd.lo, nd.lo + 1} {
				if d := (nd.w+1)/2 - gaps[g]/2; d > 0 {
					gaps[g] += 2 * d
				}
			}
		}
	}
	x := gaps[0] / 2
	for i := range b.cols {
		c := &b.cols[i]
		if i > 0 {
			x += gaps[i]
		}
		c.x = x
		c.left, c.right = x-gaps[i]/2, x+gaps[i+1]/2
	}
	b.cols[0].left = 0
	b.width = x + gaps[n]/2
}

// perLine is how many cells a line of a text of c cells is given: all of
// them for a short text, else about half of them up to a limit.
func perLine(c, oneLine, limit int) int {
	if c <= oneLine {
		return c
	}
	return min((c+1)/2+3, limit)
}

// arrowWant is how far apart an arrow's ends should be for its label and
// its reply.
func arrowWant(label string, result *string) int {
	w := 0
	if label != "" {
		w = int(math.Ceil(float64(perLine(cells(label), 36, 40))*charW)) + 2*labelPad
	}
	if result != nil {
		res := *result
		if isError(res) {
			res = "✗ " + res
		}
		w = max(w, int(math.Ceil(float64(perLine(cells(res), 36, 40))*charW))+2*labelPad+24)
	}
	return w
}

func tagWidth(tag string) int {
	return int(math.Ceil(float64(cells(tag))*charW)) + 20
}

// isWorker: a worker, or on the API side a server process, which runs a
// handler as a worker does.
func isWorker(actor string) bool {
	return actor == "worker" || strings.HasPrefix(actor, "worker-") || actor == "server" || strings.HasPrefix(actor, "server-")
}

func workerNumber(actor string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(actor, "worker-"), "server-"))
	if err != nil {
		return math.MaxInt
	}
	return n
}

// col returns the column an actor draws on, or -1. The outbox relay
// draws on the producer's: it is the order service's own process.
func (b *layout) col(actor string) int {
	if c, ok := b.worker[actor]; ok {
		return c
	}
	if actor == "relay" {
		actor = "producer"
	}
	for i, c := range b.cols {
		if c.actor == actor {
			return i
		}
	}
	return -1
}

// workerCol is the column of a worker actor, falling back to the first
// worker column for anything unexpected.
func (b *layout) workerCol(actor string) int {
	if c, ok := b.worker[actor]; ok {
		return c
	}
	return b.first
}

func (b *layout) band(tr sim.Trace, current int) {
	id, text := "step-"+strconv.Itoa(tr.Step), b.l.Step+" "+strconv.Itoa(tr.Step)+" · "+tr.Text
	if tr.Step == 0 {
		id, text = "settlement", tr.Text
	}
	r := Row{Step: tr.Step, Kind: "step", ID: id, Class: "tl-row tl-k-step", Y: b.y, H: 44, Tip: text}
	if current != 0 && tr.Step == current {
		r.Current = true
		r.Class += " tl-current"
		text = "▶ " + text
	}
	r.Boxes = append(r.Boxes, Box{X: 6, Y: b.y, W: b.width - 12, H: r.H, R: 6, Class: "tl-band"})
	r.Texts = append(r.Texts, Text{X: 20, Y: b.y + 30, Anchor: "start", Size: bandSize, Class: "tl-band-text",
		S: truncate(text, fitCells(b.width-40, bandCharW))})
	b.push(r)
}

func (b *layout) push(r Row) {
	b.y = r.Y + r.H
	b.rows = append(b.rows, r)
}

// Shapes an event is drawn as.
const (
	shArrow = iota // a call from one lifeline to another, maybe with a reply
	shNote         // a box on one lifeline
	shSpan         // a box across all the lifelines
	shSide         // a call to SQLite from a tag (reaper, warehouse), with a reply
	shCrash        // the ✕ on a worker's lifeline
)

// item is what one event is drawn as, before any coordinates.
type item struct {
	shape    int
	from, to int     // columns: an arrow's ends; a note's or a crash's column is from
	text     string  // the label or the note
	result   *string // an arrow's reply; nil for none
	tag      string  // the side caller's tag
	class    string  // extra classes of the row
}

// item decides how the i-th event of a step is drawn.
func (b *layout) item(tr sim.Trace, i int, e sim.Event) item {
	broker := b.col("broker")
	note := func(col int, text string) item { return item{shape: shNote, from: col, text: text} }
	span := func(text string) item { return item{shape: shSpan, text: text} }
	onActor := func(text string) item {
		if c := b.col(e.Actor); c >= 0 {
			return note(c, text)
		}
		return span(e.Actor + ": " + text)
	}
	switch e.Kind {
	case sim.KindPublish:
		// The order service publishes from the producer's column, and so
		// does its outbox relay: both are the producer side.
		if e.Actor == "producer" || e.Actor == "relay" {
			return item{shape: shArrow, from: b.col("producer"), to: broker, text: e.Text}
		}
		return note(broker, "↻ "+e.Text)
	case sim.KindDeliver:
		// The arrow shows whom it goes to: the label need not say.
		return item{shape: shArrow, from: broker, to: b.workerCol(deliverTarget(tr, i, e)), text: b.arrowText(e)}
	case sim.KindSQL, sim.KindRedis, sim.KindGateway:
		to := b.sqlite
		switch e.Kind {
		case sim.KindRedis:
			to = b.redis
		case sim.KindGateway:
			to = b.gateway
		}
		result := e.Result
		switch {
		case isWorker(e.Actor) && to >= 0:
			return item{shape: shArrow, from: b.workerCol(e.Actor), to: to, text: numbered(e), result: &result}
		case e.Kind == sim.KindSQL && (e.Actor == "reaper" || e.Actor == "warehouse" || e.Actor == "producer" || e.Actor == "relay"):
			return item{shape: shSide, to: b.sqlite, text: e.Text, result: &result,
				tag: b.sideLabel(e.Actor), class: " tl-k-side"}
		case e.Kind == sim.KindSQL && (e.Actor == "sqlite" || e.Actor == "postgres"):
			it := note(b.sqlite, withResult(e.Text, e.Result))
			it.class = " tl-db"
			return it
		}
		return span(e.Actor + ": " + withResult(e.Text, e.Result))
	case sim.KindLog:
		return onActor(e.Text)
	case sim.KindYield:
		return onActor("‖ " + e.Text)
	case sim.KindCrash:
		c := b.col(e.Actor)
		if c < 0 {
			c = b.workerCol(e.Actor)
		}
		return item{shape: shCrash, from: c, text: "✕ " + strings.ToUpper(b.l.Crash) + ": " + e.Text}
	case sim.KindAck:
		return item{shape: shArrow, from: b.workerCol(e.Actor), to: broker, text: "✓ " + e.Text}
	case sim.KindNack:
		return item{shape: shArrow, from: b.workerCol(e.Actor), to: broker, text: "↩ " + e.Text}
	case sim.KindRequeue:
		return note(broker, "↻ "+e.Text)
	case sim.KindDLQ:
		return note(broker, "DLQ ✉ "+e.Text)
	case sim.KindClock:
		return span(b.l.Clock + " · " + e.Text)
	case sim.KindReaper:
		return note(b.sqlite, b.l.Clock+" · "+withResult(e.Text, e.Result))
	case sim.KindShip:
		return note(b.sqlite, b.l.Warehouse+" · "+withResult(e.Text, e.Result))
	case sim.KindSwitch:
		it := span(b.l.Gateway + " · ▲ " + e.Text)
		if b.gateway >= 0 {
			it = note(b.gateway, "▲ "+e.Text)
		}
		it.class = " tl-up"
		if strings.Contains(e.Text, "down") {
			it.text = strings.Replace(it.text, "▲", "▼", 1)
			it.class = " tl-down"
		}
		return it
	case sim.KindNote:
		if e.Actor == "warehouse" {
			return span(b.l.Warehouse + " · " + e.Text)
		}
		if c := b.col(e.Actor); c >= 0 {
			return note(c, e.Text)
		}
		return span(e.Text)
	case sim.KindConflict, sim.KindWrongStatus:
		// The oracle's findings: across every lifeline.
		return span("⚠ " + e.Text)
	case sim.KindRequest:
		// The arrow shows which server it goes to: the label need not say.
		return item{shape: shArrow, from: b.col("client"), to: b.workerCol(deliverTarget(tr, i, e)), text: b.arrowText(e)}
	case sim.KindResponse:
		it := item{shape: shArrow, from: b.workerCol(e.Actor), to: b.col("client"), text: "↩ " + e.Text}
		it.class = " tl-status-" + statusClass(e.Text)
		return it
	}
	return span(e.Actor + " " + e.Kind + ": " + withResult(e.Text, e.Result))
}

// arrowText is a delivery's or a request's words without the worker or
// server the arrow points to: its note's arrow form (narration's
// event.broker.deliver.arrow, event.api.request.arrow). A text with no
// such note, or one the trace cut, is shown as it is.
func (b *layout) arrowText(e sim.Event) string {
	switch e.Note.Key {
	case "event.broker.deliver", "event.api.request":
		if e.Text == e.Note.In(b.l.Lang) {
			return narration.T(e.Note.Key+".arrow", e.Note.Args...).In(b.l.Lang)
		}
	}
	return e.Text
}

// event lays out the i-th event of a step.
func (b *layout) event(tr sim.Trace, i int, e sim.Event) {
	it := b.item(tr, i, e)
	r := Row{Step: tr.Step, Kind: e.Kind, Actor: e.Actor, Y: b.y, Tip: tip(e),
		Class: "tl-row tl-k-" + classWord(e.Kind) + it.class}
	switch it.shape {
	case shArrow:
		b.arrow(&r, it.from, it.to, it.text, it.result)
	case shNote:
		b.note(&r, it.from, it.text, "tl-note")
	case shSpan:
		b.span(&r, it.text, "tl-span")
	case shSide:
		b.side(&r, it.tag, it.text, *it.result)
	case shCrash:
		b.crash(&r, it.from, it.text)
	}
	b.push(r)
}

// statusClass is the class of an answer's status: 2xx, 4xx, 5xx, or other.
func statusClass(text string) string {
	if len(text) >= 3 && text[1] >= '0' && text[1] <= '9' && text[2] >= '0' && text[2] <= '9' {
		switch text[0] {
		case '2', '4', '5':
			return text[:1] + "xx"
		}
	}
	return "other"
}

// deliverTarget is the worker a delivery goes to: named in its text, or
// else the next worker to act in the step.
func deliverTarget(tr sim.Trace, i int, e sim.Event) string {
	if e.To != "" {
		return e.To
	}
	if m := deliverTo().FindStringSubmatch(e.Text); m != nil {
		return m[1]
	}
	for _, next := range tr.Events[i+1:] {
		if isWorker(next.Actor) {
			return next.Actor
		}
	}
	return "worker"
}

func (b *layout) sideLabel(actor string) string {
	switch actor {
	case "warehouse":
		return b.l.Warehouse
	case "producer":
		return b.l.OrderService
	case "relay":
		return b.l.Relay
	}
	return b.l.Clock
}

// arrow draws a call from column from to column to, its label wrapped above
// it; with a result, a dashed reply comes back below it.
func (b *layout) arrow(r *Row, from, to int, label string, result *string) {
	x1, x2 := b.cols[from].x, b.cols[to].x
	lo, hi := min(x1, x2), max(x1, x2)
	b.arrowSpan(r, x1, x2, lo, hi, label, result)
}

func (b *layout) arrowSpan(r *Row, x1, x2, lo, hi int, label string, result *string) {
	mid := (lo + hi) / 2
	max := fitCells(hi-lo-2*labelPad, charW)
	y := r.Y + rowPad
	for _, s := range balance(label, max, labelLines) {
		r.Texts = append(r.Texts, Text{X: mid, Y: y + ascent, Anchor: "middle", Class: "tl-label", S: s})
		y += lineH
	}
	y += 6
	arrowLine(r, x1, x2, y, false)
	y += 6
	if result != nil {
		res, cls := *result, "tl-ret-label"
		if res == "" {
			res = "·"
		}
		if isError(res) {
			res, cls = "✗ "+res, cls+" tl-err"
			r.Class += " tl-has-err"
		}
		// The reply is labelled over its own line, which may be shorter
		// than the span of the call's label (a side caller's tag).
		mid, max := (x1+x2)/2, fitCells(abs(x2-x1)-2*labelPad, charW)
		lines := balance(res, max, labelLines)
		if len(lines) == 1 && textWidth(lines, charW)+20+2*tipLen < abs(x2-x1) {
			// A short reply sits on its dashed line, in a gap left for it.
			y += lineH/2 + 2
			w := textWidth(lines, charW)
			gapLo, gapHi := mid-w/2-10, mid+w/2+10
			r.Texts = append(r.Texts, Text{X: mid, Y: y + 6, Anchor: "middle", Class: cls, S: lines[0]})
			if x1 < x2 {
				r.Lines = append(r.Lines, Line{X1: x2, Y1: y, X2: gapHi, Y2: y, Class: "tl-ret"})
				arrowLine(r, gapLo, x1, y, true)
			} else {
				r.Lines = append(r.Lines, Line{X1: x2, Y1: y, X2: gapLo, Y2: y, Class: "tl-ret"})
				arrowLine(r, gapHi, x1, y, true)
			}
			y += lineH / 2
		} else {
			y += 2
			for _, s := range lines {
				r.Texts = append(r.Texts, Text{X: mid, Y: y + ascent, Anchor: "middle", Class: cls, S: s})
				y += lineH
			}
			y += 4
			arrowLine(r, x2, x1, y, true)
			y += 6
		}
	}
	r.H = y + rowPad - r.Y
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func isError(res string) bool {
	return strings.HasPrefix(res, "error")
}

// arrowLine draws a horizontal arrow from x1 to x2 at y: solid with a filled
// head for a call, dashed with an open head for a reply.
func arrowLine(r *Row, x1, x2, y int, reply bool) {
	dir := 1
	if x2 < x1 {
		dir = -1
	}
	back := x2 - dir*tipLen
	if reply {
		r.Lines = append(r.Lines, Line{X1: x1, Y1: y, X2: x2 - dir*2, Y2: y, Class: "tl-ret"})
		r.Heads = append(r.Heads, Head{Open: true, Class: "tl-tip-open",
			Points: fmt.Sprintf("%d,%d %d,%d %d,%d", back, y-6, x2, y, back, y+6)})
		return
	}
	r.Lines = append(r.Lines, Line{X1: x1, Y1: y, X2: back + dir*2, Y2: y, Class: "tl-arrow"})
	r.Heads = append(r.Heads, Head{Class: "tl-tip",
		Points: fmt.Sprintf("%d,%d %d,%d %d,%d", x2, y, back, y-7, back, y+7)})
}

// side draws a statement run by someone who is not a worker (the inbox
// reaper, the warehouse): an arrow from a small tag just right of the last
// worker's lifeline to SQLite, with the reply dashed back.
func (b *layout) side(r *Row, who, text, result string) {
	sx, prev := b.cols[b.sqlite].x, b.cols[b.sqlite-1].x
	w := tagWidth(who)
	if max := (sx - prev) / 2; w > max {
		w = max
		who = truncate(who, fitCells(w-20, charW))
	}
	px := prev + sideGap
	res := result
	b.arrowSpan(r, px+w, sx, px, sx, text, &res)
	// The tag sits on the call arrow.
	ay := r.Lines[0].Y1
	r.Boxes = append(r.Boxes, Box{X: px, Y: ay - 16, W: w, H: 32, R: 16, Class: "tl-side"})
	r.Texts = append(r.Texts, Text{X: px + w/2, Y: ay + 6, Anchor: "middle", Class: "tl-side-text", S: who})
}

// note draws a box on a lifeline, inside that lifeline's own strip.
func (b *layout) note(r *Row, col int, text, cls string) {
	c := b.cols[col]
	room := c.right - c.left - 12
	lines := balance(text, fitCells(room-2*notePad, charW), noteLines)
	w := textWidth(lines, charW) + 2*notePad
	x := c.x - w/2
	x = max(x, c.left+6)
	x = min(x, c.right-6-w)
	b.boxText(r, x, w, lines, cls)
}

// span draws a note across all the lifelines.
func (b *layout) span(r *Row, text, cls string) {
	lo, hi := b.cols[0].x-60, b.cols[len(b.cols)-1].x+60
	lines := wrap(text, fitCells(hi-lo-2*notePad, charW), noteLines)
	b.boxText(r, lo, hi-lo, lines, cls)
}

func (b *layout) boxText(r *Row, x, w int, lines []string, cls string) {
	h := len(lines)*lineH + 12
	y := r.Y + rowPad
	r.Boxes = append(r.Boxes, Box{X: x, Y: y, W: w, H: h, R: 6, Class: cls})
	tx, anchor := x+notePad, "start"
	if len(lines) == 1 {
		tx, anchor = x+w/2, "middle"
	}
	for i, s := range lines {
		r.Texts = append(r.Texts, Text{X: tx, Y: y + 6 + ascent + i*lineH, Anchor: anchor, Class: "tl-note-text", S: s})
	}
	r.H = h + 2*rowPad
}

// crash draws a big ✕ on the worker's lifeline with the word under it, and
// tints the whole row.
func (b *layout) crash(r *Row, col int, text string) {
	r.Crash = true
	c := b.cols[col]
	const half = 32
	cx, cy := c.x, r.Y+rowPad+4+half
	r.Lines = append(r.Lines,
		Line{X1: cx - half, Y1: cy - half, X2: cx + half, Y2: cy + half, Class: "tl-cross"},
		Line{X1: cx - half, Y1: cy + half, X2: cx + half, Y2: cy - half, Class: "tl-cross"})
	// The words go on a red sticker under the ✕, covering the lifeline.
	y := cy + half + 12
	room := 2*min(cx-c.left, c.right-cx) - 16 // centred under the ✕
	lines := balance(text, fitCells(room-2*notePad, crashCharW), noteLines)
	w := textWidth(lines, crashCharW) + 2*notePad
	x := min(max(cx-w/2, c.left+8), c.right-8-w)
	h := len(lines)*28 + 12
	r.Boxes = append(r.Boxes, Box{X: x, Y: y, W: w, H: h, R: 6, Class: "tl-crash-box"})
	for i, s := range lines {
		r.Texts = append(r.Texts, Text{X: x + w/2, Y: y + 6 + 21 + i*28, Anchor: "middle", Size: crashSize, Class: "tl-crash-text", S: s})
	}
	y += h
	r.H = y + rowPad + 2 - r.Y
	r.Boxes = append([]Box{{X: 0, Y: r.Y + 2, W: b.width, H: r.H - 4, Class: "tl-crash-bg"}}, r.Boxes...)
}

func textWidth(lines []string, adv float64) int {
	n := 0
	for _, s := range lines {
		n = max(n, cells(s))
	}
	return int(math.Ceil(float64(n) * adv))
}

func withResult(text, result string) string {
	if result == "" {
		return text
	}
	return text + " → " + result
}

// numbered is an I/O call's text after its number in the delivery, the
// N of crash=call:N: "#2 BEGIN".
func numbered(e sim.Event) string {
	if e.Call == 0 {
		return e.Text
	}
	return fmt.Sprintf("#%d %s", e.Call, e.Text)
}

// tip is an event's full text, with its arguments and result.
func tip(e sim.Event) string {
	s := e.Actor + ": " + numbered(e)
	if e.Args != "" {
		s += "\nargs: " + e.Args
	}
	if e.Result != "" {
		s += "\n→ " + e.Result
	}
	return s
}

// classWord keeps a word safe to use in a class name.
func classWord(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "other"
	}
	return b.String()
}

func title(cols []column, traces []sim.Trace, l Labels) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.label
	}
	s := strings.Join(names, " → ")
	first, last := 0, 0
	for _, tr := range traces {
		if tr.Step > 0 {
			if first == 0 {
				first = tr.Step
			}
			last = tr.Step
		}
	}
	switch {
	case first == 0:
	case first == last:
		s += fmt.Sprintf(" · %s %d", l.Step, first)
	default:
		s += fmt.Sprintf(" · %s %d–%d", l.Step, first, last)
	}
	return s
}

// desc is the diagram as text, one line per step and per event.
func desc(traces []sim.Trace, l Labels) string {
	var b strings.Builder
	for _, tr := range traces {
		if tr.Step == 0 {
			b.WriteString(tr.Text + "\n")
		} else {
			fmt.Fprintf(&b, "%s %d · %s\n", l.Step, tr.Step, tr.Text)
		}
		for _, e := range tr.Events {
			kind := e.Kind
			if kind == sim.KindCrash {
				kind = strings.ToUpper(l.Crash)
			}
			fmt.Fprintf(&b, "  %s %s: %s", e.Actor, kind, numbered(e))
			if e.Args != "" {
				b.WriteString(" [" + e.Args + "]")
			}
			if e.Result != "" {
				b.WriteString(" → " + e.Result)
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// localize returns the traces with the lab's own words in the reader's
// language. Statements, commands and the handlers' log lines stay as they
// ran: they are code.
func localize(traces []sim.Trace, l Labels) []sim.Trace {
	if l.Lang != "ru" {
		return traces
	}
	out := make([]sim.Trace, len(traces))
	for i, tr := range traces {
		if !tr.Note.IsZero() {
			tr.Text = tr.Note.In(l.Lang)
		}
		evs := make([]sim.Event, len(tr.Events))
		for j, e := range tr.Events {
			// The lab's own words in Russian; a handler's own text, cut
			// by the trace, has its note ("… N more bytes") said in
			// Russian.
			e.Text, e.Args, e.Result = e.In(l.Lang), sim.CutInRussian(e.Args), sim.CutInRussian(e.Result)
			evs[j] = e
		}
		tr.Events = evs
		out[i] = tr
	}
	return out
}
