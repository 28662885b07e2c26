package lessons

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/idempotency-lab/lab/internal/highlight"
	"github.com/idempotency-lab/lab/narration"
	"github.com/idempotency-lab/lab/script"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// builder turns lesson files into Lessons. It holds what a lesson may refer
// to and the one goldmark instance, built once per Load.
type builder struct {
	presets  map[string]*script.Script // by name
	handlers []string                  // handler names, in the lab's order
	// The API side: presets of HTTP requests and the handlers that serve
	// them. A claim may name them (its box opens the lab, as a broker
	// claim's does); the front matter and lab: links may not.
	apiPresets  map[string]*script.Script
	apiHandlers []string
	source      func(file string) (string, error)
	// editorFile is a built-in handler as the whole file the lab's
	// editor opens (sandbox.Builtin), for a source fence's editor=.
	editorFile func(handler string) (string, error)
	diagrams   fs.FS // the course: the SVGs of its mermaid fences under DiagramDir; nil: none
	md         goldmark.Markdown
	// editorURLs are the editor links made so far, by preset and handler:
	// the English and the Russian lesson open the same file, and packing a
	// whole handler file into a link was a tenth of the server's start.
	editorURLs map[[2]string]string
}

func newBuilder(presets map[string]*script.Script, handlers []string, source func(string) (string, error)) *builder {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(
			util.Prioritized(&fenceRenderer{}, 100),
		)),
	)
	return &builder{presets: presets, handlers: handlers, source: source, editorFile: builtinEditor, md: md}
}

// lesson parses and renders one file; name is its path in the course FS.
func (b *builder) lesson(name string, data []byte) (*Lesson, error) {
	e := &errList{file: name}
	yamlText, body, bodyLine, err := splitFrontMatter(data)
	if err != nil {
		e.add(1, "%v", err)
		return nil, e.err()
	}
	fm, ok := b.parseFrontMatter(name, yamlText, e)
	if !ok {
		return nil, e.err()
	}
	l := &Lesson{
		Slug:    fm.Slug,
		Order:   fm.Order,
		Lang:    fm.Lang,
		Title:   fm.Title,
		Summary: fm.Summary,
		Presets: fm.Presets,
		Source:  name,
	}
	b.render(l, body, bodyLine, e)
	if err := e.err(); err != nil {
		return nil, err
	}
	return l, nil
}

