package playground_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/practice"
)

// stepTo posts one step form on top of the lab address loc (a path with
// its query) and returns the Location it redirects to.
func (v *visitor) stepTo(loc string, step url.Values) string {
	v.tb.Helper()
	u, err := url.Parse(loc)
	if err != nil {
		v.tb.Fatal(err)
	}
	form := u.Query()
	for k, vs := range step {
		form[k] = vs
	}
	r := v.post("/lab/step", form)
	if r.status != http.StatusSeeOther {
		v.tb.Fatalf("POST /lab/step %v: status %d\n%s", form, r.status, excerpt(r.body))
	}
	return r.header.Get("Location")
}

// TestChallengeSolvedWithTheControls: a person opens a challenge, builds
// the solution with two step forms, and the list then shows it solved,
// with a link to the solution; the banner says solved all along.
func TestChallengeSolvedWithTheControls(t *testing.T) {
	h, _ := practiceServer(t)
	v := newVisitor(t, h)
	r := v.get("/challenges/naive-twice")
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/lab?challenge=naive-twice" {
		t.Fatalf("short address: %d %q", r.status, r.header.Get("Location"))
	}
	page := v.get("/lab?challenge=naive-twice")
	if page.status != 200 || !strings.Contains(page.body, `data-status="open"`) || !strings.Contains(page.body, "Make naive credit the same top-up twice") {
		t.Fatalf("the challenge's lab page:\n%s", excerpt(page.body))
	}
	// The challenge's handlers are the cards.
	if got := cardNames(page.body); strings.Join(got, ",") != "naive,unique" {
		t.Errorf("cards %v, want naive,unique", got)
	}
	loc := v.stepTo("/lab?challenge=naive-twice", url.Values{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"10000"}})
	if !strings.Contains(loc, "challenge=naive-twice") {
		t.Fatalf("the challenge is lost after a step: %q", loc)
	}
	if v.profile() != "" {
		t.Error("a profile was minted before anything was solved")
	}
	loc = v.stepTo(loc, url.Values{"verb": {"deliver"}, "crash": {"before-ack"}})
	page = v.get(loc)
	if !strings.Contains(page.body, `data-status="solved"`) || !strings.Contains(page.body, "Solved in 2 steps") {
		t.Fatalf("after the solution, the banner:\n%s", excerpt(page.body))
	}
	if v.profile() == "" {
		t.Fatal("solving with the controls minted no profile")
	}
	list := v.get("/challenges")
	if !strings.Contains(list.body, `id="ch-naive-twice" data-challenge="naive-twice" data-solved="true"`) {
		t.Errorf("the list does not show naive-twice solved:\n%s", excerpt(list.body))
	}
	if !strings.Contains(list.body, fmt.Sprintf("1 of %d solved", len(practice.Challenges()))) || !strings.Contains(list.body, "Your solution (2 steps)") {
		t.Errorf("the list's count or solution link:\n%s", excerpt(list.body))
	}
	// A third step goes past the limit: reached, but too long.
	loc = v.stepTo(loc, url.Values{"verb": {"advance"}, "duration": {"1h"}})
	page = v.get(loc)
	if !strings.Contains(page.body, `data-status="toolong"`) || !strings.Contains(page.body, "in 3 steps; this challenge allows 2") {
		t.Errorf("past the limit, the banner:\n%s", excerpt(page.body))
	}
	// The export carries the solve.
	exp := v.get("/practice/export")
	if !strings.Contains(exp.body, `"challenge": "naive-twice"`) {
		t.Errorf("the export lacks the solve:\n%s", exp.body)
	}
}

func cardNames(body string) []string {
	var names []string
	for _, part := range strings.Split(body, `<article class="card `)[1:] {
		if i := strings.Index(part, `data-handler="`); i >= 0 {
			rest := part[i+len(`data-handler="`):]
			names = append(names, rest[:strings.IndexByte(rest, '"')])
		}
	}
	return names
}

