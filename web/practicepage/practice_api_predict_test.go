package practicepage_test

import (
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
	h, stop := newPracticeServer(t, filepath.Join(t.TempDir(), "progress.db"), newTestClock())
	defer stop()
	v := newVisitor(t, h)
	q := v.get("/practice/q/predict-api-naive-missing-key")
	if q.status != http.StatusOK || !strings.Contains(q.body, `value="wrong-status"`) || strings.Contains(q.body, `value="poison"`) {
		t.Fatalf("%d: the form's verdicts are not the API side's\n%s", q.status, excerpt(q.body))
	}
	_, res := v.answer("predict-api-naive-missing-key", url.Values{"balance": {"100.00"}, "verdict": {"wrong-status"}})
	if !strings.Contains(res.body, "wrong status") && !strings.Contains(res.body, "wrong-status") {
		t.Errorf("the result does not name the verdict\n%s", excerpt(res.body))
	}
	bad := v.post("/practice/q/predict-naive-two-topups", url.Values{"balance": {"250.00"}, "verdict": {"wrong-status"}})
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "ok, duplicate, lost, poison, silent-conflict") {
		t.Errorf("a message predict with wrong-status: %d\n%s", bad.status, excerpt(bad.body))
	}
}
