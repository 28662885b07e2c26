package tryapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idempotency-lab/lab/handlers"
)

// FuzzParseKey: any header value is a key or a problem, never a panic; a
// key is 1 to MaxKeyLen characters of printable ASCII; written as an RFC
// 8941 string it reads back the same, and so does its bare form when it
// has one. The seeds are under testdata/fuzz/FuzzParseKey.
func FuzzParseKey(f *testing.F) {
	f.Add(`"key-1"`)
	f.Fuzz(func(t *testing.T, v string) {
		key, problem := ParseKey(v)
		if problem != "" {
			if key != "" {
				t.Fatalf("%q: problem %q and a key %q", v, problem, key)
			}
			return
		}
		if n := utf8.RuneCountInString(key); n < 1 || n > MaxKeyLen {
			t.Fatalf("%q: a key of %d characters", v, n)
		}
		for i := 0; i < len(key); i++ {
			if key[i] < 0x20 || key[i] > 0x7e {
				t.Fatalf("%q: key %q holds byte 0x%02X", v, key, key[i])
			}
		}
		quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"`
		if k, p := ParseKey(quoted); k != key || p != "" {
			t.Fatalf("%q: key %q, quoted %s reads back as %q %q", v, key, quoted, k, p)
		}
		if strings.Trim(key, tokenChars) == "" {
			if k, p := ParseKey(key); k != key || p != "" {
				t.Fatalf("%q: key %q, bare, reads back as %q %q", v, key, k, p)
			}
		}
	})
}

// TestParseKey: each form of a key, and each way a value is not one,
// with the words that name the problem.
func TestParseKey(t *testing.T) {
	long := strings.Repeat("k", MaxKeyLen)
	for _, c := range []struct {
		v, key  string
		problem string // a part of it; "" for a key
	}{
		{`key-1`, "key-1", ""},
		{`"key-1"`, "key-1", ""},
		// Stripe's keys are UUIDs, which may begin with a digit: RFC 8941
		// would read that as a number; a bare key takes it.
		{`3f2a1c4e-8b7d-4e2a-9c1b-0a5d6e7f8a9b`, "3f2a1c4e-8b7d-4e2a-9c1b-0a5d6e7f8a9b", ""},
		{`"key 1, a \"good\" one \\ here"`, `key 1, a "good" one \ here`, ""},
		{`"` + long + `"`, long, ""}, // 255 characters, 257 bytes: the limit counts the key
		{`"` + strings.Repeat(`\"`, MaxKeyLen) + `"`, strings.Repeat(`"`, MaxKeyLen), ""}, // 512 bytes, 255 characters
		{"", "", "it is empty"},
		{`""`, "", "the string is empty"},
		{`"key-1`, "", "unbalanced quote: the string opened at byte 1 is never closed"},
		{`key-1"`, "", "unbalanced quote at byte 6"},
		{`"key"-1"`, "", "text after the closing quote at byte 5"},
		{`"key-1";x=1`, "", "parameters (;x=1) after the string"},
		{`"key\-1"`, "", `bad escape \- at byte 5`},
		{`"key-1\`, "", "the backslash at byte 7 ends the value"},
		{`ключ-1`, "", `it holds 'к' at byte 1: a key is printable ASCII`},
		{`"key-é"`, "", `it holds 'é' at byte 6`},
		{"key-\xff", "", "it holds the byte 0xFF at byte 5"},
		{"key\x01", "", "a control character (0x01) at byte 4"},
		{`key 1`, "", "a space at byte 4: a bare key has none"},
		{`key,1`, "", `',' at byte 4: a bare key holds only letters, digits and`},
		{long + "k", "", "at most 255 characters; this one has 256"},
		{`"` + long + `k"`, "", "at most 255 characters; this one has 256"},
	} {
		key, problem := ParseKey(c.v)
		switch {
		case c.problem == "" && (key != c.key || problem != ""):
			t.Errorf("%.40q: %q %q, want the key %.40q", c.v, key, problem, c.key)
		case c.problem != "" && (key != "" || !strings.Contains(problem, c.problem)):
			t.Errorf("%.40q: %q %q, want a problem with %q", c.v, key, problem, c.problem)
		}
	}
}

// TestKeySpellings: over HTTP, "k-1" and k-1 are one key: the second
// request, spelled the other way, gets the first's saved 201, and one
// charge is made. Each value that is not a key is a 400 that names the
// header and what is wrong, and makes nothing.
func TestKeySpellings(t *testing.T) {
	_, h := newTestAPI(t, Config{})
	first := serve(h, payment("spell", `"k-1"`, body1))
	if first.status != http.StatusCreated {
		t.Fatalf("quoted: %d %s", first.status, first.body)
	}
	again := serve(h, payment("spell", "k-1", body1))
	if again.status != first.status || again.body != first.body || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("bare after quoted: %d %v\n%s", again.status, again.header, again.body)
	}
	if l := ledgerOf(t, h, "spell"); len(l.Keys) != 1 || l.Keys[0].Key != "k-1" || len(l.Charges) != 1 || l.Charges[0].Calls != 1 {
		t.Errorf("ledger: %+v", l)
	}
	// The limit is the key's characters: 255 of them quoted (257 bytes)
	// pass.
	if a := serve(h, payment("spell", `"`+strings.Repeat("q", MaxKeyLen)+`"`, body1)); a.status != http.StatusCreated {
		t.Errorf("255 characters, quoted: %d %s", a.status, a.body)
	}
	twice := payment("bad", "", body1)
	twice.Header.Add("Idempotency-Key", "k-1")
	twice.Header.Add("Idempotency-Key", "k-2")
	empty := payment("bad", "", body1)
	empty.Header["Idempotency-Key"] = []string{""}
	for _, c := range []struct {
		name string
		req  *http.Request
		want string
	}{
		{"unbalanced quote", payment("bad", `"k-1`, body1), "unbalanced quote"},
		{"quote at the end", payment("bad", `k-1"`, body1), "unbalanced quote"},
		{"bad escape", payment("bad", `"k\n1"`, body1), `bad escape \n`},
		{"not ASCII", payment("bad", `"ключ"`, body1), "printable ASCII"},
		{"space", payment("bad", `k 1`, body1), "a space"},
		{"parameters", payment("bad", `"k-1";v=1`, body1), "parameters"},
		{"too long", payment("bad", strings.Repeat("k", MaxKeyLen+1), body1), "at most 255 characters; this one has 256"},
		{"sent twice", twice, "sent 2 times"},
		{"empty", empty, "it is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := problemOf(t, serve(h, c.req), http.StatusBadRequest)
			if p.Type != typeInvalid || len(p.Errors) != 1 || p.Errors[0].Field != "Idempotency-Key" || p.Errors[0].In != "header" ||
				!strings.Contains(p.Errors[0].Detail, c.want) {
				t.Errorf("got %+v, want an Idempotency-Key error with %q", p, c.want)
			}
		})
	}
	if l := ledgerOf(t, h, "bad"); l.Active {
		t.Errorf("a refused key made the ledger: %+v", l)
	}
}

