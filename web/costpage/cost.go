// Package cost is the cost lab's page: /cost shows what each handler's
// idempotency costs, as charts and a table, from the reference run
// committed with the lab and, where the server allows it, from a bench
// run here (a form that works without JavaScript; with it, a progress bar
// fed by server-sent events). One bench runs at a time, within caps on
// its size, and stops when the reader leaves.
package costpage

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/idempotency-lab/lab/cost"
	"github.com/idempotency-lab/lab/web/page"
)

// Caps on a bench run from the page: small enough to finish in seconds
// on two cores.
const (
	MaxMessages     = 2000
	DefaultMessages = 300
	MaxKeyRows      = 50_000
	DefaultKeyRows  = 20_000
	// Rounds is how many times each handler's run is timed (the lab
	// bench's five would make a run of every handler too long here).
	Rounds = 3
)

// Cost is the cost lab's part of the site.
type Cost struct {
	Shell   *page.Shell
	enabled bool
	busy    chan struct{} // one bench at a time
}

// New builds the page; enabled says whether it may run benches (lab serve
// --bench).
func New(sh *page.Shell, enabled bool) *Cost {
	return &Cost{Shell: sh, enabled: enabled, busy: make(chan struct{}, 1)}
}

// request is a bench the form asks for.
type request struct {
	All       bool // all message handlers, else the core ones
	Messages  int
	Dup       int
	Keys      int
	Retention bool
}

func (q request) values() url.Values {
	v := url.Values{"messages": {strconv.Itoa(q.Messages)}, "duplicates": {strconv.Itoa(q.Dup)}, "keys": {strconv.Itoa(q.Keys)}}
	v.Set("handlers", "core")
	if q.All {
		v.Set("handlers", "all")
	}
	if q.Retention {
		v.Set("retention", "1")
	}
	return v
}

// readRequest reads the form, refusing anything out of range with the
// field, the value and the valid choices. submitted: the form was sent,
// so an unticked retention box (absent) means no retention; a fresh page
// shows it ticked.
func readRequest(q url.Values, submitted bool) (request, error) {
	req := request{Messages: DefaultMessages, Dup: cost.DefaultDuplicates, Keys: DefaultKeyRows, Retention: !submitted || q.Get("retention") != ""}
	switch h := q.Get("handlers"); h {
	case "", "core":
	case "all":
		req.All = true
	default:
		return req, page.BadRequest("cost.err.field", "handlers", h, "core, all")
	}
	num := func(field string, lo, hi int, into *int) error {
		v := strings.TrimSpace(q.Get(field))
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSuffix(v, "%"))
		if err != nil || n < lo || n > hi {
			return page.BadRequest("cost.err.field", field, v, fmt.Sprintf("%d–%d", lo, hi))
		}
		*into = n
		return nil
	}
	if err := num("messages", 1, MaxMessages, &req.Messages); err != nil {
		return req, err
	}
	if err := num("duplicates", 0, 100, &req.Dup); err != nil {
		return req, err
	}
	if err := num("keys", 0, MaxKeyRows, &req.Keys); err != nil {
		return req, err
	}
	switch v := q.Get("retention"); v {
	case "", "1", "on", "true":
	default:
		return req, page.BadRequest("cost.err.field", "retention", v, "1 or nothing")
	}
	return req, nil
}

// acquire takes the one bench slot, or says the server is busy or does
// not run benches.
func (c *Cost) acquire() (func(), error) {
	if !c.enabled {
		return nil, &page.Error{Status: http.StatusForbidden, Key: "cost.err.off"}
	}
	select {
	case c.busy <- struct{}{}:
		return func() { <-c.busy }, nil
	default:
		return nil, &page.Error{Status: http.StatusServiceUnavailable, Key: "cost.err.busy", RetryAfter: 5}
	}
}

// run measures what req asks for; progress, when set, hears each handler.
func run(ctx context.Context, req request, progress func(done, total int)) (*cost.Measurement, error) {
	names := []string{"core"}
	if req.All {
		names = []string{"all"}
	}
	dup := req.Dup
	if dup == 0 {
		dup = -1 // none, not the default
	}
	return cost.Measure(ctx, cost.MeasureOptions{KeyRows: req.Keys, Retention: req.Retention,
		Bench: cost.Options{Handlers: names, Messages: req.Messages, Duplicates: dup, Progress: progress, Rounds: Rounds}})
}

