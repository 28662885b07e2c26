package playground_test

import (
	"github.com/idempotency-lab/lab/web/webtest"
	"regexp"
	"strings"
	"testing"
)

// TestPlayPathOnThePage: the cards carry their lane with the step's path,
// in the lab and in the presenter view, and the play controls are there
// hidden (lab.js shows them).
func TestPlayPathOnThePage(t *testing.T) {
	h := webtest.NewServer(t)
	for _, target := range []string{"/lab?preset=crash-before-ack&step=2", "/present/crash-before-ack?step=2"} {
		r := webtest.Get(t, h, target)
		if r.Status != 200 {
			t.Fatalf("%s: status %d", target, r.Status)
		}
		for _, want := range []string{
			`data-path="broker,worker,db,worker" data-token="pay-1" data-crash`,
			`data-part="worker"`,
			`id="play-toggle"`,
			`aria-pressed="false"`,
		} {
			if !strings.Contains(r.Body, want) {
				t.Errorf("%s: no %s", target, want)
			}
		}
		if !regexp.MustCompile(`<div class="play-controls"[^>]* hidden`).MatchString(r.Body) {
			t.Errorf("%s: the play controls are not hidden for a page without JavaScript", target)
		}
	}
	r := webtest.Get(t, h, "/lab?preset=gateway-timeout&step=1&handlers=naive,setnx&lang=ru")
	if !strings.Contains(r.Body, `data-path="producer,broker"`) || !regexp.MustCompile(`data-part="gateway">(<a [^>]*>)?<span class="lane-label">Шлюз</span>`).MatchString(r.Body) {
		t.Errorf("setnx's lane at a publish, in Russian: %s", webtest.Excerpt(r.Body))
	}
}
