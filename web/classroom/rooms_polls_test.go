package classroom_test

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/webtest"
)

// askChoice opens a multiple-choice poll in a room and returns its id.
func askChoice(t *testing.T, h http.Handler, hub *room.Hub, code, cookie string, form url.Values) string {
	t.Helper()
	form.Set("kind", "choice")
	r := webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/poll", form, "Cookie", cookie)
	if r.Status != http.StatusSeeOther {
		t.Fatalf("ask %v: status %d\n%s", form, r.Status, webtest.Excerpt(r.Body))
	}
	st, _ := hub.State(code, true)
	return strconv.Itoa(st.Poll.ID)
}

// TestVerdictPoll: the instructor asks for naive's verdict after step 4
// of crash-before-ack; a student picks one of the engine's verdicts by
// its radio button; the verdicts stay hidden until the step reveals the
// poll, and then the right answer (the engine's, DUPLICATE) is marked.
func TestVerdictPoll(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"3"}})
	base := "/rooms/" + code
	if p := webtest.Get(t, h, base+"/present", "Cookie", cookie); !strings.Contains(p.Body, `id="poll-kind"`) || !strings.Contains(p.Body, `<option value="verdict">verdict</option>`) {
		t.Fatal("the instructor's poll form offers no verdict poll")
	}
	r := webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"kind": {"verdict"}, "handler": {"naive"}}, "Cookie", cookie)
	if r.Status != http.StatusSeeOther {
		t.Fatalf("open: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	st, _ := hub.State(code, true)
	p := st.Poll
	if p.Kind != room.KindVerdict || p.Step != 4 || strings.Join(p.Options, ",") != "ok,duplicate,lost,poison,silent-conflict" || p.Answer == nil || *p.Answer != 1 {
		t.Fatalf("poll %+v: want the engine's verdicts, the answer duplicate (1)", p)
	}
	if s, _ := hub.State(code, false); s.Poll.Answer != nil {
		t.Fatal("the students' state carries the answer before the reveal")
	}
	id := strconv.Itoa(p.ID)
	student := webtest.IssuedStudent(t, h, code)
	page := webtest.Get(t, h, base, "Cookie", student)
	for _, want := range []string{"What will naive&#39;s verdict be after step 4?", `name="choice" value="1" id="vote-choice-1"`,
		`<span>OK</span>`, `<span>DUPLICATE</span>`, `<span>SILENT CONFLICT</span>`, `data-verdict="hidden"`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("student page lacks %q", want)
		}
	}
	if ru := webtest.Get(t, h, base+"?lang=ru", "Cookie", student); !strings.Contains(ru.Body, "<span>ДУБЛЬ</span>") || !strings.Contains(ru.Body, "Какой вердикт получит naive после шага 4?") {
		t.Error("the Russian page does not name the verdicts in Russian")
	}
	r = webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {id}, "choice": {"2"}}, "Cookie", student)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != base {
		t.Fatalf("vote: %d to %q\n%s", r.Status, r.Header.Get("Location"), webtest.Excerpt(r.Body))
	}
	ck, err := http.ParseSetCookie(r.Header.Get("Set-Cookie"))
	if err != nil || ck.Value != id+":1" {
		t.Fatalf("vote cookie %q", r.Header.Get("Set-Cookie"))
	}
	mine := student + "; " + classroom.VoteCookie + "=" + ck.Value
	before := webtest.Get(t, h, base, "Cookie", mine)
	for _, bad := range []string{"poll-chart", `data-verdict="duplicate"`, "verdict-duplicate", `id="poll-actual"`} {
		if strings.Contains(before.Body, bad) {
			t.Errorf("before the reveal the student's page has %q", bad)
		}
	}
	if !strings.Contains(before.Body, `value="2" id="vote-choice-2" checked`) || !strings.Contains(before.Body, "Your answer: DUPLICATE") {
		t.Error("the student's answer is not shown checked")
	}
	if teacher := webtest.Get(t, h, base+"/present", "Cookie", cookie); !strings.Contains(teacher.Body, `<span class="poll-label">DUPLICATE</span>`) || strings.Contains(teacher.Body, `id="poll-actual"`) {
		t.Error("the instructor sees no tally, or the answer before the reveal")
	}

	webtest.Request(t, h, http.MethodPost, base+"/step", url.Values{"step": {"4"}}, "Cookie", cookie)
	after := webtest.Get(t, h, base, "Cookie", mine)
	for _, want := range []string{"naive&#39;s verdict after this step: DUPLICATE", `<li class="poll-row actual mine"><span class="poll-label">DUPLICATE</span>`,
		"You said DUPLICATE: right!", `data-verdict="duplicate"`} {
		if !strings.Contains(after.Body, want) {
			t.Errorf("after the reveal the student's page lacks %q", want)
		}
	}
	if strings.Contains(after.Body, `id="vote-choice-1"`) {
		t.Error("the vote form stays after the reveal")
	}
	webtest.NoMissingKeys(t, base, after.Body)
}