// TestChallengeBanner: the banner's verdict for scripts given in the
// address, in both languages.
func TestChallengeBanner(t *testing.T) {
	h := newTestServer(t)
	pub := "publish pay-1 amount=10000\n"
	for _, tc := range []struct {
		name, challenge, script, status, en, ru string
	}{
		{"nothing yet", "setnx-loses", "", "open", "Steps: 0 of at most 4", "Шагов: 0, можно не больше 4"},
		{"solved", "setnx-loses", pub + "deliver crash=before-effect\n", "solved", "Solved in 2 steps", "Решено за 2 шагов"},
		// The engine reports a duplicate, but a crash did it, which this
		// challenge forbids.
		{"a crash where none is allowed", "setnx-gateway-twice", pub + "gateway timeout\ndeliver crash=before-ack\n", "crashed", "without crashing any worker", "без падений"},
		{"too long", "naive-twice", pub + "deliver crash=before-ack\nredeliver\n", "toolong", "this challenge allows 2", "можно не больше 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for lang, want := range map[string]string{"en": tc.en, "ru": tc.ru} {
				target := "/lab?challenge=" + tc.challenge + "&lang=" + lang
				if tc.script != "" {
					target += "&s=" + link.Pack(tc.script)
				}
				r := get(t, h, target)
				if r.status != 200 {
					t.Fatalf("%s: status %d\n%s", lang, r.status, excerpt(r.body))
				}
				if !strings.Contains(r.body, `data-status="`+tc.status+`"`) || !strings.Contains(html.UnescapeString(r.body), want) {
					t.Errorf("%s: want status %s and %q\n%s", lang, tc.status, want, excerpt(r.body))
				}
			}
		})
	}
	// A handlers= list without the challenge's handler still shows it.
	r := get(t, h, "/lab?challenge=inbox-quarantine&handlers=naive")
	if got := cardNames(r.body); strings.Join(got, ",") != "inbox,naive" {
		t.Errorf("cards %v, want inbox first", got)
	}
}

func TestChallengeErrors(t *testing.T) {
	h, _ := practiceServer(t)
	v := newVisitor(t, h)
	pub := "publish pay-1 amount=10000\n"
	for _, tc := range []struct {
		name, method, target string
		form                 url.Values
		status               int
		want                 string
	}{
		{"unknown challenge in the lab", "GET", "/lab?challenge=win", nil, 400, `There is no challenge "win". Valid challenges: naive-twice,`},
		{"unknown challenge's address", "GET", "/challenges/win", nil, 404, `There is no challenge "win"`},
		{"save an unknown challenge", "POST", "/challenges/win/solve", url.Values{"s": {link.Pack(pub)}}, 404, "Valid challenges"},
		{"save a script that does not solve it", "POST", "/challenges/naive-twice/solve", url.Values{"s": {link.Pack(pub + "deliver\n")}}, 422, "does not solve naive-twice in at most 2 steps"},
		{"save a broken permalink", "POST", "/challenges/naive-twice/solve", url.Values{"s": {"!!!"}}, 400, "permalink"},
		{"save a script that does not parse", "POST", "/challenges/naive-twice/solve", url.Values{"s": {link.Pack("fly\n")}}, 400, "fly"},
		{"save nothing", "POST", "/challenges/naive-twice/solve", url.Values{}, 400, "permalink could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r response
			if tc.method == "GET" {
				r = v.get(tc.target)
			} else {
				r = v.post(tc.target, tc.form)
			}
			if r.status != tc.status || !strings.Contains(html.UnescapeString(r.body), tc.want) {
				t.Errorf("status %d, want %d with %q\n%s", r.status, tc.status, tc.want, excerpt(r.body))
			}
		})
	}
	if got := v.get("/challenges"); !strings.Contains(got.body, fmt.Sprintf("0 of %d solved", len(practice.Challenges()))) {
		t.Errorf("refused saves counted:\n%s", excerpt(got.body))
	}
}

