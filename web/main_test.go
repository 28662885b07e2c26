package web_test

import (
	"testing"

	"github.com/idempotency-lab/lab/web/webtest"
)

// TestMain makes the test binary a sandbox child when the server starts
// one, as `lab sandbox-child` is the lab's.
func TestMain(m *testing.M) { webtest.Main(m) }
