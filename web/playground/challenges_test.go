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
	"github.com/idempotency-lab/lab/web/webtest"
)

// TestChallengeSolvedWithTheControls: a person opens a challenge, builds
// the solution with two step forms, and the list then shows it solved,
// with a link to the solution; the banner says solved all along.
func TestChallengeSolvedWithTheControls(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	v := webtest.NewVisitor(t, h)
	r := v.Get("/challenges/naive-twice")
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/lab?challenge=naive-twice" {
		t.Fatalf("short address: %d %q", r.Status, r.Header.Get("Location"))
	}
	page := v.Get("/lab?challenge=naive-twice")
	if page.Status != 200 || !strings.Contains(page.Body, `data-status="open"`) || !strings.Contains(page.Body, "Make naive credit the same top-up twice") {
		t.Fatalf("the challenge's lab page:\n%s", webtest.Excerpt(page.Body))
	}
	// The challenge's handlers are the cards.
	if got := cardNames(page.Body); strings.Join(got, ",") != "naive,unique" {
		t.Errorf("cards %v, want naive,unique", got)
	}
	loc := v.StepTo("/lab?challenge=naive-twice", url.Values{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"10000"}})
	if !strings.Contains(loc, "challenge=naive-twice") {
		t.Fatalf("the challenge is lost after a step: %q", loc)
	}
	if v.Profile() != "" {
		t.Error("a profile was minted before anything was solved")
	}
	loc = v.StepTo(loc, url.Values{"verb": {"deliver"}, "crash": {"before-ack"}})
	page = v.Get(loc)
	if !strings.Contains(page.Body, `data-status="solved"`) || !strings.Contains(page.Body, "Solved in 2 steps") {
		t.Fatalf("after the solution, the banner:\n%s", webtest.Excerpt(page.Body))
	}
	if v.Profile() == "" {
		t.Fatal("solving with the controls minted no profile")
	}
	list := v.Get("/challenges")
	if !strings.Contains(list.Body, `id="ch-naive-twice" data-challenge="naive-twice" data-solved="true"`) {
		t.Errorf("the list does not show naive-twice solved:\n%s", webtest.Excerpt(list.Body))
	}
	if !strings.Contains(list.Body, fmt.Sprintf("1 of %d solved", len(practice.Challenges()))) || !strings.Contains(list.Body, "Your solution (2 steps)") {
		t.Errorf("the list's count or solution link:\n%s", webtest.Excerpt(list.Body))
	}
	// A third step goes past the limit: reached, but too long.
	loc = v.StepTo(loc, url.Values{"verb": {"advance"}, "duration": {"1h"}})
	page = v.Get(loc)
	if !strings.Contains(page.Body, `data-status="toolong"`) || !strings.Contains(page.Body, "in 3 steps; this challenge allows 2") {
		t.Errorf("past the limit, the banner:\n%s", webtest.Excerpt(page.Body))
	}
	// The export carries the solve.
	exp := v.Get("/practice/export")
	if !strings.Contains(exp.Body, `"challenge": "naive-twice"`) {
		t.Errorf("the export lacks the solve:\n%s", exp.Body)
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
	h := webtest.NewServer(t)
	pub := "publish pay-1 amount=10000\n"
	for _, tc := range []struct {
		name, challenge, script, status, en, ru string
	}{
		{"nothing yet", "setnx-loses", "", "open", "Steps: 0 of at most 4", "Шагов: 0, можно не больше 4"},
		// Two steps take the Russian "few" form (за 2 шага), which the
		// message files give since they know plurals.
		{"solved", "setnx-loses", pub + "deliver crash=before-effect\n", "solved", "Solved in 2 steps", "Решено за 2 шага"},
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
				r := webtest.Get(t, h, target)
				if r.Status != 200 {
					t.Fatalf("%s: status %d\n%s", lang, r.Status, webtest.Excerpt(r.Body))
				}
				if !strings.Contains(r.Body, `data-status="`+tc.status+`"`) || !strings.Contains(html.UnescapeString(r.Body), want) {
					t.Errorf("%s: want status %s and %q\n%s", lang, tc.status, want, webtest.Excerpt(r.Body))
				}
			}
		})
	}
	// A handlers= list without the challenge's handler still shows it.
	r := webtest.Get(t, h, "/lab?challenge=inbox-quarantine&handlers=naive")
	if got := cardNames(r.Body); strings.Join(got, ",") != "inbox,naive" {
		t.Errorf("cards %v, want inbox first", got)
	}
}

