package lessons

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/idempotency-lab/lab/internal/highlight"
)

// A code fence is highlighted without chroma in the binary (#30: chroma
// initialises every lexer and style at package init, 20 ms of CPU in
// every sandbox child). Go is highlighted as the course loads, by
// internal/highlight, in chroma's markup and classes; text (text, plain,
// plaintext, no-highlight) is shown as chroma's plaintext lexer shows it.
// A fence in any other language (sql, json, lua, sh, yaml, …) is
// highlighted ahead of time by chroma itself: `make highlight` writes the
// HTML of each distinct fence into code/ beside content/, named by a hash
// of its language and text, and the course embeds those files as it does
// its diagrams. A fence edited without regenerating has no file, and Load
// fails naming the lesson and the line. A fence with no language is
// plain <pre><code>, as before.

// CodeDir is where a course keeps its fences highlighted ahead of time,
// beside content/.
const CodeDir = "code"

// CodeFile is the name, under CodeDir, of the HTML of a fence in lang
// whose text is source: the first 16 hex digits of the SHA-256 of both.
func CodeFile(lang, source string) string {
	sum := sha256.Sum256([]byte(lang + "\x00" + source))
	return hex.EncodeToString(sum[:8]) + ".html"
}

// CodeFence is one fence of a course highlighted ahead of time.
type CodeFence struct {
	File   string // the lesson file: content/03-unique.en.md
	Line   int    // the line of the fence's opening ``` in File
	Lang   string // the fence's language: sql
	Source string // the fence's text, as CodeFile hashes it
}

// CodeFences finds every fence of fsys's content/*.md that `make
// highlight` renders ahead of time (see CodeFile), in file order.
func CodeFences(fsys fs.FS) ([]CodeFence, error) {
	var all []CodeFence
	err := eachFence(fsys, func(name string, line int, lang, src string) {
		if prerendered(lang) {
			all = append(all, CodeFence{File: name, Line: line, Lang: lang, Source: src})
		}
	})
	return all, err
}

// ownFence: the fences the lab renders itself (render.go).
func ownFence(lang string) bool {
	switch lang {
	case "source", "claim", "mermaid", "measured", "plan":
		return true
	}
	return false
}

// highlightNow: the languages highlighted as the course loads.
func highlightNow(lang string) bool {
	switch lang {
	case "go", "golang", "text", "plain", "plaintext", "no-highlight":
		return true
	}
	return false
}

func prerendered(lang string) bool { return lang != "" && !ownFence(lang) && !highlightNow(lang) }

// codeHTML is the highlighted HTML of a fence in lang: made now for Go and
// text, read from the course's code/ otherwise.
func (b *builder) codeHTML(lang, src string) (string, error) {
	var buf bytes.Buffer
	switch lang {
	case "go", "golang":
		if err := highlight.WriteHTML(&buf, highlight.Go(src), highlight.Options{}); err != nil {
			return "", err
		}
		return buf.String(), nil
	case "text", "plain", "plaintext", "no-highlight":
		if err := highlight.WriteHTML(&buf, highlight.Plain(src), highlight.Options{}); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	name := path.Join(CodeDir, CodeFile(lang, src))
	if b.diagrams == nil {
		return "", fmt.Errorf("%s fence has no highlighted HTML (%s): run make highlight", lang, name)
	}
	data, err := fs.ReadFile(b.diagrams, name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s fence has no highlighted HTML %s: the fence is new or changed; run make highlight and commit the file", lang, name)
	}
	if err != nil {
		return "", fmt.Errorf("%s fence: %w", lang, err)
	}
	html := string(data)
	lower := strings.ToLower(html)
	if !strings.HasPrefix(html, "<pre") || !strings.HasSuffix(strings.TrimSpace(html), "</pre>") {
		return "", fmt.Errorf("%s is not HTML made by make highlight", name)
	}
	for _, bad := range []string{"<script", "<iframe", "<style", "<object", "javascript:"} {
		if strings.Contains(lower, bad) {
			return "", fmt.Errorf("%s contains %q: run make highlight", name, bad)
		}
	}
	if onAttr().MatchString(lower) {
		return "", fmt.Errorf("%s has an event handler attribute: run make highlight", name)
	}
	return html, nil
}

var kindCode = ast.NewNodeKind("LessonCode")

// codeBlock is a fence replaced by its highlighted HTML.
type codeBlock struct {
	ast.BaseBlock
	html string
}

func (n *codeBlock) Kind() ast.NodeKind { return kindCode }
func (n *codeBlock) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, nil, nil)
}

func (r *fenceRenderer) code(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		_, _ = w.WriteString(node.(*codeBlock).html)
	}
	return ast.WalkContinue, nil
}

// eachFence calls f with every fenced code block of fsys's content/*.md:
// its file, the line of its opening fence, its language and its text.
func eachFence(fsys fs.FS, f func(name string, line int, lang, src string)) error {
	names, err := fs.Glob(fsys, "content/*.md")
	if err != nil {
		return err
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		_, body, bodyLine, err := splitFrontMatter(data)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		doc := md.Parser().Parse(text.NewReader(body))
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if fc, ok := n.(*ast.FencedCodeBlock); ok && entering && fc.Info != nil {
				f(name, bodyLine+bytes.Count(body[:fc.Info.Segment.Start], []byte("\n")), string(fc.Language(body)), fenceText(fc, body))
			}
			return ast.WalkContinue, nil
		})
	}
	return nil
}
