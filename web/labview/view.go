package labview

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
)

// The view models below are plain data the templates print; every decision
// (what is current, what is over, which words) is made here.

type guideItem struct {
	Text       string
	Done, Next bool
}

type handlerChoice struct {
	Name, Summary          string
	Core, Variant, Checked bool // Variant: a corrected form of a core pattern
}

type stepLink struct {
	N             int
	Text          string
	Current, Done bool
}

// CodeProblem is one thing wrong with a handler file: the message in the
// reader's language, and its line (0 when it names none).
type CodeProblem struct {
	Line int
	Text string
}

// View is the whole lab at one step.
type View struct {
	// The editor of a person's handler file: on when the server has a
	// sandbox; Code is the file the state runs ("" for none), CodeText
	// what the editor shows (Code, or the starter), CodeState the state
	// (a query, with its step) the editor's form runs it in.
	CodeOn                              bool
	NoCode                              string // why the editor is off, when the machine cannot isolate a child
	Code, CodeText, CodeName, CodeState string
	EditorSrc                           string // page.EditorScript's address
	// CodeProblems is what is wrong with the file in the editor
	// (CodeText) when it did not pass, each on its line (0: the file as
	// a whole); the file then has no card. EditorOpen opens the editor
	// on a file that is not run (one with problems, or just formatted).
	CodeProblems []CodeProblem
	EditorOpen   bool
	// Engines, when the server has real ones, links the same state on
	// each engine; nil otherwise.
	Engines []engineLink
	// Brokers, when the server offers real brokers and the script has
	// broker steps the lab's handlers run, links the same state on the
	// lab's model and on each real broker (broker=).
	Brokers []engineLink

	T         page.Text
	PageTitle string
	URL       string // canonical address of this view
	Permalink string // the same, absolute
	Present   string // the same run in the presenter view
	Title     string
	Summary   string
	Preset    string
	Presets   []page.Option
	// APIPresets are the API side's presets, offered in a group of their
	// own after the broker's.
	APIPresets []page.Option
	// API says the script is the API side's: a client's requests served
	// by the API handlers, with the client's controls instead of the
	// producer's and the broker's. BothSides: an empty script, which may
	// start either side.
	API, BothSides bool
	// NothingReady and NothingInFlight say that no handler has a message
	// ready, or in flight, at the step shown: the deliver and redeliver
	// buttons are then disabled, with the reason.
	NothingReady, NothingInFlight bool
	NothingInDLQ                  bool // every DLQ is empty: the DLQ replay button is disabled
	Handlers                      []handlerChoice
	Chosen                        int
	Step                          int
	Total                         int
	StepText                      string // the current step as a script line
	Narration                     string
	Steps                         []stepLink
	FirstURL                      string
	PrevURL                       string
	NextURL                       string
	LastURL                       string
	State                         []page.Field // the state fields every POST form carries
	ViewState                     []page.Field // the same, without the step (for the step slider)
	Truncates                     int          // steps after the current one that a new step replaces
	NextOp                        string
	Targets                       []page.Option
	// NextRefund is the refund form's suggested operation id (ref-N);
	// Orders the payments published so far that a refund may take back
	// ("TENANT OP"); ReadyOps the operations with a message ready in
	// some handler's queue at the step shown (the "Deliver…" form's).
	NextRefund string
	Orders     []page.Option
	ReadyOps   []page.Option
	Script     string      // the whole script, both languages: what the editor posts
	ScriptView string      // the script for reading, in the page's language only
	Guide      []guideItem // the newcomer's four clicks, while the script follows them
	GuideDone  bool
	GuideURL   string
	Suggest    string // the id of the control the guide says to press next
	// ControlsOpen shows the step controls at first: for a script of one's
	// own. A preset opens with them folded, so the cards come first.
	ControlsOpen bool
	Cards        []Card
	OpenTimeline string // the handler whose timeline is open at first
	// Challenge is the goal being worked on (challenge.go), nil for none.
	Challenge *challengeView
}

