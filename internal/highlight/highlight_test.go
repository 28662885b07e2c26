package highlight

import (
	"html"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

func TestGo(t *testing.T) {
	for _, c := range []struct {
		src  string
		want string // class:text tokens, space separated; w tokens left out
	}{
		{"package main", "kn:package nx:main"},
		{"import \"fmt\"", "kn:import s:\"fmt\""},
		{"func f(x int) error {", "kd:func nf:f p:( nx:x kt:int p:) kt:error p:{"},
		{"return nil, true", "k:return kc:nil p:, kc:true"},
		{"x := len(s) + cap (s)", "nx:x o::= nb:len p:( nx:s p:) o:+ nf:cap p:( nx:s p:)"},
		{"var b = []byte(s)", "kd:var nx:b p:= p:[] nb:byte p:( nx:s p:)"},
		{"_ = any(x)", "nx:_ p:= kt:any p:( nx:x p:)"},
		{"fmt.Println(`a\nb`)", "nx:fmt p:. nf:Println p:( s:`a\nb` p:)"},
		{"c := 'x' + '\\n'", "nx:c o::= sc:'x' o:+ sc:'\\n'"},
		{"n := 0x1F + 0b10 + 0o17 + 017 + 42 + 1.5e3 + 2i", "nx:n o::= mh:0x1F o:+ mb:0b10 o:+ mo:0o17 o:+ mo:017 o:+ mi:42 o:+ mf:1.5e3 o:+ m:2i"},
		{"// a comment\n//go:build x\n/* block\n */", "c1:// a comment cp://go:build x cm:/* block\n */"},
		{"a &^= b; c ^= d; e |= f; g <- h", "nx:a o:&^= nx:b p:; nx:c p:^= nx:d p:; nx:e o:|= nx:f p:; nx:g o:<- nx:h"},
		{"if x != nil && !ok {", "k:if nx:x o:!= kc:nil o:&& p:! nx:ok p:{"},
		{"f(a...)", "nf:f p:( nx:a o:... p:)"},
		{"x @ y", "nx:x err:@ nx:y"},
		{"héllo(x)", "nf:héllo p:( nx:x p:)"},
		{"éa(x)", "nx:éa p:( nx:x p:)"},
		{"s := \"unterminated\nx", "nx:s o::= s:\"unterminated nx:x"},
	} {
		var got []string
		for _, tok := range Go(c.src) {
			if tok.Class != "w" {
				got = append(got, tok.Class+":"+tok.Text)
			}
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("Go(%q)\n got %s\nwant %s", c.src, g, c.want)
		}
	}
}

func TestWriteHTML(t *testing.T) {
	var b strings.Builder
	src := "a := \"<b>\"\n\nb()\n"
	if err := WriteHTML(&b, Go(src), Options{LineNumbers: true, First: 9, Marks: [][2]int{{10, 10}}}); err != nil {
		t.Fatal(err)
	}
	want := `<pre class="chroma"><code>` +
		`<span class="line"><span class="ln"> 9</span><span class="cl"><span class="nx">a</span><span class="w"> </span><span class="o">:=</span><span class="w"> </span><span class="s">&#34;&lt;b&gt;&#34;</span><span class="w">` + "\n" + `</span></span></span>` +
		`<span class="line hl"><span class="ln">10</span><span class="cl"><span class="w">` + "\n" + `</span></span></span>` +
		`<span class="line"><span class="ln">11</span><span class="cl"><span class="nf">b</span><span class="p">()</span><span class="w">` + "\n" + `</span></span></span>` +
		`</code></pre>`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

var (
	tag        = regexp.MustCompile(`<[^>]*>`)
	lineNumber = regexp.MustCompile(`<span class="ln">[ 0-9]*</span>`)
)

// checkTokens holds what every tokenisation must: the texts are the
// source (line endings as "\n"), no token is empty, no two neighbours
// share a class, every class is one chroma's stylesheet knows, and the
// HTML, its tags taken away and unescaped, is the text again.
func checkTokens(t *testing.T, src string, toks []Token) {
	t.Helper()
	known := map[string]bool{"": true, "w": true, "err": true, "kd": true, "kn": true, "k": true, "kc": true,
		"kt": true, "nb": true, "nf": true, "nx": true, "s": true, "sc": true, "mi": true, "mf": true, "mh": true,
		"mo": true, "mb": true, "m": true, "c1": true, "cp": true, "cm": true, "o": true, "p": true}
	var all strings.Builder
	for i, tok := range toks {
		if tok.Text == "" {
			t.Fatalf("token %d is empty", i)
		}
		if i > 0 && toks[i-1].Class == tok.Class {
			t.Fatalf("tokens %d and %d share the class %q", i-1, i, tok.Class)
		}
		if !known[tok.Class] {
			t.Fatalf("unknown class %q", tok.Class)
		}
		all.WriteString(tok.Text)
	}
	if want := ensureLF(src); all.String() != want {
		t.Fatalf("tokens make %q, not %q", all.String(), want)
	}
	var b strings.Builder
	if err := WriteHTML(&b, toks, Options{LineNumbers: true}); err != nil {
		t.Fatal(err)
	}
	noNumbers := lineNumber.ReplaceAllString(b.String(), "")
	if got := html.UnescapeString(tag.ReplaceAllString(noNumbers, "")); got != all.String() {
		t.Fatalf("the HTML's text is %q, not %q", got, all.String())
	}
	if strings.Count(b.String(), "<span") != strings.Count(b.String(), "</span>") {
		t.Fatalf("unbalanced spans: %s", b.String())
	}
}

func FuzzGo(f *testing.F) {
	for _, s := range []string{"package main\n\nfunc main() { fmt.Println(\"hi\") }\n", "x := `a\r\nb` // c\r\n", "/* open", "'\\", "\xff\x00\ufeffa"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkTokens(t, src, Go(src))
		checkTokens(t, src, Plain(src))
		lines := Lines(Go(src))
		for i, l := range lines {
			last := l[len(l)-1].Text
			if want := i < len(lines)-1 || strings.HasSuffix(ensureLF(src), "\n"); want != strings.HasSuffix(last, "\n") {
				t.Fatalf("line %d of %d ends %q", i+1, len(lines), last)
			}
		}
	})
}

// TestLabDoesNotLinkChroma: chroma initialises every lexer and style at
// package init (20 ms of CPU in every sandbox child, #30); nothing the
// lab's binary imports may bring it back.
func TestLabDoesNotLinkChroma(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goCmd, "list", "-deps", "../../cmd/lab").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 || !strings.Contains(string(out), "github.com/idempotency-lab/lab/internal/highlight") {
		t.Fatalf("go list -deps ./cmd/lab is not the lab's dependencies:\n%s", out)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/alecthomas/chroma") || strings.HasPrefix(d, "github.com/yuin/goldmark-highlighting") {
			t.Errorf("the lab links %s", d)
		}
	}
}