// Index is GET /cost: the form, the reference run and, with run=1, a
// bench run now.
func (c *Cost) Index(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	req, err := readRequest(q, q.Get("run") != "")
	if err != nil {
		return err
	}
	metric, err := readMetric(q)
	if err != nil {
		return err
	}
	t := c.Shell.Text(r)
	v := pageView{T: t, Enabled: c.enabled, Req: req, MaxMessages: MaxMessages, MaxKeys: MaxKeyRows,
		EventsURL: "/cost/events?" + req.values().Encode(), Metric: string(metric)}
	if ref, err := cost.Reference(); err == nil {
		v.Reference = referenceView(t, ref, metric, q)
	} else {
		return err
	}
	plans, err := statemachinePlans()
	if err != nil {
		return err // the lab's own reading failed: loud, not a page without it
	}
	v.Plan = cost.PlanText(plans)
	if q.Get("run") != "" {
		release, err := c.acquire()
		if err != nil {
			return err
		}
		defer release()
		m, err := run(r.Context(), req, nil)
		if err != nil {
			return c.failed(err)
		}
		rv := resultsOf(t, m, metric, q)
		v.Results = &rv
	}
	w.Header().Set("Cache-Control", "no-store")
	p := c.Shell.PageFor(t, r, t.S("cost.title")+" · "+t.S("app.name"))
	p.Styles = append(p.Styles, c.Shell.Assets.URL("cost.css"))
	p.Scripts = append(p.Scripts, c.Shell.Assets.URL("cost.js"))
	return c.Shell.Render(w, r, http.StatusOK, costPage(p, v))
}

// readMetric reads the chart the address asks for (?metric=): the
// default, speed, when absent; anything else than a metric's name is
// refused with 400 and the valid names, as the page's other fields are.
func readMetric(q url.Values) (cost.Metric, error) {
	v := q.Get("metric")
	m, ok := cost.ParseMetric(v)
	if !ok {
		return "", page.BadRequest("cost.err.field", "metric", v, cost.MetricChoices())
	}
	return m, nil
}

// statemachinePlans is SQLite's plan for each statement statemachine
// runs on a message, asked once (cost.Plans runs a message through it):
// the page shows why its time per message grows with the table.
var statemachinePlans = sync.OnceValues(func() ([]cost.Plan, error) {
	return cost.Plans(context.Background(), "statemachine")
})

// failed turns a bench's error into the page's: bad input is the
// reader's, a cancelled run needs no page.
func (c *Cost) failed(err error) error {
	if cost.IsBadInput(err) {
		return page.BadRequest("cost.err.field", "bench", err.Error(), "see the form's limits")
	}
	return err
}

// Events is GET /cost/events: the bench the form asks for, its progress
// as server-sent events ("progress": "DONE TOTAL") and its results as the
// last one ("done": the results section's HTML). A reader who leaves
// closes the stream, and the bench stops.
func (c *Cost) Events(w http.ResponseWriter, r *http.Request) error {
	req, err := readRequest(r.URL.Query(), true) // the script sends the form's fields
	if err != nil {
		return err
	}
	metric, err := readMetric(r.URL.Query())
	if err != nil {
		return err
	}
	release, err := c.acquire()
	if err != nil {
		return err
	}
	defer release()
	flusher, ok := w.(http.Flusher)
	if !ok {
		return fmt.Errorf("the response cannot stream")
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(event, data string) {
		fmt.Fprintf(w, "event: %s\n", event)
		for _, line := range strings.Split(data, "\n") {
			fmt.Fprintf(w, "data: %s\n", line)
		}
		fmt.Fprint(w, "\n")
		flusher.Flush()
	}
	send("progress", "0 1")
	m, err := run(r.Context(), req, func(done, total int) { send("progress", fmt.Sprintf("%d %d", done, total)) })
	if err != nil {
		if r.Context().Err() == nil {
			send("failed", err.Error())
		}
		return nil // the status is sent: the stream reports its own end
	}
	t := c.Shell.Text(r)
	var b bytes.Buffer
	// The section's picker links to the page with this run (run=1), as
	// the form without the script would have loaded it.
	base := req.values()
	base.Set("run", "1")
	if metric != cost.MetricSpeed {
		base.Set("metric", string(metric))
	}
	if err := results(resultsOf(t, m, metric, base)).Render(r.Context(), &b); err != nil {
		return nil
	}
	send("done", b.String())
	return nil
}
