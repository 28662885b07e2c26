package lessons

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"

	"github.com/idempotency-lab/lab/cost"
)

// A measured fence shows a chart of the committed reference run
// (cost.Reference), with the machine and the command that made it:
//
//	```measured
//	speed
//	```
//
// FIGURE is one of the cost lab's figures: speed, calls, storage, p99
// (the handlers, on the embedded engine), keysize, keyfill, keyrate (the
// keys experiment) or retention; "FIGURE real" takes it from the run on
// PostgreSQL and Redis.

var kindMeasured = ast.NewNodeKind("LessonMeasured")

type measuredBlock struct {
	ast.BaseBlock
	fig     cost.Figure
	caption string
}

func (n *measuredBlock) Kind() ast.NodeKind { return kindMeasured }
func (n *measuredBlock) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Figure": n.fig.ID}, nil)
}

// measuredFigure reads a measured fence and finds its figure.
func measuredFigure(lines []fenceLine, fence int, lang string, e *errList) (*measuredBlock, bool) {
	ls := nonBlank(lines)
	if len(ls) != 1 {
		e.add(fence, "a measured fence holds one line, FIGURE [real]; found %d", len(ls))
		return nil, false
	}
	f := strings.Fields(ls[0].text)
	if len(f) > 2 || len(f) == 2 && f[1] != "real" {
		e.add(ls[0].line, "measured fence: want FIGURE or FIGURE real, got %q", ls[0].text)
		return nil, false
	}
	ref, err := cost.Reference()
	if err != nil {
		e.add(ls[0].line, "measured: the reference run: %v", err)
		return nil, false
	}
	m, engine := &ref.Embedded, "SQLite + miniredis"
	if len(f) == 2 {
		if ref.Real == nil {
			e.add(ls[0].line, "measured: the reference run has no run on the real engine")
			return nil, false
		}
		m, engine = ref.Real, "PostgreSQL + Redis"
	}
	var figs []cost.Figure
	if m.Handlers != nil {
		figs = append(figs, cost.HandlerFigures(m.Handlers, lang, "")...)
	}
	if m.Keys != nil {
		figs = append(figs, cost.KeyFigures(m.Keys, lang)...)
	}
	if m.Retention != nil {
		figs = append(figs, cost.RetentionFigure(m.Retention, lang))
	}
	var ids []string
	for _, fig := range figs {
		if fig.ID == f[0] {
			mach := m.Handlers.Machine
			caption := say(lang, "lessons.measured.caption", ref.Date, mach.OS, mach.Arch, strconv.Itoa(mach.CPUs), mach.Go, engine, ref.Note)
			return &measuredBlock{fig: fig, caption: caption}, true
		}
		ids = append(ids, fig.ID)
	}
	e.add(ls[0].line, "measured: unknown figure %q; valid figures: %s", f[0], strings.Join(ids, ", "))
	return nil, false
}

// measured writes the chart (made by the cost package, its text escaped
// there) and its caption.
func (r *fenceRenderer) measured(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*measuredBlock)
	fmt.Fprintf(w, "<figure class=\"measured\" id=\"measured-%s\">\n", html.EscapeString(n.fig.ID))
	_, _ = w.WriteString(n.fig.SVG)
	fmt.Fprintf(w, "\n<figcaption>%s</figcaption>\n</figure>\n", html.EscapeString(n.caption))
	return ast.WalkContinue, nil
}
