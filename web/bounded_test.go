package web_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web/webtest"
)

// Bounded pages: a handler file in a code= address that makes huge texts
// (a megabyte token in one log line, half a million words, a megabyte SQL
// argument, hundreds of long lines in every step) still gets a page of a
// few hundred KB, its texts cut with "… N more bytes".

// maxCodePage is the most a lab page with a code= address may weigh, and
// maxCodeCard the most the file's card may add to the page the lab's own
// handlers make of the script.
const (
	maxCodePage = 500 << 10
	maxCodeCard = 256 << 10
)

// boundedFile is a handler file whose Handle runs body.
func boundedFile(body string) string {
	return `package handler

import (
	"context"
	"strings"

	"github.com/idempotency-lab/lab/handlers"
)

var _ = strings.Repeat

func Handle(ctx context.Context, d handlers.Deps, m handlers.Message) error {
` + body + `
	_, err := d.DB.ExecContext(ctx, "UPDATE accounts SET balance = balance + ? WHERE id = ?", m.Amount, m.Account)
	return err
}
`
}

func TestBoundedCodePages(t *testing.T) {
	h := webtest.NewCodeServer(t, sandbox.Limits{})
	// A long story: more steps than the lab draws, each delivering.
	var long strings.Builder
	for i := range 30 {
		long.WriteString("publish pay-" + strconv.Itoa(i+1) + " amount=100\ndeliver\n")
	}
	short := "publish a amount=100\ndeliver\n"
	cases := []struct {
		name, script, body string
		lang               string
	}{
		{"token", short, `	d.Log("%s", strings.Repeat("a", 1<<20))`, "en"},
		{"words", short, `	d.Log("%s", strings.Repeat("ab ", 500000))`, "en"},
		{"words ru", short, `	d.Log("%s", strings.Repeat("ab ", 500000))`, "ru"},
		{"sql argument", short, `	if _, err := d.DB.ExecContext(ctx, "SELECT ?", strings.Repeat("x", 1<<20)); err != nil {
		return err
	}`, "en"},
		// Many long lines of characters HTML escapes, in every step.
		{"many lines", long.String(), `	for i := 0; i < 100; i++ {
		d.Log("%d %s", i, strings.Repeat("<'&", 3000))
	}`, "en"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := "&s=" + link.Pack(c.script)
			// The same page without the file: what the lab's own cards
			// weigh on this script.
			base := webtest.Get(t, h, "/lab?"+s[1:], "Accept-Language", c.lang)
			r := webtest.Get(t, h, "/lab?code="+link.Pack(boundedFile(c.body))+s, "Accept-Language", c.lang)
			if r.Status != 200 || base.Status != 200 {
				t.Fatalf("status %d, %d\n%s", r.Status, base.Status, webtest.Excerpt(r.Body))
			}
			t.Logf("%s: a page of %d bytes, %d without the file", c.name, len(r.Body), len(base.Body))
			// The lab's own cards on a long story are not the file's
			// doing: there only the file's card is held to its bound.
			if c.script == short && len(r.Body) > maxCodePage {
				t.Errorf("a page of %d bytes, over %d", len(r.Body), maxCodePage)
			}
			if extra := len(r.Body) - len(base.Body); extra > maxCodeCard {
				t.Errorf("the file's card weighs %d bytes, over %d", extra, maxCodeCard)
			}
			note := "more bytes"
			if c.lang == "ru" {
				note = " байт"
			}
			if !strings.Contains(r.Body, note) {
				t.Errorf("the page does not say %q", note)
			}
		})
	}
}
