package playground_test

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestDeliverConcurrentNarration (#28, item 8): deliver-concurrent with a
// single message ready is taken by one worker (the engine says so in the
// trace), and the step's narration says the same, in both languages; with
// two messages ready it is still two workers. Challenge "Two workers, one
// check" is where people met it: one message, then deliver-concurrent.
func TestDeliverConcurrentNarration(t *testing.T) {
	h := webtest.NewServer(t)
	narration := regexp.MustCompile(`(?s)id="narration"[^>]*>(.*?)</p>`)
	for _, tc := range []struct {
		name, script, lang string
		want, not          string
	}{
		{"one message", "publish pay-1 amount=10000\ndeliver-concurrent\n", "en",
			"Only one message is ready, so a single worker takes it", "Two workers take"},
		{"one message, ru", "publish pay-1 amount=10000\ndeliver-concurrent\n", "ru",
			"Готово только одно сообщение, поэтому его берёт один воркер", "Два воркера"},
		{"two messages", "publish pay-1 amount=10000\npublish pay-2 amount=5000\ndeliver-concurrent\n", "en",
			"Two workers take the next two ready messages", "single worker"},
		{"two messages, ru", "publish pay-1 amount=10000\npublish pay-2 amount=5000\ndeliver-concurrent\n", "ru",
			"Два воркера одновременно берут два следующих готовых сообщения", "один воркер"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Get(t, h, "/lab?handlers=check-then-insert&lang="+tc.lang+"&s="+link.Pack(tc.script))
			m := narration.FindStringSubmatch(r.Body)
			if r.Status != 200 || m == nil {
				t.Fatalf("status %d, no narration\n%s", r.Status, webtest.Excerpt(r.Body))
			}
			got := html.UnescapeString(m[1])
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.not) {
				t.Errorf("narration %q: want %q, not %q", got, tc.want, tc.not)
			}
		})
	}
}
