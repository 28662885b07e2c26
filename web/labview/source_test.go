package labview

import (
	"strings"
	"testing"
)

// TestHighlightSource: a handler's file as the source card shows it, each
// token in the page's own classes (internal/highlight gives chroma's), the
// handler's function cut out with its doc comment, and no line for the
// file's final newline.
func TestHighlightSource(t *testing.T) {
	src := "package handlers\n\n// Handle credits once.\nfunc Handle(d Deps) error {\n\tn := len(\"x\") + 0x1F // why\n\treturn nil\n}\n\nvar after = 1\n"
	v, err := highlightSource("h.go", "Handle", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Lines) != 9 {
		t.Fatalf("%d lines, want 9", len(v.Lines))
	}
	if len(v.Before) != 2 || len(v.Func) != 5 || len(v.After) != 2 {
		t.Errorf("before %d, func %d, after %d lines; want 2, 5, 2", len(v.Before), len(v.Func), len(v.After))
	}
	var got []string
	for _, tok := range v.Lines[4].Tokens {
		if strings.TrimSpace(tok.Text) != "" {
			got = append(got, tok.Class+":"+strings.TrimSpace(tok.Text))
		}
	}
	want := `:n o::= nb:len :( s:"x" :) o:+ m:0x1F c:// why`
	if g := strings.Join(got, " "); g != want {
		t.Errorf("line 5:\n got %s\nwant %s", g, want)
	}
	if tok := v.Lines[3].Tokens[0]; tok.Class != "k" || tok.Text != "func" {
		t.Errorf("line 4 starts with %+v, want func as k", tok)
	}
	if tok := v.Lines[3].Tokens[len(v.Lines[3].Tokens)-2]; tok.Class != "kt" || tok.Text != "error" {
		t.Errorf("error is %+v, want kt", tok)
	}
}
