package web_test

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web/webtest"
)

func TestEditorShowsTheStarter(t *testing.T) {
	r := webtest.Get(t, webtest.NewCodeServer(t, sandbox.Limits{}), "/lab?preset=crash-before-ack")
	if r.Status != 200 || !strings.Contains(r.Body, `id="code"`) || !strings.Contains(r.Body, html.EscapeString("func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error")) {
		t.Fatalf("no editor with the starter\n%s", webtest.Excerpt(r.Body))
	}
	// Without a sandbox there is no editor, and code= is refused.
	plain := webtest.NewServer(t)
	if r := webtest.Get(t, plain, "/lab"); strings.Contains(r.Body, `id="code"`) {
		t.Error("an editor on a server without a sandbox")
	}
	if r := webtest.Get(t, plain, "/lab?code="+link.Pack(webtest.FixedNaive)); r.Status != http.StatusNotFound {
		t.Errorf("code= without a sandbox: %d", r.Status)
	}
}

// TestRunYourHandler: a fix of naive runs beside naive on the crash before
// the ack, with every panel a built-in card has, and the address carries
// it: opened again, the same page.
func TestRunYourHandler(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	state := "?preset=crash-before-ack&step=4"
	loc, page := webtest.Follow(t, h, "/lab/code", url.Values{"code": {webtest.FixedNaive}, "name": {""}, "state": {state}, "action": {"run"}})
	if !strings.Contains(loc, "code=1") || !strings.Contains(loc, "preset=crash-before-ack") {
		t.Fatalf("Location %q", loc)
	}
	for _, want := range []string{`id="card-yours"`, `id="card-naive"`, `id="timeline-yours"`, "your handler file, run in a sandbox",
		`href="/check/code?code=1`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if v := webtest.CardVerdicts(page.Body); v["yours"] != "ok" || v["naive"] != "duplicate" {
		t.Errorf("verdicts %v", v)
	}
	// The address replays byte for byte, on another server too (no page
	// cache in between): the run depends only on the script and the file.
	if again := webtest.Get(t, webtest.NewCodeServer(t, sandbox.Limits{}), loc); again.Body != page.Body {
		t.Error("the same address gave another page on a fresh server")
	}
	// Remove takes it away, keeping the rest.
	r := webtest.Post(t, h, "/lab/code", url.Values{"state": {strings.TrimPrefix(loc, "/lab")}, "action": {"remove"}})
	if got := r.Header.Get("Location"); r.Status != http.StatusSeeOther || strings.Contains(got, "code=") || !strings.Contains(got, "preset=crash-before-ack") {
		t.Errorf("remove: %d %q", r.Status, got)
	}
}

// TestBadHandlerFiles: each mistake is a 422 that names the line and keeps
// the file in an editor; a bad address is a 400.
func TestBadHandlerFiles(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{Timeout: time.Second, Memory: 64 << 20})
	forbidden := strings.Replace(webtest.FixedNaive, `"context"`, `"context"`+"\n\t\"os\"", 1)
	first := "tx, err := d.DB.BeginTx(ctx, nil)"
	before := func(code string) string { return strings.Replace(webtest.FixedNaive, first, code+"\n\t"+first, 1) }
	for _, c := range []struct {
		name, code, want string
		status           int
	}{
		{"a forbidden import", forbidden, `import &#34;os&#34; is not allowed`, 422},
		{"a file too long", strings.Repeat("// x\n", 5000), "a handler file may have at most 16384 bytes", 422},
		{"a syntax error", before("return nil nil"), "syntax error", 422},
		{"an endless loop", before("for {\n\t}"), "used more than 1 s of CPU and was stopped", 422},
		{"an allocation bomb", before("var keep [][]byte\n\tfor {\n\t\tkeep = append(keep, make([]byte, 1<<20))\n\t}"), "more than 64 MB of memory", 422},
		{"a goroutine bomb", before("for {\n\t\tgo func() { select {} }()\n\t}"), "more than 64 MB of memory", 422},
		{"a panic in a goroutine", before("go func() { panic(\"boom\") }()\n\tselect {}"), "crashed its process with a panic", 422},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := webtest.Post(t, h, "/lab/code", url.Values{"code": {c.code}, "state": {"?preset=crash-before-ack&step=4"}, "action": {"run"}})
			if r.Status == http.StatusSeeOther { // the file passed the checks: the run shows what happened
				r = webtest.Get(t, h, r.Header.Get("Location"))
			}
			if r.Status != c.status || !strings.Contains(r.Body, c.want) {
				t.Fatalf("status %d, want %d and %q\n%s", r.Status, c.status, c.want, webtest.Excerpt(r.Body))
			}
			if !strings.Contains(r.Body, `<textarea id="code" name="code"`) || !strings.Contains(r.Body, html.EscapeString(c.code[:40])) {
				t.Error("the file is not offered back for editing")
			}
		})
	}
	for target, want := range map[string]string{
		"/lab?code=garbage": "The permalink could not be read",
		"/lab?code=" + link.Pack(webtest.FixedNaive) + "&name=naive": "is not a name for your handler",
		"/check/code": "the address needs code=",
	} {
		if r := webtest.Get(t, h, target); r.Status != 400 || !strings.Contains(r.Body, want) {
			t.Errorf("%s: %d\n%s", target, r.Status, webtest.Excerpt(r.Body))
		}
	}
	if r := webtest.Post(t, h, "/lab/code", url.Values{"code": {webtest.FixedNaive}, "action": {"explode"}}); r.Status != 400 {
		t.Errorf("unknown action: %d", r.Status)
	}
}

