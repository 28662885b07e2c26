package classroom_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestPresentEveryPreset: the presenter shows every broker preset at every
// step, the producer side's and the ordering ones included, with the
// handlers its story names.
func TestPresentEveryPreset(t *testing.T) {
	h := newTestServer(t)
	for _, p := range mustPresets(t) {
		for step := 0; step <= len(p.Script.Steps); step++ {
			r := get(t, h, fmt.Sprintf("/present/%s?step=%d", p.Name, step))
			if r.status != http.StatusOK {
				t.Fatalf("/present/%s?step=%d: %d", p.Name, step, r.status)
			}
			if step == len(p.Script.Steps) && len(p.Script.Handlers) > 0 {
				if got := cards(r.body); len(got) != len(p.Script.Handlers) {
					t.Errorf("/present/%s shows %v, want %v", p.Name, got, p.Script.Handlers)
				}
			}
		}
	}
}
