package web

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/idempotency-lab/lab/"

// TestPartsDoNotImportEachOther runs go list -deps on every part and
// fails on an import of another part, or of the server itself.
func TestPartsDoNotImportEachOther(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	for _, p := range parts {
		part := p.dir
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
			for _, o := range parts {
				if other := o.dir; other != part && (name == other || strings.HasPrefix(name, other+"/")) {
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
	for _, sh := range shared {
		shared := strings.TrimPrefix(sh.dir, "web/")
		out, err := exec.Command("go", "list", "-deps", "./"+shared+"/...").CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", shared, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, q := range append(parts, part{dir: "web"}) {
				if p := q.dir; dep == module+p || strings.HasPrefix(dep, module+p+"/") && p != "web" {
					t.Errorf("web/%s imports %s", shared, dep)
				}
			}
		}
	}
}

// TestCatalogKeysAreUnique: no part's word replaces another's. A repeated
// key would silently show one part's message on the other's page.
func TestCatalogKeysAreUnique(t *testing.T) {
	owner := map[string]string{}
	for _, p := range slices.Concat(shared, parts) {
		if p.words == nil {
			continue
		}
		name := p.dir
		for k := range p.words() {
			if other, ok := owner[k]; ok {
				t.Errorf("key %q is in both %s and %s", k, other, name)
			}
			owner[k] = name
		}
	}
}

// TestEveryPartIsListed: every folder under web/ with a package is a part
// or a shared one in the server's one list (parts.go), so a new part
// cannot miss its routes, its words or the import checks above.
func TestEveryPartIsListed(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command("go", "list", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list ./...: %v\n%s", err, out)
	}
	listed := map[string]bool{}
	for _, p := range slices.Concat(shared, parts) {
		listed[p.dir] = true
	}
	// The tests' own packages: the harness the parts' tests share and the
	// accessibility sweep over every page. They serve nothing.
	testOnly := []string{"web/webtest", "web/a11y"}
	seen := map[string]bool{}
	for _, pkg := range strings.Fields(string(out)) {
		name, ok := strings.CutPrefix(pkg, module+"web/")
		if !ok {
			continue // the server itself
		}
		dir := "web/" + strings.Split(name, "/")[0] // a subpackage is its part's
		seen[dir] = true
		if !listed[dir] && !slices.Contains(testOnly, dir) {
			t.Errorf("%s (package %s) is not in web's parts or shared (parts.go)", dir, pkg)
		}
	}
	for dir := range listed {
		if !seen[dir] {
			t.Errorf("parts.go lists %s, which go list does not know", dir)
		}
	}
}
