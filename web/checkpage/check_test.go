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
)

// TestCheckPages: /check lists every handler with its shortest failure,
// /check/NAME shows each minimal story, and a story's button replays it in
// the lab with the same verdict.
func TestCheckPages(t *testing.T) {
	h := newTestServer(t)
	r := get(t, h, "/check")
	if r.status != 200 {
		t.Fatalf("status %d\n%s", r.status, excerpt(r.body))
	}
	noMissingKeys(t, "/check", r.body)
	// The model of time the stories hold under is named: no
	// visibility-timeout: header, so a crashed message comes back at once.
	if !strings.Contains(r.body, `id="chk-model">redelivery at once`) {
		t.Errorf("/check does not name its redelivery:\n%s", excerpt(r.body))
	}
	// naive fails in two steps, the lectures' first story.
	if !strings.Contains(r.body, `data-handler="naive" data-verdict="duplicate" data-steps="2"`) {
		t.Errorf("naive's row:\n%s", excerpt(r.body))
	}
	// inbox survives every story the web's search tells (depth 3).
	if !regexp.MustCompile(`data-handler="inbox" data-verdict="" data-steps="0">.*none found up to depth 3`).MatchString(r.body) {
		t.Errorf("inbox's row does not say it passed:\n%s", excerpt(r.body))
	}
	if n, want := strings.Count(r.body, `<tr data-handler=`), len(handlers.List())+len(handlers.APIList()); n != want {
		t.Errorf("%d handler rows, want %d (the message handlers, then the API ones)", n, want)
	}
	// The API handlers are searched too: a key reused with another amount
	// is the fingerprint-less handler's silent conflict, and its story
	// opens in the lab on its card.
	api := get(t, h, "/check/api-key-no-fingerprint")
	if api.status != 200 || !strings.Contains(api.body, "retry a amount=15000") {
		t.Fatalf("api-key-no-fingerprint's page: %d\n%s", api.status, excerpt(api.body))
	}
	for _, m := range regexp.MustCompile(`href="(/lab\?s=[^"]+)" id="open-\d+"`).FindAllStringSubmatch(api.body, -1) {
		if lab := get(t, h, html.UnescapeString(m[1])); lab.status != 200 || !strings.Contains(lab.body, `data-handler="api-key-no-fingerprint" data-verdict="`) {
			t.Errorf("an API story replayed in the lab: %d\n%s", lab.status, excerpt(lab.body))
		}
	}

	one := get(t, h, "/check/naive")
	if one.status != 200 || !strings.Contains(one.body, "deliver crash=before-ack") {
		t.Fatalf("naive's page: %d\n%s", one.status, excerpt(one.body))
	}
	link := regexp.MustCompile(`href="(/lab\?s=[^"]+)" id="open-1"`).FindStringSubmatch(one.body)
	if link == nil {
		t.Fatalf("no lab link on naive's story:\n%s", excerpt(one.body))
	}
	lab := get(t, h, html.UnescapeString(link[1]))
	if lab.status != 200 || !strings.Contains(lab.body, `id="card-naive" data-handler="naive" data-verdict="duplicate"`) {
		t.Errorf("the story replayed in the lab: %d\n%s", lab.status, excerpt(lab.body))
	}
	if !strings.Contains(one.body, `id="chk-model">redelivery at once`) || strings.Contains(api.body, `id="chk-model"`) {
		t.Errorf("the redelivery note: on naive's page (broker side) and not on the API side's")
	}
	if ru := get(t, h, "/check/naive?lang=ru"); !strings.Contains(ru.body, "Открыть в лаборатории") || !strings.Contains(ru.body, "повторная доставка сразу") {
		t.Errorf("the Russian page:\n%s", excerpt(ru.body))
	}
	if bad := get(t, h, "/check/nope"); bad.status != http.StatusNotFound ||
		!strings.Contains(html.UnescapeString(bad.body), `There is no handler "nope". Valid handlers: naive, unique,`) {
		t.Errorf("an unknown handler: %d\n%s", bad.status, excerpt(bad.body))
	}
	// An API story's cards offer it too.
	if card := get(t, h, "/lab?preset=api-lost-response"); !strings.Contains(card.body, `href="/check/api-naive" class="find-failure" id="find-api-naive"`) {
		t.Errorf("the api-naive card has no Find a failure link")
	}
	// Every card of the lab offers the search for its handler.
	card := get(t, h, "/lab?preset=crash-before-ack&step=2")
	if !strings.Contains(card.body, `href="/check/naive" class="find-failure" id="find-naive"`) {
		t.Errorf("the naive card has no Find a failure link")
	}
}

