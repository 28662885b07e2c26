// Command diagrams renders the lessons' mermaid diagrams to SVG ahead of
// time, so the pages need no JavaScript to show them: `make diagrams`.
//
// For every course directory given (default: lessons and the test fixture
// lessons/testdata/course) it finds each mermaid fence in content/*.md
// (lessons.Diagrams), renders each distinct fence source once per theme
// (lessons.DiagramThemes) with the vendored mermaid in this directory
// (mermaid-12.3.0.min.js, refreshed by scripts/vendor.sh, never served) in
// headless Chromium, and writes DIR/diagrams/<hash>.<theme>.svg
// (lessons.DiagramFile). SVGs that no fence uses any more are deleted.
// Chromium is `chromium` on PATH or $CHROMIUM. With -check it writes
// nothing and fails when a fresh rendering differs from what is committed
// (only meaningful with the fonts the SVGs were made with: mermaid sizes
// boxes by measuring text).
//
// Each theme uses mermaid's base theme with the lab's palette, so the
// drawings match the page; the page embeds both and lessons.css shows one.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/idempotency-lab/lab/lessons"
)

// The lab's palette (static/lab.css) per theme, as mermaid's base theme
// variables: the diagrams take the page's colours.
var themes = map[string]map[string]any{
	"light": {
		"darkMode":             false,
		"background":           "#ffffff",
		"fontFamily":           fontFamily,
		"fontSize":             "15px",
		"primaryColor":         "#e3ecfa",
		"primaryTextColor":     "#1b1f24",
		"primaryBorderColor":   "#1f5fbf",
		"secondaryColor":       "#f0f1ee",
		"tertiaryColor":        "#f6f6f3",
		"lineColor":            "#59626e",
		"textColor":            "#1b1f24",
		"noteBkgColor":         "#fff4d6",
		"noteBorderColor":      "#d4a017",
		"noteTextColor":        "#1b1f24",
		"actorBkg":             "#e3ecfa",
		"actorBorder":          "#1f5fbf",
		"actorTextColor":       "#1b1f24",
		"actorLineColor":       "#59626e",
		"signalColor":          "#1b1f24",
		"signalTextColor":      "#1b1f24",
		"labelBoxBkgColor":     "#e3ecfa",
		"labelBoxBorderColor":  "#1f5fbf",
		"labelTextColor":       "#1b1f24",
		"edgeLabelBackground":  "#ffffff",
		"transitionColor":      "#59626e",
		"transitionLabelColor": "#1b1f24",
		"stateLabelColor":      "#1b1f24",
		"stateBkg":             "#e3ecfa",
		"compositeBackground":  "#ffffff",
		"altBackground":        "#f0f1ee",
		"specialStateColor":    "#1b1f24",
		"innerEndBackground":   "#1b1f24",
		"errorBkgColor":        "#fbe6e6",
		"errorTextColor":       "#c62828",
	},
	"dark": {
		"darkMode":             true,
		"background":           "#181c22",
		"fontFamily":           fontFamily,
		"fontSize":             "15px",
		"primaryColor":         "#1c2b44",
		"primaryTextColor":     "#e6e8eb",
		"primaryBorderColor":   "#6ea8ff",
		"secondaryColor":       "#1f242b",
		"tertiaryColor":        "#0f1216",
		"lineColor":            "#9aa4b1",
		"textColor":            "#e6e8eb",
		"noteBkgColor":         "#33290c",
		"noteBorderColor":      "#d4a017",
		"noteTextColor":        "#e6e8eb",
		"actorBkg":             "#1c2b44",
		"actorBorder":          "#6ea8ff",
		"actorTextColor":       "#e6e8eb",
		"actorLineColor":       "#9aa4b1",
		"signalColor":          "#e6e8eb",
		"signalTextColor":      "#e6e8eb",
		"labelBoxBkgColor":     "#1c2b44",
		"labelBoxBorderColor":  "#6ea8ff",
		"labelTextColor":       "#e6e8eb",
		"edgeLabelBackground":  "#181c22",
		"transitionColor":      "#9aa4b1",
		"transitionLabelColor": "#e6e8eb",
		"stateLabelColor":      "#e6e8eb",
		"stateBkg":             "#1c2b44",
		"compositeBackground":  "#181c22",
		"altBackground":        "#1f242b",
		"specialStateColor":    "#e6e8eb",
		"innerEndBackground":   "#e6e8eb",
		"errorBkgColor":        "#3a1717",
		"errorTextColor":       "#ff6b63",
	},
}

// fontFamily is the lab's text face (lab.css). Mermaid measures the labels
// in the font Chromium finds here, so a wide fallback is last but one.
const fontFamily = `system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif`

