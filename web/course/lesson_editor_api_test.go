package course_test

import (
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestLessonOpensTheAPIHandlerInTheEditor: lesson 9 quotes the API
// handler api-idempotency-key and, in both languages, links "Open in the
// editor" under it on an API preset it uses (api-crash-after-charge);
// the link opens /lab on that preset with the handler's whole API file in
// the open editor (sandbox.Builtin), the file's card beside the compiled
// handler's, and at the end of the story the file's card settles as the
// compiled handler's: the same verdict and balance. The completer's fence
// (APIIdempotencyKeyComplete) has no link: a handler file has no
// completer.
func TestLessonOpensTheAPIHandlerInTheEditor(t *testing.T) {
	const handler, preset = "api-idempotency-key", "api-crash-after-charge"
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	course, err := lessons.Load(lessons.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	apiPresets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.FindPreset(apiPresets, preset); err != nil {
		t.Fatalf("%s is not an API preset: %v", preset, err)
	}
	file, err := sandbox.Builtin(handler)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := sandbox.Parse(file); err != nil || !f.API {
		t.Fatalf("the handler file of %s is not an API handler's: %v", handler, err)
	}
	texts := map[string]string{lessons.English: "Open in the editor", lessons.Russian: "Открыть в редакторе"}
	var hrefs []string
	for _, lang := range lessons.Langs() {
		l, ok := course.Lesson("api", lang)
		if !ok {
			t.Fatalf("no lesson api in %s", lang)
		}
		if !strings.Contains(strings.Join(l.Presets, " "), preset) {
			t.Errorf("%s: the lesson's presets %v do not include %s", l.Source, l.Presets, preset)
		}
		r := webtest.Get(t, h, "/lessons/api?lang="+lang)
		if r.Status != 200 {
			t.Fatalf("/lessons/api?lang=%s: status %d", lang, r.Status)
		}
		var href string
		for _, m := range openEditor.FindAllStringSubmatch(r.Body, -1) {
			if m[2] == handler {
				if href != "" {
					t.Errorf("/lessons/api?lang=%s: two links open %s", lang, handler)
				}
				href = webtest.HTMLUnescape(m[1])
				if m[3] != preset || m[4] != texts[lang] {
					t.Errorf("/lessons/api?lang=%s: the link opens %s on %s, %q; want %s, %q", lang, handler, m[3], m[4], preset, texts[lang])
				}
			}
			if m[2] != handler {
				t.Errorf("/lessons/api?lang=%s: a link opens %s on %s; the lesson quotes no other handler", lang, m[2], m[3])
			}
		}
		if href == "" {
			t.Fatalf("/lessons/api?lang=%s: no link opens %s in the editor\n%s", lang, handler, webtest.Excerpt(r.Body))
		}
		if !strings.Contains(r.Body, `data-handler="`+handler+`" data-preset="`+preset+`"`) {
			t.Errorf("/lessons/api?lang=%s: the link does not name %s on %s", lang, handler, preset)
		}
		hrefs = append(hrefs, href)
	}
	if len(hrefs) != 2 || hrefs[0] != hrefs[1] {
		t.Errorf("the two languages link %v: want one and the same lab address", hrefs)
	}
	// The address both languages link: the lab on the API preset, the
	// file in the open editor, and at the story's end its card settled
	// as the compiled handler's.
	followEditorLink(t, h, apiPresets, hrefs[0], handler, preset)
}
