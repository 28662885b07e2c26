package checkpage_test

import (
	"bufio"
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestCheckPages: /check lists every handler with its shortest failure,
// /check/NAME shows each minimal story, and a story's button replays it in
// the lab with the same verdict.
func TestCheckPages(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/check")
	if r.Status != 200 {
		t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	webtest.NoMissingKeys(t, "/check", r.Body)
	// The model of time the stories hold under is named: no
	// visibility-timeout: header, so a crashed message comes back at once.
	if !strings.Contains(r.Body, `id="chk-model">redelivery at once`) {
		t.Errorf("/check does not name its redelivery:\n%s", webtest.Excerpt(r.Body))
	}
	// naive fails in two steps, the lectures' first story.
	if !strings.Contains(r.Body, `data-handler="naive" data-verdict="duplicate" data-steps="2"`) {
		t.Errorf("naive's row:\n%s", webtest.Excerpt(r.Body))
	}
	// inbox survives every story the web's search tells (depth 3).
	if !regexp.MustCompile(`data-handler="inbox" data-verdict="" data-steps="0">.*none found up to depth 3`).MatchString(r.Body) {
		t.Errorf("inbox's row does not say it passed:\n%s", webtest.Excerpt(r.Body))
	}
	if n, want := strings.Count(r.Body, `<tr data-handler=`), len(handlers.List())+len(handlers.APIList()); n != want {
		t.Errorf("%d handler rows, want %d (the message handlers, then the API ones)", n, want)
	}
	// The API handlers are searched too: a key reused with another amount
	// is the fingerprint-less handler's silent conflict, and its story
	// opens in the lab on its card.
	api := webtest.Get(t, h, "/check/api-key-no-fingerprint")
	if api.Status != 200 || !strings.Contains(api.Body, "retry a amount=15000") {
		t.Fatalf("api-key-no-fingerprint's page: %d\n%s", api.Status, webtest.Excerpt(api.Body))
	}
	for _, m := range regexp.MustCompile(`href="(/lab\?s=[^"]+)" id="open-\d+"`).FindAllStringSubmatch(api.Body, -1) {
		if lab := webtest.Get(t, h, html.UnescapeString(m[1])); lab.Status != 200 || !strings.Contains(lab.Body, `data-handler="api-key-no-fingerprint" data-verdict="`) {
			t.Errorf("an API story replayed in the lab: %d\n%s", lab.Status, webtest.Excerpt(lab.Body))
		}
	}

	one := webtest.Get(t, h, "/check/naive")
	if one.Status != 200 || !strings.Contains(one.Body, "deliver crash=before-ack") {
		t.Fatalf("naive's page: %d\n%s", one.Status, webtest.Excerpt(one.Body))
	}
	link := regexp.MustCompile(`href="(/lab\?s=[^"]+)" id="open-1"`).FindStringSubmatch(one.Body)
	if link == nil {
		t.Fatalf("no lab link on naive's story:\n%s", webtest.Excerpt(one.Body))
	}
	lab := webtest.Get(t, h, html.UnescapeString(link[1]))
	if lab.Status != 200 || !strings.Contains(lab.Body, `id="card-naive" data-handler="naive" data-verdict="duplicate"`) {
		t.Errorf("the story replayed in the lab: %d\n%s", lab.Status, webtest.Excerpt(lab.Body))
	}
	if !strings.Contains(one.Body, `id="chk-model">redelivery at once`) || strings.Contains(api.Body, `id="chk-model"`) {
		t.Errorf("the redelivery note: on naive's page (broker side) and not on the API side's")
	}
	if ru := webtest.Get(t, h, "/check/naive?lang=ru"); !strings.Contains(ru.Body, "Открыть в лаборатории") || !strings.Contains(ru.Body, "повторная доставка сразу") {
		t.Errorf("the Russian page:\n%s", webtest.Excerpt(ru.Body))
	}
	if bad := webtest.Get(t, h, "/check/nope"); bad.Status != http.StatusNotFound ||
		!strings.Contains(html.UnescapeString(bad.Body), `There is no handler "nope". Valid handlers: naive, unique,`) {
		t.Errorf("an unknown handler: %d\n%s", bad.Status, webtest.Excerpt(bad.Body))
	}
	// An API story's cards offer it too.
	if card := webtest.Get(t, h, "/lab?preset=api-lost-response"); !strings.Contains(card.Body, `href="/check/api-naive" class="find-failure" id="find-api-naive"`) {
		t.Errorf("the api-naive card has no Find a failure link")
	}
	// Every card of the lab offers the search for its handler.
	card := webtest.Get(t, h, "/lab?preset=crash-before-ack&step=2")
	if !strings.Contains(card.Body, `href="/check/naive" class="find-failure" id="find-naive"`) {
		t.Errorf("the naive card has no Find a failure link")
	}
}

// TestCheckPageListsEveryDistinctFailure: a handler's page lists one
// story for each distinct failure under its verdict, each with its cause:
// naive's duplicate from a crash before the ack first (the shortest, the
// story the lab opens), and its duplicate from a producer's retry too;
// the list says how many in the index.
func TestCheckPageListsEveryDistinctFailure(t *testing.T) {
	h := webtest.NewServer(t)
	one := webtest.Get(t, h, "/check/naive")
	if one.Status != 200 {
		t.Fatalf("status %d\n%s", one.Status, webtest.Excerpt(one.Body))
	}
	webtest.NoMissingKeys(t, "/check/naive", one.Body)
	if n := strings.Count(one.Body, `<section class="chk-verdict"`); n != 1 || !strings.Contains(one.Body, `id="verdict-duplicate"`) {
		t.Errorf("naive fails one way (duplicate), in %d verdict sections:\n%s", n, webtest.Excerpt(one.Body))
	}
	for _, want := range []string{
		`data-verdict="duplicate" data-cause="crash=before-ack" id="story-1"`,
		`data-verdict="duplicate" data-cause="retry" id="story-`,
		`Cause: <code>retry</code>`,
	} {
		if !strings.Contains(one.Body, want) {
			t.Errorf("naive's page lacks %q:\n%s", want, webtest.Excerpt(one.Body))
		}
	}
	// Every story opens in the lab with its verdict.
	links := regexp.MustCompile(`href="(/lab\?s=[^"]+)" id="open-\d+"`).FindAllStringSubmatch(one.Body, -1)
	if len(links) < 2 {
		t.Fatalf("%d stories on naive's page, want every distinct failure", len(links))
	}
	for _, m := range links {
		if lab := webtest.Get(t, h, html.UnescapeString(m[1])); !strings.Contains(lab.Body, `id="card-naive" data-handler="naive" data-verdict="duplicate"`) {
			t.Errorf("a story replayed in the lab: %d\n%s", lab.Status, webtest.Excerpt(lab.Body))
		}
	}
	if ru := webtest.Get(t, h, "/check/naive?lang=ru"); !strings.Contains(ru.Body, "Причина: <code>retry</code>") {
		t.Errorf("the Russian page has no cause:\n%s", webtest.Excerpt(ru.Body))
	}
	if idx := webtest.Get(t, h, "/check"); !regexp.MustCompile(`data-handler="naive"[^\n]*?\d+ distinct failures`).MatchString(idx.Body) {
		t.Errorf("the index does not count naive's stories:\n%s", webtest.Excerpt(idx.Body))
	}
}

// TestCheckIndexStreams: the first visit to /check streams its rows as
// their searches end, instead of a blank page until the last one; a
// visitor who leaves stops the searches not begun (nothing is kept for
// them), and once every search is kept the page is one buffered answer.
func TestCheckIndexStreams(t *testing.T) {
	srv := httptest.NewServer(webtest.NewServer(t))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/check", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.ContentLength != -1 {
		t.Fatalf("first visit: status %d, length %d; want 200, streamed (no length)", resp.StatusCode, resp.ContentLength)
	}
	// Read until the first row has arrived: the head and that row came
	// before the other searches ran (else this read would wait for all).
	br := bufio.NewReader(resp.Body)
	var head strings.Builder
	for {
		if _, row, ok := strings.Cut(head.String(), "<tr data-handler="); ok && strings.Contains(row, "</tr>") {
			break
		}
		b, err := br.ReadByte()
		if err != nil {
			t.Fatalf("the stream ended before a row: %v\n%s", err, webtest.Excerpt(head.String()))
		}
		head.WriteByte(b)
	}
	if !strings.Contains(head.String(), `id="chk-streaming"`) || !strings.Contains(head.String(), `<tr data-handler="naive"`) {
		t.Errorf("the stream's start has no progress note or no first row:\n%s", webtest.Excerpt(head.String()))
	}
	// Leave: the searches after the one under way never run.
	cancel()
	resp.Body.Close()

	// The next visit still streams (the reader who left kept nothing past
	// their row), and this time runs to the end: every row, the model named.
	r := webtest.Get(t, srv.Config.Handler, "/check")
	if r.Header.Get("Content-Length") != "" {
		t.Errorf("the second visit was buffered: every search ran after the first reader left")
	}
	if n, want := strings.Count(r.Body, `<tr data-handler=`), len(handlers.List())+len(handlers.APIList()); n != want || !strings.Contains(r.Body, `id="chk-model">`) {
		t.Errorf("%d handler rows, want %d, and the model named:\n%s", n, want, webtest.Excerpt(r.Body))
	}
	// Every search is kept now: one answer with its length, no progress note.
	r = webtest.Get(t, srv.Config.Handler, "/check")
	if r.Header.Get("Content-Length") == "" || strings.Contains(r.Body, `id="chk-streaming"`) {
		t.Errorf("a kept /check is still streamed")
	}
}

// TestCheckStoriesSayTheProvider: a story that reaches the payment
// provider says whether the provider deduplicates (gateway dedup on) or
// takes a charge sent again as a new payment, since a duplicate verdict
// on a correct API handler depends on it; a story that never reaches one
// says nothing of it.
func TestCheckStoriesSayTheProvider(t *testing.T) {
	h := webtest.NewServer(t)
	api := webtest.Get(t, h, "/check/api-idempotency-key")
	if api.Status != 200 || !strings.Contains(api.Body, `class="hint chk-provider">The payment provider in this story does not deduplicate`) {
		t.Errorf("api-idempotency-key's stories do not say their provider:\n%s", webtest.Excerpt(api.Body))
	}
	naive := webtest.Get(t, h, "/check/naive")
	if naive.Status != 200 || strings.Contains(naive.Body, "chk-provider") {
		t.Errorf("naive's stories never reach a provider, and say one:\n%s", webtest.Excerpt(naive.Body))
	}
	ru := webtest.Get(t, h, "/check/api-idempotency-key", "Cookie", "lab_lang=ru")
	if !strings.Contains(ru.Body, "Платёжный провайдер в этой истории") {
		t.Errorf("no provider note in Russian:\n%s", webtest.Excerpt(ru.Body))
	}
}
