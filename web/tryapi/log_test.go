package tryapi

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a test's Config.Now: it moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestRequestLog: every request to a ledger's payments address is in
// its log with its answer, refused ones too, newest first, and the page's
// polled fragment shows it escaped.
func TestRequestLog(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	a, h := newTestAPI(t, Config{Now: clk.now})
	const body = `{"account": "acc-1", "amount": 1000}`
	steps := []struct {
		req      *http.Request
		status   int
		key      string // as the log keeps it
		noKey    bool
		replayed bool
	}{
		// A body that is not valid is refused before the ledger exists,
		// and still logged under its name.
		{payment("logbox", "key-0", `{"account": ""}`), http.StatusBadRequest, "key-0", false, false},
		{payment("logbox", "key-1", body), http.StatusCreated, "key-1", false, false},
		// The same key in RFC 8941 form is the same key: a replay, and the
		// log keeps the header as it came, quotes and all.
		{payment("logbox", `"key-1"`, body), http.StatusCreated, `"key-1"`, false, true},
		{payment("logbox", "key-1", `{"account": "acc-1", "amount": 5000}`), http.StatusUnprocessableEntity, "key-1", false, false},
		{payment("logbox", "", body), http.StatusBadRequest, "", true, false},
		{httptest.NewRequest(http.MethodGet, "/api/v1/ledgers/logbox/payments", nil), http.StatusOK, "", true, false},
		// A key the endpoint refuses is logged as received, to be escaped
		// on the page.
		{payment("logbox", `<b>x</b>,y`, body), http.StatusBadRequest, `<b>x</b>,y`, false, false},
	}
	for i, s := range steps {
		clk.add(time.Second)
		if got := serve(h, s.req); got.status != s.status {
			t.Fatalf("step %d: %d, want %d\n%s", i, got.status, s.status, got.body)
		}
	}
	// Another ledger's requests are its own.
	serve(h, payment("otherbox", "key-1", body))

	log := a.logs.newest("logbox")
	if len(log) != len(steps) {
		t.Fatalf("%d entries, want %d: %+v", len(log), len(steps), log)
	}
	for i, e := range log {
		s := steps[len(steps)-1-i] // newest first
		want := LogEntry{Seq: len(steps) - i, Time: time.Date(2026, 12, 1, 10, 0, len(steps)-i, 0, time.UTC), Method: s.req.Method,
			Key: s.key, NoKey: s.noKey, Status: s.status, Replayed: s.replayed}
		if e != want {
			t.Errorf("entry %d:\n got %+v\nwant %+v", i, e, want)
		}
	}

	st := serve(h, httptest.NewRequest(http.MethodGet, "/try-api/logbox/state", nil))
	if st.status != http.StatusOK {
		t.Fatalf("state: %d", st.status)
	}
	if strings.Contains(st.body, "<b>x</b>") || !strings.Contains(st.body, "&lt;b&gt;x&lt;/b&gt;,y") {
		t.Errorf("the refused key is not escaped in the state:\n%s", st.body)
	}
	rows := regexp.MustCompile(`<tr data-seq="(\d+)" data-status="(\d+)" data-replayed="(true|false)"`).FindAllStringSubmatch(st.body, -1)
	var got []string
	for _, r := range rows {
		got = append(got, r[1]+":"+r[2]+":"+r[3])
	}
	if want := "7:400:false 6:200:false 5:400:false 4:422:false 3:201:true 2:201:false 1:400:false"; strings.Join(got, " ") != want {
		t.Errorf("the state's log rows: %s\nwant %s", strings.Join(got, " "), want)
	}
	if !strings.Contains(st.body, "10:00:03.000") {
		t.Errorf("the state's log lacks the replay's time 10:00:03.000")
	}
}