// TestChoicePoll: the instructor's own question, with the right answer
// marked; the room stays on its step, the instructor reveals it, and the
// student who chose wrong is told the right answer.
func TestChoicePoll(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	base := "/rooms/" + code
	if p := webtest.Get(t, h, base+"/present", "Cookie", cookie); !strings.Contains(p.Body, `id="poll-own"`) || !strings.Contains(p.Body, `id="poll-option-6"`) {
		t.Fatal("the instructor's page has no form for an own question with six answers")
	}
	id := askChoice(t, h, hub, code, cookie, url.Values{"question": {"  What makes a consumer idempotent?  "},
		"option": {"A retry", "An inbox of handled ids", "A faster broker", "", ""}, "correct": {"2"}})
	st, _ := hub.State(code, true)
	if p := st.Poll; p.Question != "What makes a consumer idempotent?" || len(p.Options) != 3 || *p.Answer != 1 || p.Step != 0 {
		t.Fatalf("poll %+v", p)
	}
	student := webtest.IssuedStudent(t, h, code)
	page := webtest.Get(t, h, base, "Cookie", student)
	for _, want := range []string{`<p class="poll-q" data-kind="choice">What makes a consumer idempotent?`, `<span>An inbox of handled ids</span>`, `id="vote-choice-3"`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("student page lacks %q", want)
		}
	}
	if strings.Contains(page.Body, `id="vote-choice-4"`) {
		t.Error("an empty answer field became an option")
	}
	r := webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {id}, "choice": {"1"}}, "Cookie", student)
	if r.Status != http.StatusSeeOther {
		t.Fatalf("vote: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	// A step does not reveal a question about no step.
	webtest.Request(t, h, http.MethodPost, base+"/step", url.Values{"step": {"1"}}, "Cookie", cookie)
	if st, _ := hub.State(code, false); st.Poll.Revealed {
		t.Fatal("a step revealed a choice question")
	}
	teacher := webtest.Get(t, h, base+"/present", "Cookie", cookie)
	if !strings.Contains(teacher.Body, `name="reveal" value="1" class="btn" id="reveal-poll"`) || strings.Contains(teacher.Body, `id="poll-own"`) {
		t.Error("while a question is open the instructor has no reveal button, or may ask another")
	}
	r = webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"reveal": {"1"}}, "Cookie", cookie)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != base+"/present" {
		t.Fatalf("reveal: %d to %q", r.Status, r.Header.Get("Location"))
	}
	after := webtest.Get(t, h, base, "Cookie", student+"; "+classroom.VoteCookie+"="+id+":0")
	for _, want := range []string{"The right answer: An inbox of handled ids", "You said A retry; it was An inbox of handled ids.",
		`<li class="poll-row mine"><span class="poll-label">A retry</span>`, `<li class="poll-row actual"><span class="poll-label">An inbox of handled ids</span>`} {
		if !strings.Contains(after.Body, want) {
			t.Errorf("after the reveal the student's page lacks %q", want)
		}
	}
	if r := webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {id}, "choice": {"2"}}, "Cookie", student); r.Status != http.StatusConflict {
		t.Errorf("a vote after the reveal: %d, want 409", r.Status)
	}
	// A question with no right answer: nobody is right or wrong.
	id = askChoice(t, h, hub, code, cookie, url.Values{"question": {"Tea or coffee?"}, "option": {"tea", "coffee"}, "correct": {"none"}})
	webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {id}, "choice": {"2"}}, "Cookie", student)
	webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"reveal": {"1"}}, "Cookie", cookie)
	none := webtest.Get(t, h, base, "Cookie", student+"; "+classroom.VoteCookie+"="+id+":1")
	if strings.Contains(none.Body, `id="poll-actual"`) || strings.Contains(none.Body, `id="poll-result"`) || !strings.Contains(none.Body, `<li class="poll-row mine"><span class="poll-label">coffee</span>`) {
		t.Error("an opinion poll marks a right answer, or hides the student's")
	}
}

