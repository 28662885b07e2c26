package main

import (
	"encoding/json"

	"github.com/idempotency-lab/lab/cost"
	"strings"
	"testing"
)

func TestBenchCommand(t *testing.T) {
	code, out, stderr := lab(t, "", "bench", "--handlers", "naive,unique", "--messages", "30", "--duplicates", "10%", "--keys", "2000", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got cost.Measurement
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if h := got.Handlers; h == nil || len(h.Handlers) != 2 || h.Messages != 30 || h.Copies != 3 || h.Handlers[1].Handler != "unique" || h.Handlers[1].Rows != 30 {
		t.Errorf("handlers: %+v", got.Handlers)
	}
	if k := got.Keys; k == nil || len(k.Kinds) != 4 || k.Rows != 2000 {
		t.Errorf("keys: %+v", got.Keys)
	}
	if r := got.Retention; r == nil || len(r.Series) != 4 {
		t.Errorf("retention: %+v", got.Retention)
	}

	code, out, _ = lab(t, "", "bench", "--handlers", "naive", "--messages", "10", "--keys", "0", "--retention=false")
	if code != exitOK || !strings.Contains(out, "naive") || !strings.Contains(out, "compare them as ratios") || strings.Contains(out, "B-tree") {
		t.Errorf("table output (exit %d):\n%s", code, out)
	}
}

func TestBenchCommandRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--messages", "0"}, "messages: 0 is out of range: from 1 to 20000"},
		{[]string{"--messages", "20001"}, "messages: 20001 is out of range"},
		{[]string{"--duplicates", "150%"}, `--duplicates "150%": a whole percentage from 0% to 100%`},
		{[]string{"--duplicates", "ten"}, `--duplicates "ten"`},
		{[]string{"--handlers", "nave"}, `unknown handler "nave"`},
		{[]string{"--keys", "-1"}, "--keys -1: from 0 (skip) to 1000000"},
		{[]string{"--engine", "cloud"}, `--engine "cloud": valid engines: embedded, real`},
		{[]string{"naive"}, `unexpected argument "naive" (the handlers go in --handlers)`},
	} {
		code, _, stderr := lab(t, "", append([]string{"bench", "--keys", "0", "--retention=false"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
