package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/practicepage"
	"github.com/idempotency-lab/lab/web/webtest"
)

var topicAnswered = regexp.MustCompile(`data-topic="([a-z0-9-]+)" data-answered="(\d+)"`)

// answeredPercents reads the overview's bars: topic -> percent answered.
func answeredPercents(tb testing.TB, body string) map[string]int {
	tb.Helper()
	out := map[string]int{}
	for _, m := range topicAnswered.FindAllStringSubmatch(body, -1) {
		out[m[1]], _ = strconv.Atoi(m[2])
	}
	if n := len(webtest.MustBank(tb).Topics()); len(out) != n {
		tb.Fatalf("the overview has %d topic bars, want one per topic (%d)\n%s", len(out), n, webtest.Excerpt(body))
	}
	return out
}

func TestPracticeOverview(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	bank := webtest.MustBank(t)
	for _, lang := range []string{"en", "ru"} {
		v := webtest.NewVisitor(t, h)
		r := v.Get("/practice?lang=" + lang)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: status %d\n%s", lang, r.Status, webtest.Excerpt(r.Body))
		}
		webtest.NoMissingKeys(t, "/practice?lang="+lang, r.Body)
		body := html.UnescapeString(r.Body)
		for _, tp := range bank.Topics() {
			if !strings.Contains(body, tp.Title.In(lang)) || !strings.Contains(body, `href="/practice?topic=`+tp.Slug+`"`) {
				t.Errorf("%s: no bar linking to topic %s", lang, tp.Slug)
			}
		}
		for _, id := range []string{`id="start-interview"`, `id="start-review"`, `id="import-form"`, `enctype="multipart/form-data"`} {
			if !strings.Contains(body, id) {
				t.Errorf("%s: the overview lacks %s", lang, id)
			}
		}
		if strings.Contains(body, `id="export"`) {
			t.Errorf("%s: a visitor with no answers is offered an export", lang)
		}
		if v.Profile() != "" {
			t.Errorf("%s: looking at the overview minted a profile", lang)
		}
		for topic, pct := range answeredPercents(t, r.Body) {
			if pct != 0 {
				t.Errorf("%s: a new visitor has %d%% of %s answered", lang, pct, topic)
			}
		}
	}
}

func TestPracticeTopicPage(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	bank := webtest.MustBank(t)
	for _, tp := range bank.Topics() {
		items, err := bank.ByTopic(tp.Slug)
		if err != nil {
			t.Fatal(err)
		}
		r := webtest.NewVisitor(t, h).Get("/practice?topic=" + tp.Slug)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: status %d", tp.Slug, r.Status)
		}
		webtest.NoMissingKeys(t, tp.Slug, r.Body)
		if n := strings.Count(r.Body, `class="pr-item `); n != len(items) {
			t.Errorf("%s: %d items listed, want %d", tp.Slug, n, len(items))
		}
		first := `href="/practice/q/` + items[0].ID + `?topic=` + tp.Slug + `" id="start"`
		if !strings.Contains(r.Body, first) {
			t.Errorf("%s: Start does not lead to the first item %s", tp.Slug, items[0].ID)
		}
		if !strings.Contains(r.Body, `href="/lessons/`+tp.Slug+`"`) {
			t.Errorf("%s: no link to the lesson", tp.Slug)
		}
	}
}

