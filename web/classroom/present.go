package classroom

// Instructor mode, part one: the presenter view. A scenario on a
// projector: the narration of the current step large, one or two handlers'
// balances and verdicts readable from the back row, everything else a key
// press away. Its address carries the whole state, as the lab's does.

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// presentHandlers are the handlers a presenter view shows unless told
// otherwise, for a script whose handlers: header declares none: the lesson
// in one glance, the naive handler failing next to the inbox holding. A
// script that declares handlers is shown on those.
const presentHandlers = "naive,inbox"

// presentAPIHandlers are the handlers an API story shows unless told
// otherwise: the naive server failing next to the right one.
const presentAPIHandlers = "api-naive,api-idempotency-key"

// sideHandlers are the handlers of a script's side: the API handlers for
// a script of requests, the message handlers for the rest.
func (s *Classroom) sideHandlers(st labview.State) []handlers.Info {
	if st.Script != nil && st.Script.API {
		return sim.APIHandlers()
	}
	return s.Replayer.Handlers
}

// findPreset looks a preset up on either side.
func (s *Classroom) findPreset(name string) error {
	_, err := sim.FindPreset(append(slices.Clip(s.Replayer.Presets), s.Replayer.APIPresets...), name)
	return err
}

// HandlerKeys are the keys that toggle the handlers, in the order the lab
// lists them: the digits 1–9 and 0, then the letters of the keyboard's
// next two rows (R, S, T and V have other uses). A handler past them is
// toggled with its button.
var HandlerKeys = []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "Q", "W", "E", "Y", "U", "I", "O", "P",
	"A", "D", "F", "G", "H", "J", "K", "L"}

// Who a presenter page is for.
const (
	modeSolo       = "solo"       // /present: one person at a projector
	modeInstructor = "instructor" // /rooms/{code}/present: the projector of a live room
	modeStudent    = "student"    // /rooms/{code}: a student following the room
)

// presentShow is which of the folded panels a presenter view shows, and
// whether the presenter hid the cards' verdicts (show=noverdicts), so
// that the room can guess before the outcome is on the screen.
type presentShow struct{ Source, Timeline, NoVerdicts bool }

// param is the show= value for these panels, "" for none.
func (sh presentShow) param() string {
	var on []string
	if sh.Source {
		on = append(on, "source")
	}
	if sh.Timeline {
		on = append(on, "timeline")
	}
	if sh.NoVerdicts {
		on = append(on, "noverdicts")
	}
	return strings.Join(on, ",")
}

// readShow reads show=source,timeline (repeatable, comma-separated).
func readShow(v url.Values) (presentShow, error) {
	var sh presentShow
	for _, raw := range v["show"] {
		for _, w := range strings.Split(raw, ",") {
			switch strings.TrimSpace(w) {
			case "":
			case "source":
				sh.Source = true
			case "timeline":
				sh.Timeline = true
			case "noverdicts":
				sh.NoVerdicts = true
			default:
				return sh, page.BadRequest("err.show", w)
			}
		}
	}
	return sh, nil
}

// presentView is one presenter page: the playground's view model of the
// step shown (labview.View, which builds the cards), and what the projector,
// the room and the keyboard add to it.
type presentView struct {
	T         page.Text
	Mode      string
	PageTitle string
	Title     string
	Step      int
	Total     int
	StepText  string
	Narration string
	// Broker and BrokerNotes, on a real broker (broker=), are its name
	// and what the server answered in the step shown (the first card's
	// world): PubAck, Fetch with NumDelivered, and so on.
	Broker      string
	BrokerNotes []string
	Cards       []labview.Card
	Show        presentShow
	Handlers    string // the handlers shown, comma-separated, as a form sends them
	// HideVerdicts leaves out the cards' verdicts, expected balances and
	// "if settled now" boxes: when the presenter hides them, and in a
	// room while a poll is open, so that they do not give the answer away.
	HideVerdicts bool
	// PollHides: the open poll hides them (whatever the toggle says).
	PollHides bool

	// Moving: links in a solo view; in a room the instructor posts the
	// step number instead (StepURL), so N is what matters there.
	Prev, Next, Restart stepTarget
	Toggles             []handlerToggle
	SourceURL           string // the same view with the source shown or hidden
	TimelineURL         string
	VerdictsURL         string       // the same view with the verdicts hidden or shown
	ExploreURL          string       // the lab at this step, a copy of one's own
	OpenRoom            []page.Field // solo: the state "Open a room" posts
	Room                *roomView
}

