package classroom_test

import (
	"fmt"
	"github.com/idempotency-lab/lab/web/webtest"
	"net/http"
	"testing"
)

// TestPresentEveryPreset: the presenter shows every broker preset at every
// step, the producer side's and the ordering ones included, with the
// handlers its story names.
func TestPresentEveryPreset(t *testing.T) {
	h := webtest.NewServer(t)
	for _, p := range webtest.MustPresets(t) {
		for step := 0; step <= len(p.Script.Steps); step++ {
			r := webtest.Get(t, h, fmt.Sprintf("/present/%s?step=%d", p.Name, step))
			if r.Status != http.StatusOK {
				t.Fatalf("/present/%s?step=%d: %d", p.Name, step, r.Status)
			}
			if step == len(p.Script.Steps) && len(p.Script.Handlers) > 0 {
				if got := webtest.Cards(r.Body); len(got) != len(p.Script.Handlers) {
					t.Errorf("/present/%s shows %v, want %v", p.Name, got, p.Script.Handlers)
				}
			}
		}
	}
}
