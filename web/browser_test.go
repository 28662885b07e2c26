package web

// End-to-end tests in a real headless Chromium, driven from Go with
// chromedp. They need the chromium binary: locally they skip without it,
// and in CI (CI set) its absence fails them. They wait for conditions in
// the page, never for a fixed time; the timeouts are only a safety net for
// a browser that hangs.

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromiumPath finds the browser: $CHROMIUM, then the usual names.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found and CI is set: the browser tests must run in CI (apt-get install -y chromium, or set $CHROMIUM)")
	}
	t.Skip("chromium not found; install it (apt-get install -y chromium) or set $CHROMIUM to run the browser tests")
	return ""
}

// browser is one Chromium process and the lab server it talks to.
type browser struct {
	t       *testing.T
	ctx     context.Context // the browser's first tab; never given a timeout
	base    string
	mu      sync.Mutex
	console []string // errors the pages logged, CSP violations included
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	return newBrowserWith(t, Config{})
}

// newBrowserWith is newBrowser over a server built from cfg.
func newBrowserWith(t *testing.T, cfg Config) *browser {
	t.Helper()
	exe := chromiumPath(t)
	h, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate"),
		chromedp.Flag("lang", "en-US"),
		chromedp.Flag("accept-lang", "en-US,en"),
		chromedp.WindowSize(1440, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	b := &browser{t: t, ctx: ctx, base: ts.URL}
	// The first Run starts the browser; it gets no timeout (see chromedp.Run).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

// tab opens a new tab. fresh gives it a browser context of its own: no
// cookies, no storage, no history shared with the other tabs, as another
// person's browser would be.
func (b *browser) tab(fresh, javascript bool) context.Context {
	b.t.Helper()
	var opts []chromedp.ContextOption
	if fresh {
		opts = append(opts, chromedp.WithNewBrowserContext())
	}
	ctx, cancel := chromedp.NewContext(b.ctx, opts...)
	b.t.Cleanup(cancel)
	err := chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				msg = "console." + string(e.Type) + ": " + strings.Join(parts, " ")
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				msg = "log: " + e.Entry.Text + " " + e.Entry.URL
			}
		}
		if msg != "" {
			b.mu.Lock()
			b.console = append(b.console, msg)
			b.mu.Unlock()
		}
	})
	if err != nil {
		b.t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, cdplog.Enable, cdp.Empty{}); err != nil {
			return err
		}
		// Reduced motion: no transitions half-way through a screenshot.
		if _, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !javascript})
		return err
	})); err != nil {
		b.t.Fatal(err)
	}
	return ctx
}

// noConsoleErrors fails the test if any page logged an error, a warning or
// a blocked resource (a CSP violation shows up here).
func (b *browser) noConsoleErrors() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		// A 400 is the page's answer to bad input, which some tests send.
		if strings.Contains(m, "responded with a status of 400") {
			continue
		}
		b.t.Errorf("browser console: %s", m)
	}
	b.console = nil
}

// do runs actions with a safety-net timeout.
func do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// waitStep waits until the page shows step n. It reads the DOM through the
// DevTools protocol, so it works with the page's JavaScript off too.
func waitStep(n int) chromedp.Action[chromedp.Void] {
	return retryStale(chromedp.WaitReady(chromedp.CSS(fmt.Sprintf(`#step-count[data-step="%d"]`, n))))
}

// retryStale runs a, again if the node it found went stale before it
// could act on it: after a form's answer replaces the page, the DevTools
// protocol can hand out a node of the page that is going ("Could not find
// node with given id") while the new one is parsed. Such a failure comes
// before any input reaches the page, so a click that failed with it did
// not happen, and trying it on the fresh node presses once. Any other
// error is returned at once.
func retryStale(a chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		var v chromedp.Void
		var err error
		for range 5 {
			v, err = a(ctx, t)
			if err == nil || !strings.Contains(err.Error(), "Could not find node with given id") {
				return v, err
			}
		}
		return v, err
	}
}

// clickID presses the element with id, once, whatever a page replaced
// under it (retryStale).
func clickID(id string) chromedp.Action[chromedp.Void] {
	return retryStale(chromedp.Click(chromedp.ID(id)))
}

func attr(t *testing.T, ctx context.Context, sel, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
	if err != nil {
		t.Fatalf("%s[%s]: %v", sel, name, err)
	}
	if !res.Exists {
		t.Fatalf("%s has no attribute %s", sel, name)
	}
	return res.Value
}