func TestChallengeErrors(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	v := webtest.NewVisitor(t, h)
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
			var r webtest.Response
			if tc.method == "GET" {
				r = v.Get(tc.target)
			} else {
				r = v.Post(tc.target, tc.form)
			}
			if r.Status != tc.status || !strings.Contains(html.UnescapeString(r.Body), tc.want) {
				t.Errorf("status %d, want %d with %q\n%s", r.Status, tc.status, tc.want, webtest.Excerpt(r.Body))
			}
		})
	}
	if got := v.Get("/challenges"); !strings.Contains(got.Body, fmt.Sprintf("0 of %d solved", len(practice.Challenges()))) {
		t.Errorf("refused saves counted:\n%s", webtest.Excerpt(got.Body))
	}
}

// TestChallengeSaveByLink: a solution opened by a link is saved with the
// banner's button, once; saving it again changes nothing.
func TestChallengeSaveByLink(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	v := webtest.NewVisitor(t, h)
	script := "publish pay-1 amount=10000\nretry pay-1\n"
	page := v.Get("/lab?challenge=broker-id-is-not-a-key&s=" + link.Pack(script))
	if !strings.Contains(page.Body, `id="ch-save"`) {
		t.Fatalf("no save button on a solved challenge:\n%s", webtest.Excerpt(page.Body))
	}
	for range 2 {
		r := v.Post("/challenges/broker-id-is-not-a-key/solve", url.Values{"s": {link.Pack(script)}})
		if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/challenges?saved=broker-id-is-not-a-key") {
			t.Fatalf("save: %d %q\n%s", r.Status, r.Header.Get("Location"), webtest.Excerpt(r.Body))
		}
	}
	list := v.Get("/challenges?saved=broker-id-is-not-a-key&lang=ru")
	if !strings.Contains(list.Body, "Сохранено в вашем прогрессе: Id брокера — не ключ.") || !strings.Contains(list.Body, fmt.Sprintf("Решено 1 из %d", len(practice.Challenges()))) {
		t.Errorf("the list after saving:\n%s", webtest.Excerpt(list.Body))
	}
}