// TestEveryItemRenders opens every question and exercise in both
// languages: the prompt, the form of its kind and nothing missing.
func TestEveryItemRenders(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	v := webtest.NewVisitor(t, h)
	for _, q := range webtest.MustBank(t).Questions() {
		for _, lang := range []string{"en", "ru"} {
			target := "/practice/q/" + q.ID + "?lang=" + lang
			r := v.Get(target)
			if r.Status != http.StatusOK {
				t.Fatalf("%s: status %d\n%s", target, r.Status, webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, target, r.Body)
			body := html.UnescapeString(r.Body)
			if !strings.Contains(body, q.Text.In(lang)) {
				t.Errorf("%s: the prompt is missing", target)
			}
			var want []string
			switch q.Kind {
			case practice.KindChoice:
				kind := "radio"
				if len(q.Correct()) > 1 {
					kind = "checkbox"
				}
				for _, o := range q.Options {
					want = append(want, `<input type="`+kind+`" id="option-`+o.ID+`" name="option" value="`+o.ID+`"`, o.Text.In(lang))
				}
			case practice.KindOpen:
				want = append(want, `<textarea id="mine" name="mine"`, `action="/practice/q/`+q.ID+`/compare"`)
			case practice.KindPredict:
				want = append(want, q.Steps(), "<code>"+q.Handler+"</code>", practice.PredictHint().In(lang),
					`name="balance"`, `name="verdict"`)
				for _, vd := range q.Verdicts() { // the API side's for an API predict
					want = append(want, `<option value="`+string(vd)+`">`)
				}
				for _, gives := range []string{"title:", "#en:", "#ru:"} {
					if strings.Contains(body, gives) {
						t.Errorf("%s: the script shows %q, which gives the answer away", target, gives)
					}
				}
			}
			for _, w := range want {
				if !strings.Contains(body, strings.TrimRight(w, "\n")) {
					t.Errorf("%s: page lacks %q", target, w)
				}
			}
		}
	}
}

func TestPracticeChoice(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	single := webtest.FindQuestion(t, practice.KindChoice, func(q practice.Question) bool { return len(q.Correct()) == 1 })
	multi := webtest.FindQuestion(t, practice.KindChoice, func(q practice.Question) bool { return len(q.Correct()) > 1 })
	v := webtest.NewVisitor(t, h)

	loc, r := v.Answer(single.ID, url.Values{"option": single.Correct()})
	if got := webtest.ResultOf(t, r.Body); got != "right" {
		t.Errorf("the right option graded %q", got)
	}
	if want := "/practice/q/" + single.ID + "/result?option=" + single.Correct()[0] + "&topic=" + single.Topic; loc != want {
		t.Errorf("result address %q, want %q", loc, want)
	}
	body := html.UnescapeString(r.Body)
	for _, o := range single.Options {
		if !strings.Contains(body, o.Why.EN) {
			t.Errorf("the result does not explain option %s", o.ID)
		}
	}
	c := v.Cookies[page.ProfileCookie]
	if c == nil || !practice.ValidProfileID(c.Value) {
		t.Fatalf("the first answer set no profile cookie: %v", v.Cookies)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.MaxAge != 365*24*3600 || c.Path != "/" {
		t.Errorf("profile cookie %+v: want HttpOnly, SameSite=Lax, a year, Path=/", c)
	}

	// Every correct option but one, and one wrong one too: both wrong.
	_, r = v.Answer(multi.ID, url.Values{"option": multi.Correct()[1:]})
	if got := webtest.ResultOf(t, r.Body); got != "wrong" {
		t.Errorf("a partial pick graded %q, want wrong (all or nothing)", got)
	}
	_, r = v.Answer(multi.ID, url.Values{"option": append(multi.Correct(), webtest.WrongOption(multi))})
	if got := webtest.ResultOf(t, r.Body); got != "wrong" {
		t.Errorf("an extra wrong pick graded %q", got)
	}
	if !strings.Contains(r.Body, `data-option="`+webtest.WrongOption(multi)+`"`) || !strings.Contains(r.Body, "you picked it") {
		t.Error("the result does not say which options were picked")
	}
	_, r = v.Answer(multi.ID, url.Values{"option": multi.Correct()})
	if got := webtest.ResultOf(t, r.Body); got != "right" {
		t.Errorf("all correct options graded %q", got)
	}
	if prof := v.Profile(); prof != c.Value {
		t.Errorf("the profile changed from %s to %s between answers", c.Value, prof)
	}

	// Reloading a result records nothing more.
	over := v.Get("/practice")
	before := answeredPercents(t, over.Body)
	v.Get(loc)
	v.Get(loc)
	if after := answeredPercents(t, v.Get("/practice").Body); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("reloading a result changed progress: %v -> %v", before, after)
	}
	if !strings.Contains(over.Body, `id="export"`) {
		t.Error("a visitor with answers is not offered the export")
	}
}

func TestPracticeOpen(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	q := webtest.FindQuestion(t, practice.KindOpen, func(q practice.Question) bool { return len(q.Points) >= 3 })
	v := webtest.NewVisitor(t, h)

	mine := "Use <script>alert(1)</script> an inbox & a UNIQUE key"
	r := v.Get("/practice/q/" + q.ID + "/compare?" + url.Values{"mine": {mine}, "topic": {q.Topic}}.Encode())
	if r.Status != http.StatusOK {
		t.Fatalf("compare: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	webtest.NoMissingKeys(t, "compare", r.Body)
	if strings.Contains(r.Body, "<script>alert") || !strings.Contains(r.Body, "&lt;script&gt;alert(1)&lt;/script&gt; an inbox &amp; a UNIQUE key") {
		t.Error("one's own answer is not shown escaped")
	}
	body := html.UnescapeString(r.Body)
	if !strings.Contains(body, q.Answer.EN) {
		t.Error("the model answer is missing")
	}
	for i, p := range q.Points {
		if !strings.Contains(body, p.EN) || !strings.Contains(r.Body, fmt.Sprintf(`name="point" value="%d"`, i)) {
			t.Errorf("key point %d is not offered to tick", i)
		}
	}
	if v.Profile() != "" {
		t.Error("comparing an answer recorded something")
	}

	for _, tc := range []struct {
		ticked []string
		want   string
	}{
		{nil, "wrong"},
		{[]string{"0"}, "partial"},
		{[]string{"0", "1", "1"}, "partial"},
		{webtest.AllPoints(q), "right"},
	} {
		loc, r := v.Answer(q.ID, url.Values{"point": tc.ticked, "topic": {q.Topic}})
		if got := webtest.ResultOf(t, r.Body); got != tc.want {
			t.Errorf("ticked %v: graded %q, want %q", tc.ticked, got, tc.want)
		}
		covered := map[string]bool{}
		for _, p := range tc.ticked {
			covered[p] = true
		}
		if want := fmt.Sprintf("You covered %d of %d key points", len(covered), len(q.Points)); !strings.Contains(r.Body, want) {
			t.Errorf("ticked %v: the result does not say %q", tc.ticked, want)
		}
		if n := strings.Count(r.Body, `data-ticked="true"`); n != len(covered) {
			t.Errorf("ticked %v: %d points shown ticked (%s)", tc.ticked, n, loc)
		}
	}
}

// TestPracticePredict: predictions are graded by the engine, in either
// notation, and the result offers the lab and, when wrong, another try.
func TestPracticePredict(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	bank := webtest.MustBank(t)
	v := webtest.NewVisitor(t, h)
	for _, q := range bank.Questions() {
		if q.Kind != practice.KindPredict {
			continue
		}
		res := webtest.EngineResult(t, q)
		right := url.Values{"balance": {practice.FormatMoney(res.Settled)}, "verdict": {string(res.Verdict)}}
		loc, r := v.Answer(q.ID, right)
		if got := webtest.ResultOf(t, r.Body); got != "right" {
			t.Errorf("%s: the engine's own outcome (%d, %s) graded %q", q.ID, res.Settled, res.Verdict, got)
		}
		if !strings.Contains(loc, "balance="+practice.FormatMoney(res.Settled)) || !strings.Contains(loc, "verdict="+string(res.Verdict)) {
			t.Errorf("%s: result address %q does not carry the prediction", q.ID, loc)
		}
		if !strings.Contains(r.Body, `href="`+html.EscapeString(q.LabURL())+`" id="open-in-lab"`) {
			t.Errorf("%s: no 'open in the lab' link to %s", q.ID, q.LabURL())
		}
		if strings.Contains(r.Body, `id="retry-form"`) {
			t.Errorf("%s: a right prediction is offered a retry", q.ID)
		}
		if !strings.Contains(r.Body, `data-engine-verdict="`+string(res.Verdict)+`"`) || !strings.Contains(r.Body, page.Money(res.Settled)) {
			t.Errorf("%s: the result does not show the engine's outcome", q.ID)
		}
	}

	q := webtest.FindQuestion(t, practice.KindPredict, func(q practice.Question) bool { return webtest.EngineResult(t, q).Settled > 0 })
	res := webtest.EngineResult(t, q)
	major := fmt.Sprintf("%d.%02d", res.Settled/100, res.Settled%100)
	for _, tc := range []struct {
		balance, verdict, want string
	}{
		{major, strings.ToUpper(string(res.Verdict)), "right"}, // 200.00 and DUPLICATE are read too
		// Money is typed in major units: 200 is 200.00, and so are 200,00 and 200 ₽.
		{strconv.FormatInt(res.Settled/100, 10), string(res.Verdict), map[bool]string{true: "right", false: "partial"}[res.Settled%100 == 0]},
		{strings.Replace(major, ".", ",", 1) + " ₽", string(res.Verdict), "right"},
		{"$" + major, string(res.Verdict), "right"},
		{strconv.FormatInt(res.Settled, 10), string(res.Verdict), "partial"}, // minor units are not read as such
		{practice.FormatMoney(res.Settled + 1), string(res.Verdict), "partial"},
		{practice.FormatMoney(res.Settled), string(webtest.OtherVerdict(res.Verdict)), "partial"},
		{practice.FormatMoney(res.Settled + 100), string(webtest.OtherVerdict(res.Verdict)), "wrong"},
	} {
		loc, r := v.Answer(q.ID, url.Values{"balance": {tc.balance}, "verdict": {tc.verdict}})
		if got := webtest.ResultOf(t, r.Body); got != tc.want {
			t.Errorf("%s %s: graded %q, want %q", tc.balance, tc.verdict, got, tc.want)
		}
		if tc.want != "right" && !strings.Contains(r.Body, `id="retry-form"`) {
			t.Errorf("%s %s: a wrong prediction cannot be retried", tc.balance, tc.verdict)
		}
		if tc.want == "right" && !strings.Contains(loc, "balance="+practice.FormatMoney(res.Settled)+"&") {
			t.Errorf("%s: the result address %q does not carry the balance in major units", tc.balance, loc)
		}
	}
}

// TestPracticeBadInput: every wrong answer, address and id is a page with
// the right status that says what is wrong and what would be right, and
// nothing is recorded.
func TestPracticeBadInput(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	choice := webtest.FindQuestion(t, practice.KindChoice, nil)
	open := webtest.FindQuestion(t, practice.KindOpen, nil)
	predict := webtest.FindQuestion(t, practice.KindPredict, nil)
	long := strings.Repeat("ё", practicepage.MaxOwnAnswer+1)
	tests := []struct {
		name, method, target string
		form                 url.Values
		status               int
		want                 []string
	}{
		{"unknown question", "GET", "/practice/q/no-such-thing", nil, 404, []string{`There is no question "no-such-thing"`}},
		{"answer to an unknown question", "POST", "/practice/q/no-such-thing", url.Values{"option": {"a"}}, 404, []string{`"no-such-thing"`}},
		{"result of an unknown question", "GET", "/practice/q/nope/result?option=a", nil, 404, []string{`"nope"`}},
		{"unknown topic", "GET", "/practice?topic=kafka", nil, 404, []string{`There is no practice topic "kafka"`, "duplicates, keys, unique"}},
		{"unknown topic of an item", "GET", "/practice/q/" + choice.ID + "?topic=kafka", nil, 404, []string{`"kafka"`}},
		{"bad interview seed", "GET", "/practice/interview?seed=abc", nil, 400, []string{`seed="abc" is not a run number`}},
		{"negative seed on an item", "GET", "/practice/q/" + choice.ID + "?seed=-1", nil, 400, []string{`seed="-1"`}},
		{"no option", "POST", "/practice/q/" + choice.ID, url.Values{}, 400, []string{"Pick at least one option."}},
		{"unknown option", "POST", "/practice/q/" + choice.ID, url.Values{"option": {"z"}}, 400,
			[]string{`This question has no option "z": choose from ` + practicepage.OptionIDs(choice)}},
		{"unknown option in a result address", "GET", "/practice/q/" + choice.ID + "/result?option=q", nil, 400, []string{`no option "q"`}},
		{"key point out of range", "POST", "/practice/q/" + open.ID, url.Values{"point": {"99"}}, 400,
			[]string{fmt.Sprintf(`no key point "99": its key points are numbered 0 to %d`, len(open.Points)-1)}},
		{"key point not a number", "POST", "/practice/q/" + open.ID, url.Values{"point": {"one"}}, 400, []string{`no key point "one"`}},
		{"no balance", "POST", "/practice/q/" + predict.ID, url.Values{"verdict": {"ok"}}, 400, []string{"Enter the balance you predict"}},
		{"malformed balance", "POST", "/practice/q/" + predict.ID, url.Values{"balance": {"100.505"}, "verdict": {"ok"}}, 400,
			[]string{`"100.505" is not an amount`, "major units, e.g. 200.00", "200,00", "200 ₽"}},
		{"negative balance", "POST", "/practice/q/" + predict.ID, url.Values{"balance": {"-100"}, "verdict": {"ok"}}, 400, []string{`"-100" is not an amount`, "no minus"}},
		{"no verdict", "POST", "/practice/q/" + predict.ID, url.Values{"balance": {"100"}}, 400, []string{"Choose a verdict: " + practicepage.VerdictNames()}},
		{"unknown verdict", "POST", "/practice/q/" + predict.ID, url.Values{"balance": {"100"}, "verdict": {"fine"}}, 400,
			[]string{`There is no verdict "fine". Valid verdicts: ok, duplicate, lost, poison, silent-conflict.`}},
		{"bad verdict in a result address", "GET", "/practice/q/" + predict.ID + "/result?balance=1&verdict=meh", nil, 400, []string{`"meh"`}},
		{"comparing a choice question", "GET", "/practice/q/" + choice.ID + "/compare?mine=x", nil, 404, []string{"Nothing lives at"}},
		{"own answer too long", "GET", "/practice/q/" + open.ID + "/compare?mine=" + long, nil, 400,
			[]string{fmt.Sprintf("%d characters, and the limit is %d", practicepage.MaxOwnAnswer+1, practicepage.MaxOwnAnswer)}},
		{"export without progress", "GET", "/practice/export", nil, 404, []string{"This browser has no practice progress yet"}},
		{"import by GET", "GET", "/practice/import", nil, 405, []string{"GET is not allowed here"}},
		{"import of a plain form", "POST", "/practice/import", url.Values{"file": {"{}"}}, 400, []string{"multipart/form-data"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := webtest.NewVisitor(t, h)
			var r webtest.Response
			if tc.method == "POST" {
				r = v.Post(tc.target, tc.form)
			} else {
				r = v.Get(tc.target)
			}
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d\n%s", r.Status, tc.status, webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, tc.target, r.Body)
			body := html.UnescapeString(r.Body)
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("the page does not say %q\n%s", w, webtest.Excerpt(r.Body))
				}
			}
			if v.Profile() != "" {
				t.Error("a bad request minted a profile")
			}
		})
	}

	// The reader's language, for the messages too.
	r := webtest.NewVisitor(t, h).Post("/practice/q/"+predict.ID+"?lang=ru", url.Values{"balance": {"сто"}, "verdict": {"ok"}})
	if body := html.UnescapeString(r.Body); r.Status != 400 || !strings.Contains(body, `"сто" — не сумма`) {
		t.Errorf("Russian: status %d, page lacks the Russian message\n%s", r.Status, webtest.Excerpt(r.Body))
	}
}

// TestPracticeBadCookie: a cookie that is not a profile id is no profile:
// the pages work and the first answer mints a real one.
func TestPracticeBadCookie(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	q := webtest.FindQuestion(t, practice.KindChoice, nil)
	for _, bad := range []string{"garbage", "", strings.Repeat("A", 25), strings.Repeat("a", 26), "../../etc/passwd", strings.Repeat("Z", 4000)} {
		v := webtest.NewVisitor(t, h)
		v.Cookies[page.ProfileCookie] = &http.Cookie{Name: page.ProfileCookie, Value: bad}
		for _, target := range []string{"/practice", "/practice?topic=unique", "/practice/review", "/practice/q/" + q.ID, "/lessons"} {
			if r := v.Get(target); r.Status != http.StatusOK {
				t.Errorf("cookie %.20q: GET %s: status %d", bad, target, r.Status)
			}
		}
		if r := v.Get("/practice/export"); r.Status != http.StatusNotFound {
			t.Errorf("cookie %.20q: export status %d, want 404", bad, r.Status)
		}
		v.Answer(q.ID, url.Values{"option": q.Correct()})
		if got := v.Profile(); got == bad || !practice.ValidProfileID(got) {
			t.Errorf("cookie %.20q: after an answer the cookie is %q, want a new profile id", bad, got)
		}
	}
}

// TestPracticeExportImport moves progress from one browser to another
// through the export file, and imports it twice.
func TestPracticeExportImport(t *testing.T) {
	h, clock := webtest.PracticeServer(t)
	bank := webtest.MustBank(t)
	a := webtest.NewVisitor(t, h)
	var answered []string
	for _, q := range bank.Questions()[:3] {
		form := url.Values{}
		switch q.Kind {
		case practice.KindChoice:
			form["option"] = q.Correct()
		case practice.KindOpen:
			form["point"] = []string{"0"}
		case practice.KindPredict:
			res := webtest.EngineResult(t, q)
			form.Set("balance", practice.FormatMoney(res.Settled))
			form.Set("verdict", string(res.Verdict))
		}
		a.Answer(q.ID, form)
		answered = append(answered, q.ID)
		clock.Advance(time.Minute)
	}
	r := a.Get("/practice/export")
	if r.Status != http.StatusOK {
		t.Fatalf("export: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename=idempotency-lab-progress-2026-03-02.json` {
		t.Errorf("Content-Disposition %q", cd)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	var file struct {
		Format   string `json:"format"`
		Profile  string `json:"profile"`
		Attempts []struct {
			Question string `json:"question"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal([]byte(r.Body), &file); err != nil {
		t.Fatalf("export is not JSON: %v", err)
	}
	if file.Format != practice.ExportFormat || file.Profile != a.Profile() || len(file.Attempts) != 3 {
		t.Fatalf("export = %+v, want 3 attempts of profile %s", file, a.Profile())
	}
	export := []byte(r.Body)

	b := webtest.NewVisitor(t, h)
	r = b.Upload("progress.json", export)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/practice?imported=3&skipped=0#keep" {
		t.Fatalf("import: status %d, Location %q\n%s", r.Status, r.Header.Get("Location"), webtest.Excerpt(r.Body))
	}
	if b.Profile() == "" || b.Profile() == a.Profile() {
		t.Errorf("importing into a new browser should mint its own profile, got %q (the file's is %q)", b.Profile(), a.Profile())
	}
	over := b.Get(strings.TrimSuffix(r.Header.Get("Location"), "#keep")) // browsers keep the fragment to themselves
	if !strings.Contains(over.Body, "Imported 3 answers; 0 were already here.") {
		t.Errorf("the overview does not say what the import did\n%s", webtest.Excerpt(over.Body))
	}
	if got, want := answeredPercents(t, over.Body), answeredPercents(t, a.Get("/practice").Body); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after the import: %v, want the exporter's %v", got, want)
	}
	r = b.Upload("progress.json", export)
	if r.Header.Get("Location") != "/practice?imported=0&skipped=3#keep" {
		t.Errorf("importing twice: Location %q, want nothing added", r.Header.Get("Location"))
	}
	// The export of the second browser holds the same answers.
	again := b.Get("/practice/export")
	for _, id := range answered {
		if !strings.Contains(again.Body, `"question": "`+id+`"`) {
			t.Errorf("the re-export lacks %s", id)
		}
	}
}

func TestPracticeImportErrors(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	profile := practice.NewProfileID()
	valid := func(attempts string) []byte {
		return []byte(`{"format": "idempotency-lab-progress", "version": 1, "profile": "` + profile + `", "attempts": [` + attempts + `]}`)
	}
	tests := []struct {
		name   string
		data   []byte
		status int
		want   string
	}{
		{"not JSON", []byte("question,score\nunique-return-nil,1\n"), 400, "The file is not JSON"},
		{"empty", nil, 400, "The file is empty"},
		{"a JSON array", []byte(`[1, 2, 3]`), 400, `not a progress file of this lab: it should say "format": "idempotency-lab-progress"`},
		{"another format", []byte(`{"format": "anki", "version": 1}`), 400, `"format": "idempotency-lab-progress"`},
		{"a newer version", []byte(`{"format": "idempotency-lab-progress", "version": 9, "profile": "` + profile + `", "attempts": []}`), 400,
			"version 9 was written by a newer lab"},
		{"an unknown question", valid(`{"id": "` + practice.NewProfileID() + `", "question": "no-such", "score": 1, "at": "2026-03-01T10:00:00Z"}`), 400,
			`attempts[0]: unknown question "no-such"`},
		{"a score above 1", valid(`{"id": "` + practice.NewProfileID() + `", "question": "unique-return-nil", "score": 2, "at": "2026-03-01T10:00:00Z"}`), 400,
			"score 2 is not from 0 to 1"},
		{"too large", bytes.Repeat([]byte(" "), practice.MaxImportBytes+1), 413, "at most 1 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := webtest.NewVisitor(t, h)
			r := v.Upload("progress.json", tc.data)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d\n%s", r.Status, tc.status, webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, tc.name, r.Body)
			if body := html.UnescapeString(r.Body); !strings.Contains(body, tc.want) {
				t.Errorf("the page does not say %q\n%s", tc.want, webtest.Excerpt(r.Body))
			}
			if v.Profile() != "" {
				t.Error("a failed import minted a profile")
			}
		})
	}
	t.Run("no file", func(t *testing.T) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("other", "x")
		mw.Close()
		req := httptest.NewRequest(http.MethodPost, "/practice/import", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		r := webtest.NewVisitor(t, h).Do(req)
		if r.Status != 400 || !strings.Contains(r.Body, "Choose a progress file to import.") {
			t.Errorf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
		}
	})
	t.Run("body far over the limit", func(t *testing.T) {
		r := webtest.NewVisitor(t, h).Upload("big.json", bytes.Repeat([]byte("x"), 2*practicepage.MaxImportForm))
		if r.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("status %d, want 413", r.Status)
		}
	})
}

// TestPracticeModes: "next" stays in the mode the item was opened in.
func TestPracticeModes(t *testing.T) {
	h, clock := webtest.PracticeServer(t)
	bank := webtest.MustBank(t)
	v := webtest.NewVisitor(t, h)

	t.Run("topic", func(t *testing.T) {
		items, _ := bank.ByTopic("setnx")
		page := v.Get("/practice/q/" + items[0].ID + "?topic=setnx")
		if !strings.Contains(page.Body, fmt.Sprintf("1 of %d", len(items))) {
			t.Errorf("the first item does not say 1 of %d", len(items))
		}
		_, r := v.Answer(items[0].ID, webtest.AnswerFor(t, items[0], true).With("topic", "setnx"))
		if want := `href="/practice/q/` + items[1].ID + `?topic=setnx" id="next"`; !strings.Contains(r.Body, want) {
			t.Errorf("next does not lead to the second item: want %s\n%s", want, webtest.Excerpt(r.Body))
		}
		last := items[len(items)-1]
		_, r = v.Answer(last.ID, webtest.AnswerFor(t, last, true).With("topic", "setnx"))
		if strings.Contains(r.Body, `id="next"`) || !strings.Contains(r.Body, `href="/practice?topic=setnx" id="back-to-list"`) {
			t.Error("the last item of a topic should lead back to the topic, not on")
		}
	})

	t.Run("interview", func(t *testing.T) {
		v := webtest.NewVisitor(t, h)
		r := v.Get("/practice/interview")
		loc := r.Header.Get("Location")
		// The run's address carries its seed and its start: the clock's time.
		m := regexp.MustCompile(`^/practice/interview\?seed=(\d+)&started=(\d+)$`).FindStringSubmatch(loc)
		if r.Status != http.StatusFound || m == nil || m[2] != strconv.FormatInt(clock.Now().Unix(), 10) {
			t.Fatalf("a new run: status %d, Location %q", r.Status, loc)
		}
		seed, _ := strconv.ParseUint(m[1], 10, 64)
		run := bank.Interview(seed, 0)
		list := v.Get(loc)
		if list.Status != 200 || strings.Count(list.Body, `class="pr-item `) != len(run) {
			t.Fatalf("the run lists %d items, want %d", strings.Count(list.Body, `class="pr-item `), len(run))
		}
		webtest.NoMissingKeys(t, loc, list.Body)
		if again := v.Get(loc); again.Body != list.Body {
			t.Error("reloading the run changed it")
		}
		q := run[2]
		page := v.Get("/practice/q/" + q.ID + "?seed=" + strconv.FormatUint(seed, 10))
		if !strings.Contains(page.Body, "Interview in 15 minutes · 3 of 10") {
			t.Errorf("the item does not say where it is in the run\n%s", webtest.Excerpt(page.Body))
		}
		_, res := v.Answer(q.ID, webtest.AnswerFor(t, q, false).With("seed", strconv.FormatUint(seed, 10)))
		if want := `href="/practice/q/` + run[3].ID + `?seed=` + strconv.FormatUint(seed, 10) + `" id="next"`; !strings.Contains(res.Body, want) {
			t.Errorf("next in the run: want %s", want)
		}
		if !strings.Contains(v.Get(loc).Body, "Answered 1 of 10") {
			t.Error("the run's page does not count the answer")
		}
		// A retry, right this time, leaves the run's score as it was: an
		// interview counts first tries.
		clock.Advance(time.Minute)
		v.Answer(q.ID, webtest.AnswerFor(t, q, true).With("seed", strconv.FormatUint(seed, 10)))
		if body := v.Get(loc).Body; !strings.Contains(body, "Answered 1 of 10 · score 0%") {
			t.Errorf("after a right retry, the run's summary:\n%s", webtest.Excerpt(body))
		}
	})

	t.Run("review", func(t *testing.T) {
		w := webtest.NewVisitor(t, h)
		if r := w.Get("/practice/review"); r.Status != 200 || !strings.Contains(r.Body, `id="empty"`) {
			t.Fatalf("a new visitor's review is not empty: %d", r.Status)
		}
		missed := bank.Questions()[:2]
		for _, q := range missed {
			w.Answer(q.ID, url.Values(webtest.AnswerFor(t, q, false)))
		}
		hit := bank.Questions()[5]
		w.Answer(hit.ID, url.Values(webtest.AnswerFor(t, hit, true)))
		// A miss is in review at once.
		clock.Advance(time.Minute) // later answers come later: the first try is the first
		r := w.Get("/practice/review")
		if n := strings.Count(r.Body, `class="pr-item `); n != 2 {
			t.Fatalf("the review holds %d items, want the 2 missed ones", n)
		}
		if !strings.Contains(w.Get("/practice").Body, "Review now (2)") {
			t.Error("the overview does not offer the 2 due items")
		}
		// Both were missed at the same moment: the review orders them by id.
		first, second := missed[0], missed[1]
		if second.ID < first.ID {
			first, second = second, first
		}
		if !strings.Contains(r.Body, `href="/practice/q/`+first.ID+`?review=1" id="start"`) {
			t.Errorf("the review does not start with %s", first.ID)
		}
		_, res := w.Answer(first.ID, webtest.AnswerFor(t, first, true).With("review", "1"))
		if want := `href="/practice/q/` + second.ID + `?review=1" id="next"`; !strings.Contains(res.Body, want) {
			t.Errorf("next in review: want %s\n%s", want, webtest.Excerpt(res.Body))
		}
		_, res = w.Answer(second.ID, webtest.AnswerFor(t, second, true).With("review", "1"))
		if strings.Contains(res.Body, `id="next"`) || !strings.Contains(res.Body, `href="/practice/review" id="back-to-list"`) {
			t.Errorf("after the last due item the review should end\n%s", webtest.Excerpt(res.Body[strings.Index(res.Body, `id="answer"`):]))
		}
		// The average counts first tries: two misses and a hit, whatever the retries.
		if over := w.Get("/practice"); !strings.Contains(over.Body, "3 of "+strconv.Itoa(len(bank.Questions()))+" answered · average 33%") {
			t.Errorf("the overall average does not count first tries\n%s", webtest.Excerpt(over.Body[strings.Index(over.Body, `id="overall"`):]))
		}
		// Answered right on the day of the miss, both stay in review.
		if r := w.Get("/practice/review"); strings.Count(r.Body, `class="pr-item `) != 2 {
			t.Error("a same-day retry took a missed item out of review")
		}
		// Answered right on a later day, they leave it; the hit comes due.
		clock.Advance(24 * time.Hour)
		w.Answer(first.ID, webtest.AnswerFor(t, first, true).With("review", "1"))
		w.Answer(second.ID, webtest.AnswerFor(t, second, true).With("review", "1"))
		r = w.Get("/practice/review")
		if strings.Contains(r.Body, `/practice/q/`+first.ID+`?review=1"`) || strings.Contains(r.Body, `/practice/q/`+second.ID+`?review=1"`) ||
			!strings.Contains(r.Body, `/practice/q/`+hit.ID+`?review=1"`) {
			t.Errorf("a day later the review should hold only %s\n%s", hit.ID, webtest.Excerpt(r.Body))
		}
	})
}

// TestPracticeSurvivesRestart: progress is in the file, not the process.
// The server is built twice over the same database, as after a restart.
func TestPracticeSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "progress.db")
	clock := webtest.NewClock()
	h1, stop := webtest.NewPracticeServer(t, path, clock)
	v := webtest.NewVisitor(t, h1)
	q := webtest.FindQuestion(t, practice.KindPredict, nil)
	v.Answer(q.ID, url.Values(webtest.AnswerFor(t, q, false)))
	before := answeredPercents(t, v.Get("/practice").Body)
	if before[q.Topic] == 0 {
		t.Fatalf("the answer does not show: %v", before)
	}
	stop()

	h2, _ := webtest.NewPracticeServer(t, path, clock)
	v.H = h2
	after := answeredPercents(t, v.Get("/practice").Body)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("after a restart: %v, want %v", after, before)
	}
	if r := v.Get("/practice?topic=" + q.Topic); !strings.Contains(r.Body, `data-state="miss"`) {
		t.Error("after a restart the missed item is not marked")
	}
}

