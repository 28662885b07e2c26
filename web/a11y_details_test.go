package web_test

import (
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/static"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/webtest"
)

// luminance is WCAG 2's relative luminance of #rrggbb.
func luminance(tb testing.TB, hex string) float64 {
	tb.Helper()
	hex = strings.TrimPrefix(hex, "#")
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	if len(hex) != 6 {
		tb.Fatalf("not a #rrggbb colour: %q", hex)
	}
	var c [3]float64
	for i := range c {
		v, err := strconv.ParseUint(hex[2*i:2*i+2], 16, 8)
		if err != nil {
			tb.Fatal(err)
		}
		s := float64(v) / 255
		if s <= 0.04045 {
			c[i] = s / 12.92
		} else {
			c[i] = math.Pow((s+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
}

// contrast is WCAG 2's contrast ratio of two #rrggbb colours.
func contrast(tb testing.TB, a, b string) float64 {
	la, lb := luminance(tb, a), luminance(tb, b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// themeVars returns the custom properties of lab.css's light theme (:root)
// and its explicit dark theme ([data-theme="dark"]).
func themeVars(t *testing.T) (light, dark map[string]string) {
	t.Helper()
	css, err := static.FS.ReadFile("lab.css")
	if err != nil {
		t.Fatal(err)
	}
	block := func(sel string) map[string]string {
		i := strings.Index(string(css), sel)
		if i < 0 {
			t.Fatalf("lab.css has no %s block", sel)
		}
		body := string(css[i:])
		body = body[strings.Index(body, "{")+1 : strings.Index(body, "}")]
		vars := map[string]string{}
		for _, m := range regexp.MustCompile(`(--[a-z0-9-]+):\s*(#[0-9a-fA-F]{3,6})\s*;`).FindAllStringSubmatch(body, -1) {
			vars[m[1]] = m[2]
		}
		return vars
	}
	return block(":root {"), block("[data-theme=\"dark\"] {")
}

// TestFocusRingContrast checks WCAG 1.4.11: the focus ring has 3:1 against
// the page and the cards in both themes.
func TestFocusRingContrast(t *testing.T) {
	light, dark := themeVars(t)
	for name, vars := range map[string]map[string]string{"light": light, "dark": dark} {
		for _, bg := range []string{"--bg", "--surface", "--surface-2"} {
			if vars["--focus"] == "" || vars[bg] == "" {
				t.Fatalf("%s theme: no --focus or %s in lab.css", name, bg)
			}
			if r := contrast(t, vars["--focus"], vars[bg]); r < 3 {
				t.Errorf("%s theme: focus %s on %s %s is %.2f:1, want ≥ 3:1", name, vars["--focus"], bg, vars[bg], r)
			}
		}
	}
}

// TestCodeLineNumberContrast checks WCAG 1.4.3 for the line numbers of the
// lessons' code: lessons.css draws them in --muted at full opacity, on the
// background of the chroma styles the lessons serve.
func TestCodeLineNumberContrast(t *testing.T) {
	css, err := static.FS.ReadFile("lessons.css")
	if err != nil {
		t.Fatal(err)
	}
	rule := regexp.MustCompile(`\.lesson-body pre\.chroma \.line \.ln \{[^}]*\}`).FindString(string(css))
	if !strings.Contains(rule, "color: var(--muted)") || strings.Contains(rule, "opacity: .") {
		t.Fatalf("line numbers are not drawn in --muted at full opacity: %q", rule)
	}
	code, err := lessons.CodeCSS(lessons.LightStyle, lessons.DarkStyle)
	if err != nil {
		t.Fatal(err)
	}
	bgs := regexp.MustCompile(`(?:^|\n)\.chroma \{[^}]*?background-color:\s*(#[0-9a-fA-F]{6})`).FindAllStringSubmatch(code, -1)
	if len(bgs) < 2 {
		t.Fatalf("no light and dark code backgrounds in the chroma CSS")
	}
	light, dark := themeVars(t)
	for i, vars := range []map[string]string{light, dark} {
		bg := bgs[i][1]
		if r := contrast(t, vars["--muted"], bg); r < 4.5 {
			t.Errorf("theme %d: line numbers %s on %s are %.2f:1, want ≥ 4.5:1", i, vars["--muted"], bg, r)
		}
	}
}

// TestOverBarStripesUseRGBA checks that the "too much" bar's stripes do
// not rely on color-mix(…, transparent) inside a gradient, which Firefox
// drops.
func TestOverBarStripesUseRGBA(t *testing.T) {
	css, err := static.FS.ReadFile("lab.css")
	if err != nil {
		t.Fatal(err)
	}
	rule := regexp.MustCompile(`\.bar \.over \{[^}]*\}`).FindString(string(css))
	if rule == "" || strings.Contains(rule, "color-mix") || !strings.Contains(rule, "rgba(") {
		t.Errorf(".bar .over: %q", rule)
	}
}

// TestPagesHaveMetaDescription checks that every kind of page carries a
// description of its own, in the page's language.
func TestPagesHaveMetaDescription(t *testing.T) {
	h := webtest.NewServer(t)
	re := regexp.MustCompile(`<meta name="description" content="([^"]+)"`)
	for _, lang := range []string{"en", "ru"} {
		seen := map[string]string{}
		for _, path := range []string{"/lab", "/matrix", "/lessons", "/practice", "/rooms", "/no-such-page"} {
			r := webtest.Get(t, h, path+"?lang="+lang)
			if r.Status != http.StatusOK && r.Status != http.StatusNotFound {
				continue
			}
			m := re.FindStringSubmatch(r.Body)
			if m == nil {
				t.Errorf("%s?lang=%s (%d): no meta description", path, lang, r.Status)
				continue
			}
			if strings.Contains(m[1], "⟦") {
				t.Errorf("%s?lang=%s: description %q is a missing key", path, lang, m[1])
			}
			if lang == "ru" && !regexp.MustCompile(`[а-я]`).MatchString(m[1]) {
				t.Errorf("%s?lang=ru: description %q is not Russian", path, m[1])
			}
			if other, ok := seen[m[1]]; ok && path != "/no-such-page" && other != "/no-such-page" {
				t.Errorf("%s and %s share the description %q", path, other, m[1])
			}
			seen[m[1]] = path
		}
	}
}

// TestLessonCodeBlocksAreNamedRegions checks that the lessons' scrollable
// code blocks are focusable regions with a name.
func TestLessonCodeBlocksAreNamedRegions(t *testing.T) {
	h := webtest.NewServer(t)
	c, err := lessons.Load(lessons.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, lang := range []string{"en", "ru"} {
		for _, l := range c.Lessons(lang) {
			r := webtest.Get(t, h, "/lessons/"+l.Slug+"?lang="+lang)
			for _, pre := range regexp.MustCompile(`<pre class="chroma"[^>]*>`).FindAllString(r.Body, -1) {
				found = true
				if !strings.Contains(pre, `role="region"`) || !strings.Contains(pre, `aria-label="`) || !strings.Contains(pre, `tabindex="0"`) {
					t.Errorf("%s (%s): %s", l.Slug, lang, pre)
				}
			}
		}
	}
	if !found {
		t.Error("no code block in any lesson")
	}
}

// langOf is the lang a lessons language code names.
func langOf(code string) page.Lang {
	if code == string(page.RU) {
		return page.RU
	}
	return page.EN
}
