package check

import (
	"context"
	"reflect"
	"testing"
)

// TestReusedWorldsSameReport: a search whose scripts reuse their worlds
// (sim.Worlds) reports what a search on fresh worlds reports, field for
// field, the stories' runs and the count of scripts included.
func TestReusedWorldsSameReport(t *testing.T) {
	tests := []struct {
		handler string
		opt     Options
	}{
		{"naive", Options{Depth: 3, Runs: 50}},
		{"unique", Options{Depth: 3, Runs: 50}},
		{"setnx", Options{Depth: 2, Runs: 50}},
		{"statemachine", Options{Depth: 2, Runs: 50}},
		{"inbox", Options{Depth: 2, Runs: 50, Header: "inbox-retention: 1h", VisibilitySweep: true}},
		{"setnx-token", Options{Depth: 2, Runs: 30}},
		// An API handler: scripts of requests.
		{"api-idempotency-key", Options{Depth: 2, Runs: 30}},
	}
	for _, tt := range tests {
		t.Run(tt.handler, func(t *testing.T) {
			reused, err := Check(context.Background(), tt.handler, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			opt := tt.opt
			opt.freshWorlds = true
			fresh, err := Check(context.Background(), tt.handler, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(reused, fresh) {
				t.Errorf("reused worlds:\n%+v\nfresh worlds:\n%+v", reused, fresh)
			}
		})
	}
}
