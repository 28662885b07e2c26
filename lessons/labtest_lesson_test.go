package lessons_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/labtest"
)

// The last lesson checks a handler file with labtest end to end. Its go
// fences are, in order: the first, buggy handler file; the test file; the
// fixed handler file. The tests below hold each to what runs: the test
// file's functions are the two below, byte for byte (and run as this
// package's tests, on testdata/credit.go, which is the fixed file); the
// buggy file fails with the story the lesson prints.

// labtestLessonHeader is the test file's fence up to its first function.
const labtestLessonHeader = `package payments_test

import (
	"os"
	"testing"

	"github.com/idempotency-lab/lab/labtest"
)

`

// fence:begin
func TestCreditHandler(t *testing.T) {
	labtest.CheckFile(t, "testdata/credit.go", labtest.Depth(3))
}

func TestCreditHandlerOnPostgres(t *testing.T) {
	pg, rd := os.Getenv("LAB_POSTGRES_URL"), os.Getenv("LAB_REDIS_URL")
	if pg == "" || rd == "" {
		t.Skip("set LAB_POSTGRES_URL and LAB_REDIS_URL to search on PostgreSQL and Redis")
	}
	labtest.CheckFile(t, "testdata/credit.go", labtest.Depth(3), labtest.Engine(pg, rd))
}

// fence:end

// TestCreditHandlerOnServers runs the lesson's PostgreSQL test on the
// lab's throwaway servers, so its search runs wherever the real-engine
// tests run (in CI always; locally it skips, naming the package, without
// postgresql or redis-server), while the lesson's own test keeps reading
// the environment as a reader's would.
func TestCreditHandlerOnServers(t *testing.T) {
	t.Setenv("LAB_POSTGRES_URL", servers.Postgres(t))
	t.Setenv("LAB_REDIS_URL", servers.Redis(t))
	TestCreditHandlerOnPostgres(t)
}

var labtestLessonFiles = []string{"content/16-check-your-handler.en.md", "content/16-check-your-handler.ru.md"}

// labtestLessonFences returns the lesson's three go fences, the same in
// both languages.
func labtestLessonFences(t *testing.T) []string {
	t.Helper()
	en := goFences(t, labtestLessonFiles[0])
	ru := goFences(t, labtestLessonFiles[1])
	if len(en) != 3 {
		t.Fatalf("%s: %d go fences, want 3 (the buggy handler, the test, the fixed handler)", labtestLessonFiles[0], len(en))
	}
	if strings.Join(en, "\x00") != strings.Join(ru, "\x00") {
		t.Fatalf("the go fences of %s and %s differ: the code is the same in both languages", labtestLessonFiles[0], labtestLessonFiles[1])
	}
	return en
}

// TestLabtestLessonFencesAreWhatRuns: the test file the lesson shows is
// this file's two tests under its header, and the fixed handler it shows
// is testdata/credit.go, which they check.
func TestLabtestLessonFencesAreWhatRuns(t *testing.T) {
	fences := labtestLessonFences(t)
	src, err := os.ReadFile("labtest_lesson_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(src), "// fence:begin\n")
	body, _, found := strings.Cut(rest, "\n// fence:end")
	if !found {
		t.Fatal("labtest_lesson_test.go: no fence:begin … fence:end")
	}
	if want := labtestLessonHeader + body; fences[1] != want {
		t.Errorf("the lesson's test file differs from the tests that run here:\n%s\nwant:\n%s", fences[1], want)
	}
	fixed, err := os.ReadFile(filepath.Join("testdata", "credit.go"))
	if err != nil {
		t.Fatal(err)
	}
	if fences[2] != string(fixed) {
		t.Errorf("the lesson's fixed handler differs from testdata/credit.go:\n%s\nwant:\n%s", fences[2], fixed)
	}
}

// recorder is a testing.TB that keeps what labtest.Check reports instead
// of failing the test.
type recorder struct {
	testing.TB
	errors []string
	fatal  string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Logf(string, ...any)       {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = fmt.Sprintf(f, a...) }

// TestLabtestLessonStory: the buggy handler the lesson shows, checked as
// its test checks the fixed one (CheckFile, Depth 3), fails, and its
// first failure is the story the lesson prints: every line of the text
// block, but the two it shortens with "…", is a line of the report, in
// order. The lesson also says the checker finds more distinct failures.
func TestLabtestLessonStory(t *testing.T) {
	fences := labtestLessonFences(t)
	path := filepath.Join(t.TempDir(), "credit.go")
	if err := os.WriteFile(path, []byte(fences[0]), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	labtest.CheckFile(r, path, labtest.Depth(3))
	if r.fatal != "" {
		t.Fatalf("the search did not run: %s", r.fatal)
	}
	if len(r.errors) < 2 {
		t.Fatalf("%d failures reported, the lesson says there are several:\n%s", len(r.errors), strings.Join(r.errors, "\n"))
	}
	var report []string
	for _, l := range strings.Split(r.errors[0], "\n") {
		report = append(report, strings.TrimSpace(l))
	}
	for _, name := range labtestLessonFiles {
		shown := strings.Split(textBlock(t, name), "\n")
		i := 0
		for _, line := range shown {
			if strings.Contains(line, "…") {
				continue
			}
			for i < len(report) && report[i] != line {
				i++
			}
			if i == len(report) {
				t.Errorf("%s shows %q, which is not in the report (or not in its order):\n%s", name, line, r.errors[0])
				break
			}
		}
	}
}