// stepTarget is where a step button leads.
type stepTarget struct {
	N       int
	URL     string
	Enabled bool
}

// handlerToggle is one numbered handler a key or a button shows or hides.
type handlerToggle struct {
	Key     int    // 1, 2, …: its place in the lab's list, the button's id
	KeyName string // the key that toggles it ("" for none): 1–9, 0, Q, …
	Name    string
	On      bool
	Enabled bool   // false for the last handler shown: one must stay
	URL     string // solo: the view with this handler toggled
	Value   string // in a room: the handlers= the instructor posts
}

// presentLinks gives a view's GET address for a state: solo views carry
// it all in the URL, room views only the panels (the room holds the rest).
type presentLinks func(step int, handlers []string, show presentShow) string

// presentView builds the view of st on top of the playground's own view
// model, so the cards, verdicts and narration are the lab's.
func (s *Classroom) presentView(t page.Text, r *http.Request, st labview.State, run *sim.Run, show presentShow, mode string, at presentLinks) presentView {
	lv := s.Replayer.NewView(t, r, st, run)
	v := presentView{
		T:         t,
		Mode:      mode,
		Title:     lv.Title,
		Step:      lv.Step,
		Total:     lv.Total,
		StepText:  lv.StepText,
		Narration: lv.Narration,
		Cards:     lv.Cards,
		Show:      show,
		Handlers:  strings.Join(st.Handlers, ","),

		HideVerdicts: show.NoVerdicts,
	}
	v.PageTitle = t.F("step.of", st.Step, st.Total()) + " · " + lv.Title + " · " + t.S("pr.name")
	if st.Step == 0 {
		v.Narration = t.S("pr.narr0")
	}
	if st.Broker != "" {
		v.Broker, v.BrokerNotes = labview.BrokerLabel(t, st.Broker), brokerNotes(t, run, st.Step)
	}
	target := func(n int, ok bool) stepTarget {
		return stepTarget{N: n, URL: at(n, st.Handlers, show), Enabled: ok}
	}
	v.Prev = target(max(st.Step-1, 0), st.Step > 0)
	v.Next = target(min(st.Step+1, st.Total()), st.Step < st.Total())
	v.Restart = target(0, st.Step > 0)
	v.TimelineURL = at(st.Step, st.Handlers, presentShow{Source: show.Source, Timeline: !show.Timeline, NoVerdicts: show.NoVerdicts})
	v.SourceURL = at(st.Step, st.Handlers, presentShow{Source: !show.Source, Timeline: show.Timeline, NoVerdicts: show.NoVerdicts})
	v.VerdictsURL = at(st.Step, st.Handlers, presentShow{Source: show.Source, Timeline: show.Timeline, NoVerdicts: !show.NoVerdicts})
	v.ExploreURL = labview.URL(s.Replayer.Link(st), st.Step, st.DefaultStep())
	for i, h := range s.sideHandlers(st) {
		on := slices.Contains(st.Handlers, h.Name)
		next := s.toggleHandler(st, h.Name)
		key := ""
		if i < len(HandlerKeys) {
			key = HandlerKeys[i]
		}
		v.Toggles = append(v.Toggles, handlerToggle{
			Key: i + 1, KeyName: key, Name: h.Name, On: on, Enabled: len(next) > 0,
			URL: at(st.Step, next, show), Value: strings.Join(next, ","),
		})
	}
	if mode == modeSolo {
		vals := s.Replayer.Link(st).Values()
		for _, k := range []string{"preset", "s", "broker"} {
			if vals.Has(k) {
				v.OpenRoom = append(v.OpenRoom, page.Field{Name: k, Value: vals.Get(k)})
			}
		}
		v.OpenRoom = append(v.OpenRoom, page.Field{Name: "handlers", Value: v.Handlers}, page.Field{Name: "step", Value: strconv.Itoa(st.Step)})
		if p := show.param(); p != "" {
			// The room opens with the panels the presenter had open.
			v.OpenRoom = append(v.OpenRoom, page.Field{Name: "show", Value: p})
		}
	}
	return v
}

