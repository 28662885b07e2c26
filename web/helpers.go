package web

import (
	"strconv"

	"github.com/a-h/templ"

	"github.com/idempotency-lab/lab/handlers"
)

// maxTicks is the most steps the slider marks with a tick each.
const maxTicks = 40

// pct is a CSS declaration placing something at a percentage; the number
// is ours, never the reader's, so it is safe as CSS.
func pct(property string, v float64) templ.SafeCSS {
	return templ.SafeCSS(property + ":" + strconv.FormatFloat(min(max(v, 0), 100), 'f', 2, 64) + "%")
}

func rowCount(t text, n int) string {
	switch n {
	case 0:
		return t.S("st.norows")
	case 1:
		return t.S("st.row1")
	}
	return t.F("st.rows", n)
}

func markLabel(t text, mark string) string {
	switch mark {
	case handlers.BeforeEffect:
		return t.S("src.before")
	case handlers.AfterEffect:
		return t.S("src.after")
	case handlers.Yield:
		return t.S("src.yield")
	}
	return mark
}
