package webtest

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
	"github.com/idempotency-lab/lab/web"
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

// Browser is one Chromium process and the lab server it talks to.
type Browser struct {
	t       *testing.T
	Ctx     context.Context // the browser's first tab; never given a timeout
	Base    string          // the server's URL
	Mu      sync.Mutex      // guards Console
	Console []string        // errors the pages logged, CSP violations included
}

// NewBrowser is a headless Chromium over a fresh lab server.
func NewBrowser(t *testing.T) *Browser {
	t.Helper()
	return NewBrowserWith(t, web.Config{})
}

// NewBrowserWith is NewBrowser over a server built from cfg.
func NewBrowserWith(t *testing.T, cfg web.Config) *Browser {
	t.Helper()
	exe := chromiumPath(t)
	h, err := web.NewServer(cfg)
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
	b := &Browser{t: t, Ctx: ctx, Base: ts.URL}
	// The first Run starts the browser; it gets no timeout (see chromedp.Run).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

// Tab opens a new tab. fresh gives it a browser context of its own: no
// cookies, no storage, no history shared with the other tabs, as another
// person's browser would be.
func (b *Browser) Tab(fresh, javascript bool) context.Context {
	b.t.Helper()
	var opts []chromedp.ContextOption
	if fresh {
		opts = append(opts, chromedp.WithNewBrowserContext())
	}
	ctx, cancel := chromedp.NewContext(b.Ctx, opts...)
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
			b.Mu.Lock()
			b.Console = append(b.Console, msg)
			b.Mu.Unlock()
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

// NoConsoleErrors fails the test if any page logged an error, a warning or
// a blocked resource (a CSP violation shows up here).
func (b *Browser) NoConsoleErrors() {
	b.t.Helper()
	b.Mu.Lock()
	defer b.Mu.Unlock()
	for _, m := range b.Console {
		// A 400 is the page's answer to bad input, which some tests send.
		if strings.Contains(m, "responded with a status of 400") {
			continue
		}
		b.t.Errorf("browser console: %s", m)
	}
	b.Console = nil
}

// Do runs actions with a safety-net timeout.
func Do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// WaitStep waits until the page shows step n. It reads the DOM through the
// DevTools protocol, so it works with the page's JavaScript off too.
func WaitStep(n int) chromedp.Action[chromedp.Void] {
	return RetryStale(chromedp.WaitReady(chromedp.CSS(fmt.Sprintf(`#step-count[data-step="%d"]`, n))))
}

// RetryStale runs a, again if the node it found went stale before it
// could act on it: after a form's answer replaces the page, the DevTools
// protocol can hand out a node of the page that is going ("Could not find
// node with given id") while the new one is parsed. Such a failure comes
// before any input reaches the page, so a click that failed with it did
// not happen, and trying it on the fresh node presses once. Any other
// error is returned at once.
func RetryStale(a chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
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

// ClickID presses the element with id, once, whatever a page replaced
// under it (RetryStale).
func ClickID(id string) chromedp.Action[chromedp.Void] {
	return RetryStale(chromedp.Click(chromedp.ID(id)))
}

// Attr is the attribute name of the element sel finds.
func Attr(t *testing.T, ctx context.Context, sel, name string) string {
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

// Verdicts reads every card's handler, verdict and balance, as
// "duplicate 200.00". It asks the page through the DevTools protocol,
// which works with the page's own JavaScript off too.
func Verdicts(t *testing.T, ctx context.Context) map[string]string {
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

// ArtifactsDir is where screenshots go: $ARTIFACTS, or artifacts/ at the
// module's root.
func ArtifactsDir(t *testing.T) string {
	dir := os.Getenv("ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(moduleRoot(t), "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Screenshot saves a picture of the whole page once a card is visible.
func Screenshot(t *testing.T, ctx context.Context, name string, width, height int64, mobile bool) {
	t.Helper()
	ScreenshotWhen(t, ctx, name, width, height, mobile, "article.card")
}

// ScreenshotWhen saves a picture of the whole page once ready (a CSS
// selector) is visible at that viewport.
func ScreenshotWhen(t *testing.T, ctx context.Context, name string, width, height int64, mobile bool, ready string) {
	t.Helper()
	var opts []chromedp.EmulateViewportOption
	if mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	Do(t, ctx, "resize for "+name, chromedp.EmulateViewport(width, height, opts...),
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
	path := filepath.Join(ArtifactsDir(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// Mode names a subtest by whether the page's JavaScript runs.
func Mode(js bool) string {
	if js {
		return "javascript"
	}
	return "no-javascript"
}

// Location is the address bar's URL.
func Location(t *testing.T, ctx context.Context) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// WantCard checks one card's verdict and balance, e.g. "duplicate 200.00".
func WantCard(t *testing.T, got map[string]string, handler, want string) {
	t.Helper()
	if got[handler] != want {
		t.Errorf("%s: got %q, want %q (all cards: %v)", handler, got[handler], want, got)
	}
}

// MarkPage leaves a mark in the page's JavaScript world; PageKept reports
// whether it is still there, that is whether htmx swapped parts of the page
// instead of the browser loading a new one.
func MarkPage(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.labMark = true`)); err != nil {
		t.Fatal(err)
	}
}

// PageKept reports whether MarkPage's mark is still there.
func PageKept(t *testing.T, ctx context.Context) bool {
	t.Helper()
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.labMark === true`))
	if err != nil {
		t.Fatal(err)
	}
	return kept
}

// OpenPermalink opens the page's permalink in a fresh browser context, as
// another person would, and returns what the cards show there.
func OpenPermalink(t *testing.T, b *Browser, ctx context.Context, js bool, step int) map[string]string {
	t.Helper()
	link := Attr(t, ctx, "#permalink", "value")
	if !strings.HasPrefix(link, b.Base+"/lab") {
		t.Fatalf("permalink %q does not point at this server's /lab", link)
	}
	other := b.Tab(true, js)
	Do(t, other, "open the permalink", chromedp.Navigate(link), WaitStep(step))
	return Verdicts(t, other)
}

// TextOfSel is the value, or else the text, of the element sel finds.
func TextOfSel(t *testing.T, ctx context.Context, sel string) string {
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

// moduleRoot is the folder of the module's go.mod, above the test's own.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// Poll waits until expr is true in the page, looking again on every
// change to the DOM.
func Poll(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingMutation())); err != nil {
		t.Fatalf("%s: waiting for %s: %v", what, expr, err)
	}
}

// Eval is expr's value in the page, through the DevTools protocol (so
// with the page's JavaScript off too).
func Eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// Settled waits until no htmx request, swap or settle is under way.
func Settled() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](`!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping")`)(ctx, tg)
		return err
	})
}