// TestProblemTypesLink: every problem answer's type is a row of the
// answers on /try-api, in both languages: the endpoint's own and the
// handler's (which answers about:blank in the engine), replays included.
func TestProblemTypesLink(t *testing.T) {
	_, h := newTestAPI(t, Config{})
	types := []string{typeInvalid, typeTooLarge, typeMediaType, typeBusy, typeLedgerFull, typeNotFound, typeMethod, typeThrottled, typeServerError}
	for _, ty := range handlerTypes {
		types = append(types, ty)
	}
	for _, lang := range []string{"en", "ru"} {
		page := serve(h, httptest.NewRequest(http.MethodGet, "/try-api?lang="+lang, nil))
		if strings.Contains(page.body, "⟦") {
			t.Errorf("%s: a missing text", lang)
		}
		for _, ty := range types {
			id, ok := strings.CutPrefix(ty, "/try-api#")
			if !ok || !strings.Contains(page.body, `<tr id="`+id+`"`) {
				t.Errorf("%s: type %s has no row on /try-api", lang, ty)
			}
		}
	}
	if p := problemOf(t, serve(h, payment("types", "", body1)), http.StatusBadRequest); p.Type != typeKeyRequired {
		t.Errorf("no key: type %q", p.Type)
	}
	serve(h, payment("types", "k", body1))
	for i := range 2 { // the 422 is not saved; a second gets the same type
		if p := problemOf(t, serve(h, payment("types", "k", `{"account": "acc-1", "amount": 5}`)), http.StatusUnprocessableEntity); p.Type != typeKeyReused {
			t.Errorf("reused %d: type %q", i, p.Type)
		}
	}
	// A body that is not a plain about:blank problem is left as it is.
	for _, body := range []string{`{"id":"pay_1"}`, `{"type":"about:blank","title":"x","status":400,"extra":1}`, `not JSON`} {
		if got := linkProblem(handlers.APIResponse{Status: 400, Body: body}); got.Body != body {
			t.Errorf("%s rewritten to %s", body, got.Body)
		}
	}
}