// render parses the Markdown body, replaces the lab's own fences and links,
// collects headings, and renders the HTML into l.
func (b *builder) render(l *Lesson, body []byte, bodyLine int, e *errList) {
	pc := parser.NewContext(parser.WithIDs(newHeadingIDs()))
	doc := b.md.Parser().Parse(text.NewReader(body), parser.WithContext(pc))
	lineAt := func(offset int) int { return bodyLine + bytes.Count(body[:offset], []byte("\n")) }

	// Collect first, change the tree afterwards: Walk does not expect its
	// tree to change under it.
	var fences []*ast.FencedCodeBlock
	var headings []*ast.Heading
	var links []*ast.Link
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			fences = append(fences, n)
		case *ast.Heading:
			headings = append(headings, n)
		case *ast.Link:
			links = append(links, n)
		case *ast.AutoLink:
			if url := string(n.URL(body)); strings.HasPrefix(url, "lab:") {
				e.add(lineAt(nodeOffset(n)), "write a lab link as [text](%s), not <%s>: it needs a text", url, url)
			}
		}
		return ast.WalkContinue, nil
	})

	words := len(strings.Fields(string(body)))
	for _, f := range fences {
		lang := string(f.Language(body))
		if lang == "" {
			continue // goldmark's own <pre><code>
		}
		fence := lineAt(f.Info.Segment.Start)
		var lines []fenceLine
		for i := 0; i < f.Lines().Len(); i++ {
			seg := f.Lines().At(i)
			lines = append(lines, fenceLine{string(seg.Value(body)), lineAt(seg.Start)})
		}
		var replacement ast.Node
		switch lang {
		default: // a language: highlighted (code.go)
			html, err := b.codeHTML(lang, fenceText(f, body))
			if err != nil {
				e.add(fence, "%v", err)
				continue
			}
			replacement = &codeBlock{html: html}
		case "source":
			ref, ok := parseSourceFence(lines, fence, e)
			editor, attrsOK := parseSourceAttrs(string(f.Info.Segment.Value(body)), fence, e)
			if !ok || !attrsOK {
				continue
			}
			ref.editor = editor
			s, err := b.quote(ref.file, ref.decl)
			if err != nil {
				e.add(ref.line, "source: %v", err)
				continue
			}
			block := &sourceBlock{snippet: s, lang: l.Lang}
			if ref.editor != "" {
				el, err := b.editorLink(ref, fence)
				if err != nil {
					e.add(fence, "source: %v", err)
					continue
				}
				l.Editors = append(l.Editors, el)
				block.editor = &el
			}
			l.quotes = append(l.quotes, ref)
			words += len(strings.Fields(s.code))
			replacement = block
		case "claim":
			c, ok := b.parseClaimFence(lines, fence, e)
			if !ok {
				continue
			}
			l.Claims = append(l.Claims, c)
			script := b.presets[c.Preset]
			if c.API {
				script = b.apiPresets[c.Preset]
			}
			replacement = &claimBlock{claim: c, script: script, lang: l.Lang}
		case "measured":
			m, ok := measuredFigure(lines, fence, l.Lang, e)
			if !ok {
				continue
			}
			replacement = m
		case "plan":
			p, ok := planFence(lines, fence, l.Lang, e)
			if !ok {
				continue
			}
			replacement = p
		case "mermaid":
			src := fenceText(f, body)
			if strings.TrimSpace(src) == "" {
				e.add(fence, "mermaid fence is empty")
				continue
			}
			d := &diagramBlock{label: DiagramLabel(src, l.Lang)}
			for _, theme := range DiagramThemes {
				svg, err := b.diagram(src, theme)
				if err != nil {
					e.add(fence, "%v", err)
					d = nil
					break
				}
				d.svgs = append(d.svgs, svg)
			}
			if d == nil {
				continue
			}
			l.Diagrams++
			replacement = d
		}
		f.Parent().ReplaceChild(f.Parent(), f, replacement)
	}

	for _, link := range links {
		dest := string(link.Destination)
		line := lineAt(nodeOffset(link))
		if strings.HasPrefix(dest, "lab:") {
			ll, ok := b.parseLabLink(dest, line, e)
			if !ok {
				continue
			}
			l.LabLinks = append(l.LabLinks, ll)
			link.Destination = []byte(LabURL(ll.Preset, withDeclared(ll.Handlers, b.presets[ll.Preset])))
			link.SetAttributeString("class", []byte("try-it"))
			continue
		}
		if pl, ok := parsePageLink(dest, l.Slug, line); ok {
			l.links = append(l.links, pl)
		}
	}

	for _, h := range headings {
		id := ""
		if v, ok := h.AttributeString("id"); ok {
			if v, ok := v.([]byte); ok {
				id = string(v)
			}
		}
		l.Headings = append(l.Headings, Heading{Level: h.Level, ID: id, Text: plainText(h, body)})
		if id == "" || (h.Level != 2 && h.Level != 3) {
			continue
		}
		a := ast.NewLink()
		a.Destination = []byte("#" + id)
		a.Title = []byte(say(l.Lang, "lessons.anchor-title"))
		a.SetAttributeString("class", []byte("anchor"))
		a.AppendChild(a, ast.NewString([]byte("#")))
		h.AppendChild(h, ast.NewString([]byte(" ")))
		h.AppendChild(h, a)
	}

	l.ReadingMinutes = max(1, (words+199)/200)

	var out bytes.Buffer
	if err := b.md.Renderer().Render(&out, body, doc); err != nil {
		e.add(0, "render: %v", err)
		return
	}
	l.HTML = template.HTML(out.String())
}

// nodeOffset is the byte offset in the body where n's text starts: its
// first text descendant's, else the first line of the nearest block around
// it; 0 when neither is known.
func nodeOffset(n ast.Node) int {
	off := -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			off = t.Segment.Start
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	if off >= 0 {
		return off
	}
	for p := n; p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			return p.Lines().At(0).Start
		}
	}
	return 0
}

// plainText is the text of an inline tree, without markup.
func plainText(n ast.Node, source []byte) string {
	var sb strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Segment.Value(source))
			if c.SoftLineBreak() || c.HardLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(sb.String())
}

// say is the lessons' own message key (narration's lessons.*) with its
// arguments, in lang.
func say(lang, key string, args ...string) string { return narration.T(key, args...).In(lang) }

// msg picks the English or the Russian text of a lesson's own data (a
// script's title).
func msg(lang, en, ru string) string {
	if lang == Russian {
		return ru
	}
	return en
}

// headingIDs makes heading anchors from the heading's text: lower case,
// letters and digits of any script kept (so Russian headings get Russian
// anchors), runs of spaces and dashes turned into one '-', repeats
// numbered.
type headingIDs struct{ used map[string]bool }

func newHeadingIDs() *headingIDs { return &headingIDs{used: map[string]bool{}} }

