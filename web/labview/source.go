package labview

import (
	"context"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/internal/highlight"
	"github.com/idempotency-lab/lab/web/page"
)

// sourceView is a handler's Go file, split into highlighted lines, with the
// lines where the lab may crash the worker or let a second one in marked.
type sourceView struct {
	File  string
	Lines []codeLine
	// The file in three parts: the handler function with its doc comment,
	// which the card shows, and what comes before and after it, folded.
	Before, Func, After []codeLine
}

type codeLine struct {
	N      int
	Tokens []codeToken
	Mark   string // handlers.BeforeEffect, AfterEffect, Yield or ""
}

// codeToken is a run of source text with a highlighting class; templates
// escape Text like any other text, so no HTML is ever built by hand.
type codeToken struct {
	Class string
	Text  string
}

// highlightSource tokenises Go source (internal/highlight, chroma's
// classes) and keeps only what the page needs: a small set of classes the
// lab's own stylesheet colours for the light and the dark theme.
func highlightSource(file, funcName, src string) (sourceView, error) {
	v := sourceView{File: file}
	marks := map[int]string{}
	for name, lines := range handlers.Marks(src) {
		for _, n := range lines {
			marks[n] = name
		}
	}
	for i, toks := range highlight.Lines(highlight.Go(src)) {
		line := codeLine{N: i + 1, Mark: marks[i+1]}
		for _, t := range toks {
			text := strings.TrimRight(t.Text, "\n")
			if text == "" {
				continue
			}
			cls := tokenClass(t.Class)
			if n := len(line.Tokens); n > 0 && line.Tokens[n-1].Class == cls {
				line.Tokens[n-1].Text += text
				continue
			}
			line.Tokens = append(line.Tokens, codeToken{Class: cls, Text: text})
		}
		v.Lines = append(v.Lines, line)
	}
	// The lexer gives no line for a file's final newline.
	for len(v.Lines) > 0 && len(v.Lines[len(v.Lines)-1].Tokens) == 0 {
		v.Lines = v.Lines[:len(v.Lines)-1]
	}
	v.Func = v.Lines
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "func "+funcName+"(") {
			continue
		}
		start := i
		for start > 0 && strings.HasPrefix(lines[start-1], "//") {
			start--
		}
		for end := i; end < len(lines) && end < len(v.Lines); end++ {
			if lines[end] == "}" {
				v.Before, v.Func, v.After = v.Lines[:start], v.Lines[start:end+1], v.Lines[end+1:]
				break
			}
		}
		break
	}
	return v, nil
}

// codeBlock writes highlighted lines. It is written by hand rather than in
// templ because inside <pre> every space counts, and templ puts spaces
// between elements. Every text is escaped; the classes are our own.
func codeBlock(t page.Text, lines []codeLine, crashes map[string][]int) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(`<span class="line`)
			if l.Mark != "" {
				b.WriteString(" mark mark-" + l.Mark)
				if len(crashes[l.Mark]) > 0 {
					b.WriteString(" crashed")
				}
			}
			b.WriteString(`"><span class="ln" aria-hidden="true">` + strconv.Itoa(l.N) + `</span>`)
			for _, tok := range l.Tokens {
				if tok.Class == "" {
					b.WriteString(html.EscapeString(tok.Text))
					continue
				}
				b.WriteString(`<span class="t-` + tok.Class + `">` + html.EscapeString(tok.Text) + `</span>`)
			}
			if l.Mark != "" {
				b.WriteString(`<span class="mark-label">` + html.EscapeString(markLabel(t, l.Mark)) + `</span>`)
			}
			if steps := crashes[l.Mark]; len(steps) > 0 {
				b.WriteString(`<span class="crash-label"><span aria-hidden="true">✕ </span>` +
					html.EscapeString(t.F("src.crashed", steps[len(steps)-1])) + `</span>`)
			}
			b.WriteString("</span>")
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// tokenClass is the page's class of a token of chroma's class: comments,
// types, other keywords, strings, numbers, called names, built-ins and
// operators; nothing else is coloured.
func tokenClass(class string) string {
	switch {
	case class == "":
		return ""
	case class[0] == 'c':
		return "c"
	case class == "kt":
		return "kt"
	case class[0] == 'k':
		return "k"
	case class[0] == 's':
		return "s"
	case class[0] == 'm':
		return "m"
	case class == "nf", class == "nb", class == "o":
		return class
	}
	return ""
}
