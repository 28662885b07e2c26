package lessons

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark/util"
)

// TestHighlightedAhead holds what `make highlight` committed to what
// chroma makes now: each course's code/*.html (one per fence in a
// language the lab does not highlight itself, as goldmark-highlighting
// rendered it with chroma's github style and classes) and codestyle/*.css
// (chroma's CSS of each style). Chroma is linked into this test only, never
// into the lab. With -update it writes the files and removes stale ones.
func TestHighlightedAhead(t *testing.T) {
	for _, dir := range []string{".", "testdata/course"} {
		fences, err := CodeFences(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, f := range fences {
			want[CodeFile(f.Lang, f.Source)] = chromaFence(t, f.Lang, f.Source)
		}
		if dir == "." {
			for _, name := range []string{LightStyle, DarkStyle} {
				want[filepath.Join("..", StyleDir, name+".css")] = chromaCSS(t, name)
			}
		}
		codeDir := filepath.Join(dir, CodeDir)
		if *update {
			if err := os.MkdirAll(codeDir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		old, _ := filepath.Glob(filepath.Join(codeDir, "*.html"))
		for _, path := range old {
			if _, ok := want[filepath.Base(path)]; ok {
				continue
			}
			if *update {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s belongs to no fence: run make highlight", path)
		}
		names := make([]string, 0, len(want))
		for name := range want {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			path := filepath.Join(codeDir, name)
			if *update {
				if err := os.WriteFile(path, []byte(want[name]), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s is missing: run make highlight", path)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want[name] {
				t.Errorf("%s is not what chroma makes: run make highlight", path)
			}
		}
	}
}

// chromaFence is what goldmark-highlighting (WithStyle github, classes)
// wrote for a fence: chroma's HTML, or, for a language chroma does not
// know, goldmark's plain block with the language as a class.
func chromaFence(t *testing.T, lang, src string) string {
	t.Helper()
	lexer := lexers.Get(lang)
	if lexer == nil {
		var b bytes.Buffer
		b.WriteString(`<pre><code class="language-`)
		b.Write(util.EscapeHTML([]byte(lang)))
		b.WriteString(`">`)
		b.Write(util.EscapeHTML([]byte(src)))
		b.WriteString("</code></pre>\n")
		return b.String()
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := chromahtml.New(chromahtml.WithClasses(true)).Format(&b, styles.Get(LightStyle), it); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// chromaCSS is chroma's CSS of a style as the course's code is formatted.
func chromaCSS(t *testing.T, name string) string {
	t.Helper()
	style, ok := styles.Registry[name]
	if !ok {
		t.Fatalf("chroma has no style %q", name)
	}
	var b strings.Builder
	f := chromahtml.New(chromahtml.WithClasses(true), chromahtml.WithLineNumbers(true), chromahtml.WithCSSComments(false))
	if err := f.WriteCSS(&b, style); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
