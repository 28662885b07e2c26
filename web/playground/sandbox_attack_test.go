package playground_test

import (
	"bytes"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/webtest"
)

// The attacks of a hostile visitor on the editor, made as the visitor
// makes them: a handler file in a lab address (code=) and in the editor's
// form, against a lab with a progress database on disk. Each asserts
// that the attack fails and that nothing outside the child changed.

// attackLab is the lab with a sandbox and a progress database in a
// folder of its own, and a learner with a profile in it.
type attackLab struct {
	h       http.Handler
	dir     string // the folder of the progress database, and of the test's files
	db      string // the progress database
	profile string // the learner's profile id: the lab_profile cookie
	learner *webtest.Visitor
}

func newAttackLab(t *testing.T, lim sandbox.Limits) *attackLab {
	t.Helper()
	r := sandbox.NewRunner([]string{os.Args[0]}, lim)
	if _, err := r.Isolation(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("package web/playground: this CI machine cannot isolate a sandbox child: %v", err)
		}
		t.Skipf("package web/playground: this machine cannot isolate a sandbox child: %v", err)
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755) // readable by anyone: only the isolation may stop the child
	db := filepath.Join(dir, "progress.db")
	bank, store := webtest.OpenProgress(t, db)
	os.Chmod(db, 0o666)
	h, err := web.NewServer(web.Config{Practice: store, Bank: bank, Now: webtest.NewClock().Now, Sandbox: r})
	if err != nil {
		t.Fatal(err)
	}
	a := &attackLab{h: h, dir: dir, db: db, learner: webtest.NewVisitor(t, h)}
	a.answer(t)
	c := a.learner.Cookies["lab_profile"]
	if c == nil || c.Value == "" {
		t.Fatal("the learner has no profile")
	}
	a.profile = c.Value
	return a
}

// answer has the learner answer a choice question: it must be taken.
func (a *attackLab) answer(t *testing.T) webtest.Response {
	t.Helper()
	q := webtest.FindQuestion(t, practice.KindChoice, func(q practice.Question) bool { return len(q.Correct()) == 1 })
	r := a.learner.Post("/practice/q/"+q.ID, url.Values{"option": q.Correct()})
	if r.Status != http.StatusSeeOther {
		t.Errorf("an answer got %d, want 303: %s", r.Status, webtest.Excerpt(r.Body))
	}
	return r
}

// attack runs a handler file whose Handle has body in a lab address, as
// a visitor's link would, and returns the page.
func (a *attackLab) attack(t *testing.T, imports, body string) webtest.Response {
	t.Helper()
	code := attackFile(t, imports, body)
	return webtest.Get(t, a.h, "/lab?s="+link.Pack("publish a amount=100\ndeliver\n")+"&code="+link.Pack(code))
}

// attackForm runs the same file from the editor's form, as a visitor
// typing it would, and returns the page the form leads to.
func (a *attackLab) attackForm(t *testing.T, imports, body string) webtest.Response {
	t.Helper()
	_, page := webtest.Follow(t, a.h, "/lab/code", url.Values{"code": {attackFile(t, imports, body)}, "name": {""},
		"state": {"?s=" + link.Pack("publish a amount=100\ndeliver\n")}, "action": {"run"}})
	return page
}

// attackFile is a handler file whose Handle has body.
func attackFile(t *testing.T, imports, body string) string {
	t.Helper()
	code := "package handler\n\nimport (\n\t\"context\"\n" + imports + "\n\t\"github.com/idempotency-lab/lab/handlers\"\n)\n\n" +
		"func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {\n" + body + "\n}\n"
	if _, err := sandbox.Parse(code); err != nil {
		t.Fatalf("the attack does not parse: %v\n%s", err, code)
	}
	return code
}

// snapshot keeps a file's bytes to compare later.
func snapshot(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func absent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists: the child made it (%v)", path, err)
	}
}

// sqlAttack runs each statement and logs what came of it.
func sqlAttack(stmts ...string) string {
	var b strings.Builder
	b.WriteString("\tfor _, q := range []string{")
	for _, s := range stmts {
		b.WriteString("`" + s + "`, ")
	}
	b.WriteString("} {\n\t\tif _, err := d.DB.ExecContext(ctx, q); err != nil {\n\t\t\td.Log(\"refused: %v\", err)\n\t\t}\n\t}\n")
	return b.String()
}

