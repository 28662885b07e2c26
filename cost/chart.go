package cost

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Charts are drawn as SVG on the server: horizontal bars for a figure per
// handler or key kind, lines for the inbox over time. Labels are large
// enough for a projector, every bar carries its number, and the colours
// come from the page's CSS (classes), so the charts follow its theme.

// Bar is one bar: a label, its value, and the text printed after it.
type Bar struct {
	Label string
	Value float64
	Text  string
	// Mark draws the bar in the accent colour: the handler or key the
	// chart is about.
	Mark bool
}

// BarChart is a titled chart of bars.
type BarChart struct {
	Title string
	Bars  []Bar
}

// Chart geometry, in SVG units (the chart scales to its box).
const (
	chartWidth = 720
	labelWidth = 190
	barHeight  = 26
	barGap     = 10
	titleSpace = 34
	textSpace  = 120 // room after the longest bar for its number
)

// SVG draws the chart.
func (c BarChart) SVG() string {
	maxV := 0.0
	for _, b := range c.Bars {
		maxV = math.Max(maxV, b.Value)
	}
	height := titleSpace + len(c.Bars)*(barHeight+barGap) + barGap
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="cost-chart" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		chartWidth, height, html.EscapeString(c.Title))
	fmt.Fprintf(&s, `<title>%s</title>`, html.EscapeString(c.Title))
	fmt.Fprintf(&s, `<text class="cc-title" x="0" y="22">%s</text>`, html.EscapeString(c.Title))
	span := float64(chartWidth - labelWidth - textSpace)
	for i, b := range c.Bars {
		y := titleSpace + i*(barHeight+barGap)
		w := 0.0
		if maxV > 0 {
			w = b.Value / maxV * span
		}
		class := "cc-bar"
		if b.Mark {
			class += " cc-mark"
		}
		fmt.Fprintf(&s, `<text class="cc-label" x="%d" y="%d" text-anchor="end">%s</text>`, labelWidth-8, y+barHeight-7, html.EscapeString(b.Label))
		fmt.Fprintf(&s, `<rect class="%s" x="%d" y="%d" width="%s" height="%d"/>`, class, labelWidth, y, num(w), barHeight)
		fmt.Fprintf(&s, `<text class="cc-value" x="%s" y="%d">%s</text>`, num(float64(labelWidth)+w+6), y+barHeight-7, html.EscapeString(b.Text))
	}
	s.WriteString(`</svg>`)
	return s.String()
}

// Line is one series of a line chart.
type Line struct {
	Label  string
	Values []float64
}

// LineChart is a titled chart of series over the same steps (hours).
type LineChart struct {
	Title  string
	XLabel string
	Lines  []Line
}

// SVG draws the chart, its series labelled at their right ends.
func (c LineChart) SVG() string {
	const left, top, plotW, plotH, right = 70, 40, 520, 220, 130
	n, maxV := 0, 0.0
	for _, l := range c.Lines {
		n = max(n, len(l.Values))
		for _, v := range l.Values {
			maxV = math.Max(maxV, v)
		}
	}
	height := top + plotH + 50
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="cost-chart" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		left+plotW+right, height, html.EscapeString(c.Title))
	fmt.Fprintf(&s, `<title>%s</title>`, html.EscapeString(c.Title))
	fmt.Fprintf(&s, `<text class="cc-title" x="0" y="22">%s</text>`, html.EscapeString(c.Title))
	fmt.Fprintf(&s, `<line class="cc-axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, left, top+plotH, left+plotW, top+plotH)
	fmt.Fprintf(&s, `<line class="cc-axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, left, top, left, top+plotH)
	fmt.Fprintf(&s, `<text class="cc-label" x="%d" y="%d" text-anchor="end">%s</text>`, left-8, top+10, strconv.FormatFloat(maxV, 'f', -1, 64))
	fmt.Fprintf(&s, `<text class="cc-label" x="%d" y="%d" text-anchor="end">0</text>`, left-8, top+plotH)
	fmt.Fprintf(&s, `<text class="cc-label" x="%d" y="%d" text-anchor="middle">%s</text>`, left+plotW/2, top+plotH+36, html.EscapeString(c.XLabel))
	x := func(i int) float64 {
		if n <= 1 {
			return left
		}
		return left + float64(i)*plotW/float64(n-1)
	}
	y := func(v float64) float64 {
		if maxV == 0 {
			return top + plotH
		}
		return top + plotH - v/maxV*plotH
	}
	for k, l := range c.Lines {
		var pts []string
		for i, v := range l.Values {
			pts = append(pts, num(x(i))+","+num(y(v)))
		}
		fmt.Fprintf(&s, `<polyline class="cc-line cc-line-%d" fill="none" points="%s"/>`, k%6, strings.Join(pts, " "))
		if len(l.Values) > 0 {
			last := l.Values[len(l.Values)-1]
			fmt.Fprintf(&s, `<text class="cc-label cc-line-label-%d" x="%s" y="%s">%s</text>`, k%6, num(x(len(l.Values)-1)+8), num(y(last)+5), html.EscapeString(l.Label))
		}
	}
	s.WriteString(`</svg>`)
	return s.String()
}

// num writes a coordinate with one decimal at most.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