// TestPollEscapesQuestion: typed text shows as typed, never as markup,
// on the instructor's page, a student's page and in an error message.
func TestPollEscapesQuestion(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	base := "/rooms/" + code
	askChoice(t, h, hub, code, cookie, url.Values{"question": {"<script>alert(1)</script>"}, "option": {`<img src=x onerror=alert(2)>`, `"quoted" & 'single'`}})
	for name, r := range map[string]webtest.Response{
		"instructor": webtest.Get(t, h, base+"/present", "Cookie", cookie),
		"student":    webtest.Get(t, h, base, "Cookie", webtest.IssuedStudent(t, h, code)),
	} {
		if strings.Contains(r.Body, "<script>alert(1)") || strings.Contains(r.Body, "<img src=x") {
			t.Errorf("the %s page runs the typed text", name)
		}
		for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;"} {
			if !strings.Contains(r.Body, want) {
				t.Errorf("the %s page does not show the question as typed (%q)", name, want)
			}
		}
	}
	if s := webtest.Get(t, h, base, "Cookie", webtest.IssuedStudent(t, h, code)); !strings.Contains(s.Body, "&lt;img src=x onerror=alert(2)&gt;") || !strings.Contains(s.Body, "&#34;quoted&#34; &amp; &#39;single&#39;") {
		t.Error("the answers are not shown as typed")
	}
	st, _ := hub.State(code, false)
	r := webtest.Request(t, h, http.MethodPost, base+"/vote", url.Values{"poll": {strconv.Itoa(st.Poll.ID)}, "choice": {"9"}}, "Cookie", webtest.IssuedStudent(t, h, code))
	if r.Status != 422 || strings.Contains(r.Body, "<img src=x") || !strings.Contains(r.Body, "1. &lt;img src=x onerror=alert(2)&gt;; 2. &#34;quoted&#34;") {
		t.Errorf("a bad vote's message: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
}

// TestPollErrors: every way to ask or answer wrongly gets a page that
// says what is valid.
func TestPollErrors(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"3"}})
	base := "/rooms/" + code
	student := webtest.IssuedStudent(t, h, code)
	long := func(n int) string { return strings.Repeat("ы", n) }
	choice := func(q string, opts ...string) url.Values {
		return url.Values{"kind": {"choice"}, "question": {q}, "option": opts}
	}
	withCorrect := func(v url.Values, c string) url.Values { v.Set("correct", c); return v }
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"bad kind", url.Values{"kind": {"essay"}, "handler": {"naive"}}, 400, "kind=essay is not a kind of poll. Choose one of: balance, verdict, choice."},
		{"verdict about a handler not shown", url.Values{"kind": {"verdict"}, "handler": {"unique"}}, 400, "There is no handler &#34;unique&#34; in this room"},
		{"no question", choice("", "a", "b"), 422, "The question is empty"},
		{"overlong question", choice(long(room.MaxQuestion+1), "a", "b"), 422, "The question is longer than 200 characters"},
		{"one answer", choice("q", "a"), 422, "at least 2 answers"},
		{"too many answers", choice("q", "a", "b", "c", "d", "e", "f", "g"), 422, "at most 6 answers"},
		{"empty answer", choice("q", "a", " ", "c"), 422, "Answer 2 is empty"},
		{"overlong answer", choice("q", "a", long(room.MaxOption+1)), 422, "Answer 2 is longer than 80 characters"},
		{"right answer past the answers", withCorrect(choice("q", "a", "b"), "3"), 422, "correct=3 is not one of the answers: mark one from 1 to 2, or none."},
		{"right answer not a number", withCorrect(choice("q", "a", "b"), "first"), 422, "correct=first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Request(t, h, http.MethodPost, base+"/poll", tc.form, "Cookie", cookie)
			if r.Status != tc.status || !strings.Contains(r.Body, tc.want) {
				t.Errorf("status %d, want %d with %q\n%s", r.Status, tc.status, tc.want, webtest.Excerpt(r.Body))
			}
			webtest.NoMissingKeys(t, base, r.Body)
			if st, _ := hub.State(code, true); st.Poll != nil {
				t.Error("a refused question opened a poll")
			}
		})
	}
	if r := webtest.Request(t, h, http.MethodPost, base+"/poll", choice("q", "a", "b"), "Cookie", student); r.Status != http.StatusForbidden {
		t.Errorf("a student asks: %d, want 403", r.Status)
	}
	if r := webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"reveal": {"1"}}, "Cookie", cookie); r.Status != http.StatusConflict {
		t.Errorf("reveal without a poll: %d, want 409", r.Status)
	}

	webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"kind": {"verdict"}, "handler": {"naive"}}, "Cookie", cookie)
	st, _ := hub.State(code, true)
	id := strconv.Itoa(st.Poll.ID)
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"an option that is not there", url.Values{"poll": {id}, "choice": {"6"}}, 422,
			"choice=6 is not an answer to this question. Choose one of: 1. OK; 2. DUPLICATE; 3. LOST; 4. POISON; 5. SILENT CONFLICT."},
		{"option zero", url.Values{"poll": {id}, "choice": {"0"}}, 422, "choice=0 is not an answer"},
		{"no option", url.Values{"poll": {id}}, 400, "choice= is not an answer"},
		{"an option by name", url.Values{"poll": {id}, "choice": {"duplicate"}}, 400, "choice=duplicate is not an answer"},
		{"a balance", url.Values{"poll": {id}, "balance": {"200"}}, 400, "1. OK; 2. DUPLICATE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := webtest.Request(t, h, http.MethodPost, base+"/vote", tc.form, "Cookie", student)
			if r.Status != tc.status || !strings.Contains(r.Body, tc.want) {
				t.Errorf("status %d, want %d with %q\n%s", r.Status, tc.status, tc.want, webtest.Excerpt(r.Body))
			}
		})
	}
	if ru := webtest.Request(t, h, http.MethodPost, base+"/vote?lang=ru", url.Values{"poll": {id}, "choice": {"9"}}, "Cookie", student); !strings.Contains(ru.Body, "2. ДУБЛЬ") {
		t.Error("the valid choices are not named in Russian")
	}
	if st, _ := hub.State(code, true); st.Poll.Votes != 0 {
		t.Errorf("bad votes were counted: %d", st.Poll.Votes)
	}
}