type Card struct {
	Name, Summary    string
	Core, Variant    bool   // Variant: a corrected form of a core pattern
	Yours            bool   // a handler file a person wrote (State.Code)
	API              bool   // an API handler: no broker, the balance is what the provider charged
	FindURL          string // the checker's page of the handler; "" for none
	Balance          string
	Expected         string
	Delta            string
	DeltaKind        string // over, short or even
	Bar              barView
	Verdict          string // the engine's word, for styling and tests
	VerdictLabel     string
	VerdictSymbol    string
	Why              string
	Queues           []queueView
	Now              string
	GatewayUp        bool
	GatewayMode      string // script.GatewayUp, GatewayDown or GatewayTimeout
	GatewayDedup     bool   // the provider deduplicates on the reference
	Tables           []tableView
	Redis            bool // the handler uses Redis
	RedisKeys        []sim.RedisKey
	Calls            []sim.GatewayCall
	HiddenCalls      int
	Timeline         templ.Component
	TimelineFrom     int  // the first step the timeline shows, when it does not start at 1
	Versions         bool // the handler goes by the messages' versions: the queues show them
	Source           sourceView
	Crashes          map[string][]int // crash point -> steps where the worker died there
	CrashedBeforeAck []int
	// Lane is the strip of parts the step's message moves along when
	// played (static/lab.js): its path comes from the step's events.
	Lane laneView
}

// barView places a balance against the expected balance on a scale shared
// by all cards, in percent of the scale.
type barView struct {
	Fill, Over, Short, Expected float64
}

type queueView struct {
	ID, Label, Long string
	Count           int
	Msgs            []sim.Message // the newest maxMsgs
	Hidden          int           // older messages not shown
}

// tableView is a table with only its newest maxRows rows.
type tableView struct {
	sim.Table
	Count, Hidden int
}

// Long runs would make pages of megabytes that nobody reads: the cards
// show the newest messages and rows, the timeline the latest steps.
const (
	maxMsgs          = 12
	maxRows          = 25
	maxTimelineSteps = 24
)