// TestCheckPageListsEveryDistinctFailure: a handler's page lists one
// story for each distinct failure under its verdict, each with its cause:
// naive's duplicate from a crash before the ack first (the shortest, the
// story the lab opens), and its duplicate from a producer's retry too;
// the list says how many in the index.
func TestCheckPageListsEveryDistinctFailure(t *testing.T) {
	h := newTestServer(t)
	one := get(t, h, "/check/naive")
	if one.status != 200 {
		t.Fatalf("status %d\n%s", one.status, excerpt(one.body))
	}
	noMissingKeys(t, "/check/naive", one.body)
	if n := strings.Count(one.body, `<section class="chk-verdict"`); n != 1 || !strings.Contains(one.body, `id="verdict-duplicate"`) {
		t.Errorf("naive fails one way (duplicate), in %d verdict sections:\n%s", n, excerpt(one.body))
	}
	for _, want := range []string{
		`data-verdict="duplicate" data-cause="crash=before-ack" id="story-1"`,
		`data-verdict="duplicate" data-cause="retry" id="story-`,
		`Cause: <code>retry</code>`,
	} {
		if !strings.Contains(one.body, want) {
			t.Errorf("naive's page lacks %q:\n%s", want, excerpt(one.body))
		}
	}
	// Every story opens in the lab with its verdict.
	links := regexp.MustCompile(`href="(/lab\?s=[^"]+)" id="open-\d+"`).FindAllStringSubmatch(one.body, -1)
	if len(links) < 2 {
		t.Fatalf("%d stories on naive's page, want every distinct failure", len(links))
	}
	for _, m := range links {
		if lab := get(t, h, html.UnescapeString(m[1])); !strings.Contains(lab.body, `id="card-naive" data-handler="naive" data-verdict="duplicate"`) {
			t.Errorf("a story replayed in the lab: %d\n%s", lab.status, excerpt(lab.body))
		}
	}
	if ru := get(t, h, "/check/naive?lang=ru"); !strings.Contains(ru.body, "Причина: <code>retry</code>") {
		t.Errorf("the Russian page has no cause:\n%s", excerpt(ru.body))
	}
	if idx := get(t, h, "/check"); !regexp.MustCompile(`data-handler="naive"[^\n]*?\d+ distinct failures`).MatchString(idx.body) {
		t.Errorf("the index does not count naive's stories:\n%s", excerpt(idx.body))
	}
}

// TestCheckIndexStreams: the first visit to /check streams its rows as
// their searches end, instead of a blank page until the last one; a
// visitor who leaves stops the searches not begun (nothing is kept for
// them), and once every search is kept the page is one buffered answer.
func TestCheckIndexStreams(t *testing.T) {
	srv := httptest.NewServer(newTestServer(t))
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
			t.Fatalf("the stream ended before a row: %v\n%s", err, excerpt(head.String()))
		}
		head.WriteByte(b)
	}
	if !strings.Contains(head.String(), `id="chk-streaming"`) || !strings.Contains(head.String(), `<tr data-handler="naive"`) {
		t.Errorf("the stream's start has no progress note or no first row:\n%s", excerpt(head.String()))
	}
	// Leave: the searches after the one under way never run.
	cancel()
	resp.Body.Close()

	// The next visit still streams (the reader who left kept nothing past
	// their row), and this time runs to the end: every row, the model named.
	r := get(t, srv.Config.Handler, "/check")
	if r.header.Get("Content-Length") != "" {
		t.Errorf("the second visit was buffered: every search ran after the first reader left")
	}
	if n, want := strings.Count(r.body, `<tr data-handler=`), len(handlers.List())+len(handlers.APIList()); n != want || !strings.Contains(r.body, `id="chk-model">`) {
		t.Errorf("%d handler rows, want %d, and the model named:\n%s", n, want, excerpt(r.body))
	}
	// Every search is kept now: one answer with its length, no progress note.
	r = get(t, srv.Config.Handler, "/check")
	if r.header.Get("Content-Length") == "" || strings.Contains(r.body, `id="chk-streaming"`) {
		t.Errorf("a kept /check is still streamed")
	}
}

// TestCheckStoriesSayTheProvider: a story that reaches the payment
// provider says whether the provider deduplicates (gateway dedup on) or
// takes a charge sent again as a new payment, since a duplicate verdict
// on a correct API handler depends on it; a story that never reaches one
// says nothing of it.
func TestCheckStoriesSayTheProvider(t *testing.T) {
	h := newTestServer(t)
	api := get(t, h, "/check/api-idempotency-key")
	if api.status != 200 || !strings.Contains(api.body, `class="hint chk-provider">The payment provider in this story does not deduplicate`) {
		t.Errorf("api-idempotency-key's stories do not say their provider:\n%s", excerpt(api.body))
	}
	naive := get(t, h, "/check/naive")
	if naive.status != 200 || strings.Contains(naive.body, "chk-provider") {
		t.Errorf("naive's stories never reach a provider, and say one:\n%s", excerpt(naive.body))
	}
	ru := get(t, h, "/check/api-idempotency-key", "Cookie", "lab_lang=ru")
	if !strings.Contains(ru.body, "Платёжный провайдер в этой истории") {
		t.Errorf("no provider note in Russian:\n%s", excerpt(ru.body))
	}
}