// TestPracticeWithHTMX: htmx gets the answer area only, with the address
// to push, and errors in the message area.
func TestPracticeWithHTMX(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	q := webtest.FindQuestion(t, practice.KindPredict, nil)
	v := webtest.NewVisitor(t, h)
	hx := []string{"HX-Request", "true", "HX-Request-Type", "partial"}
	r := v.Post("/practice/q/"+q.ID, url.Values(webtest.AnswerFor(t, q, false)), hx...)
	if r.Status != http.StatusSeeOther {
		t.Fatalf("status %d", r.Status)
	}
	loc := r.Header.Get("Location")
	frag := v.Get(loc, hx...)
	if frag.Status != 200 || strings.Contains(frag.Body, "<html") || !strings.Contains(frag.Body, `id="result"`) {
		t.Fatalf("htmx got %d, not the answer area:\n%s", frag.Status, webtest.Excerpt(frag.Body))
	}
	if !strings.HasPrefix(frag.Body, "<title>") {
		t.Error("the fragment does not update the title")
	}
	if got := frag.Header.Get("HX-Push-Url"); got != loc {
		t.Errorf("HX-Push-Url %q, want %q", got, loc)
	}
	full := v.Get(loc)
	if !strings.Contains(full.Body, "<html") || !strings.Contains(full.Body, `id="answer"`) {
		t.Error("without htmx the result is a whole page")
	}
	open := webtest.FindQuestion(t, practice.KindOpen, nil)
	cmp := v.Get("/practice/q/"+open.ID+"/compare?mine=x", hx...)
	if strings.Contains(cmp.Body, "<html") || !strings.Contains(cmp.Body, `id="points-form"`) {
		t.Error("htmx does not get the comparison alone")
	}
	bad := v.Post("/practice/q/"+q.ID, url.Values{"balance": {"lots"}, "verdict": {"ok"}}, hx...)
	if bad.Status != 400 || bad.Header.Get("HX-Retarget") != "#flash" || !strings.Contains(html.UnescapeString(bad.Body), `"lots" is not an amount`) {
		t.Errorf("an htmx error: status %d, retarget %q\n%s", bad.Status, bad.Header.Get("HX-Retarget"), bad.Body)
	}
	for _, page := range []string{"/practice/q/" + q.ID, loc} {
		body := v.Get(page).Body
		if !strings.Contains(body, `id="flash"`) || !strings.Contains(body, `hx-post="/practice/q/`+q.ID+`"`) {
			t.Errorf("%s: the form is not enhanced or has no message area", page)
		}
	}
}