// verdicts reads every card's handler, verdict and balance, as
// "duplicate 200.00". It asks the page through the DevTools protocol,
// which works with the page's own JavaScript off too.
func verdicts(t *testing.T, ctx context.Context) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	got, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[map[string]string](`Object.fromEntries(
		[...document.querySelectorAll("article.card")].map(c => [c.dataset.handler,
			c.dataset.verdict + " " + c.querySelector("[data-balance]").textContent.trim()]))`))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func artifactsDir(t *testing.T) string {
	dir := os.Getenv("ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func screenshot(t *testing.T, ctx context.Context, name string, width, height int64, mobile bool) {
	t.Helper()
	screenshotWhen(t, ctx, name, width, height, mobile, "article.card")
}

// screenshotWhen saves a picture of the whole page once ready (a CSS
// selector) is visible at that viewport.
func screenshotWhen(t *testing.T, ctx context.Context, name string, width, height int64, mobile bool, ready string) {
	t.Helper()
	var opts []chromedp.EmulateViewportOption
	if mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	do(t, ctx, "resize for "+name, chromedp.EmulateViewport(width, height, opts...),
		chromedp.WaitVisible(chromedp.CSS(ready)))
	// Nothing may stick out sideways: a phone must not scroll horizontally.
	if wide, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[int](
		`document.documentElement.scrollWidth - document.documentElement.clientWidth`)); err != nil || wide > 0 {
		t.Errorf("%s: the page is %d px wider than the %d px viewport (%v)", name, wide, width, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(artifactsDir(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func mode(js bool) string {
	if js {
		return "javascript"
	}
	return "no-javascript"
}

func location(t *testing.T, ctx context.Context) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// wantCard checks one card's verdict and balance, e.g. "duplicate 200.00".
func wantCard(t *testing.T, got map[string]string, handler, want string) {
	t.Helper()
	if got[handler] != want {
		t.Errorf("%s: got %q, want %q (all cards: %v)", handler, got[handler], want, got)
	}
}

// markPage leaves a mark in the page's JavaScript world; pageKept reports
// whether it is still there, that is whether htmx swapped parts of the page
// instead of the browser loading a new one.
func markPage(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.labMark = true`)); err != nil {
		t.Fatal(err)
	}
}

func pageKept(t *testing.T, ctx context.Context) bool {
	t.Helper()
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.labMark === true`))
	if err != nil {
		t.Fatal(err)
	}
	return kept
}

// openPermalink opens the page's permalink in a fresh browser context, as
// another person would, and returns what the cards show there.
func openPermalink(t *testing.T, b *browser, ctx context.Context, js bool, step int) map[string]string {
	t.Helper()
	link := attr(t, ctx, "#permalink", "value")
	if !strings.HasPrefix(link, b.base+"/lab") {
		t.Fatalf("permalink %q does not point at this server's /lab", link)
	}
	other := b.tab(true, js)
	do(t, other, "open the permalink", chromedp.Navigate(link), waitStep(step))
	return verdicts(t, other)
}

// TestBrowserStepThroughPreset is the classroom flow: load the
// crash-before-ack preset, step through it, see naive credit twice while
// inbox credits once, rewind with the slider, and share the permalink.
func TestBrowserStepThroughPreset(t *testing.T) {
	b := newBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(mode(js), func(t *testing.T) {
			ctx := b.tab(false, js)
			do(t, ctx, "load the preset", chromedp.Navigate(b.base+"/lab?preset=crash-before-ack&step=0"), waitStep(0))
			if js {
				markPage(t, ctx)
			}
			for step := 1; step <= 4; step++ {
				if js && step == 1 {
					// A presenter's remote sends the arrow keys.
					do(t, ctx, "arrow key to step 1", chromedp.KeyEvent(kb.ArrowRight), waitStep(1))
					continue
				}
				do(t, ctx, fmt.Sprintf("next to step %d", step), chromedp.Click(chromedp.ID("step-next")), waitStep(step))
				got := verdicts(t, ctx)
				switch step {
				case 1:
					wantCard(t, got, "naive", "ok 0.00")
					wantCard(t, got, "inbox", "ok 0.00")
				case 2:
					// Credited once so far, but the in-flight message will
					// come back: naive already settles to a duplicate.
					wantCard(t, got, "naive", "duplicate 100.00")
					wantCard(t, got, "inbox", "ok 100.00")
				case 4:
					wantCard(t, got, "naive", "duplicate 200.00")
					for _, h := range []string{"inbox", "unique", "setnx", "statemachine"} {
						wantCard(t, got, h, "ok 100.00")
					}
				}
			}
			if js {
				if !pageKept(t, ctx) {
					t.Error("the page reloaded on a step: htmx should swap the lab region only")
				}
				// A preset opens at step 0, so its end needs step=.
				if loc := location(t, ctx); !strings.Contains(loc, "preset=crash-before-ack") || !strings.Contains(loc, "step=4") {
					t.Errorf("address bar after stepping to the end = %q, want the preset at its end (step=4)", loc)
				}
			}
			if js {
				// The browser's Back button restores the previous step.
				do(t, ctx, "browser back", chromedp.NavigateBack(), waitStep(3))
				do(t, ctx, "browser forward", chromedp.NavigateForward(), waitStep(4))
			}
			narration := textOfSel(t, ctx, "#narration")
			if !strings.Contains(narration, "naive") {
				t.Errorf("narration at step 4 = %q, want the preset's own words", narration)
			}

			// Rewind with the slider: keys with JavaScript, the Show
			// button without.
			if js {
				do(t, ctx, "rewind with the slider",
					chromedp.Focus(chromedp.ID("step-slider")),
					chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft),
					waitStep(1))
			} else {
				do(t, ctx, "rewind with the slider",
					chromedp.SetAttributeValue(chromedp.ID("step-slider"), "value", "1"),
					chromedp.Click(chromedp.CSS("#slider-form button[type=submit]")),
					waitStep(1))
			}
			if js && !pageKept(t, ctx) {
				t.Error("the page reloaded on the slider")
			}
			rewound := verdicts(t, ctx)
			wantCard(t, rewound, "naive", "ok 0.00")
			if loc := location(t, ctx); !strings.Contains(loc, "step=1") {
				t.Errorf("address bar after rewinding = %q, want step=1 in it", loc)
			}
			if js {
				screenshot(t, ctx, "lab-desktop-step1", 1440, 1000, false)
			}

			shared := openPermalink(t, b, ctx, js, 1)
			if fmt.Sprint(shared) != fmt.Sprint(rewound) {
				t.Errorf("permalink in a fresh browser shows %v, want %v", shared, rewound)
			}
			b.noConsoleErrors()
		})
	}
}

// TestBrowserBuildWithControls is the newcomer's flow on an empty lab:
// publish, deliver with a crash before the ack, redeliver, deliver.
func TestBrowserBuildWithControls(t *testing.T) {
	b := newBrowser(t)
	for _, js := range []bool{true, false} {
		t.Run(mode(js), func(t *testing.T) {
			ctx := b.tab(false, js)
			do(t, ctx, "open the empty lab", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.ID("do-publish")))
			if js {
				markPage(t, ctx)
			}
			for i, button := range []string{"do-publish", "do-crash-before-ack", "do-redeliver", "do-deliver"} {
				do(t, ctx, "press "+button, clickID(button), waitStep(i+1))
			}
			got := verdicts(t, ctx)
			wantCard(t, got, "naive", "duplicate 200.00")
			wantCard(t, got, "inbox", "ok 100.00")
			if js && !pageKept(t, ctx) {
				t.Error("the page reloaded on a step control")
			}

			// Publishing pay-1 again is an error the page explains: in the
			// message area with JavaScript, on an error page without.
			before := location(t, ctx)
			do(t, ctx, "publish pay-1 twice",
				chromedp.SetValue(chromedp.ID("publish-op"), "pay-1"),
				chromedp.Click(chromedp.ID("do-publish")))
			if js {
				do(t, ctx, "the error shows", chromedp.WaitVisible(chromedp.CSS("#flash .flash-box")))
				if msg := textOfSel(t, ctx, "#flash"); !strings.Contains(msg, "already published") {
					t.Errorf("flash = %q", msg)
				}
				if loc := location(t, ctx); loc != before {
					t.Errorf("an error moved the address bar from %q to %q", before, loc)
				}
				do(t, ctx, "the lab stays", waitStep(4))
				// The next good step clears the message.
				do(t, ctx, "advance the clock", chromedp.Click(chromedp.ID("do-advance")), waitStep(5),
					chromedp.WaitNotPresent(chromedp.CSS("#flash .flash-box")))
				do(t, ctx, "undo it", chromedp.Click(chromedp.ID("do-undo")), waitStep(4))
			} else {
				do(t, ctx, "the error page shows", chromedp.WaitVisible(chromedp.CSS(".error-box")))
				if msg := textOfSel(t, ctx, ".error-msg"); !strings.Contains(msg, "already published") {
					t.Errorf("error page says %q", msg)
				}
				do(t, ctx, "back to the lab", chromedp.Click(chromedp.CSS(".error-links a")), waitStep(4))
			}
			if loc := location(t, ctx); !strings.Contains(loc, "/lab?s=") {
				t.Errorf("address bar = %q, want a /lab?s= permalink", loc)
			}
			script := textOfSel(t, ctx, "#script")
			for _, line := range []string{"publish pay-1 amount=10000", "deliver crash=before-ack", "redeliver", "deliver"} {
				if !strings.Contains(script, line) {
					t.Errorf("script editor lacks %q:\n%s", line, script)
				}
			}
			if js {
				screenshot(t, ctx, "lab-desktop", 1440, 1000, false)
				screenshot(t, ctx, "lab-phone", 360, 780, true)
				do(t, ctx, "dark theme", chromedp.EmulateViewport(1440, 1000), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
					_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
						Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}, {Name: "prefers-reduced-motion", Value: "reduce"}}})
					return err
				}))
				screenshot(t, ctx, "lab-desktop-dark", 1440, 1000, false)
			}

			do(t, ctx, "undo", chromedp.Click(chromedp.ID("do-undo")), waitStep(3),
				chromedp.WaitReady(chromedp.CSS(`#step-count[data-total="3"]`)))
			got = verdicts(t, ctx)
			shared := openPermalink(t, b, ctx, js, 3)
			if fmt.Sprint(shared) != fmt.Sprint(got) {
				t.Errorf("permalink in a fresh browser shows %v, want %v", shared, got)
			}
			b.noConsoleErrors()
		})
	}
}

