package costpage

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/idempotency-lab/lab/cost"
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/web/page"
)

// pageView is the page's view model.
type pageView struct {
	T                    page.Text
	Enabled              bool
	Req                  request
	MaxMessages, MaxKeys int
	EventsURL            string
	Metric               string       // the chart shown: cost.Metric's name
	Results              *resultsView // a run made now, if any
	Reference            refView
	// Plan is SQLite's plan of statemachine's statements, as
	// cost.PlanText writes it.
	Plan string
}

type refView struct {
	Note     string
	Embedded resultsView
	Real     *resultsView
}

// resultsView is one measurement, charted and tabled.
type resultsView struct {
	T   page.Text
	Ran string
	// Charts are the handler charts, one per metric; only the one the
	// address names (Metric) shows, the picker's links (Picker) load the
	// others, and the script swaps them in place.
	Charts       []barsView
	Picker       []metricLink
	Groups       []rowGroup
	Keys         []barsView
	KeysLead     string
	Retention    *figureView
	RetLead      string
	RetPresetURL string
}

// figureView is a chart: its SVG comes from the cost package, which
// escapes every text it draws.
type figureView struct {
	ID, Title, SVG string
}

type rowView struct {
	Handler, Verdict, Label                 string
	PerSec, P50, P99, SQL, Redis, Tx, Bytes string
	Rows, RedisKeys                         string
}

// rowGroup is one family's rows of the table.
type rowGroup struct {
	Family, Label string
	Rows          []rowView
}

// barsView is a bar chart drawn in HTML, so its words keep the page's
// size on a phone: a title and groups of bars (one group without a label
// for a chart that is not by handler).
type barsView struct {
	ID, Metric, Title string
	Hidden            bool
	Groups            []barGroup
}

type barGroup struct {
	Family, Label string
	Bars          []barView
}

// barView is one bar: Width is its length in percent of the longest, as
// an SVG rect's width (an attribute: the page's CSP allows no inline
// styles from scripts, and attributes need none).
type barView struct {
	Label, Text, Width, Verdict string
}

// metricLink is one of the picker's choices: a link to the same address
// with another metric, which works without JavaScript.
type metricLink struct {
	Metric, Label, URL string
	Current            bool
}

// metricLabels are the picker's words: the table's column heads.
var metricLabels = map[cost.Metric]string{
	cost.MetricSpeed: "cost.persec", cost.MetricSQL: "cost.sql", cost.MetricRedis: "cost.redis",
	cost.MetricBytes: "cost.bytes", cost.MetricP99: "cost.p99",
}

// pickerLinks are the links to each metric: base (the address's query,
// without the metric) with metric set, except for the default, which
// the address leaves out.
func pickerLinks(t page.Text, base url.Values, cur cost.Metric) []metricLink {
	var out []metricLink
	for _, m := range cost.Metrics() {
		q := url.Values{}
		for k, vs := range base {
			if k != "metric" {
				q[k] = vs
			}
		}
		if m != cost.MetricSpeed {
			q.Set("metric", string(m))
		}
		u := "/cost"
		if len(q) > 0 {
			u += "?" + q.Encode()
		}
		out = append(out, metricLink{Metric: string(m), Label: t.S(metricLabels[m]), URL: u, Current: m == cur})
	}
	return out
}

// familyOf is each catalogue handler's family.
var familyOf = func() map[string]handlers.Family {
	out := map[string]handlers.Family{}
	for _, h := range handlers.List() {
		out[h.Name] = h.Family
	}
	return out
}()

// familyLabel is a family's heading; a handler outside the catalogue
// (none is measured today) falls under "other".
func familyLabel(t page.Text, f handlers.Family) string {
	if f == "" {
		return t.S("cost.family.other")
	}
	return t.S("cost.family." + string(f))
}

// byFamily splits a report's results by family, in the catalogue's order
// of families, each keeping the report's order; families without a
// handler are left out.
func byFamily(rs []cost.Result) (fams []handlers.Family, groups map[handlers.Family][]cost.Result) {
	groups = map[handlers.Family][]cost.Result{}
	for _, r := range rs {
		f := familyOf[r.Handler]
		groups[f] = append(groups[f], r)
	}
	for _, f := range append(handlers.Families(), "") {
		if len(groups[f]) > 0 {
			fams = append(fams, f)
		}
	}
	return fams, groups
}

