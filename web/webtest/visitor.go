package webtest

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web"
	"github.com/idempotency-lab/lab/web/page"
)

// NewPracticeServer is the real server over a progress file at path,
// which the test closes at its end (or earlier, through the returned
// function, to open the file again as a restarted server would).
func NewPracticeServer(tb testing.TB, path string, clock *Clock) (http.Handler, func()) {
	tb.Helper()
	bank := MustBank(tb)
	store, err := practice.Open(path, bank)
	if err != nil {
		tb.Fatal(err)
	}
	var once sync.Once
	closeStore := func() {
		once.Do(func() {
			if err := store.Close(); err != nil {
				tb.Error(err)
			}
		})
	}
	tb.Cleanup(closeStore)
	// A sandbox whose children are this test binary (see Main) grades
	// the coding exercises.
	h, err := web.NewServer(web.Config{Practice: store, Bank: bank, Now: clock.Now,
		Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	if err != nil {
		tb.Fatal(err)
	}
	return h, closeStore
}

// PracticeServer is NewPracticeServer over a fresh progress file, and
// its clock.
func PracticeServer(tb testing.TB) (http.Handler, *Clock) {
	tb.Helper()
	clock := NewClock()
	h, _ := NewPracticeServer(tb, filepath.Join(tb.TempDir(), "progress.db"), clock)
	return h, clock
}

// Visitor is one browser: it keeps the cookies the server sets.
type Visitor struct {
	TB      testing.TB
	H       http.Handler
	Cookies map[string]*http.Cookie
}

// NewVisitor is a visitor of h with no cookies yet.
func NewVisitor(tb testing.TB, h http.Handler) *Visitor {
	return &Visitor{TB: tb, H: h, Cookies: map[string]*http.Cookie{}}
}

// Do sends req with the visitor's cookies and keeps the ones it sets;
// headers come in name, value pairs.
func (v *Visitor) Do(req *http.Request, headers ...string) Response {
	v.TB.Helper()
	for _, c := range v.Cookies {
		req.AddCookie(c)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	v.H.ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if c.MaxAge < 0 {
			delete(v.Cookies, c.Name)
		} else {
			v.Cookies[c.Name] = c
		}
	}
	return Response{rec.Code, rec.Header(), rec.Body.String()}
}

// Get is a GET of target.
func (v *Visitor) Get(target string, headers ...string) Response {
	v.TB.Helper()
	return v.Do(httptest.NewRequest(http.MethodGet, target, nil), headers...)
}

// Post is a form POSTed to target.
func (v *Visitor) Post(target string, form url.Values, headers ...string) Response {
	v.TB.Helper()
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return v.Do(req, headers...)
}

// Answer posts an answer, checks the 303 to a result page and returns
// that page and its address.
func (v *Visitor) Answer(id string, form url.Values) (string, Response) {
	v.TB.Helper()
	r := v.Post("/practice/q/"+id, form)
	if r.Status != http.StatusSeeOther {
		v.TB.Fatalf("POST /practice/q/%s %v: status %d, want 303\n%s", id, form, r.Status, Excerpt(r.Body))
	}
	loc := r.Header.Get("Location")
	if !strings.HasPrefix(loc, "/practice/q/"+id+"/result?") {
		v.TB.Fatalf("POST /practice/q/%s: Location %q, want its result page", id, loc)
	}
	page := v.Get(loc)
	if page.Status != http.StatusOK {
		v.TB.Fatalf("GET %s: status %d\n%s", loc, page.Status, Excerpt(page.Body))
	}
	NoMissingKeys(v.TB, loc, page.Body)
	return loc, page
}

// Upload posts data as the file of the practice import form.
func (v *Visitor) Upload(name string, data []byte) Response {
	v.TB.Helper()
	return v.Do(UploadRequest(v.TB, name, data))
}

// UploadRequest is the practice import form's POST with data as its file.
func UploadRequest(tb testing.TB, name string, data []byte) *http.Request {
	tb.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, err := w.CreateFormFile("file", name)
	if err != nil {
		tb.Fatal(err)
	}
	fw.Write(data)
	w.Close()
	req := httptest.NewRequest(http.MethodPost, "/practice/import", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return req
}

// StepTo posts one step form on top of the lab address loc (a path with
// its query) and returns the Location it redirects to.
func (v *Visitor) StepTo(loc string, step url.Values) string {
	v.TB.Helper()
	u, err := url.Parse(loc)
	if err != nil {
		v.TB.Fatal(err)
	}
	form := u.Query()
	for k, vs := range step {
		form[k] = vs
	}
	r := v.Post("/lab/step", form)
	if r.Status != http.StatusSeeOther {
		v.TB.Fatalf("POST /lab/step %v: status %d\n%s", form, r.Status, Excerpt(r.Body))
	}
	return r.Header.Get("Location")
}

// Profile is the visitor's profile id, "" before the server minted one.
func (v *Visitor) Profile() string {
	if c := v.Cookies[page.ProfileCookie]; c != nil {
		return c.Value
	}
	return ""
}

// CodePracticeServer is the practice pages with a sandbox (this test
// binary as its children, see Main).
func CodePracticeServer(t *testing.T) (http.Handler, *practice.Bank) {
	t.Helper()
	bank, store := OpenProgress(t, "")
	h, err := web.NewServer(web.Config{Practice: store, Bank: bank, Now: NewClock().Now,
		Sandbox: sandbox.NewRunner([]string{os.Args[0]}, sandbox.Limits{})})
	if err != nil {
		t.Fatal(err)
	}
	return h, bank
}

var resultState = regexp.MustCompile(`id="result" data-result="([a-z]+)"`)

// ResultOf is the graded result a practice page shows.
func ResultOf(tb testing.TB, body string) string {
	tb.Helper()
	m := resultState.FindStringSubmatch(body)
	if m == nil {
		tb.Fatalf("no graded result on the page\n%s", Excerpt(body))
	}
	return m[1]
}