// 1. Any file opened through SQLite: the progress database's profile ids
// (each one the cookie that opens a person's progress) stay unread, by
// ATTACH and by the driver's own Open, from a lab address and from the
// editor's form.
func TestAttackReadsTheProgressDatabase(t *testing.T) {
	a := newAttackLab(t, sandbox.Limits{})
	before := snapshot(t, a.db)
	body := sqlAttack("ATTACH DATABASE 'file:"+a.db+"?mode=ro' AS p") + `	var ids string
	if err := d.DB.QueryRowContext(ctx, "SELECT group_concat(id) FROM p.profiles").Scan(&ids); err != nil {
		d.Log("refused: %v", err)
	} else {
		d.Log("ids: %s", ids)
	}
	if c, err := d.DB.Driver().Open("` + a.db + `"); err != nil {
		d.Log("refused: %v", err)
	} else {
		c.Close()
		d.Log("%s the progress database", "open"+"ed") // spelled apart: the page shows the source too
	}
	return nil`
	for _, r := range []webtest.Response{a.attack(t, "", body), a.attackForm(t, "", body)} {
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, webtest.Excerpt(r.Body))
		}
		if strings.Contains(r.Body, a.profile) || strings.Contains(r.Body, "opened the progress database") {
			t.Error("the progress database was read")
		}
		if !strings.Contains(r.Body, "refused: ") {
			t.Error("the page does not show the refusals")
		}
	}
	if !bytes.Equal(before, snapshot(t, a.db)) {
		t.Error("the progress database changed")
	}
}

// 2. Writes to block devices: a regular file where a device would be,
// attached and written to, keeps its bytes.
func TestAttackWritesOverADevice(t *testing.T) {
	a := newAttackLab(t, sandbox.Limits{})
	dev := filepath.Join(a.dir, "loop0")
	if err := os.WriteFile(dev, bytes.Repeat([]byte{0xAB}, 8192), 0o666); err != nil {
		t.Fatal(err)
	}
	r := a.attack(t, "", sqlAttack("ATTACH '"+dev+"' AS b", "PRAGMA b.journal_mode=MEMORY", "CREATE TABLE b.t(x)")+"\treturn nil")
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, webtest.Excerpt(r.Body))
	}
	if b := snapshot(t, dev); !bytes.Equal(b, bytes.Repeat([]byte{0xAB}, 8192)) {
		t.Errorf("the device's first bytes are now %q", b[:32])
	}
}

// 3. Practice down for everyone: a file that attaches the progress
// database and holds its write lock for as long as it runs. Every answer
// posted meanwhile is taken (without the isolation, each waited 5 s and
// got 503).
func TestAttackHoldsTheProgressLock(t *testing.T) {
	a := newAttackLab(t, sandbox.Limits{Timeout: 2 * time.Second})
	var wg sync.WaitGroup
	wg.Add(1)
	done := make(chan struct{})
	go func() {
		defer wg.Done()
		defer close(done)
		a.attack(t, "", sqlAttack("ATTACH '"+a.db+"' AS p", "BEGIN IMMEDIATE", "INSERT INTO p.profiles (id) VALUES ('x')")+"\tfor {\n\t}")
	}()
	for answered := 0; ; answered++ {
		select {
		case <-done:
			wg.Wait()
			if answered == 0 {
				a.answer(t) // at least one, after the attack
			}
			return
		default:
		}
		if r := a.answer(t); r.Status != http.StatusSeeOther {
			t.Fatalf("an answer during the attack got %d", r.Status)
		}
	}
}

// 4. Files made and deleted outside: ATTACH and VACUUM INTO of missing
// paths make nothing, and a journal next to a missing database survives
// with its bytes.
func TestAttackMakesAndDeletesFiles(t *testing.T) {
	a := newAttackLab(t, sandbox.Limits{})
	made, vacuumed := filepath.Join(a.dir, "made.db"), filepath.Join(a.dir, "vacuumed.db")
	victim := filepath.Join(a.dir, "orders.db")
	journal := victim + "-journal"
	if err := os.WriteFile(journal, []byte("a journal that holds data"), 0o666); err != nil {
		t.Fatal(err)
	}
	a.attack(t, "", sqlAttack("ATTACH '"+made+"' AS m", "CREATE TABLE m.t(x)", "VACUUM INTO '"+vacuumed+"'",
		"ATTACH '"+victim+"' AS v", "CREATE TABLE v.t(x)")+"\treturn nil")
	absent(t, made)
	absent(t, vacuumed)
	absent(t, victim)
	if b, err := os.ReadFile(journal); err != nil || string(b) != "a journal that holds data" {
		t.Errorf("the journal next to a missing database: %q, %v", b, err)
	}
}

