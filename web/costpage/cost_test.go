package costpage

import (
	"errors"
	"net/http"
	"testing"

	"github.com/idempotency-lab/lab/web/page"
)

// One bench at a time: while one runs, another is refused with 503 and a
// time to retry; the slot is free again after.
func TestOneBenchAtATime(t *testing.T) {
	c := New(nil, true)
	release, err := c.acquire()
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.acquire()
	var pe *page.Error
	if !errors.As(err, &pe) || pe.Status != http.StatusServiceUnavailable || pe.RetryAfter == 0 || pe.Key != "cost.err.busy" {
		t.Errorf("a second bench: %v", err)
	}
	release()
	again, err := c.acquire()
	if err != nil {
		t.Errorf("after the first ended: %v", err)
	} else {
		again()
	}
	if _, err := New(nil, false).acquire(); !errors.As(err, &pe) || pe.Status != http.StatusForbidden {
		t.Errorf("--bench=false: %v", err)
	}
}