// readResults fetches a room's results and parses them back.
func readResults(t *testing.T, h http.Handler, code, cookie, lang string) (webtest.Response, [][]string) {
	t.Helper()
	r := webtest.Get(t, h, "/rooms/"+code+"/results.csv?lang="+lang, "Cookie", cookie)
	if r.Status != http.StatusOK {
		t.Fatalf("results: status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	cr := csv.NewReader(strings.NewReader(r.Body))
	cr.FieldsPerRecord = -1 // two tables of different widths
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("the results do not parse as CSV: %v\n%s", err, r.Body)
	}
	return r, rows
}

// TestResultsCSV: the instructor's export of a room's polls: headers in
// the page's language, one row per poll and answer, the students under
// pseudonyms, typed text that cannot run as a formula; a student gets a
// 403 and a room with no polls the header alone.
func TestResultsCSV(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{})
	code, cookie := webtest.OpenRoom(t, h, url.Values{"preset": {"crash-before-ack"}, "handlers": {"naive,inbox"}, "step": {"3"}})
	base := "/rooms/" + code

	r, rows := readResults(t, h, code, cookie, "en")
	if got := r.Header.Get("Content-Type"); got != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if got := r.Header.Get("Content-Disposition"); got != `attachment; filename="room-`+code+`-results.csv"` {
		t.Errorf("Content-Disposition %q", got)
	}
	header := "poll,status,step,kind,handler,question,answer,votes,correct"
	if len(rows) != 1 || strings.Join(rows[0], ",") != header {
		t.Fatalf("a room with no polls: %q, want the header alone", rows)
	}
	if p := webtest.Get(t, h, base+"/present?lang=ru", "Cookie", cookie); !strings.Contains(p.Body, `href="/rooms/`+code+`/results.csv?lang=ru"`) || !strings.Contains(p.Body, "Выгрузить результаты (CSV)") {
		t.Error("the Russian instructor page has no export link in Russian")
	}
	if s := webtest.Get(t, h, base, "Cookie", webtest.IssuedStudent(t, h, code)); !strings.Contains(s.Body, `data-role="student"`) || strings.Contains(s.Body, "results.csv") {
		t.Error("a student's page links to the results")
	}

	students := []string{webtest.IssuedStudent(t, h, code), webtest.IssuedStudent(t, h, code), webtest.IssuedStudent(t, h, code)}
	vote := func(i int, form url.Values) {
		st, _ := hub.State(code, false)
		form.Set("poll", strconv.Itoa(st.Poll.ID))
		if r := webtest.Request(t, h, http.MethodPost, base+"/vote", form, "Cookie", students[i]); r.Status != http.StatusSeeOther {
			t.Fatalf("vote %v: %d\n%s", form, r.Status, webtest.Excerpt(r.Body))
		}
	}
	// Poll 1: naive's balance after step 4 (200.00), revealed by the step.
	webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"handler": {"naive"}}, "Cookie", cookie)
	vote(0, url.Values{"balance": {"200"}})
	vote(1, url.Values{"balance": {"100"}})
	webtest.Request(t, h, http.MethodPost, base+"/step", url.Values{"step": {"4"}}, "Cookie", cookie)
	// Poll 2: a typed question that looks like a formula, revealed.
	askChoice(t, h, hub, code, cookie, url.Values{"question": {"=HYPERLINK(\"http://evil\")"}, "option": {"+1", "@SUM(A1)", "-2", "plain"}, "correct": {"4"}})
	vote(2, url.Values{"choice": {"4"}})
	vote(0, url.Values{"choice": {"1"}})
	webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"reveal": {"1"}}, "Cookie", cookie)
	// Poll 3: a verdict poll about inbox, still open: step back first.
	webtest.Request(t, h, http.MethodPost, base+"/step", url.Values{"step": {"2"}}, "Cookie", cookie)
	webtest.Request(t, h, http.MethodPost, base+"/poll", url.Values{"kind": {"verdict"}, "handler": {"inbox"}}, "Cookie", cookie)
	vote(1, url.Values{"choice": {"1"}})

	_, rows = readResults(t, h, code, cookie, "en")
	want := []string{
		header,
		"1,revealed,4,balance,naive,What will naive's balance be after step 4?,100.00,1,no",
		"1,revealed,4,balance,naive,What will naive's balance be after step 4?,200.00,1,yes",
		`2,revealed,4,choice,,'=HYPERLINK("http://evil"),'+1,1,no`,
		"2,revealed,4,choice,,'=HYPERLINK(\"http://evil\"),'@SUM(A1),0,no",
		"2,revealed,4,choice,,'=HYPERLINK(\"http://evil\"),'-2,0,no",
		"2,revealed,4,choice,,'=HYPERLINK(\"http://evil\"),plain,1,yes",
		"3,open,3,verdict,inbox,What will inbox's verdict be after step 3?,OK,1,yes",
		"3,open,3,verdict,inbox,What will inbox's verdict be after step 3?,DUPLICATE,0,no",
		"3,open,3,verdict,inbox,What will inbox's verdict be after step 3?,LOST,0,no",
		"3,open,3,verdict,inbox,What will inbox's verdict be after step 3?,POISON,0,no",
		"3,open,3,verdict,inbox,What will inbox's verdict be after step 3?,SILENT CONFLICT,0,no",
		"student,poll,answer given,correct",
	}
	var got []string
	for _, row := range rows {
		got = append(got, strings.Join(row, ","))
	}
	if len(got) < len(want) {
		t.Fatalf("%d rows, want at least %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("row %d = %q\nwant     %q", i, got[i], w)
		}
	}
	// The students' answers: five, each student under a pseudonym, no id.
	answers := got[len(want):]
	if len(answers) != 5 {
		t.Fatalf("student rows %q, want 5", answers)
	}
	byStudent := map[string][]string{}
	for _, a := range answers {
		f := strings.SplitN(a, ",", 2)
		byStudent[f[0]] = append(byStudent[f[0]], f[1])
	}
	if len(byStudent) != 3 {
		t.Errorf("students %v, want S1, S2, S3", byStudent)
	}
	for _, s := range []string{"S1", "S2", "S3"} {
		if len(byStudent[s]) == 0 {
			t.Errorf("no rows for %s: %v", s, byStudent)
		}
	}
	for _, s := range students {
		id, _, _ := strings.Cut(strings.TrimPrefix(s, classroom.StudentCookie+"="), ".")
		if strings.Contains(strings.Join(got, "\n"), id) {
			t.Error("the results name a student by their id")
		}
	}
	for _, a := range []string{"1,200.00,yes", "1,100.00,no", "2,plain,yes", "2,'+1,no", "3,OK,yes"} {
		found := false
		for _, rows := range byStudent {
			for _, r := range rows {
				found = found || r == a
			}
		}
		if !found {
			t.Errorf("no student row %q in %q", a, answers)
		}
	}

	// In Russian, the headers and words are Russian.
	_, ru := readResults(t, h, code, cookie, "ru")
	if strings.Join(ru[0], ",") != "опрос,статус,шаг,вид,обработчик,вопрос,ответ,голосов,верно" || ru[1][1] != "показан" || ru[1][8] != "нет" ||
		!strings.HasPrefix(ru[1][5], "Каким будет баланс naive") {
		t.Errorf("Russian results: %q, %q", ru[0], ru[1])
	}

	// A student, a stranger, an unknown room.
	for name, c := range map[string]string{"a student": students[0], "no cookie": "", "another room's secret": classroom.SecretCookie + "=0123456789abcdef0123456789abcdef"} {
		r := webtest.Get(t, h, base+"/results.csv", "Cookie", c)
		if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "Only the instructor can export the results") || strings.Contains(r.Body, "poll,status") {
			t.Errorf("%s: status %d\n%s", name, r.Status, webtest.Excerpt(r.Body))
		}
	}
	if r := webtest.Get(t, h, "/rooms/ZZZZZZ/results.csv", "Cookie", cookie); r.Status != http.StatusNotFound {
		t.Errorf("an unknown room: %d, want 404", r.Status)
	}
}