// TestPracticeWithoutStore: a server built without a progress store says
// so instead of failing.
func TestPracticeWithoutStore(t *testing.T) {
	h := webtest.NewServer(t)
	for _, target := range []string{"/practice", "/practice/q/unique-return-nil", "/practice/export"} {
		r := webtest.Get(t, h, target)
		if r.Status != http.StatusServiceUnavailable || !strings.Contains(r.Body, "without a progress database") {
			t.Errorf("%s: status %d\n%s", target, r.Status, webtest.Excerpt(r.Body))
		}
		webtest.NoMissingKeys(t, target, r.Body)
	}
}

// TestLessonsShowPracticeProgress: the lessons' bars are the practice
// progress of the reader's profile.
func TestLessonsShowPracticeProgress(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	bank := webtest.MustBank(t)
	v := webtest.NewVisitor(t, h)
	if r := v.Get("/lessons"); strings.Contains(r.Body, "<progress") {
		t.Error("a reader with no answers sees progress bars")
	}
	items, _ := bank.ByTopic("inbox")
	v.Answer(items[0].ID, url.Values(webtest.AnswerFor(t, items[0], true)))
	want := int(math.Round(100 / float64(len(items))))
	r := v.Get("/lessons")
	if !strings.Contains(r.Body, fmt.Sprintf(`<progress max="100" value="%d"`, want)) {
		t.Errorf("the lesson list does not show %d%% for inbox\n%s", want, webtest.Excerpt(r.Body))
	}
}

