package cost

import (
	"fmt"
	"strconv"

	"github.com/idempotency-lab/lab/narration"
)

// Figure is one chart, ready to show: an id, its SVG, and its title.
type Figure struct {
	ID    string
	Title string
	SVG   string
}

// word is a chart's word in lang: narration's cost.KEY.
func word(key, lang string) string {
	return narration.T("cost." + key).In(lang)
}

// HandlerFigures are the bench's charts: speed, calls, storage and p99
// for each handler. mark names a handler to draw in the accent colour.
func HandlerFigures(rep *Report, lang, mark string) []Figure {
	var speed, calls, storage, p99 BarChart
	speed.Title, calls.Title, storage.Title, p99.Title = word("speed", lang), word("calls", lang), word("storage", lang), word("p99", lang)
	for _, r := range rep.Handlers {
		m := r.Handler == mark
		speed.Bars = append(speed.Bars, Bar{Label: r.Handler, Value: r.PerSecond, Text: strconv.FormatFloat(r.PerSecond, 'f', 0, 64), Mark: m})
		c := r.SQLPer + r.RedisPer
		calls.Bars = append(calls.Bars, Bar{Label: r.Handler, Value: c, Text: fmt.Sprintf("%.2f + %.2f", r.SQLPer, r.RedisPer), Mark: m})
		storage.Bars = append(storage.Bars, Bar{Label: r.Handler, Value: r.BytesPer, Text: strconv.FormatFloat(r.BytesPer, 'f', 0, 64), Mark: m})
		p99.Bars = append(p99.Bars, Bar{Label: r.Handler, Value: r.P99, Text: strconv.FormatFloat(r.P99, 'f', 3, 64), Mark: m})
	}
	return []Figure{
		{ID: "speed", Title: speed.Title, SVG: speed.SVG()},
		{ID: "calls", Title: calls.Title, SVG: calls.SVG()},
		{ID: "storage", Title: storage.Title, SVG: storage.SVG()},
		{ID: "p99", Title: p99.Title, SVG: p99.SVG()},
	}
}

// NamedChart is a chart and its id.
type NamedChart struct {
	ID string
	BarChart
}

// KeyFigures are the keys experiment's charts, drawn.
func KeyFigures(rep *KeysReport, lang string) []Figure {
	var out []Figure
	for _, c := range KeyCharts(rep, lang) {
		out = append(out, Figure{ID: c.ID, Title: c.Title, SVG: c.SVG()})
	}
	return out
}

// KeyCharts are the keys experiment's charts: index bytes per row, leaf
// fill (where the engine measures it) and inserts per second, by key.
func KeyCharts(rep *KeysReport, lang string) []NamedChart {
	var size, fill, rate BarChart
	size.Title, fill.Title, rate.Title = word("keysize", lang), word("keyfill", lang), word("keyrate", lang)
	for _, k := range rep.Kinds {
		per := float64(k.IndexBytes) / float64(max(k.Rows, 1))
		size.Bars = append(size.Bars, Bar{Label: k.Kind, Value: per, Text: strconv.FormatFloat(per, 'f', 1, 64)})
		if k.LeafFill >= 0 {
			fill.Bars = append(fill.Bars, Bar{Label: k.Kind, Value: k.LeafFill, Text: fmt.Sprintf("%.0f%%", 100*k.LeafFill)})
		}
		rate.Bars = append(rate.Bars, Bar{Label: k.Kind, Value: k.PerSecond, Text: strconv.FormatFloat(k.PerSecond, 'f', 0, 64)})
	}
	out := []NamedChart{{ID: "keysize", BarChart: size}}
	if len(fill.Bars) > 0 {
		out = append(out, NamedChart{ID: "keyfill", BarChart: fill})
	}
	return append(out, NamedChart{ID: "keyrate", BarChart: rate})
}

// RetentionFigure is the inbox's rows over time, one line per window.
func RetentionFigure(rep *RetentionReport, lang string) Figure {
	c := LineChart{Title: word("retention", lang), XLabel: word("hours", lang)}
	for _, s := range rep.Series {
		l := Line{Label: s.Horizon}
		if s.Horizon == "none" {
			l.Label = word("none", lang)
		}
		for _, v := range s.Rows {
			l.Values = append(l.Values, float64(v))
		}
		c.Lines = append(c.Lines, l)
	}
	return Figure{ID: "retention", Title: c.Title, SVG: c.SVG()}
}
