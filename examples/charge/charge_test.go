package charge

import (
	"testing"

	"github.com/idempotency-lab/lab/labtest"
)

// TestCredit fails on purpose when LABTEST_SHOW_BUG is set: run
// `LABTEST_SHOW_BUG=1 go test ./...` to see the lab's report of the bug.
func TestCredit(t *testing.T) {
	if testing.Short() || !showBug() {
		t.Skip("set LABTEST_SHOW_BUG=1 to see Credit fail")
	}
	labtest.Check(t, labtest.Handler{Name: "credit", Handle: Credit}, labtest.Depth(2))
}

func TestCreditOnce(t *testing.T) {
	labtest.Check(t, labtest.Handler{Name: "credit-once", Schema: CreditOnceSchema, Handle: CreditOnce}, labtest.Depth(3))
}