// TestPracticePagesInBothLanguages walks every kind of page in both
// languages looking for missing words.
func TestPracticePagesInBothLanguages(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	v := webtest.NewVisitor(t, h)
	for _, q := range webtest.MustBank(t).Questions() {
		v.Answer(q.ID, url.Values(webtest.AnswerFor(t, q, false)))
	}
	for _, lang := range []string{"en", "ru"} {
		for _, target := range []string{"/practice", "/practice?topic=inbox", "/practice/interview?seed=7", "/practice/review",
			"/practice?imported=2&skipped=1"} {
			sep := "?"
			if strings.Contains(target, "?") {
				sep = "&"
			}
			r := v.Get(target + sep + "lang=" + lang)
			if r.Status != 200 {
				t.Errorf("%s (%s): status %d", target, lang, r.Status)
			}
			webtest.NoMissingKeys(t, target+" "+lang, r.Body)
		}
	}
}

// TestPracticeErrorLeadsBack: an error page in practice leads back to the
// practice page the reader came from, never to another site.
func TestPracticeErrorLeadsBack(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	q := webtest.FindQuestion(t, practice.KindPredict, nil)
	from := "/practice/q/" + q.ID + "?seed=42"
	for _, tc := range []struct{ referer, want string }{
		{"http://example.com" + from, from},
		{"http://evil.example/practice/q/x", ""},
		{"http://example.com/lab?preset=happy-path", ""},
		{"", ""},
	} {
		r := webtest.NewVisitor(t, h).Post("/practice/q/"+q.ID, url.Values{"balance": {"x"}, "verdict": {"ok"}}, "Referer", tc.referer)
		if r.Status != 400 || !strings.Contains(r.Body, `href="/practice">Practice overview</a>`) {
			t.Errorf("referer %q: status %d, no way back to the overview\n%s", tc.referer, r.Status, webtest.Excerpt(r.Body))
		}
		back := `href="` + html.EscapeString(tc.want) + `" id="error-back"`
		if got := strings.Contains(r.Body, `id="error-back"`); got != (tc.want != "") || (got && !strings.Contains(r.Body, back)) {
			t.Errorf("referer %q: want a way back to %q\n%s", tc.referer, tc.want, webtest.Excerpt(r.Body))
		}
	}
}

