package sandbox_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/sandbox"
)

// FuzzParse: Parse never panics; it accepts a file or refuses it with an
// *Error in both languages, on a line of the file; what it accepts is
// within the size limit, package handler, imports only allowed packages
// and has a Handle.
func FuzzParse(f *testing.F) {
	f.Add(sandbox.Starter)
	f.Add(file("", naiveBody))
	f.Add(file("\t\"os\"", naiveBody))
	f.Add(file("\tx \"net/http\"", naiveBody))
	f.Add(file("\t. \"strings\"", naiveBody))
	f.Add("package handler\nconst Schema = 1\nfunc Handle(a, b, c int) error { return nil }\n")
	f.Add(strings.Repeat("// a line\n", 2000))
	f.Add("package handler\nimport \"C\"\n")
	f.Add("package handler\nfunc init() {}\nfunc Handle(a, b, c int) error { return nil }\n")
	f.Fuzz(func(t *testing.T, src string) {
		file, err := sandbox.Parse(src)
		if err != nil {
			var se *sandbox.Error
			if !errors.As(err, &se) || se.Text.String() == "" || se.Text.In("ru") == "" {
				t.Fatalf("error %v is not a bilingual *sandbox.Error", err)
			}
			if se.Line < 0 || se.Line > strings.Count(src, "\n")+1 {
				t.Fatalf("line %d outside the file", se.Line)
			}
			return
		}
		if len(src) > sandbox.MaxSourceBytes || !strings.Contains(src, "Handle") || file.Source != src {
			t.Fatalf("accepted a file it should refuse:\n%s", src)
		}
		for _, bad := range []string{`"os"`, `"net`, `"unsafe"`, `"syscall"`, `"os/exec"`, `"reflect"`} {
			if strings.Contains(src, "import "+bad) || strings.Contains(src, "\t"+bad+"\n") {
				t.Fatalf("accepted an import of %s:\n%s", bad, src)
			}
		}
	})
}
