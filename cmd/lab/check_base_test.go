package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckBase: --base (or LAB_BASE) prints every address as a whole URL
// on that server, in the text and in --json; without either the addresses
// start at /lab and the output says how to get whole ones; a base that is
// not a server's address is refused, naming what is wanted.
func TestCheckBase(t *testing.T) {
	args := []string{"check", "naive", "--depth", "2", "--runs", "0"}

	t.Setenv("LAB_BASE", "")
	_, out, _ := lab(t, "", args...)
	if !strings.Contains(out, "replay: /lab?") || !strings.Contains(out, "give --base URL (or set LAB_BASE)") {
		t.Errorf("without a base: relative addresses and the hint:\n%s", out)
	}

	// The flag, with a trailing slash that is not doubled.
	_, out, _ = lab(t, "", append(args, "--base", "http://127.0.0.1:8080/")...)
	if !strings.Contains(out, "replay: http://127.0.0.1:8080/lab?s=") || strings.Contains(out, "give --base") {
		t.Errorf("--base: whole addresses and no hint:\n%s", out)
	}

	// The environment, in JSON too.
	t.Setenv("LAB_BASE", "https://lab.example.org")
	_, out, _ = lab(t, "", append(args, "--json")...)
	var reports []struct {
		Permalink string
		Failures  []struct{ Permalink, Address string }
	}
	if err := json.Unmarshal([]byte(out), &reports); err != nil || len(reports) != 1 || len(reports[0].Failures) == 0 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	for _, f := range append(reports[0].Failures, struct{ Permalink, Address string }{reports[0].Permalink, reports[0].Permalink}) {
		if !strings.HasPrefix(f.Permalink, "https://lab.example.org/lab?") || !strings.HasPrefix(f.Address, "https://lab.example.org/lab?") {
			t.Errorf("LAB_BASE not applied: %+v", f)
		}
	}

	for _, bad := range []struct{ base, want string }{
		{"lab.example.org", "want an http:// or https:// address with a host"},
		{"ftp://lab.example.org", "want an http:// or https:// address with a host"},
		{"http://", "want an http:// or https:// address with a host"},
		{"http://lab.example.org/?x=1", "without a query"},
		{"http://u:p@lab.example.org", "without a query, a fragment or a user"},
		{"http://[::1", "not a URL"},
	} {
		code, _, errOut := lab(t, "", append(args, "--base", bad.base)...)
		if code != exitUsage || !strings.Contains(errOut, bad.want) {
			t.Errorf("--base %q: exit %d, %q; want 2 and %q", bad.base, code, errOut, bad.want)
		}
	}
}