func (s *Replayer) NewView(t page.Text, r *http.Request, st State, run *sim.Run) View {
	l := s.Link(st)
	total := st.Total()
	at := func(n int) string { return URL(l, n, st.DefaultStep()) }
	v := View{
		T:      t,
		URL:    at(st.Step),
		Preset: st.Preset,
		Step:   st.Step,
		Total:  total,
		Script: st.Script.String(),
		Chosen: len(st.Handlers),
	}
	v.Permalink = page.Absolute(r, v.URL)
	// /present reads the same query as /lab.
	v.Present = "/present" + strings.TrimPrefix(v.URL, link.Path)
	v.Title, v.Summary = st.Script.Title, st.Script.Summary
	if t.Is(page.RU) {
		v.Title, v.Summary = cmp.Or(st.Script.TitleRU, v.Title), cmp.Or(st.Script.SummaryRU, v.Summary)
	}
	if v.Title == "" {
		v.Title = t.S("scn.untitled")
	}
	v.PageTitle = v.Title + " · " + t.S("app.name")
	if total > 0 {
		v.PageTitle = t.F("step.of", st.Step, total) + " · " + v.PageTitle
	}

	v.Presets = append(v.Presets, page.Option{Value: "", Label: t.S("scn.empty"), Selected: st.Preset == "" && total == 0})
	for _, p := range s.Presets {
		label := p.Script.Title
		if t.Is(page.RU) && p.Script.TitleRU != "" {
			label = p.Script.TitleRU
		}
		v.Presets = append(v.Presets, page.Option{Value: p.Name, Label: label, Selected: p.Name == st.Preset})
	}
	for _, p := range s.APIPresets {
		label := p.Script.Title
		if t.Is(page.RU) && p.Script.TitleRU != "" {
			label = p.Script.TitleRU
		}
		v.APIPresets = append(v.APIPresets, page.Option{Value: p.Name, Label: label, Selected: p.Name == st.Preset})
	}
	v.API, v.BothSides = st.Script.API, total == 0
	chosen := map[string]bool{}
	for _, h := range st.Handlers {
		chosen[h] = true
	}
	for _, h := range s.SideHandlers(st.Script) {
		v.Handlers = append(v.Handlers, handlerChoice{Name: h.Name, Summary: page.HandlerSummary(t, h), Core: h.Core, Variant: h.Variant, Checked: chosen[h.Name]})
	}

	// Steps and where they lead.
	v.FirstURL, v.LastURL = at(0), at(total)
	if st.Step > 0 {
		v.PrevURL = at(st.Step - 1)
	}
	if st.Step < total {
		v.NextURL = at(st.Step + 1)
	}
	for i, stp := range st.Script.Steps {
		v.Steps = append(v.Steps, stepLink{N: i + 1, Text: stp.String(), Current: i+1 == st.Step, Done: i+1 <= st.Step})
	}
	if st.Step > 0 {
		cur := st.Script.Steps[st.Step-1]
		v.StepText = cur.String()
		v.Narration = narrate(t, cur)
		if cur.NarrationEN == "" && cur.NarrationRU == "" && idleStep(run, st.Step) {
			switch cur.Verb {
			case script.VerbDeliver, script.VerbDeliverConcurrent, script.VerbDeliverBatch:
				v.Narration = t.S("do.deliver.none")
			case script.VerbRedeliver:
				v.Narration = t.S("do.redeliver.none")
			case script.VerbDrain:
				v.Narration = t.S("do.drain.none")
			case script.VerbDLQReplay:
				v.Narration = t.S("do.dlq.none")
			}
		} else if cur.NarrationEN == "" && cur.NarrationRU == "" && cur.Verb == script.VerbDeliverConcurrent && !cur.Same && oneDelivery(run, st.Step) {
			// Two workers need two ready messages: with one, the engine
			// hands it to a single worker (its trace says so), and so
			// does the narration.
			v.Narration = t.S("do.deliver-concurrent.one")
		}
	} else if total > 0 {
		v.Narration = t.S("step.narr0")
	}
	v.Truncates = total - st.Step
	if run != nil {
		ready, inFlight := run.Pending()
		v.NothingReady, v.NothingInFlight = !ready, !inFlight
		v.NothingInDLQ = !run.DeadLetters()
	}
	v.ControlsOpen = st.Preset == ""
	v.ScriptView = scriptInLang(v.Script, t.Is(page.RU))
	v.Guide, v.GuideDone, v.Suggest = guide(t, st)
	v.GuideURL = link.Lab{Preset: "crash-before-ack", HasStep: true}.String()

	// The state every form posts back: the canonical query, as fields.
	vals := l.Values()
	for _, k := range []string{"preset", "s", "challenge", "solution", "handlers", "code", "name", "engine", "broker"} {
		if vals.Has(k) {
			v.ViewState = append(v.ViewState, page.Field{Name: k, Value: vals.Get(k)})
		}
	}
	v.State = append(append([]page.Field(nil), v.ViewState...), page.Field{Name: "step", Value: strconv.Itoa(st.Step)})

	if s.Engine != nil {
		// The engines the page can run on: links to the same state.
		v.Engines = []engineLink{{Label: t.S("eng.embedded"), Current: !st.Real}, {Label: t.S("eng.real"), Current: st.Real}}
		real := st
		real.Real = true
		emb := st
		emb.Real = false
		v.Engines[0].URL = URL(s.Link(emb), st.Step, st.DefaultStep())
		v.Engines[1].URL = URL(s.Link(real), st.Step, st.DefaultStep())
	}
	if len(s.Brokers) > 0 && s.OpenBroker != nil && !st.Script.API && st.Code == "" {
		// The brokers the page can run on: links to the same state.
		for _, name := range append([]string{""}, s.Brokers...) {
			other := st
			other.Broker = name
			v.Brokers = append(v.Brokers, engineLink{Label: BrokerLabel(t, name), Current: st.Broker == name,
				URL: URL(s.Link(other), st.Step, st.DefaultStep())})
		}
	}
	v.CodeOn, v.Code, v.CodeName = s.Sandbox != nil, st.Code, st.CodeName
	v.NoCode = s.NoCode
	v.CodeText = st.Code
	if v.CodeText == "" {
		v.CodeText, v.CodeName = sandbox.Starter, DefaultCodeName
	}
	v.CodeState = s.withoutCode(st)
	v.EditorSrc = s.Shell.Assets.URL(page.EditorScript)

	// What the producer controls offer.
	used := map[string]bool{}
	for _, stp := range st.Script.Steps[:st.Step] {
		if stp.Op != "" {
			used[stp.Op] = true
		}
	}
	seen := map[string]bool{}
	for _, stp := range st.Script.Steps[:st.Step] {
		// A publish-first order whose service died after publishing
		// was rolled back: it may be produced again, not retried.
		phantom := stp.Verb == script.VerbProduce && stp.Mode == script.ModePublishFirst && stp.Crash == script.CrashAfterPublish
		if (stp.Verb == script.VerbPublish || stp.Verb == script.VerbRequest || stp.Verb == script.VerbProduce && !phantom || stp.Verb == script.VerbRequestConcurrent) && !seen[stp.Tenant+" "+stp.Op] {
			seen[stp.Tenant+" "+stp.Op] = true
			label := stp.Op
			if stp.Tenant != script.DefaultTenant {
				label += " · " + stp.Tenant
			}
			v.Targets = append(v.Targets, page.Option{Value: stp.Tenant + " " + stp.Op, Label: label})
			if stp.Kind != script.KindRefund && !st.Script.API {
				v.Orders = append(v.Orders, page.Option{Value: stp.Tenant + " " + stp.Op, Label: label})
			}
		}
	}
	if n := len(v.Targets); n > 0 {
		v.Targets[n-1].Selected = true
	}
	if n := len(v.Orders); n > 0 {
		v.Orders[n-1].Selected = true
	}
	for n := 1; ; n++ {
		if op := "pay-" + strconv.Itoa(n); !used[op] {
			v.NextOp = op
			break
		}
	}
	for n := 1; ; n++ {
		if op := "ref-" + strconv.Itoa(n); !used[op] {
			v.NextRefund = op
			break
		}
	}
	if run != nil && !st.Script.API {
		ready := map[string]bool{}
		for _, res := range run.Results {
			for _, m := range res.Broker.Ready {
				if !ready[m.Op] {
					ready[m.Op] = true
					v.ReadyOps = append(v.ReadyOps, page.Option{Value: m.Op, Label: m.Op})
				}
			}
		}
	}

	// The cards.
	var scale int64
	for _, res := range run.Results {
		scale = max(scale, res.Balance, res.Expected)
	}
	shown := make([]string, 0, len(run.Results))
	links := s.pictureLinks(st)
	for _, res := range run.Results {
		c := s.card(t, st, res, scale)
		if !c.API {
			c.Lane.offerActs(t, v, links, res, c.GatewayMode)
		}
		v.Cards = append(v.Cards, c)
		shown = append(shown, res.Handler)
	}
	// The timeline open at first is the one the story is about.
	v.OpenTimeline = storyTimeline(st.Script.Handlers, shown)
	v.Challenge = s.challengeBanner(t, st, run)
	if v.Challenge != nil {
		// The goal is the guide: the newcomer's four clicks would only
		// give a challenge away.
		v.Guide, v.GuideDone, v.Suggest = nil, false, ""
	}
	return v
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func (s *Replayer) card(t page.Text, st State, res sim.Result, scale int64) Card {
	c := Card{
		Name:          res.Handler,
		Balance:       page.Money(res.Balance),
		Expected:      page.Money(res.Expected),
		Verdict:       string(res.Verdict),
		VerdictLabel:  t.S("v." + string(res.Verdict)),
		VerdictSymbol: page.ResultSymbol(res),
		Source:        s.Sources[res.Handler],
		Crashes:       map[string][]int{},
		FindURL:       "/check/" + res.Handler,
		Redis:         false,
	}
	for _, h := range s.SideHandlers(st.Script) {
		if h.Name == res.Handler {
			c.Summary, c.Core, c.Variant, c.Redis = page.HandlerSummary(t, h), h.Core, h.Variant, h.Redis
			c.Versions = h.Absolute
		}
	}
	c.API = st.Script.API
	if st.Code != "" && res.Handler == st.CodeName {
		// A person's handler file: its source as they wrote it, marks
		// and all (it passed sandbox.Parse when the state was read).
		// The web's search of a file is the message side's; an API
		// file's is lab check --code, in a terminal.
		c.Summary, c.Yours = t.S("code.summary"), true
		c.FindURL = CodeCheckURL(st.Code, st.CodeName)
		if c.API {
			c.FindURL = ""
		}
		c.Source, _ = highlightSource(st.CodeName+".go", "Handle", st.Code)
		if f, err := sandbox.Parse(st.Code); err == nil {
			c.Redis = f.Redis
		}
	}
	want := res.Expected
	if len(res.ExpectedOneOf) > 0 {
		// A key with two payloads: any one of them, once, is right. The
		// card names every right total and measures from the nearest.
		parts := make([]string, len(res.ExpectedOneOf))
		for i, e := range res.ExpectedOneOf {
			parts[i] = page.Money(e)
			if abs(res.Balance-e) < abs(res.Balance-want) {
				want = e
			}
		}
		c.Expected = t.F("card.oneOf", strings.Join(parts, " / "))
	}
	switch d := res.Balance - want; {
	case d > 0:
		c.Delta, c.DeltaKind = t.F("card.over", page.Money(d)), "over"
	case d < 0:
		c.Delta, c.DeltaKind = t.F("card.short", page.Money(-d)), "short"
	default:
		c.Delta, c.DeltaKind = t.S("card.even"), "even"
	}
	if scale > 0 {
		pct := func(x int64) float64 { return float64(x) * 100 / float64(scale) }
		c.Bar = barView{Fill: pct(min(res.Balance, res.Expected)), Expected: pct(res.Expected)}
		if res.Balance > res.Expected {
			c.Bar.Over = pct(res.Balance - res.Expected)
		} else {
			c.Bar.Short = pct(res.Expected - res.Balance)
		}
	}
	c.Why = page.VerdictReason(t, res)

	// The broker and the world after the step shown.
	broker := res.Broker
	for _, q := range []struct {
		id   string
		msgs []sim.Message
	}{{"ready", broker.Ready}, {"inflight", broker.InFlight}, {"acked", broker.Acked}, {"dlq", broker.DLQ}} {
		qv := queueView{ID: q.id, Label: t.S("q." + q.id), Long: t.S("q." + q.id + ".long"), Count: len(q.msgs), Msgs: q.msgs}
		if n := len(q.msgs); n > maxMsgs {
			qv.Msgs, qv.Hidden = q.msgs[n-maxMsgs:], n-maxMsgs
		}
		c.Queues = append(c.Queues, qv)
	}
	if f := res.Final; f != nil {
		c.Now, c.GatewayUp, c.RedisKeys, c.Calls = f.Now, f.GatewayUp, f.Redis, f.Gateway
		c.GatewayMode, c.GatewayDedup = f.GatewayMode, f.GatewayDedup
		for _, tb := range f.Tables {
			tv := tableView{Table: tb, Count: len(tb.Rows)}
			if n := len(tb.Rows); n > maxRows {
				tv.Rows, tv.Hidden = tb.Rows[n-maxRows:], n-maxRows
			}
			c.Tables = append(c.Tables, tv)
		}
		if n := len(c.Calls); n > maxRows {
			c.Calls, c.HiddenCalls = c.Calls[n-maxRows:], n-maxRows
		}
	}
	for i, tr := range res.Trace {
		if i >= len(st.Script.Steps) {
			break
		}
		crash := st.Script.Steps[i].Crash
		for _, e := range tr.Events {
			if e.Kind == sim.KindCrash && crash != "" {
				if crash == script.CrashBeforeAck {
					c.CrashedBeforeAck = append(c.CrashedBeforeAck, i+1)
				} else {
					c.Crashes[crash] = append(c.Crashes[crash], i+1)
				}
				break
			}
		}
	}
	var path msgPath
	if st.Step > 0 && st.Step <= len(res.Trace) && !c.API {
		path = stepPath(res.Trace[st.Step-1].Events, messageLabels(res.Broker))
	}
	c.Lane = lane(t, path, c.Redis, st.Real)
	c.Timeline = timelineFor(t, res, st.Step, st.Real && !c.Yours)
	if n := len(res.Trace); n > maxTimelineSteps {
		c.TimelineFrom = n - maxTimelineSteps + 1
	}
	return c
}

// guide is the newcomer's recipe for a double charge, shown on the empty
// lab and for as long as the script follows it: the steps done ticked off,
// and the id of the button to press next.
func guide(t page.Text, st State) (items []guideItem, done bool, next string) {
	recipe := []struct{ line, key, button, id string }{
		{"publish pay-1 amount=10000", "guide.1", "ctl.publish", "do-publish"},
		{"deliver crash=before-ack", "guide.2", "ctl.crash.ba", "do-crash-before-ack"},
		{"redeliver", "guide.3", "ctl.redeliver", "do-redeliver"},
		{"deliver", "guide.4", "ctl.deliver", "do-deliver"},
	}
	sc := st.Script
	n := len(sc.Steps)
	if sc.Title != "" || n > len(recipe) || st.Step != n {
		return nil, false, ""
	}
	for i, stp := range sc.Steps {
		if stp.String() != recipe[i].line {
			return nil, false, ""
		}
	}
	for i, r := range recipe {
		items = append(items, guideItem{Text: t.F(r.key, t.S(r.button)), Done: i < n, Next: i == n})
		if i == n {
			next = r.id
		}
	}
	return items, n == len(recipe), next
}

// narrate is the step's narration in the reader's language, or, for a step
// without one, a sentence made from the step itself.
func narrate(t page.Text, st script.Step) string {
	if t.Is(page.RU) && st.NarrationRU != "" {
		return st.NarrationRU
	}
	if st.NarrationEN != "" && (t.Is(page.EN) || st.NarrationRU == "") {
		return st.NarrationEN
	}
	var out string
	switch {
	case st.Verb == script.VerbRequest:
		key := "do.request"
		if st.KeyMode != script.KeyOp && st.KeyMode != "" {
			key += "." + st.KeyMode
		}
		out = t.F(key, st.Op, page.Money(st.Amount)) + apiFate(t, st)
	case st.Verb == script.VerbRetry && st.API:
		out = t.F("do.retry.api", st.Op)
		if st.Amount > 0 {
			out = t.F("do.retry.api.amount", st.Op, page.Money(st.Amount))
		}
		out += apiFate(t, st)
	case st.Verb == script.VerbRequestConcurrent:
		out = t.F("do.request-concurrent", st.Op)
	}
	if out != "" {
		if st.Tenant != "" && st.Tenant != script.DefaultTenant {
			out += " " + t.F("do.tenant", st.Tenant)
		}
		return out
	}
	switch st.Verb {
	case script.VerbPublish:
		key := "do.publish"
		if st.KeyMode != script.KeyOp {
			key += "." + st.KeyMode
		}
		out = t.F(key, st.Op, page.Money(st.Amount))
		if st.Kind == script.KindRefund {
			out = t.F("do.publish.refund", st.Op, st.Order, page.Money(st.Amount))
		}
	case script.VerbProduce:
		out = t.F("do.produce."+cmp.Or(st.Mode, script.ModeDualWrite), st.Op, page.Money(st.Amount))
		if st.Crash != "" {
			out += " " + t.S("do.produce.crash."+st.Crash)
		}
	case script.VerbRelay:
		out = t.S("do.relay")
		if st.Crash != "" {
			out = t.S("do.relay.crash")
		}
	case script.VerbDeliverBatch:
		key := "do.deliver-batch"
		if st.Commit == script.CommitBefore {
			key += ".before"
		}
		out = t.F(key, st.Batch)
		if k, ok := strings.CutPrefix(st.Crash, "after-message:"); ok {
			out += " " + t.F("do.deliver-batch.crash", k)
		}
	case script.VerbRetry, script.VerbShip:
		out = t.F("do."+st.Verb, st.Op)
	case script.VerbChangePayload:
		out = t.F("do.change-payload", st.Op, page.Money(st.Amount))
	case script.VerbDeliver:
		out = t.S(map[string]string{"": "do.deliver", script.CrashBeforeEffect: "do.deliver.be",
			script.CrashAfterEffect: "do.deliver.ae", script.CrashBeforeAck: "do.deliver.ba"}[st.Crash])
		if st.Op != "" {
			// deliver OP: the message of that operation first, out of
			// order; the rest of the sentence says what the worker does.
			out = t.F("do.deliver.op", st.Op)
			if st.Crash != "" {
				out += " " + t.S(map[string]string{script.CrashBeforeEffect: "do.deliver.be",
					script.CrashAfterEffect: "do.deliver.ae", script.CrashBeforeAck: "do.deliver.ba"}[st.Crash])
			}
		}
	case script.VerbAdvance:
		out = t.F("do.advance", page.Duration(st.Advance))
	case script.VerbGateway:
		switch st.Gateway {
		case script.GatewayStall:
			out = t.F("do.gateway.stall", page.Duration(st.Stall))
		case script.GatewayDown, script.GatewayUp, script.GatewayTimeout, script.GatewayDedupOn, script.GatewayDedupOff:
			out = t.S("do.gateway." + strings.ReplaceAll(st.Gateway, " ", "-"))
		default:
			out = t.S("do.gateway.up")
		}
	case script.VerbDeliverConcurrent:
		out = t.S("do.deliver-concurrent")
		if st.Same {
			out = t.S("do.deliver-concurrent.same")
		}
	default:
		out = t.S("do." + st.Verb)
	}
	if st.Tenant != "" && st.Tenant != script.DefaultTenant {
		out += " " + t.F("do.tenant", st.Tenant)
	}
	return out
}

// apiFate is what befalls a request on its way: the server process dies
// at a crash point, or its answer is lost on the way back.
func apiFate(t page.Text, st script.Step) string {
	var out string
	switch {
	case st.Crash == script.CrashBeforeEffect, st.Crash == script.CrashAfterEffect:
		out += " " + t.S("do.api.crash."+st.Crash)
	case st.Crash != "":
		out += " " + t.F("do.api.crash.call", st.Crash)
	}
	if st.Lose {
		out += " " + t.S("do.api.lose")
	}
	return out
}

// idleStep reports whether step (1-based) did nothing on any handler: its
// events are only the broker's note that there was nothing to do.
func idleStep(run *sim.Run, step int) bool {
	if run == nil || step < 1 || len(run.Results) == 0 {
		return false
	}
	for _, res := range run.Results {
		// A step with no event at all did nothing either (an idle drain).
		if step > len(res.Trace) {
			return false
		}
		for _, e := range res.Trace[step-1].Events {
			if e.Kind != sim.KindNote || e.Actor != "broker" {
				return false
			}
		}
	}
	return true
}

// oneDelivery reports whether step (1-based) handed exactly one message
// to a worker on every handler: deliver-concurrent with one message ready.
func oneDelivery(run *sim.Run, step int) bool {
	if run == nil || step < 1 || len(run.Results) == 0 {
		return false
	}
	for _, res := range run.Results {
		if step > len(res.Trace) {
			return false
		}
		n := 0
		for _, e := range res.Trace[step-1].Events {
			if e.Kind == sim.KindDeliver {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	return true
}

// BalanceLabel names what a card's balance counts: the accounts table, or,
// for a handler whose effect is an external call, the gateway's charges
// (its accounts table stays at zero, which would otherwise puzzle).
func BalanceLabel(c Card) string {
	if c.API {
		return "card.provider"
	}
	if c.Redis {
		return "card.charged"
	}
	return "card.balance"
}

// noReady is the attributes of a deliver button when nothing is ready to
// deliver at the step shown: disabled, with the reason as its title and
// description.
func noReady(v View) templ.Attributes {
	if !v.NothingReady {
		return nil
	}
	return templ.Attributes{"disabled": true, "title": v.T.S("ctl.noready"), "aria-describedby": "why-no-deliver"}
}

// noDLQ is noReady for the DLQ replay button. Its reason is a visually
// hidden text: an empty DLQ is the usual state, not worth a line.
func noDLQ(v View) templ.Attributes {
	if !v.NothingInDLQ {
		return nil
	}
	return templ.Attributes{"disabled": true, "title": v.T.S("ctl.nodlq"), "aria-describedby": "why-no-dlq"}
}

// noInFlight is noReady for the redeliver button.
func noInFlight(v View) templ.Attributes {
	if !v.NothingInFlight {
		return nil
	}
	return templ.Attributes{"disabled": true, "title": v.T.S("ctl.noinflight"), "aria-describedby": "why-no-redeliver"}
}

// stepTip gives a step control its tooltip and its accessible
// description (the visually hidden text stepTips renders, "tip-" + id).
// A control switched off (off, from noReady or noInFlight) keeps its
// reason as the description, and the tooltip says the reason first.
func stepTip(v View, id string, off templ.Attributes) templ.Attributes {
	tip := v.T.S("tip." + id)
	a := templ.Attributes{"title": tip, "aria-describedby": "tip-" + id}
	if off != nil {
		for k, val := range off {
			a[k] = val
		}
		if reason, ok := off["title"].(string); ok {
			a["title"] = reason + "\n" + tip
		}
	}
	return a
}

// StepTipIDs are the step controls stepTip describes, in page order.
var StepTipIDs = []string{
	"do-publish", "do-retry", "do-ship", "do-change-payload",
	"do-refund", "do-produce", "do-relay", "do-relay-crash",
	"do-deliver", "do-crash-before-effect", "do-crash-after-effect", "do-crash-before-ack",
	"do-crash-call", "do-crash-after-call",
	"do-deliver-concurrent", "do-drain", "do-deliver-same",
	"do-redeliver", "do-dlq-replay", "do-deliver-op", "do-deliver-batch",
	"do-advance", "do-gateway-down", "do-gateway-up", "do-gateway-timeout",
	"do-gateway-dedup-on", "do-gateway-dedup-off",
	"do-undo",
}

// scriptInLang is a script's text for reading in one language: the other
// language's title, summary and narration lines are left out where this
// language has its own (a script narrated only in English keeps its
// English lines on the Russian page). The editor keeps the whole text.
func scriptInLang(text string, russian bool) string {
	own, other := "#en:", "#ru:"
	headOwn, headOther := []string{"title:", "summary:"}, []string{"title-ru:", "summary-ru:"}
	if russian {
		own, other = other, own
		headOwn, headOther = headOther, headOwn
	}
	lines := strings.Split(text, "\n")
	has := func(prefix string) bool {
		for _, ln := range lines {
			if strings.HasPrefix(strings.TrimSpace(ln), prefix) {
				return true
			}
		}
		return false
	}
	drop := make([]bool, len(lines))
	for i, h := range headOther {
		if has(headOwn[i]) {
			for j, ln := range lines {
				if strings.HasPrefix(strings.TrimSpace(ln), h) {
					drop[j] = true
				}
			}
		}
	}
	isNarr := func(ln string) bool {
		ln = strings.TrimSpace(ln)
		return strings.HasPrefix(ln, "#en:") || strings.HasPrefix(ln, "#ru:")
	}
	// Narration comes in runs before a step: drop the other language's
	// lines from a run that has this language's.
	for i := 0; i < len(lines); {
		if !isNarr(lines[i]) {
			i++
			continue
		}
		j := i
		mine := false
		for j < len(lines) && isNarr(lines[j]) {
			mine = mine || strings.HasPrefix(strings.TrimSpace(lines[j]), own)
			j++
		}
		if mine {
			for k := i; k < j; k++ {
				if strings.HasPrefix(strings.TrimSpace(lines[k]), other) {
					drop[k] = true
				}
			}
		}
		i = j
	}
	var b strings.Builder
	for i, ln := range lines {
		if drop[i] {
			continue
		}
		b.WriteString(ln)
		if i < len(lines)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

type engineLink struct {
	Label, URL string
	Current    bool
}

// APIStepTipIDs are the API side's step controls stepTip describes (its
// clock and gateway controls are the broker side's, in StepTipIDs).
var APIStepTipIDs = []string{"do-request", "do-request-concurrent", "do-api-retry", "do-api-again2"}
