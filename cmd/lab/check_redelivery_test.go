package main

import (
	"strings"
	"testing"
)

// TestCheckRedelivery: lab check names its model of redelivery under the
// table ("redelivery at once" without a visibility-timeout: header), uses
// the header's timeout when given one, and takes --visibility-sweep.
func TestCheckRedelivery(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"at once", []string{"check", "inbox", "--depth", "1", "--runs", "0"}, []string{"model: redelivery at once"}},
		{"the header's", []string{"check", "inbox", "--depth", "1", "--runs", "0", "--header", "visibility-timeout: 2m"},
			[]string{"model: redelivery after a visibility timeout of 2m"}},
		{"swept", []string{"check", "inbox", "--depth", "1", "--runs", "0", "--visibility-sweep"},
			[]string{"model: redelivery at once, and after a visibility timeout of 59m, 1h1m, 23h59m or 24h1m"}},
		{"JSON", []string{"check", "inbox", "--depth", "1", "--runs", "0", "--json"}, []string{`"redelivery": "redelivery at once`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := labOK(t, "", c.args...)
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
