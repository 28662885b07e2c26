package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
)

// alive says whether process pid exists (a zombie not yet reaped
// included: /proc keeps it until then).
func alive(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return err == nil
}

// A waiting child serves one request and ends: each run is its own
// process, the one that waited for it, and the next waits in its place.
// With Warm negative no child waits and every run starts its own.
func TestWarmChildServesOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		warm int
		// waits: a child waits after each run, and the next run takes it.
		waits bool
	}{
		{"warm", 0, true}, // 0: the default, one a slot
		{"cold", -1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runner(sandbox.Limits{Warm: c.warm})
			defer r.Close()
			if _, err := r.Isolation(); err != nil { // its self-test's child is not counted
				t.Fatal(err)
			}
			var served []int
			sandbox.Served(r, func(pid int) { served = append(served, pid) })
			req := sandbox.Request{Op: "run", Name: "yours", Code: file("", naiveBody),
				Script: "publish a amount=100\ndeliver crash=before-ack\n"}
			var waited []int
			for i := range 3 {
				resp, err := r.Run(context.Background(), req)
				if err != nil || resp.Error != nil {
					t.Fatalf("run %d: %v %+v", i, err, resp)
				}
				if res := resp.Run.Unwire(); res.Verdict != sim.Duplicate || res.Settled != 200 {
					t.Errorf("run %d: %s, settled %d", i, res.Verdict, res.Settled)
				}
				if alive(served[i]) {
					t.Errorf("run %d: its child, process %d, is still there", i, served[i])
				}
				w := sandbox.Waiting(r)
				if c.waits != (len(w) == 1) || len(w) > 1 {
					t.Fatalf("after run %d: %d children wait, want one: %t", i, len(w), c.waits)
				}
				if c.waits {
					if w[0] == served[i] {
						t.Fatalf("run %d: its child %d waits again", i, w[0])
					}
					waited = append(waited, w[0])
				}
			}
			if len(served) != 3 || len(slices.Compact(slices.Sorted(slices.Values(served)))) != 3 {
				t.Errorf("three runs were served by processes %v, want three different ones", served)
			}
			// Each later run took the child that waited after the one
			// before.
			if c.waits && !slices.Equal(served[1:], waited[:2]) {
				t.Errorf("runs served by %v, children waiting before them %v", served[1:], waited[:2])
			}
		})
	}
}

// Close ends every waiting child before it returns; a Run after it still
// runs, in a child of its own, and leaves none waiting.
func TestCloseEndsWaitingChildren(t *testing.T) {
	r := runner(sandbox.Limits{})
	req := sandbox.Request{Op: "run", Name: "yours", Code: file("", naiveBody), Script: "publish a amount=100\ndeliver\n"}
	if _, err := r.Run(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	waiting := sandbox.Waiting(r)
	if len(waiting) == 0 {
		t.Fatal("no child waits after a run")
	}
	for _, pid := range waiting {
		if !alive(pid) {
			t.Fatalf("waiting child %d is not running", pid)
		}
	}
	r.Close()
	for _, pid := range waiting {
		if alive(pid) {
			t.Errorf("child %d is still there after Close", pid)
		}
	}
	var served []int
	sandbox.Served(r, func(pid int) { served = append(served, pid) })
	if resp, err := r.Run(context.Background(), req); err != nil || resp.Error != nil {
		t.Fatalf("a run after Close: %v %+v", err, resp)
	}
	if w := sandbox.Waiting(r); len(w) != 0 || slices.Contains(waiting, served[0]) || alive(served[0]) {
		t.Errorf("after Close a run was served by %v (waiting before Close: %v) and left %v waiting", served, waiting, w)
	}
}

// A request whose context ends kills its child: Run returns the
// context's error, and the process is gone.
func TestCancelKillsChild(t *testing.T) {
	r := runner(sandbox.Limits{Timeout: time.Minute})
	defer r.Close()
	if _, err := r.Isolation(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pid int
	sandbox.Served(r, func(p int) {
		pid = p
		cancel() // as a visitor who closes the page
	})
	_, err := r.Run(ctx, sandbox.Request{Op: "run", Name: "yours", Code: file("", "\tfor {\n\t}"),
		Script: "publish a amount=100\ndeliver\n"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run: %v, want context.Canceled", err)
	}
	if pid == 0 || alive(pid) {
		t.Errorf("the child (process %d) outlived its cancelled request", pid)
	}
}
