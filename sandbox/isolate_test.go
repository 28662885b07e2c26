package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sandbox"
)

// isolated is a runner whose children are isolated: the test fails in CI
// where the system refuses, and skips elsewhere, saying why.
func isolated(t *testing.T, lim sandbox.Limits) *sandbox.Runner {
	t.Helper()
	r := runner(lim)
	if _, err := r.Isolation(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("package sandbox: this CI machine cannot isolate a child: %v", err)
		}
		t.Skipf("package sandbox: this machine cannot isolate a child: %v", err)
	}
	return r
}

// The self-test holds on this machine: an isolated child reads no file
// of the machine, sees no /proc, /dev or root files, writes nothing, runs
// as nobody (or as root of its own user namespace), with no_new_privs, in
// a PID namespace and a network of its own.
func TestIsolationHolds(t *testing.T) {
	mode, _ := isolated(t, sandbox.Limits{}).Isolation()
	if mode != "root" && mode != "user" {
		t.Errorf("isolation %q", mode)
	}
}

// The self-test is not vacuous: a child without isolation fails it, and
// says what it could do.
func TestSelfTestCatchesAnUnisolatedChild(t *testing.T) {
	err := sandbox.SelfTestUnisolated(runner(sandbox.Limits{}))
	if err == nil {
		t.Fatal("an unisolated child passed the self-test")
	}
	for _, want := range []string{"read ", "saw /proc/self/status", "the root holds"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the self-test's finding %q lacks %q", err, want)
		}
	}
}

// A handler file in an isolated child cannot reach a file of the machine
// by any way the allowed packages give it: SQLite's ATTACH and VACUUM
// INTO, a connection of the driver's own, Lua's loadfile. The secret
// stays unread and no path is made; whatever else refuses these (the
// engine's own guards), the child has no files to give.
func TestIsolatedChildReachesNoFile(t *testing.T) {
	r := isolated(t, sandbox.Limits{})
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	secret := filepath.Join(dir, "secret.env")
	if err := os.WriteFile(secret, []byte("TOKEN=\"s3cr3t-value\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "made-by-vacuum")
	body := `	for _, q := range []string{"ATTACH DATABASE '` + secret + `' AS s", "VACUUM INTO '` + marker + `'"} {
		if _, err := d.DB.ExecContext(ctx, q); err != nil {
			d.Log("%v", err)
		}
	}
	if c, err := d.DB.Driver().Open("` + secret + `"); err == nil {
		d.Log("opened %v", c)
	}
	if v, err := d.Redis.Eval(ctx, "return loadfile('` + secret + `')", nil).Result(); err == nil {
		d.Log("lua %v", v)
	}
	return nil`
	resp, err := r.Run(context.Background(), sandbox.Request{Op: "run", Name: "yours", Code: file("", body),
		Script: "publish a amount=100\ndeliver\n"})
	if err != nil || resp.Error != nil {
		t.Fatalf("%v %+v", err, resp)
	}
	res := resp.Run.Unwire()
	for _, st := range res.Trace {
		for _, e := range st.Events {
			if strings.Contains(e.Text, "s3cr3t") || strings.Contains(e.Text, "TOKEN") {
				t.Errorf("the secret reached the trace: %s", e.Text)
			}
		}
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("VACUUM INTO made %s: %v", marker, err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "TOKEN=\"s3cr3t-value\"\n" {
		t.Errorf("the secret file changed: %q", b)
	}
}

// Where the self-test fails (here: a "child" that answers nothing), Run
// runs no file at all and says why.
func TestNoIsolationRunsNothing(t *testing.T) {
	r := sandbox.NewRunner([]string{"/bin/true"}, sandbox.Limits{})
	if _, err := r.Isolation(); !errors.Is(err, sandbox.ErrNoIsolation) {
		t.Fatalf("isolation: %v", err)
	}
	_, err := r.Run(context.Background(), sandbox.Request{Op: "run", Name: "yours", Code: file("", naiveBody),
		Script: "publish a amount=100\ndeliver\n"})
	if !errors.Is(err, sandbox.ErrNoIsolation) {
		t.Errorf("Run without isolation: %v", err)
	}
}