// TestResultsCSVKeepsTheLastPolls: a room keeps its newest polls; the
// file says how many older ones it left out.
func TestResultsCSVKeepsTheLastPolls(t *testing.T) {
	h, hub := webtest.NewRoomServer(t, room.Config{MaxHistory: 2})
	code, cookie := webtest.OpenRoom(t, h, webtest.CrashBeforeAck())
	for i := 1; i <= 4; i++ {
		askChoice(t, h, hub, code, cookie, url.Values{"question": {"q" + strconv.Itoa(i)}, "option": {"a", "b"}})
		webtest.Request(t, h, http.MethodPost, "/rooms/"+code+"/poll", url.Values{"reveal": {"1"}}, "Cookie", cookie)
	}
	_, rows := readResults(t, h, code, cookie, "en")
	var polls []string
	for _, r := range rows[1:] {
		if len(r) == 9 && (len(polls) == 0 || polls[len(polls)-1] != r[0]) {
			polls = append(polls, r[0])
		}
	}
	if strings.Join(polls, ",") != "3,4" {
		t.Errorf("polls in the file %v, want 3 and 4", polls)
	}
	if last := rows[len(rows)-1]; len(last) != 1 || !strings.Contains(last[0], "the 2 oldest polls of this room are not in this file") {
		t.Errorf("last row %q, want the note", last)
	}
}
