package practicepage_test

import (
	"github.com/idempotency-lab/lab/web/webtest"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPIPredictOffersWrongStatus: an API predict's form offers
// wrong-status (and no poison), and a prediction of it is graded; a
// message predict refuses it, naming its own choices.
func TestAPIPredictOffersWrongStatus(t *testing.T) {
	h, stop := webtest.NewPracticeServer(t, filepath.Join(t.TempDir(), "progress.db"), webtest.NewClock())
	defer stop()
	v := webtest.NewVisitor(t, h)
	q := v.Get("/practice/q/predict-api-naive-missing-key")
	if q.Status != http.StatusOK || !strings.Contains(q.Body, `value="wrong-status"`) || strings.Contains(q.Body, `value="poison"`) {
		t.Fatalf("%d: the form's verdicts are not the API side's\n%s", q.Status, webtest.Excerpt(q.Body))
	}
	_, res := v.Answer("predict-api-naive-missing-key", url.Values{"balance": {"100.00"}, "verdict": {"wrong-status"}})
	if !strings.Contains(res.Body, "wrong status") && !strings.Contains(res.Body, "wrong-status") {
		t.Errorf("the result does not name the verdict\n%s", webtest.Excerpt(res.Body))
	}
	bad := v.Post("/practice/q/predict-naive-two-topups", url.Values{"balance": {"250.00"}, "verdict": {"wrong-status"}})
	if bad.Status != http.StatusBadRequest || !strings.Contains(bad.Body, "ok, duplicate, lost, poison, silent-conflict") {
		t.Errorf("a message predict with wrong-status: %d\n%s", bad.Status, webtest.Excerpt(bad.Body))
	}
}
