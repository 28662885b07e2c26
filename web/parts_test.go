package web

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/web/checkpage"
	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/costpage"
	"github.com/idempotency-lab/lab/web/course"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/practicepage"
)

// The parts of the lab: each a package (with its subpackages) that the
// server mounts. No part imports another; what two parts share lives in
// web/page (the shell) or web/labview (the lab's model and views, which
// the playground and the classroom both show), or in the domain packages.
var parts = []string{"web/playground", "web/course", "web/practicepage", "web/classroom", "web/checkpage", "web/costpage", "web/tryapi"}

const module = "github.com/idempotency-lab/lab/"

// TestPartsDoNotImportEachOther runs go list -deps on every part and
// fails on an import of another part, or of the server itself.
func TestPartsDoNotImportEachOther(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	for _, part := range parts {
		out, err := exec.Command("go", "list", "-deps", "./"+strings.TrimPrefix(part, "web/")+"/...").CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", part, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			name, ok := strings.CutPrefix(dep, module)
			if !ok {
				continue
			}
			if name == "web" {
				t.Errorf("%s imports the server (web)", part)
			}
			for _, other := range parts {
				if other != part && (name == other || strings.HasPrefix(name, other+"/")) {
					t.Errorf("%s imports %s: parts share through web/page, web/labview or the domain packages", part, name)
				}
			}
		}
	}
}

// TestShellImportsNoPart: the shell (web/page) and the lab's views
// (web/labview) are below every part, so they import none.
func TestShellImportsNoPart(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	for _, shared := range []string{"page", "labview"} {
		out, err := exec.Command("go", "list", "-deps", "./"+shared+"/...").CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", shared, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, p := range append(parts, "web") {
				if dep == module+p || strings.HasPrefix(dep, module+p+"/") && p != "web" {
					t.Errorf("web/%s imports %s", shared, dep)
				}
			}
		}
	}
}

// TestCatalogKeysAreUnique: no part's word replaces another's. A repeated
// key would silently show one part's message on the other's page.
func TestCatalogKeysAreUnique(t *testing.T) {
	parts := map[string]page.Catalog{"lab": labview.Catalog(), "practice": practicepage.Catalog(),
		"course": course.Catalog(), "classroom": classroom.Catalog(), "check": checkpage.Catalog(), "cost": costpage.Catalog()}
	owner := map[string]string{}
	for name, c := range parts {
		for k := range c {
			if other, ok := owner[k]; ok {
				t.Errorf("key %q is in both %s and %s", k, other, name)
			}
			owner[k] = name
		}
	}
}