// width is v's bar length in percent of the longest bar, one decimal.
func width(v, maxV float64) string {
	if maxV <= 0 || v <= 0 {
		return "0"
	}
	return strconv.FormatFloat(float64(int(v/maxV*1000+0.5))/10, 'f', -1, 64)
}

// handlerChart is one metric's chart of a report, grouped by family.
func handlerChart(t page.Text, rep *cost.Report, m, cur cost.Metric) barsView {
	c := barsView{ID: string(m), Metric: string(m), Title: m.Title(t.Lang()), Hidden: m != cur}
	maxV := 0.0
	for _, r := range rep.Handlers {
		v, _ := m.Of(r)
		maxV = max(maxV, v)
	}
	fams, groups := byFamily(rep.Handlers)
	for _, f := range fams {
		g := barGroup{Family: string(f), Label: familyLabel(t, f)}
		for _, r := range groups[f] {
			v, text := m.Of(r)
			g.Bars = append(g.Bars, barView{Label: r.Handler, Text: text, Width: width(v, maxV), Verdict: r.Verdict})
		}
		c.Groups = append(c.Groups, g)
	}
	return c
}

// keyChart is one of the keys experiment's charts, one group of bars.
func keyChart(c cost.NamedChart) barsView {
	maxV := 0.0
	for _, b := range c.Bars {
		maxV = max(maxV, b.Value)
	}
	g := barGroup{}
	for _, b := range c.Bars {
		g.Bars = append(g.Bars, barView{Label: b.Label, Text: b.Text, Width: width(b.Value, maxV)})
	}
	return barsView{ID: c.ID, Title: c.Title, Groups: []barGroup{g}}
}

// resultsOf is a measurement's view: the handler chart for metric cur
// (the others hidden, for the script to show), whose picker links keep
// base, the address's other fields.
func resultsOf(t page.Text, m *cost.Measurement, cur cost.Metric, base url.Values) resultsView {
	lang := t.Lang()
	v := resultsView{T: t}
	if rep := m.Handlers; rep != nil {
		mc := rep.Machine
		v.Ran = t.F("cost.ran", rep.Messages, rep.Duplicates, rep.Copies, mc.OS, mc.Arch, mc.CPUs, mc.Go)
		for _, metric := range cost.Metrics() {
			v.Charts = append(v.Charts, handlerChart(t, rep, metric, cur))
		}
		v.Picker = pickerLinks(t, base, cur)
		fams, groups := byFamily(rep.Handlers)
		for _, f := range fams {
			g := rowGroup{Family: string(f), Label: familyLabel(t, f)}
			for _, h := range groups[f] {
				g.Rows = append(g.Rows, rowView{Handler: h.Handler, Verdict: h.Verdict, Label: t.S("v." + h.Verdict),
					PerSec: strconv.FormatFloat(h.PerSecond, 'f', 0, 64), P50: fmt.Sprintf("%.3f", h.P50), P99: fmt.Sprintf("%.3f", h.P99),
					SQL: fmt.Sprintf("%.2f", h.SQLPer), Redis: fmt.Sprintf("%.2f", h.RedisPer), Tx: fmt.Sprintf("%.2f", h.TxPer),
					Bytes: strconv.FormatFloat(h.BytesPer, 'f', 0, 64), Rows: strconv.FormatInt(h.Rows, 10),
					RedisKeys: strconv.Itoa(h.RedisKeys)})
			}
			v.Groups = append(v.Groups, g)
		}
	}
	if m.Keys != nil {
		for _, c := range cost.KeyCharts(m.Keys, lang) {
			v.Keys = append(v.Keys, keyChart(c))
		}
		v.KeysLead = t.S("cost.keyslead")
	}
	if m.Retention != nil {
		f := cost.RetentionFigure(m.Retention, lang)
		v.Retention = &figureView{ID: f.ID, Title: f.Title, SVG: f.SVG}
		v.RetLead = t.F("cost.retlead", "inbox-retention-too-short")
		v.RetPresetURL = link.Lab{Preset: "inbox-retention-too-short", Handlers: []string{"inbox", "unique"}}.String()
	}
	return v
}

func referenceView(t page.Text, ref *cost.ReferenceRun, cur cost.Metric, base url.Values) refView {
	v := refView{Note: t.F("cost.refnote", ref.Date, ref.Command), Embedded: resultsOf(t, &ref.Embedded, cur, base)}
	if ref.Real != nil {
		r := resultsOf(t, ref.Real, cur, base)
		v.Real = &r
	}
	return v
}
