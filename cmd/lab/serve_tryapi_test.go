package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestServeLedgerFlags: --max-ledgers and --ledger-idle are in the
// help, a value out of range is a usage error naming the range, and
// --max-ledgers reaches the live endpoint: with 1, a payment to a
// second ledger gets 503 with Retry-After.
func TestServeLedgerFlags(t *testing.T) {
	_, _, help := lab(t, "", "serve", "--help")
	for _, want := range []string{"-max-ledgers", "-ledger-idle"} {
		if !strings.Contains(help, want) {
			t.Errorf("serve --help does not describe %s", want)
		}
	}
	data := t.TempDir() + "/progress.db"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-ledgers", "0"}, "--max-ledgers 0 is out of range: it must be from 1 to 100000"},
		{[]string{"--max-ledgers", "100001"}, "--max-ledgers 100001 is out of range"},
		{[]string{"--ledger-idle", "0s"}, "--ledger-idle 0s is out of range: it must be from 1s to 168h"},
		{[]string{"--ledger-idle", "169h"}, "--ledger-idle 169h0m0s is out of range"},
	} {
		code, _, errOut := lab(t, "", append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, exitUsage, tc.want)
		}
	}

	base, _, cancel, exit := startServe(t, "--quiet", "--max-ledgers", "1", "--ledger-idle", "10m")
	pay := func(ledger string) *http.Response {
		req, err := http.NewRequest(http.MethodPost, base+"/api/v1/ledgers/"+ledger+"/payments", strings.NewReader(`{"account": "acc-1", "amount": 1000}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "key-1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := pay("first"); r.StatusCode != http.StatusCreated {
		t.Errorf("first: %d", r.StatusCode)
	}
	if r := pay("second"); r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") != "600" {
		t.Errorf("second: %d, Retry-After %q; want 503, 600", r.StatusCode, r.Header.Get("Retry-After"))
	}
	cancel()
	if code := <-exit; code != exitOK {
		t.Errorf("exit %d", code)
	}
}
