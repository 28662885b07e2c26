package classroom_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/classroom/room"
)

// TestPresentAPIStories: the presenter shows the API side's presets too,
// on the API handlers (the ones the story names, or api-naive beside
// api-idempotency-key), at every step; the handler keys toggle API
// handlers, and the list of scenarios to present includes them.
func TestPresentAPIStories(t *testing.T) {
	h := newTestServer(t)
	presets, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range presets {
		for step := 0; step <= len(p.Script.Steps); step++ {
			r := get(t, h, fmt.Sprintf("/present/%s?step=%d", p.Name, step))
			if r.status != http.StatusOK {
				t.Fatalf("/present/%s?step=%d: %d\n%s", p.Name, step, r.status, excerpt(r.body))
			}
		}
	}
	r := get(t, h, "/present/api-lost-response?step=2")
	for _, w := range []string{`id="p-h-1"`, "api-idempotency-key", "api-naive"} {
		if !strings.Contains(r.body, w) {
			t.Errorf("the API presenter lacks %q", w)
		}
	}
	if strings.Contains(r.body, `data-handler="inbox"`) {
		t.Error("the API presenter offers a message handler")
	}
	if idx := get(t, h, "/present"); !strings.Contains(idx.body, `href="/present/api-lost-response"`) {
		t.Error("the scenarios to present do not list the API presets")
	}
	if lab := get(t, h, "/lab?preset=api-lost-response"); !strings.Contains(lab.body, `id="present-link"`) {
		t.Error("the lab offers no presenter link on an API story")
	}
}

// TestRoomOfAnAPIStory: a room opened on an API preset follows the
// instructor's steps like any other; the student sees the API handlers.
func TestRoomOfAnAPIStory(t *testing.T) {
	hr, _ := newRoomServer(t, room.Config{})
	code, cookie := openRoom(t, hr, url.Values{"preset": {"api-lost-response"}, "handlers": {"api-naive,api-idempotency-key"}, "step": {"0"}})
	base := "/rooms/" + code
	if r := request(t, hr, http.MethodPost, base+"/step", url.Values{"step": {"2"}}, "Cookie", cookie); r.status != http.StatusSeeOther {
		t.Fatalf("a step: %d\n%s", r.status, excerpt(r.body))
	}
	s := get(t, hr, base, "Cookie", issuedStudent(t, hr, code))
	if s.status != http.StatusOK || !strings.Contains(s.body, "api-idempotency-key") {
		t.Errorf("the student's page (%d) does not show the API handlers", s.status)
	}
}
