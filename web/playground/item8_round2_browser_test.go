package playground_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// The browser tests of the second round of #28's smaller items (item 8,
// feature 10); their HTTP tests are in web/item8_round2_test.go.

// monospaceFamily says whether a computed font-family is a monospace
// stack: it names a monospace face or ends in the generic monospace.
func monospaceFamily(family string) bool {
	f := strings.ToLower(family)
	return strings.HasSuffix(strings.TrimSpace(f), "monospace") && !strings.HasPrefix(f, "system-ui")
}

// TestBrowserEditorsAreMonospace (#28, item 8: "the editors show Go in a
// proportional font"): every code editor, CodeMirror's editable area and
// the textarea under it without JavaScript, sets Go in the monospace
// stack: the lab's editor and a coding exercise's.
func TestBrowserEditorsAreMonospace(t *testing.T) {
	bank, store := webtest.OpenProgress(t, "")
	b := webtest.NewBrowserWith(t, web.Config{Practice: store, Bank: bank, Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	for _, js := range []bool{true, false} {
		ctx := b.Tab(true, js)
		for _, c := range []struct{ name, path, open string }{
			{"the lab", "/lab?preset=crash-before-ack", "#editor-box > summary"},
			{"a coding exercise", "/practice/q/code-crash-before-ack", ""},
		} {
			t.Run(c.name+" "+webtest.Mode(js), func(t *testing.T) {
				webtest.Do(t, ctx, "open "+c.path, chromedp.Navigate(b.Base+c.path), chromedp.WaitReady(chromedp.CSS("textarea.code-input")))
				if c.open != "" {
					webtest.Do(t, ctx, "open the editor", chromedp.Click(chromedp.CSS(c.open)))
				}
				sel := "textarea.code-input"
				if js {
					sel = ".cm-editor .cm-content"
					webtest.Do(t, ctx, "CodeMirror", chromedp.WaitVisible(chromedp.CSS(sel)))
				}
				family := webtest.Eval[string](t, ctx, `getComputedStyle(document.querySelector(`+strconv.Quote(sel)+`)).fontFamily`)
				if !monospaceFamily(family) {
					t.Errorf("%s's font-family is %q, want the monospace stack", sel, family)
				}
				if js {
					// Monospace indeed: "iiii" is as wide as "MMMM".
					widths := webtest.Eval[[]float64](t, ctx, `(() => { const c = document.querySelector(".cm-editor .cm-content");
						const m = (s) => { const e = document.createElement("span"); e.textContent = s; c.appendChild(e);
							const w = e.getBoundingClientRect().width; e.remove(); return w; };
						return [m("iiiiiiii"), m("MMMMMMMM")]; })()`)
					if widths[0] != widths[1] {
						t.Errorf("in the editor iiiiiiii is %.1f px and MMMMMMMM %.1f px: not monospace", widths[0], widths[1])
					}
				}
			})
		}
	}
	b.NoConsoleErrors()
}

// TestBrowserPracticeFormat (#28, feature 10): a coding exercise's editor
// formats as the lab's does: Format asks POST /lab/format and puts
// go/format's text in the editor (Ctrl+Z takes it back); a file that does
// not parse gets its error marked at its line, the page unchanged; and
// Ctrl+Enter checks the file, as the form's button does.
func TestBrowserPracticeFormat(t *testing.T) {
	bank, store := webtest.OpenProgress(t, "")
	b := webtest.NewBrowserWith(t, web.Config{Practice: store, Bank: bank, Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	ctx := b.Tab(true, true)
	for _, lang := range []string{"en", "ru"} {
		t.Run(lang, func(t *testing.T) {
			webtest.Do(t, ctx, "open the exercise", chromedp.EmulateViewport(1366, 900), chromedp.Navigate(b.Base+"/practice/q/code-crash-before-ack?lang="+lang),
				chromedp.WaitVisible(chromedp.CSS("#answer-form .cm-editor")))
			if keys := webtest.TextOfSel(t, ctx, "#answer-form-code-keys"); !strings.Contains(keys, "Ctrl+Enter") {
				t.Errorf("the keys' hint: %q", keys)
			}
			set := func(code string) {
				webtest.Eval[bool](t, ctx, `(() => { const v = document.getElementById("answer-form-code").labEditor;
					v.dispatch({changes: {from: 0, to: v.state.doc.length, insert: `+strconv.Quote(code)+`}}); return true; })()`)
			}
			text := func() string {
				return webtest.Eval[string](t, ctx, `document.getElementById("answer-form-code").labEditor.state.doc.toString()`)
			}
			webtest.MarkPage(t, ctx)
			ugly := "package handler\nimport \"context\"\nfunc   f( ctx context.Context ) error {\nreturn nil}\n"
			want := "package handler\n\nimport \"context\"\n\nfunc f(ctx context.Context) error {\n\treturn nil\n}\n"
			set(ugly)
			webtest.Do(t, ctx, "Format", chromedp.Click(chromedp.ID("answer-form-format")))
			settle(t, ctx, "the file is formatted", `document.getElementById("answer-form-code").labEditor.state.doc.toString() === `+strconv.Quote(want))
			if !webtest.PageKept(t, ctx) {
				t.Errorf("Format loaded another page")
			}
			if got := webtest.Eval[string](t, ctx, `document.getElementById("answer-form-code").value`); got != want {
				t.Errorf("the form's field holds %q", got)
			}
			set("package handler\n\nfunc f( {\n")
			webtest.Do(t, ctx, "Format a file that does not parse", chromedp.Click(chromedp.ID("answer-form-format")))
			settle(t, ctx, "the error is marked", `document.querySelector("#answer-form .cm-error-line") !== null`)
			line := webtest.Eval[int](t, ctx, `(() => { const v = document.getElementById("answer-form-code").labEditor;
				return v.state.doc.lineAt(v.posAtDOM(document.querySelector("#answer-form .cm-error-line"))).number; })()`)
			if line != 3 {
				t.Errorf("the marked line is %d, want 3", line)
			}
			problem := textOf(t, ctx, "#answer-form-code-problems li")
			if want := map[string]string{"en": "line 3", "ru": "строка 3"}[lang]; !strings.Contains(problem, want) {
				t.Errorf("the problem listed: %q, want %q", problem, want)
			}
			if text() != "package handler\n\nfunc f( {\n" {
				t.Errorf("a file that does not parse was changed: %q", text())
			}
			editorAxe(t, ctx)
			// Ctrl+Enter presses the form's Check: a file that does not
			// parse is not graded, and its result says so (no sandbox run).
			webtest.Do(t, ctx, "Ctrl+Enter", chromedp.Focus(chromedp.CSS("#answer-form .cm-content")),
				chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierCtrl)), webtest.WaitResult("unparsed"))
		})
	}
	// The formatter's 422 (the file that does not parse) is the one
	// message the browser may log.
	b.Mu.Lock()
	defer b.Mu.Unlock()
	for _, m := range b.Console {
		if !strings.Contains(m, "status of 422") || !strings.Contains(m, "/lab/format") {
			t.Errorf("browser console: %s", m)
		}
	}
}

// overflowAt is, for each .mx-scroll on the page, how many px its table
// is wider than its box, and the page's own sideways overflow.
func overflowAt(t *testing.T, ctx context.Context) []int {
	t.Helper()
	return webtest.Eval[[]int](t, ctx, `(() => { const out = [document.documentElement.scrollWidth - document.documentElement.clientWidth];
		document.querySelectorAll(".mx-scroll").forEach((s) => out.push(s.scrollWidth - s.clientWidth)); return out; })()`)
}

// TestBrowserWideTablesFitAt1920 (#28, item 8: "at 1920 px in Russian the
// /check table and the /try-api/NAME key store scroll sideways"): at
// 1920 px, in both languages, the checker's table and every table of a
// sandbox (its log, its key store with a row in it, its payments and
// accounts) fit their boxes; on a phone the page itself never scrolls
// sideways (a table may, inside its own box).
func TestBrowserWideTablesFitAt1920(t *testing.T) {
	b := webtest.NewBrowser(t)
	ctx := b.Tab(true, true)
	endpoint := b.Base + "/api/v1/ledgers/wide-box/payments"
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(`{"account": "acc-1", "amount": 1000}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "a-rather-long-idempotency-key-0f8fad5b-d9cb-469f-a165-70867728950e")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for _, lang := range []string{"ru", "en"} {
		for _, c := range []struct{ path, ready string }{
			{"/check?lang=" + lang, `#chk-model`},
			{"/try-api/wide-box?lang=" + lang, `#try-keys tr[data-locked="false"]`},
		} {
			for _, size := range []struct {
				w, h   int64
				mobile bool
			}{{1920, 1080, false}, {390, 844, true}} {
				name := c.path + " at " + strconv.FormatInt(size.w, 10)
				t.Run(name, func(t *testing.T) {
					var opts []chromedp.EmulateViewportOption
					if size.mobile {
						opts = append(opts, chromedp.EmulateMobile)
					}
					webtest.Do(t, ctx, "open", chromedp.EmulateViewport(size.w, size.h, opts...),
						chromedp.Navigate(b.Base+c.path), chromedp.WaitVisible(chromedp.CSS(c.ready)))
					got := overflowAt(t, ctx)
					if got[0] > 0 {
						t.Errorf("the page scrolls sideways by %d px", got[0])
					}
					if size.w == 1920 {
						for i, o := range got[1:] {
							if o > 0 {
								t.Errorf("table box %d scrolls sideways by %d px", i+1, o)
							}
						}
					}
				})
			}
		}
	}
	b.NoConsoleErrors()
}

// TestBrowserAPIChallenges (#28, item 8; the API side's challenges, #25):
// the two challenges whose setup sends one API request are played in the
// browser with the lab's own controls to their success, with and without
// JavaScript: two copies of a new request at once make api-key-no-lock
// charge twice; a retry of pay-1 with another amount gets
// api-key-no-fingerprint's saved answer, a silent conflict.
func TestBrowserAPIChallenges(t *testing.T) {
	b, _ := webtest.NewPracticeBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(true, js)
			open := func(id string) {
				webtest.Do(t, ctx, "open "+id, chromedp.EmulateViewport(1366, 900), chromedp.Navigate(b.Base+"/challenges"),
					chromedp.WaitVisible(chromedp.CSS(`#ch-`+id+`[data-solved="false"] a.btn`)),
					chromedp.Click(chromedp.CSS(`#ch-`+id+` a.btn`)),
					chromedp.WaitVisible(chromedp.CSS(`#challenge[data-challenge="`+id+`"][data-status="open"]`)))
				if got := webtest.Verdicts(t, ctx); len(got) != 2 {
					t.Errorf("%s opens with cards %v, want the challenge's two API handlers", id, got)
				}
				if js {
					webtest.MarkPage(t, ctx)
				}
			}
			solved := func(id, handler, verdict string) {
				webtest.Do(t, ctx, id+" solved", chromedp.WaitVisible(chromedp.CSS(`#challenge[data-challenge="`+id+`"][data-status="solved"]`)))
				if msg := webtest.TextOfSel(t, ctx, "#ch-status"); !strings.Contains(msg, "Solved in 2 steps") {
					t.Errorf("%s: the banner says %q", id, msg)
				}
				if got := webtest.Verdicts(t, ctx)[handler]; got != verdict {
					t.Errorf("%s: %s's card is %q, want %q", id, handler, got, verdict)
				}
				if js && !webtest.PageKept(t, ctx) {
					t.Errorf("%s: the page reloaded on a step control", id)
				}
			}

			open("api-race-charges-twice")
			webtest.Do(t, ctx, "two copies of pay-2 at once", chromedp.SetValue(chromedp.ID("request-op"), "pay-2"),
				chromedp.SetValue(chromedp.ID("request-amount"), "10000"), chromedp.Click(chromedp.ID("do-request-concurrent")))
			solved("api-race-charges-twice", "api-key-no-lock", "duplicate 300.00") // pay-1 once, pay-2 twice

			open("api-reused-key-silent")
			webtest.Do(t, ctx, "retry pay-1 with 120.00", chromedp.SetValue(chromedp.ID("api-again-amount"), "12000"),
				chromedp.Click(chromedp.ID("do-api-retry")))
			solved("api-reused-key-silent", "api-key-no-fingerprint", "silent-conflict 100.00") // the 120.00 never charged

			webtest.Do(t, ctx, "the list", chromedp.Navigate(b.Base+"/challenges"),
				chromedp.WaitVisible(chromedp.CSS(`#ch-api-race-charges-twice[data-solved="true"]`)),
				chromedp.WaitVisible(chromedp.CSS(`#ch-api-reused-key-silent[data-solved="true"]`)))
			b.NoConsoleErrors()
		})
	}
}
