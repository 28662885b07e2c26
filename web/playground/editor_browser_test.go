package playground_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// The browser tests of the handler editor (#28: defects 1, 2, 4 and 6,
// and the Go Playground's comforts of feature 10).

// colourScheme makes the tab's system prefer a dark or a light scheme.
func colourScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}, {Name: "prefers-reduced-motion", Value: "reduce"}}})
		return err
	})
}

// openLabEditor opens the lab's editor on target and waits for CodeMirror.
func openLabEditor(t *testing.T, ctx context.Context, base, target string) {
	t.Helper()
	webtest.Do(t, ctx, "open "+target, chromedp.Navigate(base+target), chromedp.WaitVisible(chromedp.CSS("article.card")))
	if !webtest.Eval[bool](t, ctx, `document.getElementById("editor-box").open`) {
		webtest.Do(t, ctx, "open the editor", chromedp.Click(chromedp.CSS("#editor-box > summary")))
	}
	webtest.Do(t, ctx, "CodeMirror takes the textarea's place", chromedp.WaitVisible(chromedp.CSS("#editor-box .cm-editor")))
}

// putCode replaces the editor's text, as a paste would.
func putCode(t *testing.T, ctx context.Context, code string) {
	t.Helper()
	webtest.Eval[bool](t, ctx, `(() => { const v = document.getElementById("code").labEditor;
		v.dispatch({changes: {from: 0, to: v.state.doc.length, insert: `+strconv.Quote(code)+`}}); v.focus(); return true; })()`)
}

func editorText(t *testing.T, ctx context.Context) string {
	t.Helper()
	return webtest.Eval[string](t, ctx, `document.getElementById("code").labEditor.state.doc.toString()`)
}

// TestBrowserEditorOnAPhone (#28, defect 1): at 390 px the editor scrolls
// its long lines inside its own box; the page does not get wider (it was
// 730 px on the coding exercise and 792 px in the lab).
func TestBrowserEditorOnAPhone(t *testing.T) {
	bank, store := webtest.OpenProgress(t, "")
	b := webtest.NewBrowserWith(t, web.Config{Practice: store, Bank: bank, Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	ctx := b.Tab(true, true)
	for _, c := range []struct{ name, path, open string }{
		{"the coding exercise", "/practice/q/code-crash-before-ack", ""},
		{"the lab with the editor open", "/lab?preset=crash-before-ack", "#editor-box > summary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			webtest.Do(t, ctx, "a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(b.Base+c.path),
				chromedp.WaitReady(chromedp.CSS("textarea.code-input")))
			if c.open != "" {
				webtest.Do(t, ctx, "open the editor", chromedp.Click(chromedp.CSS(c.open)))
			}
			webtest.Do(t, ctx, "CodeMirror", chromedp.WaitVisible(chromedp.CSS(".cm-editor")))
			got := webtest.Eval[[]int](t, ctx, `(() => { const sc = document.querySelector(".cm-editor .cm-scroller");
				return [document.documentElement.scrollWidth, document.documentElement.clientWidth,
					Math.ceil(document.querySelector(".cm-editor").getBoundingClientRect().right), sc.scrollWidth, sc.clientWidth]; })()`)
			if got[0] > got[1] || got[2] > got[1] {
				t.Errorf("the page is %d px wide and the editor ends at %d px, on a %d px screen", got[0], got[2], got[1])
			}
			// The starter's longest lines are wider than a phone: they are
			// there, scrolled to inside the editor.
			if got[3] <= got[4] {
				t.Errorf("the editor's content is %d px in a %d px box: its long lines should scroll inside it", got[3], got[4])
			}
		})
	}
	b.NoConsoleErrors()
}

