package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/webtest"
)

// A lesson page comes from the page cache, and the cache never hands one
// reader's page to another: every language (asked for by ?lang=, by the
// cookie or by Accept-Language) and every progress (none, a profile that
// answered nothing, a profile that answered some) gets the page a server
// without a cache makes for it, whoever asked first, and an answer given
// since shows on the next visit.
func TestLessonCacheKeepsLanguagesAndReadersApart(t *testing.T) {
	const slug = "unique"
	bank, store := webtest.OpenProgress(t, filepath.Join(t.TempDir(), "progress.db"))
	clock := webtest.NewClock()
	cachedSrv, cached := newInternalServer(t, web.Config{Practice: store, Bank: bank, Now: clock.Now})
	_, fresh := newInternalServer(t, web.Config{Practice: store, Bank: bank, Now: clock.Now, CacheBytes: -1})

	// A reader who answered one of the lesson's questions, and one who
	// answered a question of another topic (a profile, but 0% here).
	var inTopic []practice.Question
	for _, q := range bank.Questions() {
		if q.Kind == practice.KindChoice && q.Topic == slug {
			inTopic = append(inTopic, q)
		}
	}
	if len(inTopic) < 2 {
		t.Fatalf("the test needs two choice questions on %s, the bank has %d", slug, len(inTopic))
	}
	other := webtest.FindQuestion(t, practice.KindChoice, func(q practice.Question) bool { return q.Topic != slug })
	learner, stranger := webtest.NewVisitor(t, cached), webtest.NewVisitor(t, cached)
	learner.Answer(inTopic[0].ID, url.Values{"option": {webtest.WrongOption(inTopic[0])}})
	stranger.Answer(other.ID, url.Values{"option": {webtest.WrongOption(other)}})

	type reader struct {
		name    string
		query   string
		cookies []*http.Cookie
		headers []string
		want    string // something only this reader's page says
	}
	langCookie := func(l string) *http.Cookie { return &http.Cookie{Name: page.LangCookie, Value: l} }
	profile := func(v *webtest.Visitor) *http.Cookie {
		return &http.Cookie{Name: page.ProfileCookie, Value: v.Profile()}
	}
	readers := []reader{
		{name: "English by default", want: `<html lang="en"`},
		{name: "Russian by Accept-Language", headers: []string{"Accept-Language", "ru-RU,ru;q=0.9"}, want: `<html lang="ru"`},
		// The cookie outranks the browser's languages: same headers as
		// above, the other page.
		{name: "English by cookie over Accept-Language ru", cookies: []*http.Cookie{langCookie("en")},
			headers: []string{"Accept-Language", "ru-RU,ru;q=0.9"}, want: `<html lang="en"`},
		{name: "Russian by cookie", cookies: []*http.Cookie{langCookie("ru")}, want: `<html lang="ru"`},
		{name: "Russian by ?lang=", query: "?lang=ru", want: `<html lang="ru"`},
		{name: "a learner with progress", cookies: []*http.Cookie{profile(learner)}, want: `<progress max="100" value="`},
		{name: "a learner with progress, in Russian", cookies: []*http.Cookie{profile(learner), langCookie("ru")}, want: `<progress max="100" value="`},
		// A profile that answered elsewhere has a bar at 0%: not the
		// page of a reader without a profile.
		{name: "a profile at 0% here", cookies: []*http.Cookie{profile(stranger)}, want: `<progress max="100" value="0"`},
		// A cookie that is not a profile id counts as none.
		{name: "a forged profile", cookies: []*http.Cookie{{Name: page.ProfileCookie, Value: "not-a-profile"}}, want: `<html lang="en"`},
	}
	ask := func(h http.Handler, rd reader) webtest.Response {
		req := httptest.NewRequest(http.MethodGet, "/lessons/"+slug+rd.query, nil)
		for _, c := range rd.cookies {
			req.AddCookie(c)
		}
		for i := 0; i+1 < len(rd.headers); i += 2 {
			req.Header.Set(rd.headers[i], rd.headers[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return webtest.Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
	}
	check := func(round string) {
		t.Helper()
		for _, rd := range readers {
			want := ask(fresh, rd)
			got := ask(cached, rd)
			if want.Status != http.StatusOK || !strings.Contains(want.Body, rd.want) {
				t.Fatalf("%s, %s: the uncached page (status %d) does not say %q", round, rd.name, want.Status, rd.want)
			}
			if got.Status != want.Status || got.Body != want.Body {
				t.Errorf("%s, %s: the cache served status %d, %d bytes, another page than the %d bytes made for this reader",
					round, rd.name, got.Status, len(got.Body), len(want.Body))
			}
		}
	}
	start, _, _ := cachedSrv.Shell().CacheStats()
	check("first visits")
	computed, _, _ := cachedSrv.Shell().CacheStats()
	check("second visits")
	if again, _, _ := cachedSrv.Shell().CacheStats(); again != computed {
		t.Errorf("the second round made %d pages again: the lesson is not served from the cache", again-computed)
	}
	// Readers who would be shown the same page share it: English by
	// default, by the cookie and with a forged profile are one page, and
	// Russian by Accept-Language or by the cookie another. ?lang=ru is an
	// address of its own (its language links differ), and the learner in
	// two languages and the 0% profile make three more: 6 pages.
	if got := computed - start; got != 6 {
		t.Errorf("%d pages made for the %d readers, want 6", got, len(readers))
	}

	// The learner answers another of the lesson's questions: the next
	// visit shows the new percent, not the page kept from before.
	before := ask(cached, readers[5]).Body
	clock.Advance(time.Minute)
	learner.Answer(inTopic[1].ID, url.Values{"option": {webtest.WrongOption(inTopic[1])}})
	check("after another answer")
	if ask(cached, readers[5]).Body == before {
		t.Error("the learner's page did not change after another answer on its topic")
	}
}

// BenchmarkLessonPage measures the server's CPU time per request for a
// lesson (the cost lesson: the longest, with tables and code) made every
// time (fresh), served from the page cache (cached), and, in the same
// run, a cached lab page for comparison, all compressed as a browser
// asks. It reports CPU time (user and system, every thread of the
// process, so the garbage collector's share too) per request, and the
// cached lesson's ratio to the cached lab page:
//
//	go test ./web -run '^$' -bench LessonPage -benchtime 2000x
func BenchmarkLessonPage(b *testing.B) {
	const (
		lesson = "/lessons/cost"
		lab    = "/lab?preset=crash-before-ack&handlers=all"
	)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	serve := func(b *testing.B, h http.Handler, target string) {
		r := webtest.Get(b, h, target, "Accept-Encoding", "gzip")
		if r.Status != http.StatusOK {
			b.Fatalf("%s: status %d", target, r.Status)
		}
	}
	b.Run("fresh", func(b *testing.B) {
		h, err := web.NewServer(web.Config{CacheBytes: -1})
		if err != nil {
			b.Fatal(err)
		}
		start := cpu()
		for b.Loop() {
			serve(b, h, lesson)
		}
		b.ReportMetric(float64((cpu()-start).Microseconds())/float64(b.N), "cpu-µs/req")
	})
	b.Run("cached", func(b *testing.B) {
		h, err := web.NewServer(web.Config{})
		if err != nil {
			b.Fatal(err)
		}
		serve(b, h, lesson) // made once, then kept
		serve(b, h, lab)
		// The two pages in turns of 100 requests, so that both see the
		// same load on a shared machine.
		var lessonCPU, labCPU time.Duration
		n := 0
		for b.Loop() {
			start := cpu()
			for range 100 {
				serve(b, h, lesson)
			}
			mid := cpu()
			for range 100 {
				serve(b, h, lab)
			}
			lessonCPU += mid - start
			labCPU += cpu() - mid
			n += 100
		}
		b.ReportMetric(float64(lessonCPU.Microseconds())/float64(n), "lesson-cpu-µs/req")
		b.ReportMetric(float64(labCPU.Microseconds())/float64(n), "lab-cpu-µs/req")
		b.ReportMetric(float64(lessonCPU)/float64(labCPU), "lesson/lab")
	})
}
