package classroom_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestPresentAPIStories: the presenter shows the API side's presets too,
// on the API handlers (the ones the story names, or api-naive beside
// api-idempotency-key), at every step; the handler keys toggle API
// handlers, and the list of scenarios to present includes them.
func TestPresentAPIStories(t *testing.T) {
	h := webtest.NewServer(t)
	presets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range presets {
		for step := 0; step <= len(p.Script.Steps); step++ {
			r := webtest.Get(t, h, fmt.Sprintf("/present/%s?step=%d", p.Name, step))
			if r.Status != http.StatusOK {
				t.Fatalf("/present/%s?step=%d: %d\n%s", p.Name, step, r.Status, webtest.Excerpt(r.Body))
			}
		}
	}
	r := webtest.Get(t, h, "/present/api-lost-response?step=2")
	for _, w := range []string{`id="p-h-1"`, "api-idempotency-key", "api-naive"} {
		if !strings.Contains(r.Body, w) {
			t.Errorf("the API presenter lacks %q", w)
		}
	}
	if strings.Contains(r.Body, `data-handler="inbox"`) {
		t.Error("the API presenter offers a message handler")
	}
	if idx := webtest.Get(t, h, "/present"); !strings.Contains(idx.Body, `href="/present/api-lost-response"`) {
		t.Error("the scenarios to present do not list the API presets")
	}
	if lab := webtest.Get(t, h, "/lab?preset=api-lost-response"); !strings.Contains(lab.Body, `id="present-link"`) {
		t.Error("the lab offers no presenter link on an API story")
	}
}

// TestRoomOfAnAPIStory: a room opened on an API preset follows the
// instructor's steps like any other; the student sees the API handlers.
func TestRoomOfAnAPIStory(t *testing.T) {
	hr, _ := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, hr, url.Values{"preset": {"api-lost-response"}, "handlers": {"api-naive,api-idempotency-key"}, "step": {"0"}})
	base := "/rooms/" + code
	if r := webtest.Request(t, hr, http.MethodPost, base+"/step", url.Values{"step": {"2"}}, "Cookie", cookie); r.Status != http.StatusSeeOther {
		t.Fatalf("a step: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	s := webtest.Get(t, hr, base, "Cookie", webtest.IssuedStudent(t, hr, code))
	if s.Status != http.StatusOK || !strings.Contains(s.Body, "api-idempotency-key") {
		t.Errorf("the student's page (%d) does not show the API handlers", s.Status)
	}
}
