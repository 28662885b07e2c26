package lessons

import (
	"html"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// The courses whose diagrams are committed: the real one, as embedded, and
// the fixture.
func diagramCourses() map[string]fs.FS {
	return map[string]fs.FS{
		"lessons":                 Embedded(),
		"lessons/testdata/course": os.DirFS("testdata/course"),
	}
}

// Every mermaid fence has its SVG in every theme, and every SVG belongs to
// a fence: `make diagrams` was run after the last change to a diagram.
func TestDiagramsAreRendered(t *testing.T) {
	for dir, fsys := range diagramCourses() {
		ds, err := Diagrams(fsys)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if len(ds) == 0 {
			t.Errorf("%s: no mermaid fence found; the test would prove nothing", dir)
		}
		want := map[string]bool{}
		for _, d := range ds {
			for _, theme := range DiagramThemes {
				name := DiagramFile(d.Source, theme)
				want[name] = true
				if _, err := fs.Stat(fsys, path.Join(DiagramDir, name)); err != nil {
					t.Errorf("%s/%s:%d: this mermaid fence has no %s SVG (%s/%s/%s): run make diagrams and commit the SVGs",
						dir, d.File, d.Line, theme, dir, DiagramDir, name)
				}
			}
		}
		svgs, err := fs.Glob(fsys, DiagramDir+"/*.svg")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range svgs {
			if !want[path.Base(name)] {
				t.Errorf("%s/%s: no mermaid fence in %s/content draws it any more: run make diagrams, which deletes it", dir, name, dir)
			}
		}
	}
}

// Each committed SVG is what cmd/diagrams writes: plain SVG, no HTML
// labels, its ids scoped by its own file name so that two diagrams on a
// page do not share one.
func TestDiagramSVGs(t *testing.T) {
	for dir, fsys := range diagramCourses() {
		svgs, _ := fs.Glob(fsys, DiagramDir+"/*.svg")
		for _, name := range svgs {
			data, err := fs.ReadFile(fsys, name)
			if err != nil {
				t.Fatal(err)
			}
			svg := string(data)
			own := "diagram-" + strings.ReplaceAll(strings.TrimSuffix(path.Base(name), ".svg"), ".", "-")
			if !strings.HasPrefix(svg, `<svg id="`+own+`" `) {
				t.Errorf("%s/%s does not start with <svg id=%q: not made by make diagrams", dir, name, own)
			}
			for _, bad := range []string{"<foreignObject", "<script", "<div", "<span"} {
				if strings.Contains(svg, bad) {
					t.Errorf("%s/%s contains %s: run make diagrams", dir, name, bad)
				}
			}
			for _, m := range regexp.MustCompile(` id="([^"]*)"`).FindAllStringSubmatch(svg, -1) {
				if id := m[1]; !strings.Contains(id, own) {
					t.Errorf("%s/%s: id %q is not scoped by %q", dir, name, id, own)
				}
			}
		}
	}
}

// svgText is the text a diagram shows: its SVG without the tags.
func svgText(svg string) string {
	svg = regexp.MustCompile(`(?s)<style>.*?</style>`).ReplaceAllString(svg, "")
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(svg, ""))
}

// The lessons show their diagrams' words as SVG text, in both themes.
func TestDiagramsInLessons(t *testing.T) {
	c, err := Load(Embedded())
	if err != nil {
		t.Fatal(err)
	}
	l := mustLesson(t, c, "duplicates", English)
	if l.Diagrams != 1 {
		t.Fatalf("duplicates has %d diagrams, want 1", l.Diagrams)
	}
	body := string(l.HTML)
	start := strings.Index(body, `<figure class="diagram"`)
	end := strings.Index(body, "</figure>")
	if start < 0 || end < start {
		t.Fatalf("no diagram figure in:\n%s", body)
	}
	fig := body[start:end]
	if n := strings.Count(fig, "<svg "); n != len(DiagramThemes) {
		t.Errorf("%d SVGs in the figure, want one per theme (%d)", n, len(DiagramThemes))
	}
	if text := svgText(fig); strings.Count(text, "Worker 1") < len(DiagramThemes) {
		t.Errorf("the SVGs do not say %q:\n%.600s", "Worker 1", text)
	}
	if strings.Contains(body, "sequenceDiagram") || strings.Contains(body, "participant W1") {
		t.Error("the lesson carries the mermaid source")
	}
}