// toggleHandler is the handler list with name added or removed, in the
// order the lab lists handlers, so a toggled view has one address.
func (s *Classroom) toggleHandler(st labview.State, name string) []string {
	shown := st.Handlers
	var out []string
	for _, h := range s.sideHandlers(st) {
		on := slices.Contains(shown, h.Name)
		if h.Name == name {
			on = !on
		}
		if on {
			out = append(out, h.Name)
		}
	}
	return out
}

// presentURL is the canonical address of a solo presenter view: the
// preset in the path (or the script as s=), and the handlers and step
// always written out, so a reload keeps the place.
func presentURL(st labview.State, step int, handlers []string, show presentShow) string {
	base := "/present"
	var parts []string
	if st.Preset != "" {
		base += "/" + url.PathEscape(st.Preset)
	} else {
		parts = append(parts, "s="+link.Pack(st.Script.String()))
	}
	hs := make([]string, len(handlers))
	for i, h := range handlers {
		hs[i] = url.QueryEscape(h)
	}
	parts = append(parts, "handlers="+strings.Join(hs, ","), "step="+strconv.Itoa(step))
	if st.Broker != "" {
		// The real broker the steps run on stays with every step.
		parts = append(parts, "broker="+url.QueryEscape(st.Broker))
	}
	if p := show.param(); p != "" {
		parts = append(parts, "show="+p)
	}
	return base + "?" + strings.Join(parts, "&")
}

// Present answers /Present: the list of scenarios to Present, or, given
// s= (or script=), that script on the projector.
func (s *Classroom) Present(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	if v.Get("s") == "" && v.Get("script") == "" && v.Get("preset") == "" {
		return s.renderPresentIndex(w, r, http.StatusOK, "")
	}
	// A lab address with /lab changed to /present works as it is; an
	// unknown preset there is a bad field, a 400 as at /lab (the path
	// /present/NAME names a page, and an unknown one is a 404), with the
	// list of scenarios there are.
	if name := v.Get("preset"); name != "" && v.Get("s") == "" && v.Get("script") == "" {
		if err := s.findPreset(name); err != nil {
			return s.renderPresentIndex(w, r, http.StatusBadRequest, name)
		}
	}
	return s.presentSolo(w, r, v)
}

// PresentPreset answers /present/{preset}; an unknown name is a 404 page
// that lists the scenarios there are.
func (s *Classroom) PresentPreset(w http.ResponseWriter, r *http.Request) error {
	name := chi.URLParam(r, "preset")
	if err := s.findPreset(name); err != nil {
		return s.renderPresentIndex(w, r, http.StatusNotFound, name)
	}
	v := r.URL.Query()
	v.Set("preset", name)
	return s.presentSolo(w, r, v)
}

func (s *Classroom) presentSolo(w http.ResponseWriter, r *http.Request, v url.Values) error {
	st, err := s.readPresentState(v)
	if err != nil {
		return err
	}
	show, err := readShow(v)
	if err != nil {
		return err
	}
	return s.Shell.ServeCached(w, r, page.CacheKey(r, "present"), func(w http.ResponseWriter, r *http.Request) error {
		// Drawn in the replay's slot, as the lab's page is: a long
		// trace's layout is counted by the gate and stops with the reader.
		return s.Replayer.ReplayAndShow(r.Context(), st, func(run *sim.Run) error {
			t := s.Shell.Text(r)
			at := func(step int, handlers []string, show presentShow) string {
				return presentURL(st, step, handlers, show)
			}
			pv := s.presentView(t, r, st, run, show, modeSolo, at)
			w.Header().Set("Vary", "Accept-Language, Cookie")
			w.Header().Set("Cache-Control", "no-cache")
			return s.Shell.Render(w, r, http.StatusOK, presentPage(s.presentPageFor(t, r, pv.PageTitle), pv))
		})
	})
}

