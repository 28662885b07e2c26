package playground_test

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/webtest"
)

var (
	buttonTag   = regexp.MustCompile(`(?s)<button\s[^>]*>`)
	attrOf      = func(name string) *regexp.Regexp { return regexp.MustCompile(`\s` + name + `="([^"]*)"`) }
	titleAttr   = attrOf("title")
	idOfButton  = attrOf("id")
	describedBy = attrOf("aria-describedby")
	scriptView  = regexp.MustCompile(`(?s)<pre class="script-view"[^>]*>(.*?)</pre>`)
	cyrillic    = regexp.MustCompile(`\p{Cyrillic}`)
)

// controlsOf is the part of a lab page with the step controls.
func controlsOf(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, `class="control-groups"`)
	j := strings.Index(body, `class="undo-form"`)
	if i < 0 || j < i {
		t.Fatalf("no step controls on the page\n%s", webtest.Excerpt(body))
	}
	k := strings.Index(body[j:], "</form>")
	return body[i : j+k]
}

// TestLabStepControlTips: every step control has a tooltip and an
// accessible description, in English and in Russian.
func TestLabStepControlTips(t *testing.T) {
	h := webtest.NewServer(t)
	for _, lang := range []string{"en", "ru"} {
		t.Run(lang, func(t *testing.T) {
			r := webtest.Get(t, h, "/lab?preset=crash-before-ack&step=1&lang="+lang)
			if r.Status != 200 {
				t.Fatalf("status %d", r.Status)
			}
			seen := map[string]bool{}
			for _, tag := range buttonTag.FindAllString(controlsOf(t, r.Body), -1) {
				id := idOfButton.FindStringSubmatch(tag)
				if id == nil {
					t.Errorf("a step control without an id: %s", tag)
					continue
				}
				seen[id[1]] = true
				title := titleAttr.FindStringSubmatch(tag)
				if title == nil || strings.TrimSpace(title[1]) == "" {
					t.Errorf("%s: no title", id[1])
				} else if (lang == "ru") != cyrillic.MatchString(title[1]) {
					t.Errorf("%s: title %q is not in %s", id[1], title[1], lang)
				}
				desc := describedBy.FindStringSubmatch(tag)
				if desc == nil {
					t.Errorf("%s: no aria-describedby", id[1])
					continue
				}
				for _, ref := range strings.Fields(desc[1]) {
					m := regexp.MustCompile(`id="` + regexp.QuoteMeta(ref) + `"[^>]*>([^<]+)<`).FindStringSubmatch(r.Body)
					if m == nil || strings.TrimSpace(m[1]) == "" {
						t.Errorf("%s: aria-describedby %q names no text on the page", id[1], ref)
					}
				}
			}
			for _, id := range labview.StepTipIDs {
				if !seen[id] {
					t.Errorf("control %s is not on the page", id)
				}
			}
		})
	}
}

// TestLabScriptInPageLanguage: the script shown for reading speaks the
// page's language only, while the editor keeps both, and running the
// edited script keeps both.
func TestLabScriptInPageLanguage(t *testing.T) {
	h := webtest.NewServer(t)
	view := func(body string) string {
		t.Helper()
		m := scriptView.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no script view on the page\n%s", webtest.Excerpt(body))
		}
		return html.UnescapeString(m[1])
	}
	en := webtest.Get(t, h, "/lab?preset=crash-before-ack&lang=en").Body
	ru := webtest.Get(t, h, "/lab?preset=crash-before-ack&lang=ru").Body
	for _, c := range []struct {
		name, body     string
		want, notWants []string
	}{
		{"en", en, []string{"title: ", "summary: ", "#en: "}, []string{"#ru:", "title-ru:", "summary-ru:"}},
		{"ru", ru, []string{"title-ru: ", "summary-ru: ", "#ru: "}, []string{"#en:", "title: ", "summary: "}},
	} {
		v := view(c.body)
		for _, w := range c.want {
			if !strings.Contains(v, w) {
				t.Errorf("%s: the script view lacks %q:\n%s", c.name, w, v)
			}
		}
		for _, w := range c.notWants {
			for _, ln := range strings.Split(v, "\n") {
				if strings.HasPrefix(ln, w) {
					t.Errorf("%s: the script view shows %q", c.name, ln)
				}
			}
		}
		if s := webtest.ScriptOf(t, c.body); !strings.Contains(s, "#en: ") || !strings.Contains(s, "#ru: ") {
			t.Errorf("%s: the editor lost a language:\n%s", c.name, s)
		}
	}
	// Edit the script (one more step) and run it: both languages stay.
	text := webtest.ScriptOf(t, en) + "drain\n"
	_, page := webtest.Follow(t, h, "/lab/script", url.Values{"script": {text}})
	s := webtest.ScriptOf(t, page.Body)
	for _, w := range []string{"title: ", "title-ru: ", "summary-ru: ", "#en: ", "#ru: ", "drain"} {
		if !strings.Contains(s, w) {
			t.Errorf("after running the edited script the editor lacks %q:\n%s", w, s)
		}
	}
}
