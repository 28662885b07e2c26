package classroom_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestBrowserRoomStopped: when the server stops, a student's page in
// Russian says, in Russian, that the lab has stopped, in place of "live",
// without reloading (which would find no lab) and without an error.
func TestBrowserRoomStopped(t *testing.T) {
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	var script string
	for _, p := range presets {
		if p.Name == "crash-before-ack" {
			script = p.Script.String()
		}
	}
	hub := room.NewHub(room.Config{})
	code, _, err := hub.Create(script, 1, []string{"naive", "inbox"})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	b := webtest.NewBrowserWith(t, web.Config{Rooms: hub, Stop: stop, Heartbeat: -1})
	student := b.Tab(true, true)
	webtest.Do(t, student, "follow the room in Russian", chromedp.Navigate(b.Base+"/rooms/"+code+"?lang=ru"),
		chromedp.Click(chromedp.ID("join-go")), webtest.WaitStep(1),
		chromedp.WaitVisible(chromedp.CSS(`#p-live[data-state="live"]`)),
		chromedp.WaitNotVisible(chromedp.ID("room-stopped")))
	webtest.MarkPage(t, student)

	close(stop)
	webtest.Do(t, student, "the page says the lab stopped", chromedp.WaitVisible(chromedp.ID("room-stopped")),
		chromedp.WaitNotVisible(chromedp.ID("p-live")))
	if got := webtest.TextOfSel(t, student, "#room-stopped"); !strings.Contains(got, "Лаборатория остановлена") {
		t.Errorf("the note says %q, want it in Russian", got)
	}
	if !webtest.PageKept(t, student) {
		t.Error("the page reloaded: it should stay and say the lab stopped")
	}
	webtest.Screenshot(t, student, "present-student-stopped-phone", 360, 800, true)
	b.NoConsoleErrors()
}