// editorContrast measures, in the page, each token kind's contrast
// against the editor's background and against its active line (drawn
// over that background), the plain text's and the line numbers' against
// the gutter, and the gutter's luminance. Colours are read by painting
// them on a canvas, so any CSS colour syntax (color-mix included) counts.
const editorContrast = `(() => {
	const cv = document.createElement("canvas"); cv.width = cv.height = 1;
	const g = cv.getContext("2d", {willReadFrequently: true});
	const over = (...colours) => { g.clearRect(0, 0, 1, 1);
		for (const c of colours) { g.fillStyle = "#000"; g.fillStyle = c; g.fillRect(0, 0, 1, 1); }
		return Array.from(g.getImageData(0, 0, 1, 1).data).slice(0, 3); };
	const lum = rgb => rgb.map(v => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
		.reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
	const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
	const ed = document.querySelector("#editor-box .cm-editor");
	const bg = getComputedStyle(ed).backgroundColor;
	const active = ed.querySelector(".cm-activeLine");
	const grounds = {background: over(bg)};
	if (active) grounds["active line"] = over(bg, getComputedStyle(active).backgroundColor);
	const out = {};
	for (const kind of ["keyword", "typeName", "string", "number", "bool", "comment", "variableName", "propertyName", "operator", "punctuation"]) {
		const el = ed.querySelector(".tok-" + kind);
		if (!el) { out[kind + " (missing)"] = 0; continue; }
		for (const [name, ground] of Object.entries(grounds)) out[kind + " on " + name] = ratio(over(bg, getComputedStyle(el).color), ground);
	}
	const line = ed.querySelector(".cm-line");
	for (const [name, ground] of Object.entries(grounds)) out["plain text on " + name] = ratio(over(bg, getComputedStyle(line).color), ground);
	const gutters = getComputedStyle(ed.querySelector(".cm-gutters")).backgroundColor;
	const number = ed.querySelector(".cm-lineNumbers .cm-gutterElement:not(.cm-activeLineGutter)");
	out["line numbers on the gutter"] = ratio(over(bg, gutters, getComputedStyle(number).color), over(bg, gutters));
	out["gutter luminance"] = lum(over(bg, gutters));
	out["background luminance"] = lum(over(bg));
	return out;
})()`

// tokenSample has a token of every kind editorContrast measures.
const tokenSample = `package handler

import "context"

// Limit is the most a message may credit.
const Limit = 100000

var ok = true

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	if m.Amount > Limit && ok {
		return fmt.Errorf("too much: %d", m.Amount)
	}
	return nil
}
`