func textOfSel(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[string](
		fmt.Sprintf(`(e => e ? (e.value ?? e.textContent) : "")(document.querySelector(%q))`, sel)))
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return text
}

// TestBrowserThemeAndLanguage switches the theme and the language.
func TestBrowserThemeAndLanguage(t *testing.T) {
	b := newBrowser(t)
	ctx := b.tab(true, true)
	do(t, ctx, "open", chromedp.Navigate(b.base+"/lab?preset=crash-before-ack&step=1"), waitStep(1))
	for _, want := range []string{"light", "dark", ""} {
		do(t, ctx, "theme toggle", chromedp.Click(chromedp.ID("theme-toggle")))
		got, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[string](`document.documentElement.dataset.theme || ""`))
		if err != nil || got != want {
			t.Errorf("theme after a click = %q (%v), want %q", got, err, want)
		}
	}
	do(t, ctx, "a card's timeline link unfolds its diagram",
		chromedp.Click(chromedp.CSS("#card-inbox .tl-link a")),
		chromedp.WaitVisible(chromedp.CSS("#timeline-inbox[open] svg.tl")))
	do(t, ctx, "switch to Russian", chromedp.Click(chromedp.CSS(`.langs a[lang="ru"]`)),
		chromedp.WaitReady(chromedp.CSS(`html[lang="ru"]`)), waitStep(1))
	if got := textOfSel(t, ctx, "#step-count"); !strings.Contains(got, "Шаг 1 из 4") {
		t.Errorf("step count in Russian = %q", got)
	}
	if got := textOfSel(t, ctx, "#narration"); !strings.Contains(got, "Продюсер публикует") {
		t.Errorf("narration in Russian = %q", got)
	}
	// The choice is remembered: the next page is Russian without ?lang=.
	do(t, ctx, "next", chromedp.Click(chromedp.ID("step-next")), waitStep(2))
	do(t, ctx, "reload", chromedp.Navigate(b.base+"/lab?preset=crash-before-ack&step=2"), waitStep(2))
	if got := textOfSel(t, ctx, "#step-count"); !strings.Contains(got, "Шаг 2 из 4") {
		t.Errorf("after a reload the page is not Russian: %q", got)
	}
	b.noConsoleErrors()
}