// TestChallengesWithoutProgress: a lab with no progress file still offers
// the challenges and judges them, and says that nothing is saved.
func TestChallengesWithoutProgress(t *testing.T) {
	h := webtest.NewServer(t)
	r := webtest.Get(t, h, "/challenges")
	if r.Status != 200 || !strings.Contains(r.Body, `id="ch-nostore"`) {
		t.Fatalf("status %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	r = webtest.Request(t, h, http.MethodPost, "/challenges/naive-twice/solve", url.Values{"s": {link.Pack("publish pay-1 amount=1\ndeliver crash=before-ack\n")}})
	if r.Status != http.StatusServiceUnavailable {
		t.Errorf("save without a store: status %d", r.Status)
	}
}

// TestChallengeTopicsAreLessons: every challenge links to a lesson that
// exists, in both languages.
func TestChallengeTopicsAreLessons(t *testing.T) {
	h := webtest.NewServer(t)
	for _, c := range practice.Challenges() {
		for _, lang := range []string{"en", "ru"} {
			if r := webtest.Get(t, h, "/lessons/"+c.Topic+"?lang="+lang); r.Status != 200 {
				t.Errorf("%s: lesson %s (%s): status %d", c.ID, c.Topic, lang, r.Status)
			}
		}
	}
}

// TestChallengeSetupWithTheControls: a challenge with a setup starts from
// its header (the retention the lesson is about), and the step controls
// keep it: publish, deliver, two days later the same payment again.
func TestChallengeSetupWithTheControls(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	v := webtest.NewVisitor(t, h)
	r := v.Get("/challenges/retention-too-short")
	loc := r.Header.Get("Location")
	if r.Status != http.StatusSeeOther || !strings.Contains(loc, "challenge=retention-too-short") || !strings.Contains(loc, "s=") {
		t.Fatalf("short address: %d %q", r.Status, loc)
	}
	page := v.Get(loc)
	if page.Status != 200 || !strings.Contains(page.Body, `data-status="open"`) || !strings.Contains(page.Body, "after 24 hours") {
		t.Fatalf("the challenge's lab page:\n%s", webtest.Excerpt(page.Body))
	}
	for _, step := range []url.Values{
		{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"10000"}},
		{"verb": {"deliver"}},
		{"verb": {"advance"}, "duration": {"2d"}},
		{"verb": {"retry"}, "target": {"acme pay-1"}},
	} {
		loc = v.StepTo(loc, step)
	}
	// Solved only if the steps kept the setup: without a retention the
	// inbox never forgets a key.
	page = v.Get(loc)
	if !strings.Contains(page.Body, `data-status="solved"`) || !strings.Contains(page.Body, "Solved in 4 steps") {
		t.Fatalf("after the solution, the banner:\n%s", webtest.Excerpt(page.Body))
	}
	if list := v.Get("/challenges"); !strings.Contains(list.Body, `id="ch-retention-too-short" data-challenge="retention-too-short" data-solved="true"`) {
		t.Errorf("the list does not show it solved:\n%s", webtest.Excerpt(list.Body))
	}
}

// TestChallengeForbiddenStep: the goal reached with a step the challenge
// rules out (its goal's without=) is not solved, and the banner names
// the step, in both languages.
func TestChallengeForbiddenStep(t *testing.T) {
	h := webtest.NewServer(t)
	script := "publish pay-1 amount=10000\ngateway timeout\ndeliver\n"
	for lang, want := range map[string]string{"en": "a step this challenge rules out (gateway)", "ru": "с шагом, который это задание запрещает (gateway)"} {
		r := webtest.Get(t, h, "/lab?challenge=done-key-expired&lang="+lang+"&s="+link.Pack(script))
		if r.Status != 200 || !strings.Contains(r.Body, `data-status="forbidden"`) || !strings.Contains(html.UnescapeString(r.Body), want) {
			t.Errorf("%s: status %d, want forbidden and %q\n%s", lang, r.Status, want, webtest.Excerpt(r.Body))
		}
	}
}

// TestChallengeSavedNotOfferedAgain: a solved challenge offers "Save to my
// progress" only while saving would change something (#28, item 8): not
// once the reader's progress holds a solve as short, and not in a lab
// that keeps no progress (the form would only answer 503).
func TestChallengeSavedNotOfferedAgain(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	v := webtest.NewVisitor(t, h)
	script := "publish pay-1 amount=10000\nretry pay-1\n"
	addr := "/lab?challenge=broker-id-is-not-a-key&s=" + link.Pack(script)
	if page := v.Get(addr); !strings.Contains(page.Body, `id="ch-save"`) || strings.Contains(page.Body, `id="ch-saved"`) {
		t.Fatalf("before saving: want the button and no note:\n%s", webtest.Excerpt(page.Body))
	}
	if r := v.Post("/challenges/broker-id-is-not-a-key/solve", url.Values{"s": {link.Pack(script)}}); r.Status != http.StatusSeeOther {
		t.Fatalf("save: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	for _, tc := range []struct{ lang, want string }{
		{"en", "Already in your progress (a solve in 2 steps)."},
		{"ru", "Уже в вашем прогрессе (решение, шагов: 2)."},
	} {
		// The same address as before saving: the cached page must not
		// be served to a reader whose progress changed.
		page := v.Get(addr + "&lang=" + tc.lang)
		if strings.Contains(page.Body, `id="ch-save"`) || !strings.Contains(html.UnescapeString(page.Body), tc.want) {
			t.Errorf("%s after saving: want no button and %q:\n%s", tc.lang, tc.want, webtest.Excerpt(page.Body))
		}
	}
	// Another reader, with no progress yet, is still offered the button.
	if page := webtest.NewVisitor(t, h).Get(addr); !strings.Contains(page.Body, `id="ch-save"`) {
		t.Errorf("a new reader gets no button:\n%s", webtest.Excerpt(page.Body))
	}
	// A lab without a progress file judges the challenge but offers no save.
	// Nor does its message promise that the solve is saved.
	page := webtest.Get(t, webtest.NewServer(t), addr)
	if !strings.Contains(page.Body, `data-status="solved"`) || strings.Contains(page.Body, `id="ch-save"`) ||
		!strings.Contains(page.Body, "This lab keeps no progress, so the solve is not saved.") || strings.Contains(page.Body, "are saved to your progress") {
		t.Errorf("without a store: want solved, no button and no promise to save:\n%s", webtest.Excerpt(page.Body))
	}
}