// TestChallengeSaveByLink: a solution opened by a link is saved with the
// banner's button, once; saving it again changes nothing.
func TestChallengeSaveByLink(t *testing.T) {
	h, _ := practiceServer(t)
	v := newVisitor(t, h)
	script := "publish pay-1 amount=10000\nretry pay-1\n"
	page := v.get("/lab?challenge=broker-id-is-not-a-key&s=" + link.Pack(script))
	if !strings.Contains(page.body, `id="ch-save"`) {
		t.Fatalf("no save button on a solved challenge:\n%s", excerpt(page.body))
	}
	for range 2 {
		r := v.post("/challenges/broker-id-is-not-a-key/solve", url.Values{"s": {link.Pack(script)}})
		if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/challenges?saved=broker-id-is-not-a-key") {
			t.Fatalf("save: %d %q\n%s", r.status, r.header.Get("Location"), excerpt(r.body))
		}
	}
	list := v.get("/challenges?saved=broker-id-is-not-a-key&lang=ru")
	if !strings.Contains(list.body, "Сохранено в вашем прогрессе: Id брокера — не ключ.") || !strings.Contains(list.body, fmt.Sprintf("Решено 1 из %d", len(practice.Challenges()))) {
		t.Errorf("the list after saving:\n%s", excerpt(list.body))
	}
}

// TestChallengesWithoutProgress: a lab with no progress file still offers
// the challenges and judges them, and says that nothing is saved.
func TestChallengesWithoutProgress(t *testing.T) {
	h := newTestServer(t)
	r := get(t, h, "/challenges")
	if r.status != 200 || !strings.Contains(r.body, `id="ch-nostore"`) {
		t.Fatalf("status %d\n%s", r.status, excerpt(r.body))
	}
	r = request(t, h, http.MethodPost, "/challenges/naive-twice/solve", url.Values{"s": {link.Pack("publish pay-1 amount=1\ndeliver crash=before-ack\n")}})
	if r.status != http.StatusServiceUnavailable {
		t.Errorf("save without a store: status %d", r.status)
	}
}

// TestChallengeTopicsAreLessons: every challenge links to a lesson that
// exists, in both languages.
func TestChallengeTopicsAreLessons(t *testing.T) {
	h := newTestServer(t)
	for _, c := range practice.Challenges() {
		for _, lang := range []string{"en", "ru"} {
			if r := get(t, h, "/lessons/"+c.Topic+"?lang="+lang); r.status != 200 {
				t.Errorf("%s: lesson %s (%s): status %d", c.ID, c.Topic, lang, r.status)
			}
		}
	}
}

// TestChallengeSetupWithTheControls: a challenge with a setup starts from
// its header (the retention the lesson is about), and the step controls
// keep it: publish, deliver, two days later the same payment again.
func TestChallengeSetupWithTheControls(t *testing.T) {
	h, _ := practiceServer(t)
	v := newVisitor(t, h)
	r := v.get("/challenges/retention-too-short")
	loc := r.header.Get("Location")
	if r.status != http.StatusSeeOther || !strings.Contains(loc, "challenge=retention-too-short") || !strings.Contains(loc, "s=") {
		t.Fatalf("short address: %d %q", r.status, loc)
	}
	page := v.get(loc)
	if page.status != 200 || !strings.Contains(page.body, `data-status="open"`) || !strings.Contains(page.body, "after 24 hours") {
		t.Fatalf("the challenge's lab page:\n%s", excerpt(page.body))
	}
	for _, step := range []url.Values{
		{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"10000"}},
		{"verb": {"deliver"}},
		{"verb": {"advance"}, "duration": {"2d"}},
		{"verb": {"retry"}, "target": {"acme pay-1"}},
	} {
		loc = v.stepTo(loc, step)
	}
	// Solved only if the steps kept the setup: without a retention the
	// inbox never forgets a key.
	page = v.get(loc)
	if !strings.Contains(page.body, `data-status="solved"`) || !strings.Contains(page.body, "Solved in 4 steps") {
		t.Fatalf("after the solution, the banner:\n%s", excerpt(page.body))
	}
	if list := v.get("/challenges"); !strings.Contains(list.body, `id="ch-retention-too-short" data-challenge="retention-too-short" data-solved="true"`) {
		t.Errorf("the list does not show it solved:\n%s", excerpt(list.body))
	}
}