// TestPracticeConcurrentProfiles: two browsers answering at the same time
// each get their own progress, all of it.
func TestPracticeConcurrentProfiles(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	qs := webtest.MustBank(t).Questions()[:12]
	var wg sync.WaitGroup
	profiles := make([]string, 2)
	errs := make(chan string, 2*len(qs))
	for i := range profiles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := webtest.NewVisitor(t, h)
			for _, q := range qs {
				form := url.Values{}
				switch q.Kind {
				case practice.KindChoice:
					form["option"] = q.Correct()
				case practice.KindPredict:
					form.Set("balance", "0")
					form.Set("verdict", "ok")
				case practice.KindCode:
					form.Set("code", webtest.NotCompiling) // wrong, and a try
				}
				if r := v.Post("/practice/q/"+q.ID, form); r.Status != http.StatusSeeOther {
					errs <- fmt.Sprintf("browser %d, %s: status %d", i, q.ID, r.Status)
				}
			}
			profiles[i] = v.Profile()
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if profiles[0] == profiles[1] || !practice.ValidProfileID(profiles[0]) || !practice.ValidProfileID(profiles[1]) {
		t.Fatalf("profiles %q: want two different ones", profiles)
	}
	want := fmt.Sprintf(`id="overall" data-answered="%d"`, int(float64(len(qs))*100/float64(len(webtest.MustBank(t).Questions()))+0.5))
	for _, p := range profiles {
		v := webtest.NewVisitor(t, h)
		v.Cookies[page.ProfileCookie] = &http.Cookie{Name: page.ProfileCookie, Value: p}
		if r := v.Get("/practice"); !strings.Contains(r.Body, want) {
			t.Errorf("profile %s: the overall bar lacks %s\n%s", p, want, webtest.Excerpt(r.Body))
		}
	}
}