// 5. Files read through Lua: loadfile, dofile and require of an env file
// return nothing of it.
func TestAttackReadsFilesThroughLua(t *testing.T) {
	a := newAttackLab(t, sandbox.Limits{})
	env := filepath.Join(a.dir, "lab.env")
	if err := os.WriteFile(env, []byte(`API_TOKEN="tok-5eb1c7"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	for _, lua := range []string{
		"local f = loadfile('" + env + "'); f(); return API_TOKEN",
		"dofile('" + env + "'); return API_TOKEN",
		"return require('" + strings.TrimSuffix(env, ".env") + "')",
		"local f = _G['load' .. 'file']('" + env + "'); f(); return API_TOKEN",
	} {
		body.WriteString("\tif v, err := d.Redis.Eval(ctx, `" + lua + "`, nil).Result(); err != nil {\n\t\td.Log(\"refused: %v\", err)\n\t} else {\n\t\td.Log(\"lua: %v\", v)\n\t}\n")
	}
	body.WriteString("\treturn nil")
	r := a.attack(t, "", body.String())
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, webtest.Excerpt(r.Body))
	}
	if strings.Contains(r.Body, "tok-5eb1c7") {
		t.Error("Lua read the env file")
	}
	if strings.Count(r.Body, "refused: ") < 4 {
		t.Error("the page does not show the four refusals")
	}
}

// 6. Memory: SQLite's own allocations (outside the Go heap) count; the
// child is stopped at its limit, and says so.
func TestAttackFillsMemoryThroughSQLite(t *testing.T) {
	a := newAttackLab(t, sandbox.Limits{Memory: 128 << 20})
	r := a.attack(t, "", "\tvar n int\n\terr := d.DB.QueryRowContext(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 400000) "+
		"SELECT length(group_concat(randomblob(1000))) FROM c`).Scan(&n)\n\td.Log(\"%d %v\", n, err)\n\treturn nil")
	if !strings.Contains(r.Body, "more than 128 MB of memory") {
		t.Errorf("status %d, no memory limit: %s", r.Status, webtest.Excerpt(r.Body))
	}
}

// 11. Messages from stderr: what a handler prints decides nothing. A
// file that prints "out of memory" and a fake panic line before crashing
// its process is told it crashed with a panic, and the page carries none
// of its text.
func TestAttackSpoofsTheLabsMessage(t *testing.T) {
	a := newAttackLab(t, sandbox.Limits{})
	// The texts are spelled apart in the source, which the page shows.
	r := a.attack(t, "\t\"fmt\"", "\tfmt.Println(\"fatal error: runtime: out of \" + \"memory\")\n\tfmt.Println(\"panic: lab-is-\" + \"owned\")\n"+
		"\tgo func() { panic(\"lab-is-\" + \"owned\") }()\n\tselect {}")
	if !strings.Contains(r.Body, "crashed its process with a panic") {
		t.Errorf("status %d: %s", r.Status, webtest.Excerpt(r.Body))
	}
	if strings.Contains(r.Body, "lab-is-owned") || strings.Contains(r.Body, "MB of memory") {
		t.Error("the handler's own text made the lab's message")
	}
}

// mapDedup dedups in a package-level map: no table, no transaction. It
// used to pass most coding exercises, because the map outlived the
// worker that filled it; every delivery's worker now starts it empty.
const mapDedup = `package handler

import (
	"context"

	"github.com/idempotency-lab/lab/handlers"
)

var seen = map[string]bool{}

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
	if seen[m.Tenant+"/"+m.Key] {
		return nil
	}
	if _, err := d.DB.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account); err != nil {
		return err
	}
	seen[m.Tenant+"/"+m.Key] = true
	return nil
}
`

// 7. State survives between scripts: the map's file fails the coding
// exercises it used to pass, on its behaviour (not a limit), and the
// checker's first story for it, opened in the lab, gets the same verdict
// there.
func TestAttackKeepsStateInAPackageMap(t *testing.T) {
	h, bank := webtest.CodePracticeServer(t)
	v := webtest.NewVisitor(t, h)
	for _, id := range []string{"code-crash-before-ack", "code-unique-error", "code-tenant-key"} {
		q, ok := bank.Question(id)
		if !ok {
			t.Fatalf("no exercise %s", id)
		}
		_, res := v.Answer(q.ID, url.Values{"code": {mapDedup}})
		if got := webtest.ResultOf(t, res.Body); got != "wrong" || strings.Contains(res.Body, "and was stopped") {
			t.Errorf("%s: the map's file graded %q\n%s", id, got, webtest.Excerpt(res.Body))
		}
	}
	lab := webtest.NewCodeServer(t, sandbox.Limits{})
	chk := webtest.Get(t, lab, "/check/code?code="+link.Pack(mapDedup))
	story := regexp.MustCompile(`<li class="chk-story" data-verdict="([a-z-]+)"`).FindStringSubmatch(chk.Body)
	open := regexp.MustCompile(`href="([^"]+)" id="open-1"`).FindStringSubmatch(chk.Body)
	if chk.Status != http.StatusOK || story == nil || open == nil {
		t.Fatalf("the checker found no story: status %d\n%s", chk.Status, webtest.Excerpt(chk.Body))
	}
	page := webtest.Get(t, lab, html.UnescapeString(open[1]))
	card := regexp.MustCompile(`id="card-yours" data-handler="yours" data-verdict="([a-z-]+)"`).FindStringSubmatch(page.Body)
	if card == nil || card[1] != story[1] {
		t.Errorf("the story says %s; replayed in the lab: %v", story[1], card)
	}
}