// TestChallengeForbiddenStep: the goal reached with a step the challenge
// rules out (its goal's without=) is not solved, and the banner names
// the step, in both languages.
func TestChallengeForbiddenStep(t *testing.T) {
	h := newTestServer(t)
	script := "publish pay-1 amount=10000\ngateway timeout\ndeliver\n"
	for lang, want := range map[string]string{"en": "a step this challenge rules out (gateway)", "ru": "с шагом, который это задание запрещает (gateway)"} {
		r := get(t, h, "/lab?challenge=done-key-expired&lang="+lang+"&s="+link.Pack(script))
		if r.status != 200 || !strings.Contains(r.body, `data-status="forbidden"`) || !strings.Contains(html.UnescapeString(r.body), want) {
			t.Errorf("%s: status %d, want forbidden and %q\n%s", lang, r.status, want, excerpt(r.body))
		}
	}
}

// TestChallengeSavedNotOfferedAgain: a solved challenge offers "Save to my
// progress" only while saving would change something (#28, item 8): not
// once the reader's progress holds a solve as short, and not in a lab
// that keeps no progress (the form would only answer 503).
func TestChallengeSavedNotOfferedAgain(t *testing.T) {
	h, _ := practiceServer(t)
	v := newVisitor(t, h)
	script := "publish pay-1 amount=10000\nretry pay-1\n"
	addr := "/lab?challenge=broker-id-is-not-a-key&s=" + link.Pack(script)
	if page := v.get(addr); !strings.Contains(page.body, `id="ch-save"`) || strings.Contains(page.body, `id="ch-saved"`) {
		t.Fatalf("before saving: want the button and no note:\n%s", excerpt(page.body))
	}
	if r := v.post("/challenges/broker-id-is-not-a-key/solve", url.Values{"s": {link.Pack(script)}}); r.status != http.StatusSeeOther {
		t.Fatalf("save: %d\n%s", r.status, excerpt(r.body))
	}
	for _, tc := range []struct{ lang, want string }{
		{"en", "Already in your progress (a solve in 2 steps)."},
		{"ru", "Уже в вашем прогрессе (решение, шагов: 2)."},
	} {
		// The same address as before saving: the cached page must not
		// be served to a reader whose progress changed.
		page := v.get(addr + "&lang=" + tc.lang)
		if strings.Contains(page.body, `id="ch-save"`) || !strings.Contains(html.UnescapeString(page.body), tc.want) {
			t.Errorf("%s after saving: want no button and %q:\n%s", tc.lang, tc.want, excerpt(page.body))
		}
	}
	// Another reader, with no progress yet, is still offered the button.
	if page := newVisitor(t, h).get(addr); !strings.Contains(page.body, `id="ch-save"`) {
		t.Errorf("a new reader gets no button:\n%s", excerpt(page.body))
	}
	// A lab without a progress file judges the challenge but offers no save.
	// Nor does its message promise that the solve is saved.
	page := get(t, newTestServer(t), addr)
	if !strings.Contains(page.body, `data-status="solved"`) || strings.Contains(page.body, `id="ch-save"`) ||
		!strings.Contains(page.body, "This lab keeps no progress, so the solve is not saved.") || strings.Contains(page.body, "are saved to your progress") {
		t.Errorf("without a store: want solved, no button and no promise to save:\n%s", excerpt(page.body))
	}
}