// TestInterviewTimer: an interview run shows when it ends, without a
// script, on its list and on its items; practice.js counts down from
// data-ends. A run opened from a shared address starts its clock on demand.
func TestInterviewTimer(t *testing.T) {
	h, clock := webtest.PracticeServer(t) // 10:00 UTC
	v := webtest.NewVisitor(t, h)
	loc := v.Get("/practice/interview").Header.Get("Location")
	list := v.Get(loc)
	end := clock.Now().Add(15 * time.Minute)
	want := `<time datetime="` + end.Format(time.RFC3339) + `" id="deadline">Ends at 10:15 UTC</time>`
	if !strings.Contains(list.Body, want) || !strings.Contains(list.Body, `data-ends="`+strconv.FormatInt(end.UnixMilli(), 10)+`"`) {
		t.Errorf("the run does not show its deadline\n%s", webtest.Excerpt(list.Body))
	}
	if !strings.Contains(list.Body, `src="/static/practice.`) || strings.Contains(list.Body, "<script>") {
		t.Error("the countdown should come from practice.js, with no inline script")
	}
	if ru := webtest.NewVisitor(t, h).Get(loc + "&lang=ru"); !strings.Contains(ru.Body, "Закончится в 10:15 UTC") {
		t.Error("no Russian deadline")
	}
	// The items of the run carry its start and show the same deadline.
	item := regexp.MustCompile(`href="(/practice/q/[^"]+started=\d+)"`).FindStringSubmatch(list.Body)
	if item == nil {
		t.Fatalf("the run's items do not carry its start\n%s", webtest.Excerpt(list.Body))
	}
	if page := v.Get(html.UnescapeString(item[1])); !strings.Contains(page.Body, "Ends at 10:15 UTC") {
		t.Errorf("the item does not show the run's deadline\n%s", webtest.Excerpt(page.Body))
	}
	clock.Advance(16 * time.Minute)
	if r := v.Get(loc); !strings.Contains(r.Body, "Time is up: the run ended at 10:15 UTC") {
		t.Errorf("past the deadline\n%s", webtest.Excerpt(r.Body))
	}
	// A shared address has no start: the reader starts the clock.
	shared := v.Get("/practice/interview?seed=7")
	if !strings.Contains(shared.Body, `href="/practice/interview?seed=7&amp;start=now" id="start-clock"`) {
		t.Errorf("a shared run offers no way to start its clock\n%s", webtest.Excerpt(shared.Body))
	}
	r := v.Get("/practice/interview?seed=7&start=now")
	if got := r.Header.Get("Location"); r.Status != http.StatusFound || got != "/practice/interview?seed=7&started="+strconv.FormatInt(clock.Now().Unix(), 10) {
		t.Errorf("starting the clock: %d %q", r.Status, got)
	}
	if r := v.Get("/practice/interview?seed=7&started=soon"); r.Status != http.StatusBadRequest || !strings.Contains(r.Body, `started=&#34;soon&#34; is not the start of a run`) {
		t.Errorf("a bad start: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
}

// TestInterviewSaysThisRun: the items of an interview run answered in the
// run say "in this run", with the score the run counts (#28, item 8); an
// item answered before the run began still says "last time".
func TestInterviewSaysThisRun(t *testing.T) {
	h, clock := webtest.PracticeServer(t)
	bank := webtest.MustBank(t)
	const seed = 7
	run := bank.Interview(seed, 0)
	v := webtest.NewVisitor(t, h)
	s := strconv.FormatUint(seed, 10)
	// Before the run: the first item, answered right.
	v.Answer(run[0].ID, webtest.AnswerFor(t, run[0], true).With("seed", s))
	clock.Advance(time.Minute)
	started := strconv.FormatInt(clock.Now().Unix(), 10)
	loc := "/practice/interview?seed=" + s + "&started=" + started
	inRun := func(q practice.Question, right bool) url.Values {
		f := webtest.AnswerFor(t, q, right).With("seed", s)
		f.Set("started", started)
		return f
	}
	// In the run: the second item missed, then retried right (the run
	// counts the first try, and so does its label), the third right.
	clock.Advance(time.Minute)
	v.Answer(run[1].ID, inRun(run[1], false))
	clock.Advance(time.Minute)
	v.Answer(run[1].ID, inRun(run[1], true))
	v.Answer(run[2].ID, inRun(run[2], true))
	for _, tc := range []struct {
		lang          string
		before        string
		missed, right string
	}{
		{"en", "Right last time (100%)", "Missed in this run (0%)", "Right in this run (100%)"},
		{"ru", "В прошлый раз верно (100%)", "В этом прогоне с ошибкой (0%)", "В этом прогоне верно (100%)"},
	} {
		body := html.UnescapeString(v.Get(loc + "&lang=" + tc.lang).Body)
		items := strings.Split(body, `class="pr-item `)[1:]
		if len(items) != len(run) {
			t.Fatalf("%s: %d items, want %d", tc.lang, len(items), len(run))
		}
		for i, want := range []string{tc.before, tc.missed, tc.right} {
			if !strings.Contains(items[i], want) {
				t.Errorf("%s: item %d lacks %q:\n%s", tc.lang, i+1, want, webtest.Excerpt(items[i]))
			}
		}
		if strings.Contains(body, "Missed last time") || strings.Contains(body, "В прошлый раз с ошибкой") {
			t.Errorf("%s: an item answered in the run says last time", tc.lang)
		}
	}
}