func main() {
	mermaid := flag.String("mermaid", "cmd/diagrams/mermaid-12.3.0.min.js", "the vendored mermaid (scripts/vendor.sh)")
	check := flag.Bool("check", false, "write nothing: fail if an SVG is missing, differs from a fresh rendering, or is unused")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: diagrams [-check] [-mermaid FILE] [COURSE_DIR...]\n"+
			"Renders every mermaid fence of each COURSE_DIR/content/*.md into COURSE_DIR/diagrams/ (default: lessons lessons/testdata/course).\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	dirs := flag.Args()
	if len(dirs) == 0 {
		dirs = []string{"lessons", "lessons/testdata/course"}
	}
	if err := run(*mermaid, dirs, *check); err != nil {
		fmt.Fprintln(os.Stderr, "diagrams:", err)
		os.Exit(1)
	}
}

func run(mermaidPath string, dirs []string, check bool) error {
	script, err := os.ReadFile(mermaidPath)
	if err != nil {
		return fmt.Errorf("%w (run from the repository root; scripts/vendor.sh fetches mermaid)", err)
	}
	r, err := newRenderer(script)
	if err != nil {
		return err
	}
	defer r.close()

	var problems []error
	for _, dir := range dirs {
		ds, err := lessons.Diagrams(os.DirFS(dir))
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		out := filepath.Join(dir, lessons.DiagramDir)
		if !check {
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
		}
		want := map[string]bool{}
		written, same := 0, 0
		for _, d := range ds {
			for _, theme := range lessons.DiagramThemes {
				name := lessons.DiagramFile(d.Source, theme)
				if want[name] {
					continue
				}
				want[name] = true
				svg, err := r.render(d.Source, theme)
				if err != nil {
					return fmt.Errorf("%s:%d: %s: %w", filepath.Join(dir, d.File), d.Line, theme, err)
				}
				path := filepath.Join(out, name)
				old, _ := os.ReadFile(path)
				if string(old) == svg {
					same++
					continue
				}
				if check {
					problems = append(problems, fmt.Errorf("%s (%s:%d) is missing or stale", path, filepath.Join(dir, d.File), d.Line))
					continue
				}
				if err := os.WriteFile(path, []byte(svg), 0o644); err != nil {
					return err
				}
				written++
			}
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.svg"))
		removed := 0
		for _, f := range files {
			if want[filepath.Base(f)] {
				continue
			}
			if check {
				problems = append(problems, fmt.Errorf("%s: no fence uses it", f))
				continue
			}
			if err := os.Remove(f); err != nil {
				return err
			}
			removed++
		}
		fmt.Printf("%s: %d diagrams in %d files, %d SVGs: %d written, %d unchanged, %d removed\n",
			dir, len(want)/len(lessons.DiagramThemes), countFiles(ds), len(want), written, same, removed)
	}
	if len(problems) > 0 {
		return fmt.Errorf("run make diagrams:\n%w", errors.Join(problems...))
	}
	return nil
}

func countFiles(ds []lessons.Diagram) int {
	var files []string
	for _, d := range ds {
		if !slices.Contains(files, d.File) {
			files = append(files, d.File)
		}
	}
	return len(files)
}

// renderer is one headless Chromium tab with mermaid loaded.
type renderer struct {
	ctx    context.Context
	cancel func()
	srv    *httptest.Server
}

const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>diagrams</title>
<style>body { margin: 0; font: 16px/1.5 ` + fontFamily + `; }</style>
<script src="/mermaid.js"></script></head><body></body></html>`

func newRenderer(script []byte) (*renderer, error) {
	exe, err := chromium()
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	})
	mux.HandleFunc("/mermaid.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write(script)
	})
	srv := httptest.NewServer(mux)

	tmp, err := os.MkdirTemp("", "diagrams-chromium-")
	if err != nil {
		srv.Close()
		return nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(tmp),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("font-render-hinting", "none"),
		chromedp.Flag("lang", "en-US"),
		chromedp.WindowSize(1200, 900),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	r := &renderer{ctx: ctx, srv: srv, cancel: func() {
		cancelCtx()
		cancelAlloc()
		srv.Close()
		_ = os.RemoveAll(tmp)
	}}
	// The first action starts the browser, which lives as long as the
	// context of that action: it gets none of its own.
	if err := chromedp.Do(ctx); err != nil {
		r.close()
		return nil, fmt.Errorf("start chromium %s: %w", exe, err)
	}
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.Poll[chromedp.Void](`typeof window.mermaid === "object"`),
	); err != nil {
		r.close()
		return nil, fmt.Errorf("load mermaid in chromium: %w", err)
	}
	return r, nil
}

func (r *renderer) close() { r.cancel() }

func chromium() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("chromium not found: install it (make browser-deps) or set $CHROMIUM")
}

// render draws one diagram in one theme and returns the SVG: mermaid's,
// with the style rules that match nothing in it and the ids nothing refers
// to taken out, checked for HTML labels, with a final newline.
func (r *renderer) render(source, theme string) (string, error) {
	// The SVG's id scopes mermaid's <style> to it; both themes of every
	// diagram of a page are in the page at once, so it names both.
	id := "diagram-" + strings.TrimSuffix(lessons.DiagramFile(source, theme), ".svg")
	id = strings.ReplaceAll(id, ".", "-")
	config := map[string]any{
		"startOnLoad":         false,
		"securityLevel":       "strict",
		"deterministicIds":    true,
		"deterministicIDSeed": id,
		"htmlLabels":          false,
		"flowchart":           map[string]any{"htmlLabels": false},
		"state":               map[string]any{"htmlLabels": false},
		"class":               map[string]any{"htmlLabels": false},
		// Narrower than the defaults (50, 150): the lesson column is about
		// 700 px wide, and a wide drawing shrinks its text with it.
		"sequence":       map[string]any{"actorMargin": 24, "width": 110},
		"theme":          "base",
		"look":           "classic", // "neo" adds drop shadows and gradients made for a light page
		"themeVariables": themes[theme],
		"fontFamily":     fontFamily,
	}
	args, err := json.Marshal([]any{config, id, source})
	if err != nil {
		return "", err
	}
	expr := `(async ([config, id, source]) => {
		mermaid.initialize(config);
		const { svg } = await mermaid.render(id, source);
		// Mermaid's <style> has the rules of every kind of diagram; keep
		// those that match something in this one (most go).
		const host = document.createElement("div");
		host.innerHTML = svg;
		document.body.append(host);
		const el = host.querySelector("svg"), style = el.querySelector("style");
		const sheet = new CSSStyleSheet();
		sheet.replaceSync(style.textContent);
		const used = (sel) => { try { return el.matches(sel) || el.querySelector(sel) !== null; } catch { return true; } };
		const rules = [...sheet.cssRules];
		const kept = rules.filter((r) => r instanceof CSSStyleRule ? used(r.selectorText) : !(r instanceof CSSKeyframesRule));
		const text = kept.map((r) => r.cssText);
		for (const r of rules) {
			if (r instanceof CSSKeyframesRule && text.some((t) => t.includes(r.name))) text.push(r.cssText);
		}
		style.textContent = text.join("\n");
		const out = el.outerHTML;
		host.remove();
		return out;
	})(` + string(args) + `)`
	ctx, cancel := context.WithTimeout(r.ctx, 60*time.Second)
	defer cancel()
	svg, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return "", fmt.Errorf("mermaid: %w", err)
	}
	if !strings.HasPrefix(svg, "<svg") {
		return "", fmt.Errorf("mermaid did not return an SVG: %.200s", svg)
	}
	if strings.Contains(svg, "<foreignObject") {
		return "", errors.New("the SVG has HTML labels (<foreignObject>): this diagram type ignores htmlLabels: false")
	}
	svg, err = tidyIDs(svg, id)
	if err != nil {
		return "", err
	}
	return svg + "\n", nil
}

var (
	idAttr = regexp.MustCompile(` id="([^"]*)"`)
	idRef  = regexp.MustCompile(`url\(#([^)"']+)\)|href="#([^"]+)"|aria-(?:labelledby|describedby)="([^"]+)"`)
)

// tidyIDs drops the id attributes nothing in the SVG refers to (mermaid
// gives sequence participants ids like "W1", twice, and the same in every
// diagram), so a page with several diagrams has no duplicate ids. The ids
// that remain must be unique and contain the diagram's own id, which
// mermaid's <style> and markers are scoped by.
func tidyIDs(svg, own string) (string, error) {
	used := map[string]bool{own: true}
	for _, m := range idRef.FindAllStringSubmatch(svg, -1) {
		for _, g := range m[1:] {
			for _, id := range strings.Fields(g) {
				used[id] = true
			}
		}
	}
	seen := map[string]bool{}
	var bad []string
	svg = idAttr.ReplaceAllStringFunc(svg, func(attr string) string {
		id := idAttr.FindStringSubmatch(attr)[1]
		if !used[id] {
			return ""
		}
		if seen[id] || !strings.Contains(id, own) {
			bad = append(bad, id)
		}
		seen[id] = true
		return attr
	})
	if len(bad) > 0 {
		return "", fmt.Errorf("ids %q are repeated or not scoped by %q: two diagrams on a page could clash", bad, own)
	}
	return svg, nil
}
