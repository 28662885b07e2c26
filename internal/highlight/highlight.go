// Package highlight colours Go source (and shows plain text) in the markup
// and with the CSS classes of chroma's HTML formatter, so the course's
// stylesheet (chroma's github and github-dark styles) keeps colouring it.
//
// It replaces chroma in the lab's binary (#30): chroma registers every
// lexer and style in its package initialisation, about 20 ms of CPU that
// every sandbox child paid at start without ever highlighting anything.
// This package has no initialisation: Go is tokenised by the standard
// library's go/scanner, which is exact for Go, and each token gets the
// class chroma's Go lexer gives it (keywords kd, kn, k, kc; types kt;
// built-ins called nb; called names nf; other names nx; strings s and sc;
// numbers mi, mf, mh, mo, mb, m; comments c1, cp, cm; operators o;
// punctuation p; whitespace w; anything Go does not allow err). Where
// chroma's regular expressions and Go disagree (a template action inside a
// raw string, a hexadecimal float, an unterminated comment) this follows Go.
package highlight

import (
	"go/scanner"
	"go/token"
	"html"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token is a run of source text and its CSS class: one of chroma's short
// class names, or "" for text chroma leaves without a class.
type Token struct {
	Class string
	Text  string
}

// Go tokenises Go source. Line endings become "\n" (as chroma's do), and
// adjacent tokens of one class are joined, so the texts of the tokens
// concatenated are the source with its line endings normalised.
func Go(src string) []Token {
	src = ensureLF(src)
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, scanner.ScanComments)
	var out tokens
	at := 0 // the end of the last token written
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted by the scanner, not in the source
		}
		off := file.Offset(pos)
		if off < at {
			continue
		}
		var end int
		switch {
		case tok == token.ILLEGAL:
			_, size := utf8.DecodeRuneInString(src[off:])
			end = off + max(size, 1)
		case lit != "":
			end = off + len(lit)
		default:
			end = off + len(tok.String())
		}
		end = min(end, len(src))
		if off > at {
			out.add("w", src[at:off]) // go/scanner skips only whitespace (and a leading BOM)
		}
		text := src[off:end]
		out.add(goClass(tok, text, src[end:]), text)
		at = end
	}
	if at < len(src) {
		out.add("w", src[at:])
	}
	return out
}

// Plain is text without highlighting, as chroma's plaintext lexer gives it.
func Plain(src string) []Token {
	src = ensureLF(src)
	if src == "" {
		return nil
	}
	return []Token{{Text: src}}
}

// goClass is chroma's class for a Go token; rest is the source after it.
func goClass(tok token.Token, text, rest string) string {
	switch {
	case tok == token.COMMENT:
		if strings.HasPrefix(text, "/*") {
			return "cm"
		}
		// chroma: a comment whose first character is not a space is a
		// directive (//go:build, //nolint).
		if r, _ := utf8.DecodeRuneInString(text[2:]); len(text) > 2 && !unicode.IsSpace(r) {
			return "cp"
		}
		return "c1"
	case tok.IsKeyword():
		switch tok {
		case token.IMPORT, token.PACKAGE:
			return "kn"
		case token.VAR, token.FUNC, token.STRUCT, token.MAP, token.CHAN, token.TYPE, token.INTERFACE, token.CONST:
			return "kd"
		}
		return "k"
	case tok == token.IDENT:
		switch {
		case text == "true" || text == "false" || text == "iota" || text == "nil":
			return "kc"
		case strings.HasPrefix(rest, "(") && builtinCall(text):
			return "nb"
		case goType(text):
			return "kt"
		case asciiStart(text) && strings.HasPrefix(strings.TrimLeftFunc(rest, unicode.IsSpace), "("):
			return "nf"
		}
		return "nx"
	case tok == token.INT:
		switch {
		case len(text) > 1 && (text[1] == 'x' || text[1] == 'X'):
			return "mh"
		case len(text) > 1 && (text[1] == 'b' || text[1] == 'B'):
			return "mb"
		case len(text) > 1 && text[0] == '0':
			return "mo"
		}
		return "mi"
	case tok == token.FLOAT:
		return "mf"
	case tok == token.IMAG:
		return "m"
	case tok == token.CHAR:
		return "sc"
	case tok == token.STRING:
		return "s"
	case tok == token.ILLEGAL:
		return "err"
	}
	switch text {
	case "<<=", ">>=", "<<", ">>", "<=", ">=", "&^=", "&^", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
		"&&", "||", "<-", "++", "--", "==", "!=", ":=", "...", "+", "-", "*", "/", "%", "&":
		return "o"
	}
	return "p"
}