// readPresentState is readState with the presenter's defaults: the
// handlers the script declares (naive and inbox when it declares none),
// from the first step.
func (s *Classroom) readPresentState(v url.Values) (labview.State, error) {
	v = cloneValues(v)
	if !v.Has("step") {
		v.Set("step", "0")
	}
	if v.Has("handlers") {
		return s.Replayer.ReadState(v)
	}
	st, err := s.Replayer.ReadState(v)
	if err != nil {
		return st, err
	}
	switch {
	case len(st.Script.Handlers) > 0:
		st.Handlers = st.Script.Handlers
	case st.Script.API:
		st.Handlers = strings.Split(presentAPIHandlers, ",")
	default:
		st.Handlers = strings.Split(presentHandlers, ",")
	}
	return st, nil
}

func cloneValues(v url.Values) url.Values {
	c := url.Values{}
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

// presentIndexView lists the presets to present.
type presentIndexView struct {
	T       page.Text
	Missing string // the unknown preset asked for, on the 404 page
	Names   string // every preset's name, for that page's message
	Items   []presetItem
}

type presetItem struct {
	Name, Title, Summary, URL string
	Steps                     int
}

func (s *Classroom) renderPresentIndex(w http.ResponseWriter, r *http.Request, status int, missing string) error {
	t := s.Shell.Text(r)
	v := presentIndexView{T: t, Missing: missing, Names: strings.Join(s.Replayer.PresetNames(), ", ")}
	for _, p := range append(slices.Clip(s.Replayer.Presets), s.Replayer.APIPresets...) {
		it := presetItem{Name: p.Name, Title: p.Script.Title, Summary: p.Script.Summary, Steps: len(p.Script.Steps),
			URL: "/present/" + url.PathEscape(p.Name)}
		if t.Is(page.RU) {
			it.Title, it.Summary = cmp.Or(p.Script.TitleRU, it.Title), cmp.Or(p.Script.SummaryRU, it.Summary)
		}
		v.Items = append(v.Items, it)
	}
	title := t.S("pr.index.title")
	switch status {
	case http.StatusNotFound:
		title = t.S("err.title.404")
		w.Header().Set("Cache-Control", "no-store")
	case http.StatusBadRequest:
		title = t.S("err.title.400")
		w.Header().Set("Cache-Control", "no-store")
	}
	return s.Shell.Render(w, r, status, presentIndexPage(s.presentPageFor(t, r, title+" · "+t.S("app.name")), v))
}

// presentPageFor is the page frame with the presenter's stylesheet and
// script added.
func (s *Classroom) presentPageFor(t page.Text, r *http.Request, title string) page.View {
	p := s.Shell.PageFor(t, r, title)
	p.Styles = append(p.Styles, s.Shell.Assets.URL("present.css"))
	p.Scripts = append(p.Scripts, s.Shell.Assets.URL("present.js"))
	return p
}

// brokerNotes are the real broker's answers in step n (1-based) of the
// run's first result, in the reader's language, each once.
func brokerNotes(t page.Text, run *sim.Run, n int) []string {
	if run == nil || len(run.Results) == 0 || n < 1 || n > len(run.Results[0].Trace) {
		return nil
	}
	var out []string
	for _, e := range run.Results[0].Trace[n-1].Events {
		if e.Actor != "broker" || e.Kind != sim.KindNote {
			continue
		}
		text := e.Text
		if t.Is(page.RU) {
			text = e.In("ru")
		}
		if !slices.Contains(out, text) {
			out = append(out, text)
		}
	}
	return out
}
