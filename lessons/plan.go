package lessons

import (
	"context"
	"fmt"
	"html"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"

	"github.com/idempotency-lab/lab/cost"
	"github.com/idempotency-lab/lab/internal/highlight"
)

// A plan fence shows how SQLite runs a handler's statements, in its own
// words: the lab runs one message through the handler and asks the
// engine (cost.Plans, EXPLAIN QUERY PLAN) when the course loads, so the
// page never shows a plan pasted by hand. Each expect line is a claim the
// course checks as it loads: some step of the plans starts with it.
//
//	```plan
//	statemachine
//	expect: SCAN orders
//	```

var kindPlan = ast.NewNodeKind("LessonPlan")

type planBlock struct {
	ast.BaseBlock
	handler string
	plans   []cost.Plan
	lang    string
}

func (n *planBlock) Kind() ast.NodeKind { return kindPlan }
func (n *planBlock) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Handler": n.handler}, nil)
}

// planFence reads a plan fence: the handler's name, then any expect
// lines, and asks the engine for the plans.
func planFence(lines []fenceLine, fence int, lang string, e *errList) (*planBlock, bool) {
	ls := nonBlank(lines)
	if len(ls) == 0 {
		e.add(fence, "a plan fence names a handler on its first line, then any lines expect: STEP")
		return nil, false
	}
	handler := ls[0].text
	plans, err := cost.Plans(context.Background(), handler)
	if err != nil {
		e.add(ls[0].line, "plan: %v", err)
		return nil, false
	}
	ok := true
	for _, l := range ls[1:] {
		want, found := strings.CutPrefix(l.text, "expect:")
		want = strings.TrimSpace(want)
		if !found || want == "" {
			e.add(l.line, "plan fence: want expect: STEP (a step of the plan, as SCAN orders), got %q", l.text)
			ok = false
			continue
		}
		if !planSays(plans, want) {
			e.add(l.line, "plan: no step of %s's plans starts with %q; the engine says:\n%s", handler, want, cost.PlanText(plans))
			ok = false
		}
	}
	if !ok {
		return nil, false
	}
	return &planBlock{handler: handler, plans: plans, lang: lang}, true
}

// planSays reports whether a step of the plans starts with want.
func planSays(plans []cost.Plan, want string) bool {
	for _, p := range plans {
		for _, s := range p.Steps {
			if strings.HasPrefix(strings.TrimSpace(s), want) {
				return true
			}
		}
	}
	return false
}

// plan writes the plans as a code block, captioned with where they come
// from. The block is highlighted as plain text, so it is a <pre
// class="chroma"> like the lesson's other code: the pages label it and
// make it reachable by keyboard as they do the others.
func (r *fenceRenderer) plan(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*planBlock)
	esc := html.EscapeString
	fmt.Fprintf(w, `<figure class="plan" id="plan-%s">`+"\n", esc(n.handler))
	if err := highlight.WriteHTML(w, highlight.Plain(cost.PlanText(n.plans)), highlight.Options{}); err != nil {
		return ast.WalkStop, err
	}
	fmt.Fprintf(w, "<figcaption>%s</figcaption>\n</figure>\n", esc(say(n.lang, "lessons.plan.caption", n.handler)))
	return ast.WalkContinue, nil
}