// builtinCall: the names chroma's Go lexer calls built-ins when a "("
// follows at once (conversions to the predeclared types included).
func builtinCall(name string) bool {
	switch name {
	case "uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64",
		"float", "float32", "float64", "complex64", "complex128", "byte", "rune", "string", "bool",
		"error", "uintptr", "print", "println", "panic", "recover", "close", "complex", "real", "imag",
		"len", "cap", "append", "copy", "delete", "new", "make", "clear", "min", "max":
		return true
	}
	return false
}

// goType: the predeclared types (chroma's list, "float" and "any" included).
func goType(name string) bool {
	switch name {
	case "uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64",
		"float", "float32", "float64", "complex64", "complex128", "byte", "rune", "string", "bool",
		"error", "uintptr", "any":
		return true
	}
	return false
}

func asciiStart(name string) bool {
	c := name[0]
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// tokens joins adjacent tokens of one class, as chroma's Coalesce does.
type tokens []Token

func (t *tokens) add(class, text string) {
	if text == "" {
		return
	}
	if n := len(*t); n > 0 && (*t)[n-1].Class == class {
		(*t)[n-1].Text += text
		return
	}
	*t = append(*t, Token{class, text})
}

// ensureLF turns "\r\n" and a lone "\r" into "\n", as chroma does.
func ensureLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// Lines splits tokens into lines, as chroma's SplitTokensIntoLines does:
// each line's last token ends with its "\n"; a token that spans lines is
// cut at each one.
func Lines(toks []Token) [][]Token {
	var out [][]Token
	var line []Token
	for _, t := range toks {
		for {
			i := strings.IndexByte(t.Text, '\n')
			if i < 0 {
				break
			}
			line = append(line, Token{t.Class, t.Text[:i+1]})
			out = append(out, line)
			line = nil
			t.Text = t.Text[i+1:]
		}
		if t.Text != "" {
			line = append(line, t)
		}
	}
	if len(line) > 0 {
		out = append(out, line)
	}
	return out
}

// Options are the formatter's: line numbers from First (1 when 0), and the
// lines (numbered as shown, in inclusive ranges) marked with the class hl.
type Options struct {
	LineNumbers bool
	First       int
	Marks       [][2]int
}

// WriteHTML writes tokens as chroma's HTML formatter does with classes:
// <pre class="chroma"><code>, each line a <span class="line"> holding its
// number (<span class="ln">) when asked and its code (<span class="cl">),
// each token with a class in a <span> of it, every text escaped.
func WriteHTML(w io.Writer, toks []Token, o Options) error {
	first := o.First
	if first == 0 {
		first = 1
	}
	lines := Lines(toks)
	digits := len(strconv.Itoa(first + len(lines) - 1))
	var b strings.Builder
	b.WriteString(`<pre class="chroma"><code>`)
	for i, line := range lines {
		n := first + i
		if marked(o.Marks, n) {
			b.WriteString(`<span class="line hl">`)
		} else {
			b.WriteString(`<span class="line">`)
		}
		if o.LineNumbers {
			num := strconv.Itoa(n)
			b.WriteString(`<span class="ln">` + strings.Repeat(" ", max(0, digits-len(num))) + num + `</span>`)
		}
		b.WriteString(`<span class="cl">`)
		for _, t := range line {
			if t.Class == "" {
				b.WriteString(html.EscapeString(t.Text))
				continue
			}
			b.WriteString(`<span class="` + t.Class + `">` + html.EscapeString(t.Text) + `</span>`)
		}
		b.WriteString(`</span></span>`)
	}
	b.WriteString(`</code></pre>`)
	_, err := io.WriteString(w, b.String())
	return err
}

func marked(marks [][2]int, n int) bool {
	for _, m := range marks {
		if m[0] <= n && n <= m[1] {
			return true
		}
	}
	return false
}
