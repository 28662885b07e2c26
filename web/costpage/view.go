package costpage

import (
	"fmt"
	"strconv"

	"github.com/idempotency-lab/lab/cost"
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
	T            page.Text
	Ran          string
	Figures      []figureView
	Rows         []rowView
	Keys         []figureView
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
	Rows                                    string
}

func figures(fs []cost.Figure) []figureView {
	out := make([]figureView, len(fs))
	for i, f := range fs {
		out[i] = figureView{ID: f.ID, Title: f.Title, SVG: f.SVG}
	}
	return out
}

func resultsOf(t page.Text, m *cost.Measurement) resultsView {
	lang := t.Lang()
	v := resultsView{T: t}
	if rep := m.Handlers; rep != nil {
		mc := rep.Machine
		v.Ran = t.F("cost.ran", rep.Messages, rep.Duplicates, rep.Copies, mc.OS, mc.Arch, mc.CPUs, mc.Go)
		v.Figures = figures(cost.HandlerFigures(rep, lang, ""))
		for _, h := range rep.Handlers {
			v.Rows = append(v.Rows, rowView{Handler: h.Handler, Verdict: h.Verdict, Label: t.S("v." + h.Verdict),
				PerSec: strconv.FormatFloat(h.PerSecond, 'f', 0, 64), P50: fmt.Sprintf("%.3f", h.P50), P99: fmt.Sprintf("%.3f", h.P99),
				SQL: fmt.Sprintf("%.2f", h.SQLPer), Redis: fmt.Sprintf("%.2f", h.RedisPer), Tx: fmt.Sprintf("%.2f", h.TxPer),
				Bytes: strconv.FormatFloat(h.BytesPer, 'f', 0, 64), Rows: strconv.FormatInt(h.Rows, 10)})
		}
	}
	if m.Keys != nil {
		v.Keys, v.KeysLead = figures(cost.KeyFigures(m.Keys, lang)), t.S("cost.keyslead")
	}
	if m.Retention != nil {
		f := cost.RetentionFigure(m.Retention, lang)
		v.Retention = &figureView{ID: f.ID, Title: f.Title, SVG: f.SVG}
		v.RetLead = t.F("cost.retlead", "inbox-retention-too-short")
		v.RetPresetURL = link.Lab{Preset: "inbox-retention-too-short", Handlers: []string{"inbox", "unique"}}.String()
	}
	return v
}

func referenceView(t page.Text, ref *cost.ReferenceRun) refView {
	v := refView{Note: t.F("cost.refnote", ref.Date, ref.Command), Embedded: resultsOf(t, &ref.Embedded)}
	if ref.Real != nil {
		r := resultsOf(t, ref.Real)
		v.Real = &r
	}
	return v
}