// TestBrowserEditorDark (#28, defect 2): the editor reads in every theme:
// light, dark chosen on the page, and dark by the system's choice alone
// (no data-theme, which static/lab.css's old rules missed). Each token
// kind is at least 4.5:1 (WCAG AA for text) on the editor's background
// and on its active line; the gutter is dark in the dark themes.
func TestBrowserEditorDark(t *testing.T) {
	b := webtest.NewBrowserWith(t, web.Config{Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	for _, c := range []struct {
		name, scheme, theme string
		dark                bool
	}{
		{"light", "light", "", false},
		{"dark chosen", "light", "dark", true},
		{"dark by the system", "dark", "", true},
		{"light chosen on a dark system", "dark", "light", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := b.Tab(true, true)
			webtest.Do(t, ctx, "the system's scheme", colourScheme(c.scheme), chromedp.EmulateViewport(1366, 900),
				chromedp.Navigate(b.Base+"/lab?preset=crash-before-ack"), chromedp.WaitVisible(chromedp.CSS("article.card")),
				chromedp.Evaluate[chromedp.Void](`localStorage.setItem("lab-theme", "`+orAuto(c.theme)+`")`))
			openLabEditor(t, ctx, b.Base, "/lab?preset=crash-before-ack")
			if got := webtest.Eval[string](t, ctx, `document.documentElement.dataset.theme || ""`); got != c.theme {
				t.Fatalf("data-theme %q, want %q", got, c.theme)
			}
			putCode(t, ctx, tokenSample)
			// The cursor on line 11, a line of keywords, operators and names.
			webtest.Eval[bool](t, ctx, `(() => { const v = document.getElementById("code").labEditor;
				v.dispatch({selection: {anchor: v.state.doc.line(11).from + 3}}); return true; })()`)
			webtest.Poll(t, ctx, "the active line", `!!document.querySelector("#editor-box .cm-activeLine .tok-keyword")`)
			got := webtest.Eval[map[string]float64](t, ctx, editorContrast)
			for what, r := range got {
				switch {
				case strings.HasSuffix(what, "luminance"):
				case r < 4.5:
					t.Errorf("%s: %.2f:1, want at least 4.5:1", what, r)
				}
			}
			// The page's background luminance: below 0.05 is dark.
			if dark := got["background luminance"] < 0.05 && got["gutter luminance"] < 0.05; dark != c.dark {
				t.Errorf("editor background %.3f, gutter %.3f: dark is %v, want %v", got["background luminance"], got["gutter luminance"], dark, c.dark)
			}
			if testing.Verbose() {
				t.Logf("%s: %v", c.name, got)
			}
			editorAxe(t, ctx)
			webtest.ScreenshotWhen(t, ctx, "editor-"+strings.ReplaceAll(c.name, " ", "-"), 1366, 900, false, "#editor-box .cm-editor")
		})
	}
	b.NoConsoleErrors()
}

// orAuto is the theme lab.js remembers for theme: "" is the system's.
func orAuto(theme string) string {
	if theme == "" {
		return "auto"
	}
	return theme
}

// TestBrowserStepNavOwnScenario (#28, defect 4): in a scenario of one's
// own (s=, no preset), at 1024, 1366 and 1920 px in both languages, no
// step control is drawn over another (Next covered the "N / M" counter),
// none is cut (\"В конец\" was at 1366 px) and all stay inside the stepper.
func TestBrowserStepNavOwnScenario(t *testing.T) {
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	var source string
	for _, p := range presets {
		if p.Name == "crash-before-ack" {
			source = p.Source
		}
	}
	if source == "" {
		t.Fatal("no preset crash-before-ack")
	}
	own := link.Lab{Script: source, Step: 2, HasStep: true}.String()
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	for _, lang := range []string{"en", "ru"} {
		for _, width := range []int64{1024, 1366, 1920} {
			t.Run(fmt.Sprintf("%s-%d", lang, width), func(t *testing.T) {
				webtest.Do(t, ctx, "open one's own scenario", chromedp.EmulateViewport(width, 900),
					chromedp.Navigate(b.Base+own+"&lang="+lang), webtest.WaitStep(2), chromedp.WaitVisible(chromedp.ID("play-toggle")))
				boxes := webtest.Eval[map[string][]float64](t, ctx, `(() => {
					const out = {};
					for (const sel of ["#step-first", "#step-prev", "#step-slider", ".slider-value", "#step-next", "#step-last", "#play-toggle", ".play-speed", ".step-nav"]) {
						const e = document.querySelector(sel), r = e.getBoundingClientRect();
						out[sel] = [r.left, r.top, r.right, r.bottom, e.scrollWidth - e.clientWidth];
					}
					return out; })()`)
				nav := boxes[".step-nav"]
				delete(boxes, ".step-nav")
				names := []string{"#step-first", "#step-prev", "#step-slider", ".slider-value", "#step-next", "#step-last", "#play-toggle", ".play-speed"}
				for i, a := range names {
					ra := boxes[a]
					if ra[0] < nav[0]-0.5 || ra[2] > nav[2]+0.5 {
						t.Errorf("%s spans %.0f–%.0f px, outside the stepper's %.0f–%.0f", a, ra[0], ra[2], nav[0], nav[2])
					}
					// A button whose text is wider than its box is cut.
					if ra[4] > 0 && a != "#step-slider" {
						t.Errorf("%s is cut: its text is %.0f px wider than its box", a, ra[4])
					}
					for _, bname := range names[i+1:] {
						rb := boxes[bname]
						if ra[0] < rb[2]-0.5 && rb[0] < ra[2]-0.5 && ra[1] < rb[3]-0.5 && rb[1] < ra[3]-0.5 {
							t.Errorf("%s %v and %s %v overlap", a, ra[:4], bname, rb[:4])
						}
					}
				}
				if width == 1366 {
					webtest.ScreenshotWhen(t, ctx, "stepper-own-"+lang+"-1366", width, 900, false, "#step-count")
				}
			})
		}
	}
	b.NoConsoleErrors()
}

// TestBrowserEditorPlayground (#28, feature 10 and defect 6): Format puts
// a badly indented file through go/format on the server and Ctrl+Z takes
// it back; a file that does not parse gets its error at its line; Ctrl+Enter
// runs the file (the address then holds it, and Back returns to the lab
// before it); a file with a compile error keeps the lab, with the error
// as a marker at its line in the editor and as text above it.
func TestBrowserEditorPlayground(t *testing.T) {
	b := webtest.NewBrowserWith(t, web.Config{Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	ctx := b.Tab(true, true)
	start := "/lab?preset=crash-before-ack&step=4"
	openLabEditor(t, ctx, b.Base, start)

	t.Run("format", func(t *testing.T) {
		putCode(t, ctx, badlyIndented)
		webtest.Do(t, ctx, "Format", chromedp.Click(chromedp.ID("code-format")))
		webtest.Poll(t, ctx, "the formatted file", `document.getElementById("code").labEditor.state.doc.toString() === `+strconv.Quote(wellIndented))
		if got := textOf(t, ctx, "#code-status"); got != "Formatted with go/format." {
			t.Errorf("status %q", got)
		}
		if loc := webtest.Location(t, ctx); loc != b.Base+start {
			t.Errorf("formatting moved the page to %q", loc)
		}
		// One change: Ctrl+Z gives the file back as it was typed.
		webtest.Do(t, ctx, "undo", chromedp.Focus(chromedp.CSS("#editor-box .cm-content")), chromedp.KeyEvent("z", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
		if got := editorText(t, ctx); got != badlyIndented {
			t.Errorf("after Ctrl+Z the editor holds %q", got)
		}
	})

	t.Run("format a file that does not parse", func(t *testing.T) {
		putCode(t, ctx, "package handler\n\nfunc Handle( {\n}\n")
		webtest.Do(t, ctx, "Format", chromedp.Click(chromedp.ID("code-format")),
			chromedp.WaitVisible(chromedp.CSS("#code-problems li")), chromedp.WaitVisible(chromedp.CSS("#editor-box .cm-lint-marker-error")))
		if got := textOf(t, ctx, "#code-problems li"); !strings.Contains(got, "line 3: syntax error") {
			t.Errorf("problem %q", got)
		}
		if n := markedLine(t, ctx); n != 3 {
			t.Errorf("the marked line is %d, want 3", n)
		}
	})

	t.Run("ctrl+enter runs", func(t *testing.T) {
		putCode(t, ctx, webtest.FixedNaive)
		webtest.Do(t, ctx, "Ctrl+Enter", chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierCtrl)),
			chromedp.WaitVisible(chromedp.ID("card-yours")))
		got := webtest.Verdicts(t, ctx)
		webtest.WantCard(t, got, "yours", "ok 100.00")
		want := link.Lab{Preset: "crash-before-ack", Code: webtest.FixedNaive, Step: 4, HasStep: true}.String()
		if loc := webtest.Location(t, ctx); loc != b.Base+want {
			t.Errorf("address %q, want %q", loc, b.Base+want)
		}
		// The file is in the address: Back is the lab before it, Forward the
		// run. (history.back() runs after the evaluation has answered: the
		// page it leaves would never answer it.)
		back := `location.href === ` + strconv.Quote(b.Base+start) + ` && !!document.getElementById("card-naive") && !document.getElementById("card-yours")`
		webtest.Do(t, ctx, "back", chromedp.Evaluate[chromedp.Void](`setTimeout(() => history.back())`))
		settle(t, ctx, "the lab before the file", back)
		webtest.Do(t, ctx, "forward", chromedp.Evaluate[chromedp.Void](`setTimeout(() => history.forward())`))
		settle(t, ctx, "the run again", `!!document.getElementById("card-yours")`)
	})

	t.Run("a compile error keeps the lab", func(t *testing.T) {
		first := "tx, err := d.DB.BeginTx(ctx, nil)"
		line := strings.Count(webtest.FixedNaive[:strings.Index(webtest.FixedNaive, first)], "\n") + 1
		broken := strings.Replace(webtest.FixedNaive, first, "undefinedThing()\n\t"+first, 1)
		openLabEditor(t, ctx, b.Base, start)
		putCode(t, ctx, broken)
		webtest.Do(t, ctx, "run it", chromedp.Click(chromedp.ID("code-run")), chromedp.WaitVisible(chromedp.CSS("#editor-box .cm-lint-marker-error")))
		// The cards and the state are there; the file has no card.
		if got := webtest.Verdicts(t, ctx); got["naive"] != "duplicate 200.00" || got["yours"] != "" {
			t.Errorf("cards %v", got)
		}
		if got := textOf(t, ctx, "#code-problems li"); !strings.Contains(got, "line "+strconv.Itoa(line)+": does not compile") {
			t.Errorf("problem %q, want it on line %d", got, line)
		}
		if n := markedLine(t, ctx); n != line {
			t.Errorf("the marked line is %d, want %d", n, line)
		}
		if got := editorText(t, ctx); got != broken {
			t.Error("the editor lost the file")
		}
		// The marker says what is wrong when the pointer rests on it.
		at := webtest.Eval[[]float64](t, ctx, `(() => { const e = document.querySelector("#editor-box .cm-lint-marker-error");
			e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
		webtest.Do(t, ctx, "hover the marker", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]),
			chromedp.WaitVisible(chromedp.CSS(".cm-tooltip-lint")))
		if got := textOf(t, ctx, ".cm-tooltip-lint"); !strings.Contains(got, "does not compile") {
			t.Errorf("tooltip %q", got)
		}
		editorAxe(t, ctx)
		webtest.ScreenshotWhen(t, ctx, "editor-compile-error", 1440, 1000, false, "#editor-box .cm-lint-marker-error")
	})
	// The 422 of the page with the compile error is the browser's to log.
	b.Mu.Lock()
	kept := b.Console[:0]
	for _, m := range b.Console {
		if !strings.Contains(m, "status of 422") {
			kept = append(kept, m)
		}
	}
	b.Console = kept
	b.Mu.Unlock()
	b.NoConsoleErrors()
}

// editorAxe is the accessibility sweep's check (axe-core, serious and
// critical violations) on the page with the editor open: the sweep's
// server runs no handler files, so it never shows the editor.
func editorAxe(t *testing.T, ctx context.Context) {
	t.Helper()
	src, err := os.ReadFile(webtest.AxeFile)
	if err != nil {
		t.Fatalf("the vendored axe-core is missing (run scripts/vendor.sh): %v", err)
	}
	for _, v := range webtest.RunAxe(t, ctx, string(src)) {
		t.Errorf("axe: %s (%s): %s, on %d node(s): %s; %s", v.ID, v.Impact, v.Help, v.Nodes, strings.Join(v.Targets, " | "), v.Summary)
	}
}

// settle waits until expr is true in the tab's page, across a navigation
// through the history (which the browser may restore from its back-forward
// cache, where chromedp's own waits see no new document).
func settle(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		try, stop := context.WithTimeout(ctx, 2*time.Second)
		ok, err := chromedp.Run(try, chromedp.Evaluate[bool](expr))
		stop()
		if err == nil && ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: waiting for %s: %v", what, expr, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// textOf is an element's text (textOfSel reads a list item's value).
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return webtest.Eval[string](t, ctx, `(e => e ? e.textContent.trim() : "")(document.querySelector(`+strconv.Quote(sel)+`))`)
}

// markedLine is the number of the editor's line marked as a problem (0
// for none).
func markedLine(t *testing.T, ctx context.Context) int {
	t.Helper()
	return webtest.Eval[int](t, ctx, `(() => { const v = document.getElementById("code").labEditor;
		const el = document.querySelector("#editor-box .cm-error-line");
		return el ? v.state.doc.lineAt(v.posAtDOM(el)).number : 0; })()`)
}