// TestCheckYourHandler: Find a failure searches the file's schedules in
// the sandbox and links each story to the lab, with the file.
func TestCheckYourHandler(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	r := webtest.Post(t, h, "/lab/code", url.Values{"code": {webtest.FixedNaive}, "name": {"mine"}, "state": {""}, "action": {"check"}})
	loc := r.Header.Get("Location")
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/check/code?code=") || !strings.Contains(loc, "name=mine") {
		t.Fatalf("%d %q", r.Status, loc)
	}
	page := webtest.Get(t, h, loc)
	// Keyed by tenant and operation, with no payload hash: a changed
	// payload is acked as a repeat.
	if page.Status != 200 || !strings.Contains(page.Body, "silent-conflict") || !strings.Contains(page.Body, "code=1") {
		t.Fatalf("%d\n%s", page.Status, webtest.Excerpt(page.Body))
	}
}

// TestServerStaysResponsive: ten endless loops at once, and /healthz
// still answers at once: the loops run in child processes, and past the
// cap of children the lab says it is busy.
func TestServerStaysResponsive(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{Timeout: 3 * time.Second, MaxChildren: 4})
	loop := strings.Replace(webtest.FixedNaive, "tx, err := d.DB.BeginTx(ctx, nil)", "for {\n\t}\n\ttx, err := d.DB.BeginTx(ctx, nil)", 1)
	var wg sync.WaitGroup
	statuses := make(chan int, 10)
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Different scripts, so the page cache cannot merge them.
			sc := "publish a amount=" + strconv.Itoa(100+i) + "\ndeliver\n"
			statuses <- webtest.Get(t, h, "/lab?s="+link.Pack(sc)+"&code="+link.Pack(loop)).Status
		}()
	}
	time.Sleep(300 * time.Millisecond) // let the children start
	fastest := time.Hour
	for range 3 {
		start := time.Now()
		if r := webtest.Get(t, h, "/healthz"); r.Status != 200 {
			t.Fatalf("healthz %d", r.Status)
		}
		fastest = min(fastest, time.Since(start))
	}
	if fastest > 100*time.Millisecond {
		t.Errorf("/healthz took %v while the loops ran", fastest)
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for s := range statuses {
		counts[s]++
	}
	// Each loop is stopped (422) or turned away as busy (503).
	if counts[422]+counts[503] != 10 || counts[503] == 0 {
		t.Errorf("statuses %v", counts)
	}
}

// TestAPIFileInTheLab: a person's API handler file runs on an API story
// in the lab, beside the lab's API handlers: the practice exercise's
// starter, which never compares fingerprints, ends api-reused-key as a
// silent conflict on its own card.
func TestAPIFileInTheLab(t *testing.T) {
	src, err := os.ReadFile("../practice/_exercises/api-fingerprint/starter.go")
	if err != nil {
		t.Fatal(err)
	}
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	r := webtest.Get(t, h, "/lab?preset=api-reused-key&step=2&handlers=api-idempotency-key&code="+link.Pack(string(src))+"&name=yours&lang=en")
	if r.Status != http.StatusOK || !strings.Contains(r.Body, `data-handler="yours" data-verdict="silent-conflict"`) {
		t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	// The solution, on the same story: no silent conflict anywhere.
	sol, err := os.ReadFile("../practice/_exercises/api-fingerprint/solution.go")
	if err != nil {
		t.Fatal(err)
	}
	r = webtest.Get(t, h, "/lab?preset=api-reused-key&step=2&handlers=api-idempotency-key&code="+link.Pack(string(sol))+"&name=yours&lang=en")
	if r.Status != http.StatusOK || !strings.Contains(r.Body, `data-handler="yours" data-verdict="ok"`) {
		t.Errorf("the solution: status %d, or not ok\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	// A message handler's file on an API story is refused, saying why.
	if r := webtest.Get(t, h, "/lab?preset=api-reused-key&code="+link.Pack(webtest.FixedNaive)+"&name=yours"); r.Status != http.StatusBadRequest {
		t.Errorf("a message file on an API story: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
}

// TestCheckYourAPIHandler: Find a failure works for an API handler's file
// too: the search takes the API side's alphabet, and finds the starter
// of the api-fingerprint exercise replaying a reused key's answer.
func TestCheckYourAPIHandler(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	src, err := os.ReadFile("../practice/_exercises/api-fingerprint/starter.go")
	if err != nil {
		t.Fatal(err)
	}
	r := webtest.Post(t, h, "/lab/code", url.Values{"code": {string(src)}, "name": {"mine"}, "state": {""}, "action": {"check"}})
	loc := r.Header.Get("Location")
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/check/code?code=") {
		t.Fatalf("%d %q", r.Status, loc)
	}
	page := webtest.Get(t, h, loc)
	if page.Status != 200 || !strings.Contains(page.Body, "silent-conflict") || !strings.Contains(page.Body, "retry a amount=15000") {
		t.Fatalf("%d\n%s", page.Status, webtest.Excerpt(page.Body))
	}
}
