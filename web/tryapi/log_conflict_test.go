package tryapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRequestLogHasTheConflict (#28, feature 13): the 409 a request gets
// while another with its key is at the gateway is in the log, between the
// two 201s (the first, then its replay), newest first.
func TestRequestLogHasTheConflict(t *testing.T) {
	a, h := newTestAPI(t, Config{})
	g := hookGateway(a)
	ts := httptest.NewServer(h)
	defer ts.Close()
	ctx := t.Context()
	const body = `{"account": "acc-2", "amount": 2500}`
	first := make(chan answer, 1)
	go func() {
		r, err := post(t, ctx, ts.URL, "conflict-log", "key-9", body, "Lab-Gateway-Delay", "2s")
		if err != nil {
			t.Error(err)
		}
		first <- r
	}()
	<-g.entered
	b, err := post(t, ctx, ts.URL, "conflict-log", "key-9", body)
	if err != nil {
		t.Fatal(err)
	}
	problemOf(t, b, http.StatusConflict)
	close(g.release)
	if r := <-first; r.status != http.StatusCreated {
		t.Fatalf("the first: %d\n%s", r.status, r.body)
	}
	if r, err := post(t, ctx, ts.URL, "conflict-log", "key-9", body); err != nil || r.status != http.StatusCreated {
		t.Fatalf("the replay: %v %d", err, r.status)
	}
	var got []int
	for _, e := range a.logs.newest("conflict-log") {
		got = append(got, e.Status)
	}
	// The 409 is answered while the first is still at the gateway: it is
	// logged before the first's 201.
	if len(got) != 3 || got[0] != http.StatusCreated || got[1] != http.StatusCreated || got[2] != http.StatusConflict {
		t.Errorf("the log, newest first: %v, want [201 201 409]", got)
	}
	st := serve(h, httptest.NewRequest(http.MethodGet, "/try-api/conflict-log/state", nil))
	if st.status != http.StatusOK || !strings.Contains(st.body, `data-status="409"`) {
		t.Errorf("the page's log has no 409: %d", st.status)
	}
}