func (ids *headingIDs) Generate(value []byte, kind ast.NodeKind) []byte {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(string(value)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if dash && sb.Len() > 0 {
				sb.WriteByte('-')
			}
			dash = false
			sb.WriteRune(r)
		case unicode.IsSpace(r) || r == '-' || r == '_':
			dash = true
		}
	}
	id := sb.String()
	if id == "" {
		id = "section"
	}
	unique := id
	for i := 1; ids.used[unique]; i++ {
		unique = fmt.Sprintf("%s-%d", id, i)
	}
	ids.used[unique] = true
	return []byte(unique)
}

func (ids *headingIDs) Put(value []byte) { ids.used[string(value)] = true }

// The nodes that replace the lab's own fences.
var (
	kindSource  = ast.NewNodeKind("LessonSource")
	kindClaim   = ast.NewNodeKind("LessonClaim")
	kindDiagram = ast.NewNodeKind("LessonDiagram")
)

type sourceBlock struct {
	ast.BaseBlock
	snippet snippet
	lang    string
	editor  *EditorLink // the fence's editor=, nil for none
}

func (n *sourceBlock) Kind() ast.NodeKind { return kindSource }
func (n *sourceBlock) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"File": n.snippet.file, "Decl": n.snippet.decl}, nil)
}

type claimBlock struct {
	ast.BaseBlock
	claim  Claim
	script *script.Script
	lang   string
}

func (n *claimBlock) Kind() ast.NodeKind { return kindClaim }
func (n *claimBlock) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Preset": n.claim.Preset}, nil)
}

// diagramBlock is a mermaid fence drawn ahead of time: its SVG in each of
// DiagramThemes, in that order.
type diagramBlock struct {
	ast.BaseBlock
	label string
	svgs  []string
}

func (n *diagramBlock) Kind() ast.NodeKind { return kindDiagram }
func (n *diagramBlock) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Label": n.label}, nil)
}

// diagram is the committed SVG of a mermaid fence in theme. The SVGs come
// from cmd/diagrams, which renders them with the vendored mermaid; they go
// into the page as they are, so one that carries script or HTML is refused.
func (b *builder) diagram(src, theme string) (string, error) {
	name := path.Join(DiagramDir, DiagramFile(src, theme))
	if b.diagrams == nil {
		return "", fmt.Errorf("mermaid diagram has no rendered SVG (%s): run make diagrams", name)
	}
	data, err := fs.ReadFile(b.diagrams, name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("mermaid diagram has no rendered SVG %s: the fence is new or changed; run make diagrams and commit the SVGs", name)
	}
	if err != nil {
		return "", fmt.Errorf("mermaid diagram: %w", err)
	}
	svg := strings.TrimSpace(string(data))
	lower := strings.ToLower(svg)
	if !strings.HasPrefix(svg, "<svg") || !strings.HasSuffix(svg, "</svg>") {
		return "", fmt.Errorf("%s is not an SVG made by make diagrams", name)
	}
	for _, bad := range []string{"<script", "<foreignobject", "<iframe", "javascript:"} {
		if strings.Contains(lower, bad) {
			return "", fmt.Errorf("%s contains %q: run make diagrams", name, bad)
		}
	}
	if onAttr().MatchString(lower) {
		return "", fmt.Errorf("%s has an event handler attribute: run make diagrams", name)
	}
	return svg, nil
}