// TestRequestLogBounds: a log keeps the newest MaxLogEntries requests and
// an excerpt of a long key; logs are dropped when idle, and past the
// ledger limit the log written longest ago goes.
func TestRequestLogBounds(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	a, h := newTestAPI(t, Config{Now: clk.now, MaxLedgers: 2, Idle: time.Minute})
	for i := range MaxLogEntries + 5 {
		serve(h, httptest.NewRequest(http.MethodGet, "/api/v1/ledgers/busy/payments", nil))
		if i == 0 {
			serve(h, payment("busy", strings.Repeat("k", 300), `{"account": "acc-1", "amount": 1}`))
		}
	}
	log := a.logs.newest("busy")
	if len(log) != MaxLogEntries || log[0].Seq != MaxLogEntries+6 || log[len(log)-1].Seq != 7 {
		t.Fatalf("%d entries, seq %d..%d; want %d, %d..7", len(log), log[0].Seq, log[len(log)-1].Seq, MaxLogEntries, MaxLogEntries+6)
	}
	// The long key (entry 2) has gone with the oldest; log one again.
	serve(h, payment("busy", strings.Repeat("k", 300), `{"account": "acc-1", "amount": 1}`))
	if k := a.logs.newest("busy")[0].Key; k != strings.Repeat("k", maxKeyExcerpt)+"…" {
		t.Errorf("the long key is kept as %q (%d bytes)", k, len(k))
	}

	clk.add(30 * time.Second)
	serve(h, httptest.NewRequest(http.MethodGet, "/api/v1/ledgers/second/payments", nil))
	// A third name past MaxLedgers (2) drops the log written longest
	// ago: busy's.
	clk.add(time.Second)
	serve(h, httptest.NewRequest(http.MethodGet, "/api/v1/ledgers/third/payments", nil))
	if n := len(a.logs.newest("busy")); n != 0 {
		t.Errorf("busy's log kept %d entries past the limit of names", n)
	}
	if n := len(a.logs.newest("second")); n != 1 {
		t.Errorf("second's log has %d entries, want 1", n)
	}
	// A minute without requests to second: its log goes with the next request.
	clk.add(time.Minute)
	serve(h, httptest.NewRequest(http.MethodGet, "/api/v1/ledgers/third/payments", nil))
	if n := len(a.logs.newest("second")); n != 0 {
		t.Errorf("second's idle log kept %d entries", n)
	}
	if n := len(a.logs.newest("third")); n != 1 {
		// third's own earlier request was a minute ago too: its log went
		// with second's, and the new request starts it again.
		t.Errorf("third's log has %d entries, want 1", n)
	}
}

// TestConsoleSnippets: the console's code writes the form's values so that
// each language reads them back as they were, quotes included.
func TestConsoleSnippets(t *testing.T) {
	for _, tc := range []struct {
		name            string
		c               consoleView
		curl, goSrc, py []string // substrings each must have
		notCurl         []string
	}{
		{"defaults", newConsole("http://h/api/v1/ledgers/s/payments"),
			[]string{`curl -i -X POST 'http://h/api/v1/ledgers/s/payments'`, `-H 'Idempotency-Key: key-1'`, `-d '{"account": "acc-1", "amount": 1000}'`},
			[]string{`strings.NewReader("{\"account\": \"acc-1\", \"amount\": 1000}")`, `req.Header.Set("Idempotency-Key", "key-1")`},
			[]string{`"Idempotency-Key": "key-1",`, `data="{\"account\": \"acc-1\", \"amount\": 1000}".encode()`},
			[]string{"Lab-Gateway-Delay"}},
		// A quote in a key closes and reopens the shell's single quotes.
		{"quotes and delay", consoleView{Endpoint: "http://h/p", Key: `it's "k"`, Account: "a", Amount: "10", Delay: "5s"},
			[]string{`-H 'Idempotency-Key: it'\''s "k"'`, `-H 'Lab-Gateway-Delay: 5s'`},
			[]string{`req.Header.Set("Idempotency-Key", "it's \"k\"")`},
			[]string{`"Idempotency-Key": "it's \"k\"",`}, nil},
		// No key: no header (the endpoint answers 400); an amount that is
		// not a number is sent as a string, for the server to refuse.
		{"no key, text amount", consoleView{Endpoint: "http://h/p", Account: "a", Amount: "ten"},
			[]string{`-d '{"account": "a", "amount": "ten"}'`}, nil, nil, []string{"Idempotency-Key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snippets(tc.c)
			check := func(lang, code string, want []string, not []string) {
				for _, w := range want {
					if !strings.Contains(code, w) {
						t.Errorf("%s lacks %s:\n%s", lang, w, code)
					}
				}
				for _, w := range not {
					if strings.Contains(code, w) {
						t.Errorf("%s has %s:\n%s", lang, w, code)
					}
				}
			}
			check("curl", s[0].Code, tc.curl, tc.notCurl)
			check("go", s[1].Code, tc.goSrc, nil)
			check("python", s[2].Code, tc.py, nil)
			if ids := s[0].ID + " " + s[1].ID + " " + s[2].ID; ids != "curl go python" {
				t.Errorf("ids %s %s %s", s[0].ID, s[1].ID, s[2].ID)
			}
		})
	}
}