// TestBrowserScreenshots saves pictures of pages the flows above do not
// reach: all twelve handlers on a projector, in Russian, and an error.
func TestBrowserScreenshots(t *testing.T) {
	b := newBrowser(t)
	ctx := b.tab(true, true)
	do(t, ctx, "projector view", chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(b.base+"/lab?preset=concurrent-duplicates&handlers=all&step=3&lang=ru"), waitStep(3))
	screenshot(t, ctx, "lab-projector-ru", 1920, 1080, false)
	do(t, ctx, "empty lab", chromedp.Navigate(b.base+"/lab?lang=en"), chromedp.WaitVisible(chromedp.ID("guide-preset")))
	screenshot(t, ctx, "lab-empty", 1440, 900, false)
	do(t, ctx, "a crash in the source", chromedp.Navigate(b.base+"/lab?preset=crash-after-effect&handlers=effect-first,inbox&step=2"),
		waitStep(2), chromedp.Click(chromedp.CSS("#card-effect-first details.source > summary")),
		chromedp.WaitVisible(chromedp.CSS("#card-effect-first .crash-label")))
	screenshot(t, ctx, "lab-source", 1440, 900, false)
	b.noConsoleErrors()
	// The error page's own 400 is logged by the browser as a failed load.
	do(t, ctx, "error page", chromedp.Navigate(b.base+"/lab?script=publish+pay-1+amount%3D1%0Adelivr&lang=en"),
		chromedp.WaitVisible(chromedp.CSS(".error-box")))
	ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx2, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(artifactsDir(t), "error-page.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