// onAttr finds an event handler attribute (onload=, onclick=, …) in a tag.
var onAttr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*\son[a-z]+\s*=`) })

// fenceRenderer renders the nodes above. Every string that came from a
// lesson or a preset is escaped here.
type fenceRenderer struct{}

func (r *fenceRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindSource, r.source)
	reg.Register(kindClaim, r.claim)
	reg.Register(kindDiagram, r.diagram)
	reg.Register(kindMeasured, r.measured)
	reg.Register(kindPlan, r.plan)
	reg.Register(kindCode, r.code)
}

// diagram writes a mermaid fence's SVGs, one per theme; lessons.css shows
// the one of the page's theme. The figure is one image to assistive
// technology, named by the diagram's accTitle.
func (r *fenceRenderer) diagram(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*diagramBlock)
	fmt.Fprintf(w, `<figure class="diagram" role="img" aria-label="%s">`+"\n", html.EscapeString(n.label))
	for i, svg := range n.svgs {
		fmt.Fprintf(w, `<div class="diagram-%s">`, DiagramThemes[i])
		_, _ = w.WriteString(svg)
		_, _ = w.WriteString("</div>\n")
	}
	_, _ = w.WriteString("</figure>\n")
	return ast.WalkContinue, nil
}

func (r *fenceRenderer) claim(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*claimBlock)
	c, lang := n.claim, n.lang
	esc := html.EscapeString
	class := "claim"
	if c.API {
		class = "claim claim-api"
	}
	fmt.Fprintf(w, `<aside class="%s" data-preset="%s">`+"\n", class, esc(c.Preset))
	fmt.Fprintf(w, `<p class="claim-head"><span class="claim-label">%s</span> `, say(lang, "lessons.claim.scenario"))
	if n.script != nil {
		if title := msg(lang, n.script.Title, n.script.TitleRU); title != "" {
			fmt.Fprintf(w, `<span class="claim-title">%s</span> `, esc(title))
		}
	}
	fmt.Fprintf(w, `<code class="claim-preset">%s</code>`, esc(c.Preset))
	if c.Engine == "real" {
		fmt.Fprintf(w, ` <span class="claim-engine">%s</span>`, say(lang, "lessons.claim.real"))
	}
	if c.Broker != "" {
		fmt.Fprintf(w, ` <span class="claim-broker">%s %s</span>`, say(lang, "lessons.claim.on"), esc(BrokerName(c.Broker)))
	}
	_, _ = w.WriteString("</p>\n")
	_, _ = w.WriteString(`<ul class="claim-verdicts">` + "\n")
	for _, v := range c.Verdicts {
		fmt.Fprintf(w, `<li><code class="claim-handler">%s</code> <span class="claim-arrow">→</span> <span class="verdict verdict-%s">%s</span></li>`+"\n",
			esc(v.Handler), esc(string(v.Verdict)), esc(VerdictLabel(v.Verdict, lang)))
	}
	_, _ = w.WriteString("</ul>\n")
	lab := labLink(c.Preset, withDeclared(c.Handlers(), n.script))
	if slices.Contains(InProcessBrokers, c.Broker) {
		lab.Broker = c.Broker // the lab runs it on the real broker too
	}
	if n.script != nil {
		// A preset opens at step 0; a claim is about where its story ends,
		// so the button opens the lab there.
		lab.Step, lab.HasStep = len(n.script.Steps), true
	}
	try := lab.String()
	if c.API {
		// The lab runs the API side's presets too; the box also names
		// the live endpoint to try, and the command that runs it.
		fmt.Fprintf(w, `<p class="claim-action"><a class="try-it" href="%s">%s</a> <a class="try-it" href="%s">%s</a></p>`+"\n",
			esc(try), say(lang, "lessons.claim.try"),
			TryAPIURL, say(lang, "lessons.claim.try-api"))
		fmt.Fprintf(w, `<p class="claim-note">%s <code>%s</code></p>`+"\n",
			say(lang, "lessons.claim.note-api"),
			esc(RunCommand(c)))
		_, _ = w.WriteString("</aside>\n")
		return ast.WalkContinue, nil
	}
	fmt.Fprintf(w, `<p class="claim-action"><a class="try-it" href="%s">%s</a></p>`+"\n",
		esc(try), say(lang, "lessons.claim.try"))
	note := say(lang, "lessons.claim.note")
	if c.Engine == "real" {
		note = say(lang, "lessons.claim.note-real")
	}
	switch c.Broker {
	case "nats":
		note = say(lang, "lessons.claim.note-nats")
	case "kafka":
		note = say(lang, "lessons.claim.note-kafka")
	case "rabbitmq":
		note = say(lang, "lessons.claim.note-rabbitmq")
	case "":
	default:
		note = say(lang, "lessons.claim.note-profile", esc(BrokerName(c.Broker)))
	}
	fmt.Fprintf(w, `<p class="claim-note">%s</p>`+"\n", note)
	_, _ = w.WriteString("</aside>\n")
	return ast.WalkContinue, nil
}

func (r *fenceRenderer) source(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*sourceBlock)
	s := n.snippet
	esc := html.EscapeString
	fmt.Fprintf(w, `<figure class="source" data-file="%s" data-decl="%s">`+"\n", esc(s.file), esc(s.decl))
	fmt.Fprintf(w, `<figcaption class="source-caption"><code class="source-file">handlers/%s</code>`, esc(s.file))
	if len(s.marks) > 0 {
		fmt.Fprintf(w, ` <span class="source-note">%s</span>`,
			say(n.lang, "lessons.source.marks"))
	}
	_, _ = w.WriteString("</figcaption>\n")
	opts := highlight.Options{LineNumbers: true, First: s.first, Marks: s.marks}
	if err := highlight.WriteHTML(w, highlight.Go(s.code), opts); err != nil {
		return ast.WalkStop, err
	}
	if n.editor != nil {
		sourceAction(w, n.editor, n.lang)
	}
	_, _ = w.WriteString("</figure>\n")
	return ast.WalkContinue, nil
}
