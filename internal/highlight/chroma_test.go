package highlight

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// TestAsChroma: on the Go the lab shows (the handlers, the handler files
// of the sandbox's tests, the lessons' go fences) the HTML is chroma's,
// byte for byte, as the lessons and the lab showed it before (#30).
// Chroma is linked into this test only.
func TestAsChroma(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../handlers/*.go", "../../sandbox/testdata/builtin/*.go", "../../practice/_exercises/*/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d files", len(files))
	}
	srcs := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = string(data)
	}
	lessons, _ := filepath.Glob("../../lessons/content/*.md")
	for _, f := range lessons {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, fence := range strings.Split(string(data), "```go\n")[1:] {
			code, _, ok := strings.Cut(fence, "```")
			if ok {
				srcs[f+"#"+string(rune('a'+i))] = code
			}
		}
	}
	for name, src := range srcs {
		for _, o := range []Options{{}, {LineNumbers: true, First: 7, Marks: [][2]int{{9, 9}, {12, 13}}}} {
			var got strings.Builder
			if err := WriteHTML(&got, Go(src), o); err != nil {
				t.Fatal(err)
			}
			if want := chromaHTML(t, "go", src, o); got.String() != want {
				g, w := got.String(), want
				i := 0
				for i < len(g) && i < len(w) && g[i] == w[i] {
					i++
				}
				t.Errorf("%s (%+v) differs from chroma at byte %d:\n got …%s\nwant …%s", name, o, i, g[i:min(len(g), i+200)], w[i:min(len(w), i+200)])
			}
		}
	}
}

// TestPlainAsChroma: text as chroma's plaintext lexer shows it.
func TestPlainAsChroma(t *testing.T) {
	for _, src := range []string{"", "a", "QUERY PLAN\n|--SCAN orders\n`--SEARCH x USING INDEX i (a=?)\n", "<&>\"'\n\n\nx", "a\r\nb\rc"} {
		var got strings.Builder
		if err := WriteHTML(&got, Plain(src), Options{}); err != nil {
			t.Fatal(err)
		}
		if want := chromaHTML(t, "plaintext", src, Options{}); got.String() != want {
			t.Errorf("%q:\n got %s\nwant %s", src, got.String(), want)
		}
	}
}

func chromaHTML(t *testing.T, lang, src string, o Options) string {
	t.Helper()
	it, err := chroma.Coalesce(lexers.Get(lang)).Tokenise(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromahtml.Option{chromahtml.WithClasses(true)}
	if o.LineNumbers {
		opts = append(opts, chromahtml.WithLineNumbers(true))
	}
	if o.First != 0 {
		opts = append(opts, chromahtml.BaseLineNumber(o.First))
	}
	if o.Marks != nil {
		opts = append(opts, chromahtml.HighlightLines(o.Marks))
	}
	var b strings.Builder
	if err := chromahtml.New(opts...).Format(&b, styles.Get("github"), it); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
