package lessons

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// A `mermaid` fence is drawn ahead of time: `make diagrams` (cmd/diagrams)
// renders each distinct fence source with the vendored mermaid in headless
// Chromium, once per theme, into diagrams/ next to content/, and the
// lessons embed those SVGs inline. A file's name is a hash of the fence's
// exact source, so a fence edited without regenerating has no SVG, and Load
// fails naming the lesson and the line.

// DiagramDir is where a course keeps its rendered diagrams, beside content/.
const DiagramDir = "diagrams"

// DiagramThemes are the themes every diagram is rendered in: the page shows
// the one that matches its own (lessons.css).
var DiagramThemes = []string{"light", "dark"}

// Diagram is one mermaid fence of a course.
type Diagram struct {
	File   string // the lesson file: content/01-duplicates.en.md
	Line   int    // the line of the fence's opening ``` in File
	Lang   string // the lesson's language, from the file name
	Source string // the fence's text, exactly as the SVGs' names hash it
}

// DiagramFile is the name, under DiagramDir, of the SVG of a fence whose
// text is source, in theme: the first 16 hex digits of the text's SHA-256.
func DiagramFile(source, theme string) string {
	sum := sha256.Sum256([]byte(source))
	return hex.EncodeToString(sum[:8]) + "." + theme + ".svg"
}

// Diagrams finds every mermaid fence in fsys's content/*.md, in file order.
// It reads the fences as Load does, but checks nothing else, so it works on
// a course whose diagrams are not rendered yet.
func Diagrams(fsys fs.FS) ([]Diagram, error) {
	names, err := fs.Glob(fsys, "content/*.md")
	if err != nil {
		return nil, err
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	var all []Diagram
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		_, body, bodyLine, err := splitFrontMatter(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		doc := md.Parser().Parse(text.NewReader(body))
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			f, ok := n.(*ast.FencedCodeBlock)
			if !entering || !ok || string(f.Language(body)) != "mermaid" {
				return ast.WalkContinue, nil
			}
			src := fenceText(f, body)
			if strings.TrimSpace(src) == "" {
				return ast.WalkContinue, nil
			}
			all = append(all, Diagram{
				File:   name,
				Line:   bodyLine + bytes.Count(body[:f.Info.Segment.Start], []byte("\n")),
				Lang:   langOfFile(name),
				Source: src,
			})
			return ast.WalkContinue, nil
		})
	}
	return all, nil
}

// fenceText is a fence's lines as they are in the file.
func fenceText(f *ast.FencedCodeBlock, body []byte) string {
	var sb strings.Builder
	for i := 0; i < f.Lines().Len(); i++ {
		seg := f.Lines().At(i)
		sb.Write(seg.Value(body))
	}
	return sb.String()
}

// langOfFile is the language in a lesson's file name (NN-slug.LANG.md).
func langOfFile(name string) string {
	base := strings.TrimSuffix(path.Base(name), ".md")
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		return base[i+1:]
	}
	return ""
}

// DiagramLabel is the accessible name of a diagram: its accTitle line, or
// "Diagram" in lang when it has none.
func DiagramLabel(source, lang string) string {
	for _, line := range strings.Split(source, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "accTitle"); ok {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(rest), ":"); ok && strings.TrimSpace(rest) != "" {
				return strings.TrimSpace(rest)
			}
		}
	}
	return say(lang, "lessons.diagram")
}
